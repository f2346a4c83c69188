-- What a user writes instead of DELAY.GROUP (a cap alone): the group's cap
-- in the queue's hash, where the workers' poll script reads it.
-- KEYS[1] queue, KEYS[2] hash, ARGV[1] group, ARGV[2] cap
redis.call('HSET', KEYS[2], 'cap:' .. ARGV[1], ARGV[2])
return 1
