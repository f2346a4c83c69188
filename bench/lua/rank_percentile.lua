-- What a user writes instead of RANK.PERCENTILE: the share of the board
-- ranked below a member, in whole percent rounded up, as
-- agoragames/leaderboard's percentile_for computes it, on integers (in
-- floats a whole percent can round up past itself).
-- KEYS[1] board, ARGV[1] member
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not rank then return false end
local members = redis.call('ZCARD', KEYS[1])
return math.floor(((members - rank - 1) * 100 + members - 1) / members)
