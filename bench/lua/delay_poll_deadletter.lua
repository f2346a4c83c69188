-- What a user writes instead of DELAY.POLL ... LEASE ... DEADLETTER: claim due
-- tasks into the in-flight set and count their deliveries; a task delivered
-- max times already goes to the dead-letter set instead. (It does not look
-- further for live tasks when it meets dead ones, which only spares it work.)
-- KEYS[1] queue, KEYS[2] in-flight, KEYS[3] dead, KEYS[4] deliveries;
-- ARGV[1] count, ARGV[2] lease ms, ARGV[3] max deliveries
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[1]))
local claimed = {}
for i = 1, #due, 2 do
  local task = due[i]
  redis.call('ZREM', KEYS[1], task)
  if tonumber(redis.call('ZSCORE', KEYS[4], task) or 0) >= tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[3], now, task)
    redis.call('ZREM', KEYS[4], task)
  else
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), task)
    redis.call('ZINCRBY', KEYS[4], 1, task)
    claimed[#claimed + 1] = {task, due[i + 1]}
  end
end
return claimed
