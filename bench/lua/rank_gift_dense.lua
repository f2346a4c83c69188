-- What a user writes instead of RANK.GIFT ... DENSE: the gift as
-- rank_gift.lua writes it, the board's index of distinct totals kept (the
-- new total entered, the old one removed when no member holds it any
-- more), and the member's dense rank: 1 + the distinct totals above.
-- KEYS[1] board, KEYS[2] totals index, ARGV[1] member, ARGV[2] amount
local epoch, span = 1704067200000, 2199023255552
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local before = score and math.floor(tonumber(score))
local total = (before or 0) + tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], total + (span - (now - epoch)) / (span + 1), ARGV[1])
redis.call('ZADD', KEYS[2], 'NX', total, total)
if before and before ~= total and redis.call('ZCOUNT', KEYS[1], before, '(' .. (before + 1)) == 0 then
  redis.call('ZREM', KEYS[2], before)
end
return {total, redis.call('ZCOUNT', KEYS[2], total + 1, '+inf') + 1}
