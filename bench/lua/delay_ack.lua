-- What a user writes instead of DELAY.ACK: remove the finished tasks from
-- the in-flight set, and their delivery counts when there are any.
-- KEYS[1] in-flight set, [KEYS[2] deliveries], ARGV the tasks
local removed = redis.call('ZREM', KEYS[1], unpack(ARGV))
if KEYS[2] and removed > 0 then redis.call('ZREM', KEYS[2], unpack(ARGV)) end
return removed
