-- What a user writes instead of RANK.GET (seed 004): the member's score, its
-- rank, and the total and time unpacked from the score's fraction.
-- KEYS[1] board, ARGV[1] member
local epoch, span = 1704067200000, 2199023255552
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
local s = tonumber(score)
local total = math.floor(s)
local reached = epoch + span - math.floor((s - total) * (span + 1))
return {total, redis.call('ZREVRANK', KEYS[1], ARGV[1]) + 1, reached}
