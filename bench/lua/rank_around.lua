-- What a user writes instead of RANK.AROUND: the member's rank, then the
-- page around it, highest first, each entry's rank (its position) and total
-- (the score's integer part).
-- KEYS[1] board, ARGV[1] member, ARGV[2] radius
local index = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not index then return {} end
local radius = tonumber(ARGV[2])
local start = math.max(index - radius, 0)
local rows = redis.call('ZRANGE', KEYS[1], start, index + radius, 'REV', 'WITHSCORES')
local page = {}
for i = 1, #rows, 2 do
  page[#page + 1] = {start + (i + 1) / 2, rows[i], math.floor(tonumber(rows[i + 1]))}
end
return page
