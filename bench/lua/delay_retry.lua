-- What a user writes instead of DELAY.RETRY (no DATA hash): each dead task
-- back into its queue, due now.
-- KEYS[1] dead set, KEYS[2] queue, ARGV the tasks
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local back = 0
for _, task in ipairs(ARGV) do
  if redis.call('ZREM', KEYS[1], task) == 1 then
    redis.call('ZADD', KEYS[2], now, task)
    back = back + 1
  end
end
return back
