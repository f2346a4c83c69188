-- What a user writes instead of DELAY.SCHEDULE (EVERY, with a payload): the
-- schedule's rule and payload in the queue's hash, and its first occurrence
-- (<id>@<ms>, due at START or now) in the queue with the payload beside it,
-- after taking out the occurrence a changed schedule replaces.
-- KEYS[1] queue, KEYS[2] hash, ARGV[1] id, ARGV[2] every-ms, ARGV[3] start,
-- ARGV[4] payload
local id = ARGV[1]
local pending = redis.call('HGET', KEYS[2], 'n:' .. id)
if pending then
  local task = id .. '@' .. pending
  redis.call('ZREM', KEYS[1], task)
  redis.call('HDEL', KEYS[2], 'p:' .. task)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local task = id .. '@' .. ARGV[3]
redis.call('HSET', KEYS[2], 's:' .. id, 'every ' .. ARGV[2], 't:' .. id, ARGV[4], 'n:' .. id, ARGV[3],
  'p:' .. task, ARGV[4])
redis.call('ZADD', KEYS[1], 'NX', math.max(tonumber(ARGV[3]), now), task)
return tonumber(ARGV[3])
