-- What a user writes instead of RANK.TOP: a page of the board, highest
-- first, each entry's rank (its position) and its total (the score's integer
-- part; the fraction is the first-come tie-break).
-- KEYS[1] board, ARGV[1] count, ARGV[2] offset
local start = tonumber(ARGV[2])
local rows = redis.call('ZRANGE', KEYS[1], start, start + tonumber(ARGV[1]) - 1, 'REV', 'WITHSCORES')
local page = {}
for i = 1, #rows, 2 do
  page[#page + 1] = {start + (i + 1) / 2, rows[i], math.floor(tonumber(rows[i + 1]))}
end
return page
