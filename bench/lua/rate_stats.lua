-- What a user writes instead of RATE.STATS: the log's size, its newest
-- hit, and how many hits each window holds.
-- KEYS[1] log, ARGV the windows in ms
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local windows = {}
for i, window in ipairs(ARGV) do
  windows[i] = {tonumber(window), redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(window)), '+inf')}
end
return {'entries', redis.call('ZCARD', KEYS[1]), 'newest-ms', newest[2] and tonumber(newest[2]) or false,
  'windows', windows}
