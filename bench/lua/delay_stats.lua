-- What a user writes instead of DELAY.STATS: the queue's size, how many
-- tasks are due and how long the oldest has waited, when the next falls
-- due, and the in-flight set's size and expired leases.
-- KEYS[1] queue, KEYS[2] in-flight set
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local age = 0
if oldest[2] and tonumber(oldest[2]) <= now then age = now - tonumber(oldest[2]) end
local later = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {'now-ms', now, 'tasks', redis.call('ZCARD', KEYS[1]),
  'due', redis.call('ZCOUNT', KEYS[1], '-inf', now), 'oldest-due-age-ms', age,
  'next-due-ms', later[2] and tonumber(later[2]) or false,
  'inflight', redis.call('ZCARD', KEYS[2]), 'expired', redis.call('ZCOUNT', KEYS[2], '-inf', now)}
