-- What a user writes instead of RECENT.ADD (seed 002, section 7): the seed's
-- LREM + LPUSH + LTRIM + EXPIRE, made atomic in a script.
-- KEYS[1] list, ARGV[1] member, ARGV[2] cap, ARGV[3] ttl seconds
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return redis.call('LLEN', KEYS[1])
