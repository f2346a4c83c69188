-- What a user writes instead of DELAY.TOUCH: extend a task's lease to now +
-- ms, if the lease still holds.
-- KEYS[1] in-flight set, ARGV[1] task, ARGV[2] ms
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease_end = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not lease_end or tonumber(lease_end) <= now then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
