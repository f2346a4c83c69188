-- What a user writes instead of RANK.COUNT: the members with a total from
-- min to max, both whole; a total t is scored in [t, t + 1).
-- KEYS[1] board, ARGV[1] min, ARGV[2] max
return redis.call('ZCOUNT', KEYS[1], ARGV[1], '(' .. (tonumber(ARGV[2]) + 1))
