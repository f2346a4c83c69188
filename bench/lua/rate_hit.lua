-- What a user writes instead of RATE.HIT (seed 002, anti-spam): the seed's
-- ZRANGEBYSCORE-then-ZADD check made atomic: drop the hits that left the
-- window, count, log the hit under a unique name if it fits, set the TTL.
-- KEYS[1] log, ARGV[1] window ms, ARGV[2] limit
local window, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, t[1] .. t[2] .. '-' .. count)
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, count + 1, limit - count - 1, -1}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, count, 0, tonumber(oldest[2]) + window - now}
