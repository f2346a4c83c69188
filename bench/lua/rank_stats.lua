-- What a user writes instead of RANK.STATS: the board's size, its top,
-- p99, p90, p50 and bottom totals (the nearest rank) and its memory.
-- KEYS[1] board
local n = redis.call('ZCARD', KEYS[1])
local function total_at(position)
  if n == 0 then return false end
  local found = redis.call('ZRANGE', KEYS[1], position, position, 'WITHSCORES')
  return math.floor(tonumber(found[2]))
end
local function quantile(q)
  return total_at(math.max(math.ceil(n * q), 1) - 1)
end
return {'members', n, 'top-total', total_at(n - 1), 'p99-total', quantile(0.99),
  'p90-total', quantile(0.9), 'p50-total', quantile(0.5), 'bottom-total', total_at(0),
  'memory-bytes', n > 0 and redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', 5) or 0}
