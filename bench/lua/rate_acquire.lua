-- What a user writes instead of RATE.ACQUIRE: a counting semaphore on a zset
-- of holders scored by the end of their lease. Ended leases go, a holder
-- renews its own, a new one gets a slot while fewer than the limit hold
-- one; the key lives as long as its latest lease.
-- KEYS[1] holders, ARGV[1] holder, ARGV[2] lease ms, ARGV[3] limit
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now}
end
local lease_end = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], lease_end, ARGV[1])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], latest[2])
return {1, lease_end}
