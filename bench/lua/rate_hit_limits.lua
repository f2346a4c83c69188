-- What a user writes instead of RATE.HIT with several limits: every limit
-- must allow the hit; reply the binding limit's verdict and its position
-- (refused: the longest wait; allowed: the least room left).
-- KEYS[1] log, ARGV window-ms limit pairs
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local widest = 0
for i = 1, #ARGV, 2 do widest = math.max(widest, tonumber(ARGV[i])) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - widest)
local refused, allowed
for i = 1, #ARGV, 2 do
  local window, limit = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local count = redis.call('ZCOUNT', KEYS[1], '(' .. (now - window), '+inf')
  local position = (i + 1) / 2
  if count >= limit then
    local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf',
      'WITHSCORES', 'LIMIT', count - limit, 1)
    local retry = tonumber(oldest[2]) + window - now
    if not refused or retry > refused[4] then refused = {0, count, 0, retry, position} end
  elseif not allowed or limit - count - 1 < allowed[3] then
    allowed = {1, count + 1, limit - count - 1, -1, position}
  end
end
if refused then return refused end
redis.call('ZADD', KEYS[1], now, t[1] .. t[2] .. '-' .. redis.call('ZCARD', KEYS[1]))
redis.call('PEXPIRE', KEYS[1], widest)
return allowed
