-- What a user writes instead of DELAY.SCHEDULES (schedules every N ms):
-- the hash read whole, the schedules' fields picked out, one row per
-- schedule by id: [id, every-ms, cron, tz, next-ms, payload].
-- KEYS[1] queue, KEYS[2] hash
local fields = redis.call('HGETALL', KEYS[2])
local by_field = {}
local ids = {}
for i = 1, #fields, 2 do
  local name = fields[i]
  by_field[name] = fields[i + 1]
  if string.sub(name, 1, 2) == 's:' then
    ids[#ids + 1] = string.sub(name, 3)
  end
end
table.sort(ids)
local rows = {}
for _, id in ipairs(ids) do
  local every = string.match(by_field['s:' .. id], '^every (%d+)$')
  local next_ms = by_field['n:' .. id]
  rows[#rows + 1] = { id, every and tonumber(every) or false, false, false, next_ms and tonumber(next_ms) or false,
    by_field['t:' .. id] or false }
end
return rows
