-- What a user writes instead of DELAY.PAUSE: a flag in the queue's hash,
-- set once, that the workers' poll script reads.
-- KEYS[1] queue, KEYS[2] hash
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('HSETNX', KEYS[2], 'paused', now)
