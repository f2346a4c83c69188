-- What a user writes instead of RANK.SET ... GT COLUMNS (a match board:
-- kills, then the lowest time): pack the two columns into one total
-- (kills * 3601 + (3600 - time), kills 0 to 1000, time 0 to 3600 s, both
-- checked), keep it only when it beats the member's best, with the
-- reached-at time in the fraction as rank_set_gt.lua writes it; reply the
-- total that stands, the rank and the columns.
-- KEYS[1] board, ARGV[1] member, ARGV[2] kills, ARGV[3] time
local epoch, span = 1704067200000, 2199023255552
local kills, time = tonumber(ARGV[2]), tonumber(ARGV[3])
if kills < 0 or kills > 1000 or time < 0 or time > 3600 then
  return redis.error_reply('ERR a column is out of range')
end
local total = kills * 3601 + (3600 - time)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local best = score and math.floor(tonumber(score))
if not best or total > best then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[1], total + (span - (now - epoch)) / (span + 1), ARGV[1])
  best = total
end
local rest = best % 3601
return {best, redis.call('ZREVRANK', KEYS[1], ARGV[1]) + 1, {(best - rest) / 3601, 3600 - rest}}
