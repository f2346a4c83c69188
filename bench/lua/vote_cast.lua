-- What a user writes instead of VOTE.CAST (seeds 002 and 003): read where the
-- voter stands, move them to where the vote says, change the score by the
-- difference (taking an old vote back on a switch), return the score, the
-- counts and whether anything changed.
-- KEYS[1] scores, KEYS[2] upvoters, KEYS[3] downvoters
-- ARGV[1] item, ARGV[2] voter, ARGV[3] UP|DOWN|CLEAR, ARGV[4] up weight, ARGV[5] down weight
local was_up = redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1
local was_down = redis.call('SISMEMBER', KEYS[3], ARGV[2]) == 1
local up, down = ARGV[3] == 'UP', ARGV[3] == 'DOWN'
local up_weight, down_weight = tonumber(ARGV[4]), tonumber(ARGV[5])
local delta = 0
if up ~= was_up then
  if up then
    redis.call('SADD', KEYS[2], ARGV[2])
    delta = delta + up_weight
  else
    redis.call('SREM', KEYS[2], ARGV[2])
    delta = delta - up_weight
  end
end
if down ~= was_down then
  if down then
    redis.call('SADD', KEYS[3], ARGV[2])
    delta = delta - down_weight
  else
    redis.call('SREM', KEYS[3], ARGV[2])
    delta = delta + down_weight
  end
end
local score, changed
if up ~= was_up or down ~= was_down then
  score, changed = redis.call('ZINCRBY', KEYS[1], delta, ARGV[1]), 1
else
  score, changed = redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0', 0
end
return {score, redis.call('SCARD', KEYS[2]), redis.call('SCARD', KEYS[3]), changed}
