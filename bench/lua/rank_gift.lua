-- What a user writes instead of RANK.GIFT (seed 004): read the score, add the
-- amount to its integer part, pack the server time into the fraction so equal
-- totals rank first-come, write it back, read the rank (with ARGV[3]
-- 'shared', the competition rank: 1 + the members with a higher total).
-- KEYS[1] board, ARGV[1] member, ARGV[2] amount[, ARGV[3] 'shared']
local epoch, span = 1704067200000, 2199023255552
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local total = (score and math.floor(tonumber(score)) or 0) + tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], total + (span - (now - epoch)) / (span + 1), ARGV[1])
if ARGV[3] == 'shared' then
  return {total, redis.call('ZCOUNT', KEYS[1], total + 1, '+inf') + 1}
end
return {total, redis.call('ZREVRANK', KEYS[1], ARGV[1]) + 1}
