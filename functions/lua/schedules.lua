-- Repeating jobs: DELAY.SCHEDULE, DELAY.UNSCHEDULE, DELAY.SCHEDULES, and
-- the step a claim takes when it claims an occurrence (`rt.schedules.advance`,
-- from delay.lua's polls); src/commands/schedules.rs, src/logic/schedule.rs.
--
-- A schedule's fields in the queue's DATA hash: `s:<id>` its rule (`every
-- <ms>`; the module also writes `cron <zone> <expression>`), `n:<id>` the
-- time of its pending occurrence, `t:<id>` the payload each occurrence
-- carries. An occurrence is the task `<id>@<unix ms>`.
--
-- The library serves EVERY rules. A cron rule needs a time-zone database,
-- which a script has not got: DELAY.SCHEDULE ... CRON is refused before
-- anything is read or written, and a cron schedule the module wrote does
-- not move on when the library claims its occurrence (docs/functions.md).

local call, int_text, arg_score = rt.call, rt.int_text, rt.arg_score
local job = rt.job

local schedules = {}
rt.schedules = schedules

local RULE, NEXT, PAYLOAD = 's:', 'n:', 't:'

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
-- time has passed), with the schedule's payload, and makes it the pending
-- one.
local function enqueue(queue, data, id, at_ms, now_ms)
  local task = occurrence_task(id, at_ms)
  if rt.zscore(queue, task) == nil then
    call('ZADD', queue, arg_score(job.arrival_at(queue, at_ms > now_ms and at_ms or now_ms)), task)
  end
  local payload = call('HGET', data, PAYLOAD .. id)
  if payload then
    call('HSET', data, job.PAYLOAD .. task, payload)
  end
  call('HSET', data, NEXT .. id, int_text(at_ms))
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
  if rule and not every_ms(rule) and rule:sub(1, 5) == 'cron ' then
    -- A cron rule the module wrote: only the module knows its next time.
    return
  end
  local ms = rule and every_ms(rule)
  local next = ms and next_on_grid(ms, at_ms, now_ms)
  if next then
    enqueue(queue, data, id, next, now_ms)
  else
    call('HDEL', data, NEXT .. id)
  end
end

-- -> the first occurrence's time.
handlers['delay.schedule'] = function(v)
  local queue, data, id, rule, zone, start, payload = v[1], v[2], v[3], v[4], v[5], v[6], v[7]
  if rule.choice == 2 then
    job.not_in_library('CRON', 'cron rules')
  end
  if zone ~= false then
    rt.fail(ERRORS.schedule_zone_without_cron)
  end
  local ms = tonumber(rule.value)
  if not (ms >= 1 and ms <= rt.MAX_DURATION_MS) then
    rt.out_of_range('EVERY', rt.bound.DURATION_MS)
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
  if payload ~= false then
    local limit = CONFIG['job-payload-max-bytes']
    if #payload > limit then
      rt.fail(rt.say(ERRORS.job_payload_too_large, { len = int_text(#payload), limit = int_text(limit) }))
    end
  end
  job.check_data_key(data, queue)
  call('HLEN', data)
  if rt.zcard(queue) > 0 then
    rt.check_delay_queue((rt.sample(queue, false)))
  end
  -- A change replaces the pending occurrence: the new rule's first one
  -- takes its place.
  remove_pending(queue, data, id)
  call('HSET', data, RULE .. id, 'every ' .. int_text(ms))
  if payload ~= false then
    call('HSET', data, PAYLOAD .. id, payload)
  else
    call('HDEL', data, PAYLOAD .. id)
  end
  enqueue(queue, data, id, start, now)
  return start
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
  remove_pending(queue, data, id)
  for _, part in ipairs({ RULE, NEXT, PAYLOAD }) do
    call('HDEL', data, part .. id)
  end
  return 1
end

-- -> `[[id, every-ms, cron, tz, next-ms, payload], ...]`, by id.
handlers['delay.schedules'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  local rules = {}
  for i = 1, #fields, 2 do
    if fields[i]:sub(1, 2) == RULE then
      rules[#rules + 1] = { fields[i]:sub(3), fields[i + 1] }
    end
  end
  table.sort(rules, function(a, b)
    return rt.compare_bytes(a[1], b[1]) < 0
  end)
  local rows = {}
  for _, found in ipairs(rules) do
    local id, rule = found[1], found[2]
    local ms = every_ms(rule)
    local zone, expression = rule:match('^cron (%S+) (.+)$')
    if ms or zone then
      local next = job.int_field(data, NEXT .. id)
      rows[#rows + 1] = {
        id,
        ms or rt.NULL,
        expression or rt.NULL,
        zone or rt.NULL,
        next or rt.NULL,
        call('HGET', data, PAYLOAD .. id) or rt.NULL,
      }
    end
  end
  return rows
end
