-- What a user writes instead of DELAY.ADD (tasks, no payloads): each task
-- into the queue at its due time (a time past is now) unless the queue
-- holds it already.
-- KEYS[1] queue, ARGV due-ms task pairs
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local added = {}
for i = 1, #ARGV, 2 do
  added[#added + 1] = redis.call('ZADD', KEYS[1], 'NX', math.max(tonumber(ARGV[i]), now), ARGV[i + 1])
end
return added
