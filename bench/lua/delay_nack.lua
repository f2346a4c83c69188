-- What a user writes instead of DELAY.NACK: hand a failed task back to its
-- queue, due after a delay, if its lease still holds.
-- KEYS[1] in-flight set, KEYS[2] queue, ARGV[1] task, ARGV[2] delay ms
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease_end = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not lease_end or tonumber(lease_end) <= now then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return 1
