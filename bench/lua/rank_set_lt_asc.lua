-- What a user writes instead of RANK.SET ... LT ASC (a lap board, the
-- lowest time first): keep the new total only when it beats the member's
-- best, the reached-at time in the fraction counting up (earlier, lower:
-- first among equal times), as rank_set_gt.lua counts it down; reply the
-- total that stands and the rank, lowest first.
-- KEYS[1] board, ARGV[1] member, ARGV[2] total
local epoch, span = 1704067200000, 2199023255552
local total = tonumber(ARGV[2])
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local best = score and math.floor(tonumber(score))
if not best or total < best then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[1], total + (now - epoch) / (span + 1), ARGV[1])
  best = total
end
return {best, redis.call('ZRANK', KEYS[1], ARGV[1]) + 1}
