-- What a user writes instead of RANK.MERGE (seed 002: daily boards summed
-- into a weekly one): each member's totals summed over the boards, times
-- their weights, with the tie-break fraction of its latest contribution
-- (the smallest), written to the destination in one go.
-- KEYS[1] destination, KEYS[2..] boards, ARGV the boards' weights (1 if absent)
local totals, fractions, order = {}, {}, {}
for k = 2, #KEYS do
  local weight = tonumber(ARGV[k - 1] or 1)
  local rows = redis.call('ZRANGE', KEYS[k], 0, -1, 'WITHSCORES')
  for i = 1, #rows, 2 do
    local member, score = rows[i], tonumber(rows[i + 1])
    local total = math.floor(score)
    if not totals[member] then
      order[#order + 1] = member
      totals[member], fractions[member] = 0, score - total
    end
    totals[member] = totals[member] + total * weight
    fractions[member] = math.min(fractions[member], score - total)
  end
end
redis.call('DEL', KEYS[1])
local args = {}
for _, member in ipairs(order) do
  args[#args + 1] = totals[member] + fractions[member]
  args[#args + 1] = member
  if #args == 1000 then
    redis.call('ZADD', KEYS[1], unpack(args))
    args = {}
  end
end
if #args > 0 then redis.call('ZADD', KEYS[1], unpack(args)) end
return #order
