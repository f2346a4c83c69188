-- What a user writes instead of DELAY.RESUME: the pause flag cleared.
-- KEYS[1] queue, KEYS[2] hash
return redis.call('HDEL', KEYS[2], 'paused')
