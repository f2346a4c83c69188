-- What a user writes instead of DELAY.UNSCHEDULE: the pending occurrence
-- out of the queue with its payload, and the schedule's fields out of the
-- hash; 0 when there is no such schedule.
-- KEYS[1] queue, KEYS[2] hash, ARGV[1] id
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[2], 's:' .. id) == 0 then
  return 0
end
local pending = redis.call('HGET', KEYS[2], 'n:' .. id)
if pending then
  local task = id .. '@' .. pending
  if redis.call('ZREM', KEYS[1], task) == 1 then
    redis.call('HDEL', KEYS[2], 'p:' .. task)
  end
end
redis.call('HDEL', KEYS[2], 's:' .. id, 'n:' .. id, 't:' .. id)
return 1
