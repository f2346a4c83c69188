-- Repeating jobs: DELAY.SCHEDULE, DELAY.UNSCHEDULE, DELAY.SCHEDULES, and
-- the step a claim takes when it claims an occurrence (`rt.schedules.advance`,
-- from delay.lua's polls); src/commands/schedules.rs, src/logic/schedule.rs.
--
-- A schedule's fields in the queue's DATA hash: `s:<id>` its rule (`every
-- <ms>` or `cron <zone> <expression>`), `n:<id>` the time of its pending
-- occurrence, `t:<id>` the payload each occurrence carries. An occurrence
-- is the task `<id>@<unix ms>`.
--
-- The library serves EVERY rules, and cron rules in any of the module's
-- time zones, with the module's offsets (ZONES, from its tz database) and
-- its rules for the hour a clock skips or repeats. A cron rule with the
-- cron parser's day extensions (`L`, `W`, `#`) is refused before anything
-- is read or written, and a cron schedule of that kind the module wrote
-- does not move on when the library claims its occurrence
-- (docs/functions.md).

local call, int_text = rt.call, rt.int_text
local job = rt.job

local schedules = {}
rt.schedules = schedules

-- ---------------------------------------------------------------------------
-- Cron rules in UTC, read as the module's parser reads them (the `croner`
-- crate, five fields, its strict ranges): the same matches, the same error
-- texts where the library reads the expression, and `unsupported` where it
-- does not.

local MINUTE_MS, DAY_MS = 60000, 86400000

-- The fields: minute, hour, day of month, month, day of week (0-7, 7 is
-- Sunday), each with its bounds.
local FIELDS = { { 0, 59 }, { 0, 23 }, { 1, 31 }, { 1, 12 }, { 0, 7 } }

-- The names the parser turns into numbers anywhere in the expression, in
-- its order.
local NAMES = {
  { '%-SUN', '-7' }, { 'SUN', '0' }, { 'MON', '1' }, { 'TUE', '2' }, { 'WED', '3' }, { 'THU', '4' },
  { 'FRI', '5' }, { 'SAT', '6' },
  { 'JAN', '1' }, { 'FEB', '2' }, { 'MAR', '3' }, { 'APR', '4' }, { 'MAY', '5' }, { 'JUN', '6' },
  { 'JUL', '7' }, { 'AUG', '8' }, { 'SEP', '9' }, { 'OCT', '10' }, { 'NOV', '11' }, { 'DEC', '12' },
}

-- What the library leaves to the module: the parser's day extensions, and
-- five fields with text beyond ASCII (whose upper case is Unicode's there).
local UNSUPPORTED, NOT_ASCII = {}, {}

-- The parser's shorthands, read before anything else.
local NICKNAMES = {
  ['@YEARLY'] = '0 0 1 1 *', ['@ANNUALLY'] = '0 0 1 1 *', ['@MONTHLY'] = '0 0 1 * *',
  ['@WEEKLY'] = '0 0 * * SUN', ['@DAILY'] = '0 0 * * *', ['@HOURLY'] = '0 * * * *',
}

-- A number as the parser reads one (Rust's u16), or nil.
local function number(text)
  if not text:find('^%d+$') then
    return nil
  end
  local n = tonumber(text)
  return n <= 65535 and n or nil
end

local function component_error(why)
  return nil, 'Component error: ' .. why
end

-- `first`-`last` as a range part reads it, or an error.
local function range_of(text, what)
  local a, b = text:match('^([^-]*)-([^-]*)$')
  if not a then
    return component_error(what == 'range' and 'Invalid range syntax.' or 'Invalid range syntax in stepping.')
  end
  local first, last = number(a), number(b)
  if not first then
    return component_error(what == 'range' and 'Invalid start of range.' or 'Invalid range start.')
  elseif not last then
    return component_error(what == 'range' and 'Invalid end of range.' or 'Invalid range end.')
  end
  return first, last
end

-- The values of one part of a field (`first`, `last`, `step`), or an
-- error: a text of the parser's, or UNSUPPORTED.
local function read_part(part, min, max)
  if part:find('[LW#]') then
    return nil, UNSUPPORTED
  end
  if part:find('/', 1, true) then
    local range, step_text = part:match('^([^/]*)/([^/]*)$')
    if not range then
      return component_error('Invalid stepped range syntax.')
    end
    local step = number(step_text)
    if not step then
      return component_error('Invalid step.')
    elseif step == 0 then
      return component_error('Step cannot be zero.')
    end
    local first, last
    if range == '*' then
      first, last = min, max
    elseif range:find('-', 1, true) then
      first, last = range_of(range, 'stepping')
      if not first then
        return nil, last
      end
    elseif range == '' then
      return component_error('Invalid step syntax: omitting the starting point like "/' .. step_text
        .. '" is not allowed. Use "*/' .. step_text .. '" for wildcard steps or "X-Y/' .. step_text
        .. '" for range steps.')
    else
      return component_error('Invalid step syntax: single number steps like "' .. range .. '/' .. step_text
        .. '" are not allowed. Use "*/' .. step_text .. '" for wildcard steps or "X-Y/' .. step_text
        .. '" for range steps.')
    end
    if first < min or last > max or first > last then
      return component_error('Range is out of bounds in stepping.')
    end
    return first, last, step
  elseif part:find('-', 1, true) then
    local first, last = range_of(part, 'range')
    if not first then
      return nil, last
    end
    if first > last or first < min or last > max then
      return component_error('Range out of bounds.')
    end
    return first, last, 1
  end
  local value = number(part)
  if not value then
    return component_error('Invalid number.')
  elseif value < min or value > max then
    return component_error('Number out of bounds.')
  end
  return value, value, 1
end

-- One field's matching values (a set), and whether it names one time as
-- the parser tells a fixed time: one value, no `*`, and a step of 1 in its
-- last stepped part (or none); or nil and an error.
local function read_field(text, bounds)
  local min, max = bounds[1], bounds[2]
  local set = {}
  if text == '*' then
    for value = min, max do
      set[value] = true
    end
    return set, false
  end
  local values, last_step, wildcard = 0, 1, false
  for part in (text .. ','):gmatch('([^,]*),') do
    if part ~= '' then
      local first, last, step = read_part(part, min, max)
      if not first then
        return nil, last
      end
      if part:find('/', 1, true) then
        last_step, wildcard = step, wildcard or part:sub(1, 2) == '*/'
      end
      for value = first, last, step do
        values = values + (set[value] and 0 or 1)
        set[value] = true
      end
    end
  end
  return set, values == 1 and last_step == 1 and not wildcard
end

-- The characters each field may hold (the parser's, `L`, `W`, `#` among
-- them, which read_part leaves to the module).
local ALLOWED = { '^[%d%*/,%-]*$', '^[%d%*/,%-]*$', '^[%d%*/,%-LW%?]*$', '^[%d%*/,%-]*$', '^[%d%*/,%-#L%?]*$' }

-- Whether a text holds a space of Unicode's beyond ASCII (in UTF-8), which
-- the module's parser splits fields at: U+0085, U+00A0, U+1680, U+2000 to
-- U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
local function unicode_space(text)
  return text:find('\194[\133\160]') or text:find('\225\154\128') or text:find('\226\128[\128-\138\168\169\175]')
    or text:find('\226\129\159') or text:find('\227\128\128')
end

-- A five-field cron expression, read: `{ sets, star_dom, star_dow,
-- dom_and_dow, fixed }` (fixed: one hour and one minute, a time of day),
-- or an error (a text of the parser's, UNSUPPORTED or NOT_ASCII).
local function read_cron(expression)
  local not_ascii = expression:find('[\128-\255]') ~= nil
  if not_ascii and unicode_space(expression) then
    return nil, NOT_ASCII
  end
  local text = expression:upper():match('^%s*(.-)%s*$')
  if text == '' then
    return nil, 'CronPattern cannot be an empty string.'
  end
  text = NICKNAMES[text] or text
  for _, name in ipairs(NAMES) do
    text = text:gsub(name[1], name[2])
  end
  local parts = {}
  for part in text:gmatch('%S+') do
    parts[#parts + 1] = part
  end
  if #parts ~= 5 then
    return nil, 'Invalid pattern: Pattern must have 5 fields when seconds are disallowed.'
  elseif not_ascii then
    return nil, NOT_ASCII
  end
  parts[3], parts[5] = parts[3]:gsub('%?', '*'), parts[5]:gsub('%?', '*')
  -- `+` before the day of week: both day fields must match.
  local dom_and_dow = parts[5]:sub(1, 1) == '+'
  if dom_and_dow then
    parts[5] = parts[5]:sub(2)
  end
  for i, part in ipairs(parts) do
    if not part:find(ALLOWED[i]) then
      local ch = part:sub(part:find('[^' .. ALLOWED[i]:sub(3, -4) .. ']'))
      return nil, "Pattern contains illegal characters: CronPattern contains illegal character '" .. ch
        .. "' in part '" .. part .. "'"
    end
  end
  local sets, fixed = {}, {}
  for i, part in ipairs(parts) do
    local set, why = read_field(part, FIELDS[i])
    if not set then
      return nil, why
    end
    sets[i], fixed[i] = set, why
  end
  sets[5][0] = sets[5][0] or sets[5][7]
  return {
    sets = sets, star_dom = parts[3] == '*', star_dow = parts[5] == '*', dom_and_dow = dom_and_dow,
    fixed = fixed[1] and fixed[2],
  }
end

-- The civil date of a day counted from 1970-01-01 (H. Hinnant's algorithm):
-- year, month, day of month.
local function civil(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local month = mp < 10 and mp + 3 or mp - 9
  return yoe + era * 400 + (month <= 2 and 1 or 0), month, doy - math.floor((153 * mp + 2) / 5) + 1
end

-- Whether a day matches: day of month and day of week as cron ORs them
-- when neither is `*` (ANDs them after a `+`).
local function day_matches(cron, day, weekday)
  local by_date, by_weekday = cron.sets[3][day] == true, cron.sets[5][weekday] == true
  if (by_date and cron.star_dow) or (by_weekday and cron.star_dom) then
    return true
  elseif cron.star_dom or cron.star_dow then
    return false
  elseif cron.dom_and_dow then
    return by_date and by_weekday
  end
  return by_date or by_weekday
end

-- The parser's search ends at any step it takes in the year 5000 or later
-- (to another day, hour or minute that matches): 5000-01-01 in unix ms.
local LAST_YEAR, LAST_YEAR_MS = 5000, 95617584000000
-- Enough days for any rule that matches at all: a 29 February may be eight
-- years away; one that needs a date and a weekday (`+`), such as a 29
-- February that is a Monday, forty, and the calendar repeats itself every
-- 400 years.
local MAX_DAYS, BOTH_DAYS_MAX_DAYS = 8 * 366 + 2, 146097 + 1

-- The parser's match in the year 5000, searching from after `after_ms`:
-- on the day it enters that year at (the day it starts from, or 1 January
-- at midnight), the first matching hour from its own on, and in its own
-- hour the first matching minute from its own on (its own only at second
-- 0); nil where it would take a step more.
local function in_the_last_year(cron, after_ms)
  local cursor = math.floor(after_ms / 1000) * 1000 + 1000
  if cursor < LAST_YEAR_MS then
    cursor = LAST_YEAR_MS
  end
  local day = math.floor(cursor / DAY_MS)
  local year, month, date = civil(day)
  if year ~= LAST_YEAR or not cron.sets[4][month] or not day_matches(cron, date, (day + 4) % 7) then
    return nil
  end
  local second_of_day = (cursor - day * DAY_MS) / 1000
  local hour, minute = math.floor(second_of_day / 3600), math.floor(second_of_day / 60) % 60
  local hours, minutes = cron.sets[2], cron.sets[1]
  for h = hour, 23 do
    if hours[h] then
      for m = h == hour and minute or 0, 59 do
        if minutes[m] then
          if h == hour and m == minute and second_of_day % 60 ~= 0 then
            return nil
          end
          return day * DAY_MS + h * 3600000 + m * MINUTE_MS
        end
      end
      return nil
    end
  end
  return nil
end

-- The first matching minute later than `after_ms`, on a clock that reads
-- unix time (UTC, or a zone's wall clock at one offset), or nil; with
-- `before_ms`, nil past the day that holds it (a caller checks the rest).
local function cron_after(cron, after_ms, before_ms)
  local from = (math.floor(after_ms / MINUTE_MS) + 1) * MINUTE_MS
  local day = math.floor(from / DAY_MS)
  local start_minute = (from - day * DAY_MS) / MINUTE_MS
  local hour0, minute0 = math.floor(start_minute / 60), start_minute % 60
  local minutes, hours, months = cron.sets[1], cron.sets[2], cron.sets[4]
  local last_day = day + (cron.dom_and_dow and BOTH_DAYS_MAX_DAYS or MAX_DAYS)
  if before_ms and math.floor(before_ms / DAY_MS) < last_day then
    last_day = math.floor(before_ms / DAY_MS)
  end
  while day <= last_day do
    local year, month, date = civil(day)
    if year >= LAST_YEAR then
      return in_the_last_year(cron, after_ms)
    end
    if not months[month] then
      -- To the first of the next month.
      local ahead = day + 32 - date
      day = ahead - (select(3, civil(ahead)) - 1)
      hour0, minute0 = 0, 0
    else
      if day_matches(cron, date, (day + 4) % 7) then
        for hour = hour0, 23 do
          if hours[hour] then
            for minute = hour == hour0 and minute0 or 0, 59 do
              if minutes[minute] then
                return day * DAY_MS + hour * 3600000 + minute * MINUTE_MS
              end
            end
          end
        end
      end
      day = day + 1
      hour0, minute0 = 0, 0
    end
  end
  return nil
end

-- ---------------------------------------------------------------------------
-- Time zones: a zone's offsets from 1970 on, decoded from ZONE_TABLES the
-- first time a call needs the zone, and kept (functions/zones.json says how
-- they are written).

local DIGIT, BASE = {}, #ZONE_DIGITS
for i = 1, BASE do
  DIGIT[ZONE_DIGITS:byte(i)] = i - 1
end
local decoded_zones = {}

-- Table `index`'s offsets: `{ starts, offsets }`, the unix second each
-- offset starts at (the first at 0) and its seconds east of UTC.
local function zone_table(index)
  local found = decoded_zones[index]
  if found then
    return found
  end
  local table_of = ZONE_TABLES[index]
  local records, starts, offsets = table_of[1], {}, {}
  for at = 1, #records, 6 do
    local a, b, c, d, e, offset = records:byte(at, at + 5)
    starts[#starts + 1] = (((DIGIT[a] * BASE + DIGIT[b]) * BASE + DIGIT[c]) * BASE + DIGIT[d]) * BASE + DIGIT[e]
    offsets[#offsets + 1] = ZONE_OFFSETS[DIGIT[offset] + 1]
  end
  if table_of[2] then
    local rest = zone_table(table_of[2])
    for i = table_of[3], #rest.starts do
      starts[#starts + 1], offsets[#offsets + 1] = rest.starts[i], rest.offsets[i]
    end
  end
  found = { starts = starts, offsets = offsets }
  decoded_zones[index] = found
  return found
end

-- What seasons.lua reads of a zone and of the calendar.
rt.zones = {
  offsets_of = function(name)
    return zone_table(ZONES[name])
  end,
  civil = civil,
}

-- How far past a skipped fixed time the parser looks for the clock's next
-- reading (two hours); a gap wider than that ends the schedule, as there.
local GAP_SEARCH_MS = 7200000

-- Whether the day a wall clock time falls on matches the rule's month and
-- days.
local function wall_day_matches(cron, wall_ms)
  local day = math.floor(wall_ms / DAY_MS)
  local _, month, date = civil(day)
  return cron.sets[4][month] and day_matches(cron, date, (day + 4) % 7)
end

-- The first time later than `after_ms` that a cron rule matches in a zone,
-- or nil: the parser's answer for the module's zones. Each offset's span
-- is searched on its own wall clock. When a clock is set back, a fixed
-- time of day (one hour, one minute) runs at the first of the two instants
-- that read it, any other rule at both; when a clock skips ahead, a fixed
-- time it skips runs at the first instant after the gap (if that day
-- matches), any other rule's skipped minutes do not run.
local function zone_cron_after(cron, zone, after_ms)
  local rules = zone_table(ZONES[zone])
  local starts, offsets = rules.starts, rules.offsets
  -- The parser counts from the second after `after_ms`.
  local from_s = math.floor(after_ms / 1000) + 1
  local k, high = 1, #starts
  while k < high do
    local middle = math.floor((k + high + 1) / 2)
    if starts[middle] <= from_s then
      k = middle
    else
      high = middle - 1
    end
  end
  while true do
    local offset, ends = offsets[k], starts[k + 1]
    if cron.fixed and k > 1 and offset > offsets[k - 1] and starts[k] >= from_s then
      -- The clock skipped ahead at starts[k]: a fixed time in the gap runs
      -- at its first instant.
      local gap_from, gap_ends = (starts[k] + offsets[k - 1]) * 1000, (starts[k] + offset) * 1000
      local skipped = cron_after(cron, gap_from - 1, gap_ends)
      if skipped and skipped < gap_ends then
        if gap_ends - skipped > GAP_SEARCH_MS then
          return nil
        elseif wall_day_matches(cron, gap_ends) then
          return starts[k] * 1000
        end
      end
    end
    local wall_from = (starts[k] > from_s and starts[k] or from_s) + offset
    if cron.fixed and k > 1 and offsets[k - 1] > offset and starts[k] + offsets[k - 1] > wall_from then
      -- The clock was set back: a fixed time already read before it runs
      -- no second time.
      wall_from = starts[k] + offsets[k - 1]
    end
    local wall_ends = ends and (ends + offset) * 1000
    local found = cron_after(cron, wall_from * 1000 - 1, wall_ends)
    if found and (not ends or found < wall_ends) then
      return found - offset * 1000
    elseif not ends then
      return nil
    end
    k = k + 1
  end
end

local RULE, NEXT, PAYLOAD = 's:', 'n:', 't:'

-- The fields up to which a hash is a listpack on a default server
-- (hash-max-listpack-entries).
local SMALL_HASH_FIELDS = 512

local function occurrence_task(id, at_ms)
  return id .. '@' .. int_text(at_ms)
end

-- The schedule id and occurrence time a task id names (`<id>@<digits>`,
-- split at the last '@', at most 16 digits), or nil.
local function occurrence_of(task)
  local at = task:find('@%d+$')
  if not at or #task - at > 16 then
    return nil
  end
  return task:sub(1, at - 1), tonumber(task:sub(at + 1))
end

-- The interval of an `every <ms>` rule (1 ms to 100 years), or nil for any
-- other text (a cron rule among them).
local function every_ms(rule)
  local ms = job.int_of(rule:match('^every (.*)$'))
  if ms and ms >= 1 and ms <= rt.MAX_DURATION_MS then
    return ms
  end
  return nil
end

-- A cron rule's zone and expression, as the module writes them, or nil.
local function cron_rule(rule)
  return rule:match('^cron ([^ ]*) (.*)$')
end

-- The occurrence after the one at `at_ms` of an interval of `ms`, claimed
-- at `now_ms`: the first point of its grid later than both (the missed
-- ones are skipped), or nil past the last due time a task can hold.
local function next_on_grid(ms, at_ms, now_ms)
  local after = at_ms > now_ms and at_ms or now_ms
  local next = at_ms + (math.floor((after - at_ms) / ms) + 1) * ms
  if next > LIMITS.JOB_MAX_DUE_MS then
    return nil
  end
  return next
end

-- Puts schedule `id`'s occurrence at `at_ms` in `queue` (due now when its
-- time has passed), with the schedule's payload (read from `data` when
-- nil; false: none), and makes it the pending one.
local function enqueue(queue, data, id, at_ms, now_ms, payload)
  local task = occurrence_task(id, at_ms)
  if rt.zscore(queue, task) == nil then
    call('ZADD', queue, job.arrival_at(queue, at_ms > now_ms and at_ms or now_ms), task)
  end
  if payload == nil then
    payload = call('HGET', data, PAYLOAD .. id)
  end
  if payload then
    call('HSET', data, job.PAYLOAD .. task, payload, NEXT .. id, int_text(at_ms))
  else
    call('HSET', data, NEXT .. id, int_text(at_ms))
  end
end

-- Removes schedule `id`'s pending occurrence from `queue`, with its data,
-- if it is still there; forgets it either way.
local function remove_pending(queue, data, id)
  local at_ms = job.int_field(data, NEXT .. id)
  if at_ms == nil then
    return
  end
  local task = occurrence_task(id, at_ms)
  if call('ZREM', queue, task) == 1 then
    job.delete_data(data, task)
  end
  call('HDEL', data, NEXT .. id)
end

-- After a claim took `task` from `queue` at `now_ms`: when it is the
-- pending occurrence of a schedule in `data`, the schedule's next
-- occurrence goes into `queue`. Any other task, a redelivered occurrence
-- among them, changes nothing.
function schedules.advance(queue, data, task, now_ms)
  local id, at_ms = occurrence_of(task)
  if not id or job.int_field(data, NEXT .. id) ~= at_ms then
    return
  end
  local rule = call('HGET', data, RULE .. id)
  local next, zone, expression
  if rule then
    zone, expression = cron_rule(rule)
  end
  if zone then
    local cron, why = read_cron(expression)
    if not ZONES[zone] or why == UNSUPPORTED or why == NOT_ASCII then
      -- A cron rule the module wrote, that only the module can follow.
      return
    end
    next = cron and zone_cron_after(cron, zone, at_ms > now_ms and at_ms or now_ms)
  else
    local ms = rule and every_ms(rule)
    next = ms and next_on_grid(ms, at_ms, now_ms)
  end
  if next then
    enqueue(queue, data, id, next, now_ms)
  else
    call('HDEL', data, NEXT .. id)
  end
end

-- -> the first occurrence's time.
handlers['delay.schedule'] = function(v)
  local queue, data, id, rule, zone, start, payload = v[1], v[2], v[3], v[4], v[5], v[6], v[7]
  local ms, cron, rule_text
  if rule.choice == 2 then
    local why
    cron, why = read_cron(rule.value)
    -- The module's order: the expression's error, then the zone's; then
    -- what only the module serves.
    if why and why ~= UNSUPPORTED and why ~= NOT_ASCII then
      rt.fail(rt.say(ERRORS.schedule_bad_cron, { why = why }))
    end
    zone = zone or 'UTC'
    if not ZONES[zone] then
      rt.fail(rt.say(ERRORS.schedule_unknown_zone, { zone = rt.utf8_lossy(zone) }))
    elseif why == UNSUPPORTED then
      job.not_in_library('CRON with L, W or #', "the cron parser's day extensions")
    elseif why == NOT_ASCII then
      job.not_in_library('CRON beyond ASCII', 'cron expressions beyond ASCII')
    end
    rule_text = 'cron ' .. zone .. ' ' .. rule.value
  else
    if zone ~= false then
      rt.fail(ERRORS.schedule_zone_without_cron)
    end
    ms = tonumber(rule.value)
    if not (ms >= 1 and ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('EVERY', rt.bound.DURATION_MS)
    end
    rule_text = 'every ' .. int_text(ms)
  end
  local now = rt.now_ms()
  if start ~= false then
    start = tonumber(start)
    if not (start >= 0 and start <= LIMITS.JOB_MAX_DUE_MS) then
      rt.out_of_range('START', rt.bound.DUE_MS)
    end
  else
    start = now
  end
  local first = start
  if cron then
    first = zone_cron_after(cron, zone, start - 1)
    if not first then
      rt.fail(ERRORS.schedule_never_matches)
    end
  end
  if payload ~= false then
    local limit = CONFIG['job-payload-max-bytes']
    if #payload > limit then
      rt.fail(rt.say(ERRORS.job_payload_too_large, { len = int_text(#payload), limit = int_text(limit) }))
    end
  end
  job.check_data_key(data, queue)
  call('HLEN', data)
  rt.check_delay_queue_key(queue)
  -- A change replaces the pending occurrence: the new rule's first one
  -- takes its place.
  remove_pending(queue, data, id)
  if payload ~= false then
    call('HSET', data, RULE .. id, rule_text, PAYLOAD .. id, payload)
  else
    call('HSET', data, RULE .. id, rule_text)
    call('HDEL', data, PAYLOAD .. id)
  end
  enqueue(queue, data, id, first, now, payload)
  return first
end

-- -> 1 when the schedule existed.
handlers['delay.unschedule'] = function(v)
  local queue, data, id = v[1], v[2], v[3]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  call('HLEN', data)
  if call('HEXISTS', data, RULE .. id) == 0 then
    return 0
  end
  -- The pending occurrence leaves with its data, and the schedule's
  -- fields with it, in one HDEL.
  local fields = { RULE .. id, NEXT .. id, PAYLOAD .. id }
  local at_ms = job.int_field(data, NEXT .. id)
  if at_ms ~= nil then
    local task = occurrence_task(id, at_ms)
    if call('ZREM', queue, task) == 1 then
      job.data_fields(task, fields)
    end
  end
  call('HDEL', data, unpack(fields))
  return 1
end

-- -> `[[id, every-ms, cron, tz, next-ms, payload], ...]`, by id.
handlers['delay.schedules'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  -- The listed schedules' pending times and payloads: in a small hash (a
  -- listpack on a default server, up to 512 fields) every field looked up
  -- is a scan of the whole hash, so they are taken from this read; in a
  -- larger one a lookup is cheap and comparing every job's field is not,
  -- so one HMGET reads them after.
  local small = #fields <= 2 * SMALL_HASH_FIELDS
  local rules, read = {}, {}
  for i = 1, #fields, 2 do
    local part = fields[i]:sub(1, 2)
    if part == RULE then
      rules[#rules + 1] = { fields[i]:sub(3), fields[i + 1] }
    elseif small and (part == NEXT or part == PAYLOAD) then
      read[fields[i]] = fields[i + 1]
    end
  end
  table.sort(rules, function(a, b)
    return rt.compare_bytes(a[1], b[1]) < 0
  end)
  local rows, pending = {}, {}
  for _, found in ipairs(rules) do
    local id, rule = found[1], found[2]
    local ms = every_ms(rule)
    local zone, expression = cron_rule(rule)
    if zone then
      local cron, why = read_cron(expression)
      if not ZONES[zone] or not cron and why ~= UNSUPPORTED and why ~= NOT_ASCII then
        -- The module does not list a rule it cannot read.
        zone = nil
      end
    end
    if ms or zone then
      rows[#rows + 1] = { id, ms or rt.NULL, expression or rt.NULL, zone or rt.NULL }
      pending[#pending + 1] = NEXT .. id
      pending[#pending + 1] = PAYLOAD .. id
    end
  end
  if #rows > 0 then
    local found
    if small then
      found = {}
      for i, field in ipairs(pending) do
        found[i] = read[field]
      end
    else
      found = rt.hmget(data, pending)
    end
    for i, row in ipairs(rows) do
      row[5] = job.int_of(found[2 * i - 1]) or rt.NULL
      row[6] = found[2 * i] or rt.NULL
    end
  end
  return rows
end
