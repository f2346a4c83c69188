-- The seed's recently-viewed list on a zset instead of a list, as a user
-- would script it: ZADD at the server time, trim to the cap by rank, EXPIRE.
-- (Views within one millisecond tie and are then ordered by member name.)
-- KEYS[1] list, ARGV[1] member, ARGV[2] cap, ARGV[3] ttl seconds
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
redis.call('EXPIRE', KEYS[1], ARGV[3])
return redis.call('ZCARD', KEYS[1])
