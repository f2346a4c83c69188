-- What a user writes instead of RANK.MGIFT: rank_gift.lua on every board of
-- the call (a room's daily, weekly and all-time boards), one reply per board.
-- KEYS the boards, ARGV[1] member, ARGV[2] amount
local epoch, span = 1704067200000, 2199023255552
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fraction = (span - (now - epoch)) / (span + 1)
local replies = {}
for i, board in ipairs(KEYS) do
  local score = redis.call('ZSCORE', board, ARGV[1])
  local total = (score and math.floor(tonumber(score)) or 0) + tonumber(ARGV[2])
  redis.call('ZADD', board, total + fraction, ARGV[1])
  replies[i] = {total, redis.call('ZREVRANK', board, ARGV[1]) + 1}
end
return replies
