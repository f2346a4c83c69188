-- What a user writes instead of DELAY.GROUPS (groups with a cap and a rate
-- limit): the hash read whole, the groups' fields picked out, one row per
-- group by name: [group, inflight, cap, rate-limit, window-ms, capped,
-- rate-limited], the claims of the log counted in the window.
-- KEYS[1] queue, KEYS[2] hash
local fields = redis.call('HGETALL', KEYS[2])
local by_field = {}
local groups = {}
for i = 1, #fields, 2 do
  local name = fields[i]
  by_field[name] = fields[i + 1]
  if string.sub(name, 1, 2) == 'c:' then
    groups[#groups + 1] = string.sub(name, 3)
  end
end
table.sort(groups)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rows = {}
for _, group in ipairs(groups) do
  local cap, limit, window = string.match(by_field['c:' .. group], '^(%d+) (%d+) (%d+)$')
  cap, limit, window = tonumber(cap), tonumber(limit), tonumber(window)
  local inflight = tonumber(by_field['i:' .. group] or '0')
  local claims = 0
  for at in string.gmatch(by_field['h:' .. group] or '', '%d+') do
    if tonumber(at) > now - window then
      claims = claims + 1
    end
  end
  rows[#rows + 1] = { group, inflight, cap, limit, window, (cap > 0 and inflight >= cap) and 1 or 0,
    (limit > 0 and claims >= limit) and 1 or 0 }
end
return rows
