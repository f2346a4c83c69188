-- What a user writes instead of RANK.SET ... GT (a best-score board): keep
-- the new total only when it beats the member's best, re-encoding the
-- reached-at time into the fraction as rank_gift.lua does; reply the total
-- that stands and the rank.
-- KEYS[1] board, ARGV[1] member, ARGV[2] total
local epoch, span = 1704067200000, 2199023255552
local total = tonumber(ARGV[2])
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local best = score and math.floor(tonumber(score))
if not best or total > best then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[1], total + (span - (now - epoch)) / (span + 1), ARGV[1])
  best = total
end
return {best, redis.call('ZREVRANK', KEYS[1], ARGV[1]) + 1}
