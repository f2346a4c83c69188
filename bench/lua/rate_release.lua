-- What a user writes instead of RATE.RELEASE: give the holder's slot back
-- when its lease has not ended.
-- KEYS[1] holders, ARGV[1] holder
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease_end = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not lease_end or tonumber(lease_end) <= now then
  return 0
end
return redis.call('ZREM', KEYS[1], ARGV[1])
