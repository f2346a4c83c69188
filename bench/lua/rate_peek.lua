-- What a user writes instead of RATE.PEEK: what the hit of RATE.HIT's
-- script would answer now, without logging it or dropping the hits that
-- left the window (a read: those are not counted).
-- KEYS[1] log, ARGV[1] window ms, ARGV[2] limit
local window, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local inside = '(' .. (now - window)
local count = redis.call('ZCOUNT', KEYS[1], inside, '+inf')
if count < limit then
  return {1, count + 1, limit - count - 1, -1}
end
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], inside, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {0, count, 0, tonumber(oldest[2]) + window - now}
