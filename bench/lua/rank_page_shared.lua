-- What a user writes instead of RANK.TOP / RANK.AROUND ... SHARED: a page of
-- the board, highest first, with competition ranks computed the cheap way
-- (one ZCOUNT for the first entry; then equal totals share the rank above and
-- a lower total ranks at its position).
-- KEYS[1] board, ARGV[1] count, ARGV[2] offset; or, for the page around a
-- member, ARGV[1] 'around', ARGV[2] member, ARGV[3] radius.
local start, stop
if ARGV[1] == 'around' then
  local index = redis.call('ZREVRANK', KEYS[1], ARGV[2])
  if not index then return {} end
  start, stop = math.max(index - tonumber(ARGV[3]), 0), index + tonumber(ARGV[3])
else
  start = tonumber(ARGV[2])
  stop = start + tonumber(ARGV[1]) - 1
end
local rows = redis.call('ZRANGE', KEYS[1], start, stop, 'REV', 'WITHSCORES')
local page, rank, above = {}, 0, nil
for i = 1, #rows, 2 do
  local total = math.floor(tonumber(rows[i + 1]))
  if i == 1 then
    rank = redis.call('ZCOUNT', KEYS[1], total + 1, '+inf') + 1
  elseif total ~= above then
    rank = start + (i + 1) / 2
  end
  above = total
  page[#page + 1] = {rank, rows[i], total}
end
return page
