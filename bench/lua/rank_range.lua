-- What a user writes instead of RANK.RANGE: a page of the members with a
-- total from max down to min, each with its rank on the whole board (the
-- members above the band, plus its place in the band).
-- KEYS[1] board, ARGV[1] max, ARGV[2] min, ARGV[3] offset, ARGV[4] count
local above = '(' .. (tonumber(ARGV[1]) + 1)
local page = redis.call('ZREVRANGEBYSCORE', KEYS[1], above, ARGV[2], 'WITHSCORES', 'LIMIT', ARGV[3], ARGV[4])
local first = redis.call('ZCOUNT', KEYS[1], above, '+inf') + tonumber(ARGV[3])
local out = {}
for i = 1, #page, 2 do
  out[#out + 1] = {first + (i + 1) / 2, page[i], math.floor(tonumber(page[i + 1]))}
end
return out
