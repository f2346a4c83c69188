-- DELAY: a delayed-task queue with leases and dead letters
-- (src/commands/delay.rs, src/logic/delay.rs). DELAY.BPOLL blocks, which a
-- script cannot: workers call DELAY.POLL and wait between empty polls.

local int_text, arg_score = rt.int_text, rt.arg_score
local MAX_DEAD_PER_POLL = 1000
local LEASE_OUT_OF_RANGE = function()
  rt.out_of_range('lease', rt.bound.DURATION_MS)
end

-- The most a LIMIT asks for: any count above a sorted set's size is as good.
local LIMIT_CAP = rt.TWO_53

local function limit_text(count)
  if count > LIMIT_CAP then
    count = LIMIT_CAP
  end
  return int_text(count)
end

-- A queue and the sorted sets its lease names.
local function queue_of(key, lease)
  local queue = {}
  -- Up to `count` tasks due at `due`, earliest first: {{task, due}, ...}.
  function queue.due(due, count)
    return rt.pairs_of(rt.call('ZRANGE', key, '-inf', arg_score(due), 'BYSCORE', 'LIMIT', '0', limit_text(count), 'WITHSCORES'))
  end
  function queue.earliest()
    local first = rt.call('ZRANGE', key, '0', '0', 'WITHSCORES')
    return first[2] and tonumber(first[2]) or nil
  end
  local function names(tasks)
    local out = {}
    for i, task in ipairs(tasks) do
      out[i] = task[1]
    end
    return out
  end
  function queue.take(tasks)
    rt.members_call('ZREM', key, names(tasks))
  end
  -- The tasks scored `score` alike, for ZADD.
  local function scored(tasks, score)
    local out = {}
    for i, task in ipairs(tasks) do
      out[i] = { task[1], score }
    end
    return out
  end
  function queue.lease(tasks, until_ms)
    rt.zadd_pairs(lease.inflight, scored(tasks, until_ms))
  end
  function queue.deliveries(tasks)
    local counts = {}
    for i, task in ipairs(tasks) do
      counts[i] = rt.zscore(lease.deliveries, task[1]) or 0
    end
    return counts
  end
  function queue.count_delivery(tasks)
    for _, task in ipairs(tasks) do
      rt.call('ZINCRBY', lease.deliveries, '1', task[1])
    end
  end
  function queue.bury(tasks, now_ms)
    rt.zadd_pairs(lease.dead, scored(tasks, now_ms))
    rt.members_call('ZREM', lease.deliveries, names(tasks))
  end
  return queue
end

-- Due tasks split into those to deliver (up to count) and those delivered
-- max_deliveries times already (logic/delay.rs `sort_out_dead`).
local function sort_out_dead(queue, due, count, max_deliveries)
  local live, dead = {}, {}
  local seen, limit = 0, count
  while true do
    local batch = queue.due(due, limit)
    local exhausted = #batch < limit
    local fresh = {}
    for i = seen + 1, #batch do
      fresh[#fresh + 1] = batch[i]
    end
    seen = seen + #fresh
    local deliveries = queue.deliveries(fresh)
    for i, task in ipairs(fresh) do
      if #live == count or #dead == MAX_DEAD_PER_POLL then
        return live, dead
      end
      if deliveries[i] >= max_deliveries then
        dead[#dead + 1] = task
      else
        live[#live + 1] = task
      end
    end
    if exhausted or #live == count or #dead == MAX_DEAD_PER_POLL then
      return live, dead
    end
    limit = limit * 2
  end
end

-- Claims up to `count` due tasks at `now_ms` (logic/delay.rs `claim`).
local function claim(queue, now_ms, count, lease)
  local due = now_ms
  local live, dead
  if lease and lease.max_deliveries then
    live, dead = sort_out_dead(queue, due, count, lease.max_deliveries)
  else
    live, dead = queue.due(due, count), {}
  end
  if #dead > 0 then
    queue.take(dead)
    queue.bury(dead, now_ms)
  end
  if #live == 0 then
    return nil
  end
  queue.take(live)
  if lease then
    queue.lease(live, lease.until_ms)
    if lease.max_deliveries then
      queue.count_delivery(live)
    end
  end
  return live
end

-- -> `[[member, due-ms], ...]`.
handlers['delay.poll'] = function(v)
  local key, count, lease_given, dead_letter = v[1], v[2], v[3], v[4]
  count = count == false and 1 or rt.positive(count, 'count')
  local max_deliveries
  if dead_letter ~= false then
    max_deliveries = rt.positive(dead_letter[3], 'max-deliveries')
  end
  local lease
  if lease_given ~= false then
    local ms = tonumber(lease_given[2])
    if not (ms >= 1 and ms <= rt.MAX_DURATION_MS) then
      LEASE_OUT_OF_RANGE()
    end
    lease = { inflight = lease_given[1], ms = ms, max_deliveries = max_deliveries }
    if dead_letter ~= false then
      lease.dead, lease.deliveries = dead_letter[1], dead_letter[2]
    end
  elseif dead_letter ~= false then
    rt.fail('ERR DEADLETTER needs LEASE: only leased tasks are delivered again')
  end
  if lease then
    rt.zcard(lease.inflight)
    if lease.dead then
      local tasks = { [key] = true, [lease.inflight] = true }
      if tasks[lease.dead] or tasks[lease.deliveries] or lease.dead == lease.deliveries then
        rt.fail('ERR the dead-letter and deliveries sets must differ from the queue, the in-flight set and each other')
      end
      rt.zcard(lease.dead)
      rt.zcard(lease.deliveries)
    end
  end
  -- Due times, not another family's scores: a gift board's totals would all
  -- be due, and claimed away.
  if rt.zcard(key) > 0 then
    rt.check_delay_queue((rt.sample(key, false)))
  end
  local now = rt.now_ms()
  if lease then
    lease.until_ms = rt.deadline(now, lease.ms)
    if lease.until_ms == nil then
      LEASE_OUT_OF_RANGE()
    end
  end
  local tasks = claim(queue_of(key, lease), now, count, lease)
  local reply = {}
  for i, task in ipairs(tasks or {}) do
    reply[i] = { task[1], rt.double(task[2]) }
  end
  return reply
end

-- -> how many were in flight.
handlers['delay.ack'] = function(v)
  local inflight, deliveries, tasks = v[1], v[2], v[3]
  if deliveries ~= false then
    rt.zcard(deliveries)
  end
  -- The tasks in flight, each once, removed in one ZREM.
  local removed, named = {}, {}
  if rt.zcard(inflight) > 0 then
    for _, task in ipairs(tasks) do
      if not named[task] and rt.zscore(inflight, task) ~= nil then
        removed[#removed + 1] = task
      end
      named[task] = true
    end
  end
  if #removed == 0 then
    return 0
  end
  rt.members_call('ZREM', inflight, removed)
  -- Only the counts of tasks that were in flight: a task handed back with
  -- DELAY.NACK keeps counting towards its dead letter.
  if deliveries ~= false then
    rt.members_call('ZREM', deliveries, removed)
  end
  return #removed
end

-- The lease is held while it ends after now.
local function is_held(lease_end, now_ms)
  return lease_end ~= nil and lease_end > now_ms
end

-- -> 1 when moved, else 0.
handlers['delay.nack'] = function(v)
  local inflight, queue, task, delay_ms = v[1], v[2], v[3], tonumber(v[4])
  local now = rt.now_ms()
  local due
  if delay_ms == 0 then
    due = now
  else
    due = rt.deadline(now, delay_ms)
  end
  if due == nil then
    rt.out_of_range('delay', rt.bound.DELAY_MS)
  end
  rt.zcard(queue)
  local lease_end = rt.zcard(inflight) > 0 and rt.zscore(inflight, task) or nil
  if not is_held(lease_end, now) then
    return 0
  end
  if inflight ~= queue then
    rt.call('ZREM', inflight, task)
  end
  rt.call('ZADD', queue, int_text(due), task)
  return 1
end

-- -> 1 when the lease was extended, else 0.
handlers['delay.touch'] = function(v)
  local inflight, task, ms = v[1], v[2], tonumber(v[3])
  local now = rt.now_ms()
  local until_ms = rt.deadline(now, ms)
  if until_ms == nil then
    LEASE_OUT_OF_RANGE()
  end
  local lease_end = rt.zscore(inflight, task)
  if not is_held(lease_end, now) then
    return 0
  end
  rt.call('ZADD', inflight, int_text(until_ms), task)
  return 1
end

-- How long a queue's earliest task has been due at now (0 before it is); a
-- task scored below 0 counts as due since the unix epoch.
local function due_age_ms(earliest, now_ms)
  if earliest > now_ms then
    return 0
  end
  return now_ms - math.ceil(earliest > 0 and earliest or 0)
end

-- The next due time of a score above now, in whole ms; nil for +inf and
-- scores past any unix-ms clock.
local function due_time_ms(score)
  if score == score and score ~= math.huge and score ~= -math.huge and score < rt.TWO_53 then
    return math.ceil(score)
  end
  return rt.NULL
end

-- -> `[now-ms, tasks, due, oldest-due-age-ms, next-due-ms, inflight,
-- expired, dead, redelivered]` by name.
handlers['delay.stats'] = function(v)
  local queue, inflight, dead, deliveries = v[1], v[2], v[3], v[4]
  local tasks = rt.zcard(queue)
  local function set_len(key)
    return key ~= false and rt.zcard(key) or rt.NULL
  end
  local inflight_len, dead_len = set_len(inflight), set_len(dead)
  set_len(deliveries)
  local now = rt.now_ms()
  local due = now
  local earliest, next_due
  if tasks > 0 then
    local first = rt.call('ZRANGE', queue, '0', '0', 'WITHSCORES')
    earliest = first[2] and tonumber(first[2])
    local later = rt.call('ZRANGE', queue, '(' .. arg_score(due), '+inf', 'BYSCORE', 'LIMIT', '0', '1', 'WITHSCORES')
    next_due = later[2] and tonumber(later[2])
  end
  local function count(key, min, max)
    return rt.call('ZCOUNT', key, min, max)
  end
  local due_now = 0
  if earliest ~= nil and earliest <= due then
    due_now = count(queue, '-inf', arg_score(due))
  end
  local expired = inflight ~= false and count(inflight, '-inf', arg_score(due)) or rt.NULL
  local redelivered = deliveries ~= false and count(deliveries, '2', '+inf') or rt.NULL
  return {
    'now-ms', now,
    'tasks', tasks,
    'due', due_now,
    'oldest-due-age-ms', earliest ~= nil and due_age_ms(earliest, now) or 0,
    'next-due-ms', next_due ~= nil and due_time_ms(next_due) or rt.NULL,
    'inflight', inflight_len,
    'expired', expired,
    'dead', dead_len,
    'redelivered', redelivered,
  }
end
