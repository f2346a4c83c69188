-- What a user writes instead of VOTE.STATE: 1 when the voter voted up, -1
-- down, 0 neither.
-- KEYS[1] upvoters, KEYS[2] downvoters, ARGV[1] voter
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return -1 end
return 0
