-- What a user writes instead of DELAY.POLL (seed 001): the seed's
-- ZRANGEBYSCORE -inf now + ZREM, made atomic in a script so no task is
-- claimed twice; with an in-flight key, the claimed tasks move there scored
-- by the end of their lease; with a dead-letter set and a deliveries set too,
-- each delivery is counted, and a task delivered max times already goes to
-- the dead-letter set instead (not looking further for live tasks, which
-- only spares the script work).
-- KEYS[1] queue, [KEYS[2] in-flight, [KEYS[3] dead, KEYS[4] deliveries]],
-- ARGV[1] count, [ARGV[2] lease ms, [ARGV[3] max deliveries]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[1]))
local claimed = {}
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  if KEYS[4] and tonumber(redis.call('ZSCORE', KEYS[4], due[i]) or 0) >= tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[3], now, due[i])
    redis.call('ZREM', KEYS[4], due[i])
  else
    if KEYS[2] then
      redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), due[i])
    end
    if KEYS[4] then
      redis.call('ZINCRBY', KEYS[4], 1, due[i])
    end
    claimed[#claimed + 1] = {due[i], due[i + 1]}
  end
end
return claimed
