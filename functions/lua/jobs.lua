-- Jobs: DELAY tasks that carry their data in a hash beside the queue (its
-- DATA key; src/commands/jobs.rs, src/logic/jobs.rs). DELAY.ADD, DELAY.JOB,
-- DELAY.RETRY, DELAY.PAUSE and DELAY.RESUME; the DATA options of POLL, ACK,
-- NACK and STATS are in delay.lua, which reads the helpers put on `rt.job`.

local call, int_text = rt.call, rt.int_text

local job = {}
rt.job = job

-- 2^63: a count read from a score saturates at the 64-bit bounds (the
-- module's `as i64`). A reply's integer goes through a double, which cannot
-- hold 2^63 - 1: the library's replies stop at the largest double below it
-- (docs/functions.md, "Where the library differs").
local TWO_63 = 9223372036854775808
local LARGEST_REPLY = 9223372036854774784

-- A task's fields: a one-letter tag, ':' and the task id (logic/jobs.rs
-- `Field`); the queue's own state is in a field without that shape.
job.PAYLOAD, job.DEADLINE, job.REASON, job.DIED_WITH, job.WORKER = 'p:', 'x:', 'r:', 'd:', 'w:'
job.GROUP = 'g:'
job.PAUSED = 'paused'
local ALL_FIELDS = { job.PAYLOAD, job.DEADLINE, job.REASON, job.DIED_WITH, job.WORKER, job.GROUP }

-- The names of every field a task may have, appended to `fields`.
function job.data_fields(task, fields)
  for _, tag in ipairs(ALL_FIELDS) do
    fields[#fields + 1] = tag .. task
  end
  return fields
end

-- Every field of the task goes: it is done, or forgotten. One HDEL: each
-- call costs the script more than the fields it names.
function job.delete_data(data, task)
  call('HDEL', data, unpack(job.data_fields(task, {})))
end

-- A text's integer, as Rust's `str::parse::<i64>` reads it (a sign, digits,
-- leading zeros allowed), or nil when it holds none (or is nil).
function job.int_of(text)
  if not text then
    return nil
  end
  local sign, digits = text:match('^([+-]?)(%d+)$')
  if not digits then
    return nil
  end
  digits = digits:match('^0*(%d-)$')
  if #digits > 19 or (#digits == 19 and rt.compare_bytes(digits,
      sign == '-' and '9223372036854775808' or '9223372036854775807') > 0) then
    return nil
  end
  local value = tonumber(text)
  return value >= TWO_63 and LARGEST_REPLY or value
end

-- A field's integer (`job.int_of`), or nil when the field is absent.
function job.int_field(data, field)
  return job.int_of(call('HGET', data, field))
end

-- What the library refuses where the module serves it (docs/functions.md,
-- "Where the library differs"): `what` (a command or an option) and the
-- feature it belongs to.
function job.not_in_library(what, feature)
  rt.fail('ERR ' .. what .. ' is not in the Functions library: ' .. feature .. ' need the zkit module')
end

-- How many groups of the queue whose data is `data` are at their cap.
function job.capped_groups(data)
  return job.int_field(data, 'capped') or 0
end

-- Whether the queue whose data is `data` is paused.
function job.is_paused(data)
  return call('HEXISTS', data, job.PAUSED) == 1
end

-- A score as the count the module reads from it (toward zero, saturated),
-- for a reply, or nil.
function job.count_of(score)
  if score == nil then
    return nil
  elseif score >= TWO_63 then
    return LARGEST_REPLY
  elseif score <= -TWO_63 then
    return -TWO_63
  end
  return score < 0 and -math.floor(-score) or math.floor(score)
end

-- The text of that count, exact, for a field's value.
function job.count_text(score)
  if score >= TWO_63 then
    return '9223372036854775807'
  elseif score <= -TWO_63 then
    return '-9223372036854775808'
  end
  return int_text(job.count_of(score))
end

-- Refuses a DATA hash that is also one of the call's sorted sets (`...`:
-- keys, false or nil where not named): one key cannot hold both.
function job.check_data_key(data, ...)
  for i = 1, select('#', ...) do
    if data == select(i, ...) then
      rt.fail(ERRORS.job_shared_data_key)
    end
  end
end

function job.needs_data(option)
  rt.fail(rt.say(ERRORS.job_needs_data, { option = option }))
end

-- The double just above x (x >= 0, finite): x plus the gap between doubles
-- at x, which is at least the smallest double (4.9e-324).
local function next_up(x)
  local smallest = math.ldexp(1, -1074)
  if x == 0 then
    return smallest
  end
  local _, exponent = math.frexp(x)
  local step = math.ldexp(1, exponent - 53)
  if step < smallest then
    step = smallest
  end
  return x + step
end

-- The score of a task added due at `due_ms` to a queue whose highest score
-- within that millisecond is `latest` (logic/jobs.rs `arrival_score`).
local function arrival_score(due_ms, latest)
  if latest ~= nil and latest >= due_ms then
    local next = next_up(latest)
    if next < due_ms + 1 then
      return next
    end
    return latest
  end
  return due_ms
end

-- The highest score a queue holds within the millisecond `due_ms`.
local function latest_in_millisecond(queue, due_ms)
  local top = call('ZRANGE', queue, '(' .. int_text(due_ms + 1), int_text(due_ms), 'BYSCORE', 'REV', 'LIMIT', '0',
    '1', 'WITHSCORES')
  return top[2] and tonumber(top[2]) or nil
end

-- The score of the next task added to `queue` due at `due_ms`.
function job.arrival_at(queue, due_ms)
  return arrival_score(due_ms, latest_in_millisecond(queue, due_ms))
end

local KEEP, REPLACE = 1, 2

-- -> per task: 1 added, 2 updated, 0 kept.
handlers['delay.add'] = function(v)
  local queue, data, inflight, rule, within, group, given = v[1], v[2], v[3], v[4], v[5], v[6], v[7]
  rule = rule == false and KEEP or rule.choice
  local with_payloads = given.choice == 2
  if with_payloads and data == false then
    job.needs_data('JOBS')
  end
  if within ~= false and data == false then
    job.needs_data('WITHIN')
  end
  if group ~= false then
    if data == false then
      job.needs_data('GROUP')
    end
  end
  local within_ms
  if within ~= false then
    within_ms = tonumber(within)
    if not (within_ms >= 1 and within_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('WITHIN', rt.bound.DURATION_MS)
    end
  end
  local limit = CONFIG['job-payload-max-bytes']
  local tasks = {}
  for i, item in ipairs(given.value) do
    local due = tonumber(item[1])
    if not (due >= 0 and due <= LIMITS.JOB_MAX_DUE_MS) then
      rt.out_of_range('due-ms', rt.bound.DUE_MS)
    end
    local payload = with_payloads and item[3] or nil
    if payload and #payload > limit then
      rt.fail(rt.say(ERRORS.job_payload_too_large, { len = int_text(#payload), limit = int_text(limit) }))
    end
    tasks[i] = { due = due, task = item[2], payload = payload }
  end
  if data ~= false then
    job.check_data_key(data, queue, inflight)
  end
  if inflight ~= false then
    rt.zcard(inflight)
  end
  if data ~= false then
    call('HLEN', data)
  end
  rt.check_delay_queue_key(queue)
  -- A due time in the past is due now: scored now, so tasks added to run at
  -- once come out in the order they were added.
  local now = rt.now_ms()
  local replies = {}
  for i, t in ipairs(tasks) do
    local task = t.task
    local added = 0
    if not (inflight ~= false and rt.zscore(inflight, task) ~= nil) then
      local due = t.due < now and now or t.due
      local score = job.arrival_at(queue, due)
      if rule == KEEP then
        -- A queued task stays as it is: ZADD NX adds only a new one, and
        -- says which it was, without a lookup first.
        added = call('ZADD', queue, 'NX', score, task)
      else
        local queued = rt.zscore(queue, task)
        if queued == nil then
          added = 1
        elseif rule == REPLACE then
          added = 2
        elseif math.floor(queued) < math.floor(score) then
          -- EXTEND: out, never in.
          added = 2
        end
        if added ~= 0 then
          call('ZADD', queue, score, task)
        end
      end
      if added ~= 0 then
        if data ~= false then
          -- The fields set, in one HSET, and the ones that go, in one HDEL.
          local set, gone = {}, {}
          if t.payload then
            set[#set + 1], set[#set + 2] = job.PAYLOAD .. task, t.payload
          end
          -- WITHIN counts from when the task is due: now, for a time past.
          local deadline = within_ms and rt.deadline(due, within_ms)
          if deadline then
            set[#set + 1], set[#set + 2] = job.DEADLINE .. task, int_text(deadline)
          else
            gone[#gone + 1] = job.DEADLINE .. task
          end
          if group ~= false then
            set[#set + 1], set[#set + 2] = job.GROUP .. task, group
          else
            gone[#gone + 1] = job.GROUP .. task
          end
          if #set > 0 then
            call('HSET', data, unpack(set))
          end
          if #gone > 0 then
            call('HDEL', data, unpack(gone))
          end
        end
      end
    end
    replies[i] = added
  end
  return replies
end

-- -> `[state, score, payload, deliveries, last-reason, deadline-ms, worker]`
-- by name.
handlers['delay.job'] = function(v)
  local queue, task, inflight, dead, deliveries, data = v[1], v[2], v[3], v[4], v[5], v[6]
  local state, score
  local sets = { { 'queued', queue }, { 'inflight', inflight }, { 'dead', dead } }
  local looked_up = 0
  for i, named in ipairs(sets) do
    looked_up = i
    if named[2] ~= false then
      score = rt.zscore(named[2], task)
      if score ~= nil then
        state = named[1]
        break
      end
    end
  end
  -- A key of another type refuses the call wherever the task is (nothing
  -- between raises another error, and every WRONGTYPE reads the same): a
  -- set looked up is checked by its lookup, the others here.
  for i = looked_up + 1, #sets do
    if sets[i][2] ~= false then
      rt.zcard(sets[i][2])
    end
  end
  if deliveries ~= false then
    rt.zcard(deliveries)
  end
  if data ~= false then
    call('HLEN', data)
  end
  local function field(tag)
    if data == false then
      return rt.NULL
    end
    return call('HGET', data, tag .. task) or rt.NULL
  end
  local function int(tag)
    return data ~= false and job.int_field(data, tag .. task) or nil
  end
  local delivered = deliveries ~= false and job.count_of(rt.zscore(deliveries, task)) or nil
  if state == 'dead' then
    local died_with = int(job.DIED_WITH)
    if died_with ~= nil then
      delivered = died_with
    end
  end
  local deadline = int(job.DEADLINE)
  return {
    'state', state or rt.NULL,
    'score', state and rt.double(score) or rt.NULL,
    'payload', field(job.PAYLOAD),
    'deliveries', delivered or rt.NULL,
    'last-reason', field(job.REASON),
    'deadline-ms', deadline or rt.NULL,
    'worker', field(job.WORKER),
  }
end

-- -> how many were dead.
handlers['delay.retry'] = function(v)
  local dead, queue, data, tasks = v[1], v[2], v[3], v[4]
  if data ~= false then
    job.check_data_key(data, dead, queue)
  end
  rt.zcard(queue)
  if data ~= false then
    call('HLEN', data)
  end
  -- The first lookup is the dead set's type check.
  local any_dead = false
  for _, task in ipairs(tasks) do
    if rt.zscore(dead, task) ~= nil then
      any_dead = true
      break
    end
  end
  if not any_dead then
    return 0
  end
  local now = rt.now_ms()
  local back = {}
  for _, task in ipairs(tasks) do
    if call('ZREM', dead, task) == 1 then
      back[#back + 1] = task
    end
  end
  for _, task in ipairs(back) do
    call('ZADD', queue, job.arrival_at(queue, now), task)
  end
  if data ~= false then
    for _, task in ipairs(back) do
      call('HDEL', data, job.DIED_WITH .. task)
    end
  end
  return #back
end

-- -> 1 when the queue was paused now, 0 when it was already.
handlers['delay.pause'] = function(v)
  local queue, data = v[1], v[2]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  if job.is_paused(data) then
    return 0
  end
  call('HSET', data, job.PAUSED, int_text(rt.now_ms()))
  return 1
end

-- -> 1 when the queue was resumed now, 0 when it was not paused.
handlers['delay.resume'] = function(v)
  local queue, data = v[1], v[2]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  if not job.is_paused(data) then
    return 0
  end
  call('HDEL', data, job.PAUSED)
  return 1
end
