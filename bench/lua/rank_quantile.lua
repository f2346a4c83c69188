-- What a user writes instead of RANK.QUANTILE: the total at a percentile,
-- interpolated between the totals at the two ascending positions around
-- (members - 1) * percentile / 100, as agoragames/leaderboard's
-- score_for_percentile computes it.
-- KEYS[1] board, ARGV[1] percentile
local members = redis.call('ZCARD', KEYS[1])
if members == 0 then return false end
local index = (members - 1) * tonumber(ARGV[1]) / 100
local function total_at(position)
  local found = redis.call('ZRANGE', KEYS[1], position, position, 'WITHSCORES')
  return math.floor(tonumber(found[2]))
end
local low, high = total_at(math.floor(index)), total_at(math.ceil(index))
return tostring(low + (high - low) * (index - math.floor(index)))
