-- What a user writes instead of RANK.REMOVE ... DENSE: the members' totals
-- read, the members removed, and each of those totals that no member holds
-- any more removed from the board's index of totals.
-- KEYS[1] board, KEYS[2] totals index, ARGV the members
local totals = {}
for _, member in ipairs(ARGV) do
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score then totals[#totals + 1] = math.floor(tonumber(score)) end
end
local removed = redis.call('ZREM', KEYS[1], unpack(ARGV))
for _, total in ipairs(totals) do
  if redis.call('ZCOUNT', KEYS[1], total, '(' .. (total + 1)) == 0 then
    redis.call('ZREM', KEYS[2], total)
  end
end
return removed
