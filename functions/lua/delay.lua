-- DELAY: a delayed-task queue with leases and dead letters
-- (src/commands/delay.rs, src/logic/delay.rs). DELAY.BPOLL blocks, which a
-- script cannot: workers call DELAY.POLL and wait between empty polls.

local int_text, arg_score = rt.int_text, rt.arg_score
local MAX_DEAD_PER_POLL = LIMITS.MAX_DEAD_PER_POLL
local MAX_SKIPPED_PER_POLL = LIMITS.MAX_SKIPPED_PER_POLL
local TRIM_SPARE, EXPIRED_REASON = LIMITS.JOB_TRIM_SPARE, LIMITS.JOB_EXPIRED_REASON
local job = rt.job
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

-- The tasks' names, and the tasks scored `score` alike (for ZADD).
local function names(tasks)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = task[1]
  end
  return out
end

local function scored(tasks, score)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = { task[1], score }
  end
  return out
end

-- A queue (`key`), the sorted sets its lease names (`lease`) and what the
-- poll does with its data (`jobs`: the DATA hash, WITHDATA, the WORKER).
local Queue = {}
Queue.__index = Queue

-- `admission`: with the queue's data, what the claim took of each group,
-- across its lanes (groups.lua).
local function queue_of(key, lease, jobs, admission)
  return setmetatable({ key = key, lease = lease, jobs = jobs, admission = admission }, Queue)
end

-- The queue is the in-flight set it leases into: every task it holds was
-- delivered before.
function Queue:polls_its_inflight_set()
  return self.lease ~= nil and self.lease.inflight == self.key
end

-- Whether the claim may take `task`: its group, if any, within its limits.
-- A redelivery from the in-flight set holds its group's slot already.
function Queue:admit(task)
  local enters = self.lease ~= nil and not self:polls_its_inflight_set()
  return self.admission:admit(self.jobs.data, task, enters)
end

-- The bound of the tasks due at `now_ms`, as ZRANGE BYSCORE reads it: a
-- task is due for the whole of its millisecond (logic/delay.rs `due_bound`,
-- the double just below now + 1).
local function due_bound(now_ms)
  return '(' .. int_text(now_ms + 1)
end

-- Up to `count` tasks due at `now_ms`, earliest first: {{task, due}, ...}.
function Queue:due(now_ms, count)
  return rt.pairs_of(rt.call('ZRANGE', self.key, '-inf', due_bound(now_ms), 'BYSCORE', 'LIMIT', '0',
    limit_text(count), 'WITHSCORES'))
end

-- A claim of one task (the usual poll) writes it without the lists of
-- names and pairs the calls of several build.
function Queue:take(tasks)
  if #tasks == 1 then
    rt.call('ZREM', self.key, tasks[1][1])
  else
    rt.members_call('ZREM', self.key, names(tasks))
  end
end

function Queue:lease_tasks(tasks, until_ms)
  if #tasks == 1 then
    rt.call('ZADD', self.lease.inflight, until_ms, tasks[1][1])
  else
    rt.zadd_pairs(self.lease.inflight, scored(tasks, until_ms))
  end
end

function Queue:deliveries(tasks)
  local counts = {}
  for i, task in ipairs(tasks) do
    counts[i] = rt.zscore(self.lease.deliveries, task[1]) or 0
  end
  return counts
end

function Queue:count_delivery(tasks)
  for _, task in ipairs(tasks) do
    rt.call('ZINCRBY', self.lease.deliveries, '1', task[1])
  end
end

-- Each task's not-started-by deadline (unix ms), or false.
function Queue:deadlines(tasks)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = job.int_field(self.jobs.data, job.DEADLINE .. task[1]) or false
  end
  return out
end

-- The oldest dead tasks past dead-letters-max, and those older than
-- dead-letters-max-age-ms, after a claim buried `buried` of them
-- (commands/delay.rs `trim_dead_letters`), removed; returns them.
local function trim_dead_letters(dead, buried, now_ms)
  local max, max_age = CONFIG['dead-letters-max'], CONFIG['dead-letters-max-age-ms']
  local trimmed = {}
  if max > 0 then
    local over = rt.zcard(dead) - max
    if over > buried + TRIM_SPARE then
      over = buried + TRIM_SPARE
    end
    if over > 0 then
      trimmed = rt.call('ZRANGE', dead, '0', int_text(over - 1))
    end
  end
  if max_age > 0 then
    -- Both are runs from the oldest: past the ones already taken.
    local older = rt.call('ZRANGE', dead, '-inf', '(' .. arg_score(now_ms - max_age), 'BYSCORE', 'LIMIT',
      int_text(#trimmed), int_text(TRIM_SPARE + buried))
    for _, task in ipairs(older) do
      trimmed[#trimmed + 1] = task
    end
  end
  rt.members_call('ZREM', dead, trimmed)
  return trimmed
end

-- Moves dead tasks (taken from the queue) into the dead-letter set, scored
-- by now, and forgets their counts; with the queue's data, their history
-- says how they died (`expired`: their deadline passed).
function Queue:bury(tasks, now_ms, expired)
  local died_with
  if self.jobs and not expired then
    died_with = self:deliveries(tasks)
  end
  rt.zadd_pairs(self.lease.dead, scored(tasks, now_ms))
  local trimmed = trim_dead_letters(self.lease.dead, #tasks, now_ms)
  rt.members_call('ZREM', self.lease.deliveries, names(tasks))
  if self.jobs then
    local data = self.jobs.data
    for i, task in ipairs(tasks) do
      local name = task[1]
      local died = died_with and job.count_text(died_with[i]) or '0'
      if expired then
        rt.call('HSET', data, job.DIED_WITH .. name, died, job.REASON .. name, EXPIRED_REASON)
      else
        rt.call('HSET', data, job.DIED_WITH .. name, died)
      end
      rt.call('HDEL', data, job.DEADLINE .. name, job.WORKER .. name)
    end
    for _, name in ipairs(trimmed) do
      job.delete_data(data, name)
    end
    -- Dead while in flight (redelivered from its in-flight set): its
    -- group's slot comes free.
    if self:polls_its_inflight_set() then
      for _, task in ipairs(tasks) do
        rt.groups.release(data, task[1])
      end
    end
  end
end

-- Forgets expired tasks (taken from the queue) and their data: a poll
-- without dead letters drops them.
function Queue:drop_expired(tasks)
  for _, task in ipairs(tasks) do
    job.delete_data(self.jobs.data, task[1])
  end
end

-- The claimed tasks were delivered, leased or not: with WITHDATA, each
-- one's payload and deliveries for the reply; their data learns it (a
-- deadline no longer applies once a task started; a task polled without a
-- lease is done, data and all).
function Queue:delivered(tasks, now_ms)
  local jobs = self.jobs
  local infos
  if jobs.with_data then
    infos = {}
    for i, task in ipairs(tasks) do
      local deliveries = self.lease and self.lease.deliveries and job.count_of(rt.zscore(self.lease.deliveries, task[1]))
      infos[i] = { rt.call('HGET', jobs.data, job.PAYLOAD .. task[1]) or rt.NULL, deliveries or rt.NULL }
    end
  end
  for _, task in ipairs(tasks) do
    local name = task[1]
    if not self.lease then
      job.delete_data(jobs.data, name)
    else
      rt.call('HDEL', jobs.data, job.DEADLINE .. name)
      if jobs.worker then
        rt.call('HSET', jobs.data, job.WORKER .. name, jobs.worker)
      end
    end
  end
  if self.admission then
    self.admission:write(jobs.data)
  end
  -- An occurrence of a repeating job claimed: its next one is queued.
  for _, task in ipairs(tasks) do
    rt.schedules.advance(self.key, jobs.data, task[1], now_ms)
  end
  return infos
end

-- Due tasks split into those to deliver (up to count), those delivered
-- max_deliveries times already and those past their not-started-by
-- deadline (logic/delay.rs `sort_out`), at most MAX_DEAD_PER_POLL of the
-- two; the tasks of a group at its limits are passed over, at most
-- MAX_SKIPPED_PER_POLL of them.
local function sort_out(queue, now_ms, count, max_deliveries)
  local live, dead, expired = {}, {}, {}
  local seen, limit, skipped = 0, count, 0
  local function done()
    return #live == count or #dead + #expired == MAX_DEAD_PER_POLL or skipped == MAX_SKIPPED_PER_POLL
  end
  while true do
    local batch = queue:due(now_ms, limit)
    local exhausted = #batch < limit
    local fresh = {}
    for i = seen + 1, #batch do
      fresh[#fresh + 1] = batch[i]
    end
    seen = seen + #fresh
    local deliveries = max_deliveries and queue:deliveries(fresh) or {}
    local deadlines = queue.jobs and queue:deadlines(fresh) or {}
    for i, task in ipairs(fresh) do
      if done() then
        return live, dead, expired
      end
      local deadline = deadlines[i]
      if max_deliveries and deliveries[i] >= max_deliveries then
        dead[#dead + 1] = task
      elseif deadline and deadline < now_ms then
        expired[#expired + 1] = task
      elseif queue.admission and not queue:admit(task[1]) then
        skipped = skipped + 1
      else
        live[#live + 1] = task
      end
    end
    if exhausted or done() then
      return live, dead, expired
    end
    limit = limit * 2
  end
end

-- Claims up to `count` due tasks at `now_ms` (logic/delay.rs `claim`);
-- `first`, the tasks due, when a poll without dead letters or data read
-- them. -> the tasks delivered (nil: none), and with WITHDATA their infos.
local function claim(queue, now_ms, count, first)
  local lease = queue.lease
  local max_deliveries = lease and lease.max_deliveries
  local live, dead, expired
  if max_deliveries or queue.jobs then
    live, dead, expired = sort_out(queue, now_ms, count, max_deliveries)
  else
    live, dead, expired = first, {}, {}
  end
  if #dead > 0 or #expired > 0 then
    rt.reach('burial')
  end
  if #dead > 0 then
    queue:take(dead)
    queue:bury(dead, now_ms, false)
  end
  if #expired > 0 then
    queue:take(expired)
    if max_deliveries then
      queue:bury(expired, now_ms, true)
    else
      queue:drop_expired(expired)
    end
  end
  if #live == 0 then
    return nil
  end
  queue:take(live)
  if lease then
    queue:lease_tasks(live, lease.until_ms)
    if max_deliveries then
      queue:count_delivery(live)
    end
  end
  local infos
  if queue.jobs then
    infos = queue:delivered(live, now_ms)
  end
  return live, infos
end

-- Whether a claim from `queue` at `now_ms` would deliver a task, looked at
-- without writing (logic/delay.rs `outlook`).
local function deliverable(queue, now_ms)
  local max_deliveries = queue.lease and queue.lease.max_deliveries
  if max_deliveries or queue.jobs then
    return #sort_out(queue, now_ms, 1, max_deliveries) > 0
  end
  return #queue:due(now_ms, 1) > 0
end

-- Claims up to `count` due tasks from `lanes` in the order given, a lane
-- only for what the lanes before it left of `count`; `first`, the first
-- lane's due tasks when a poll without dead letters or data read them.
-- -> the tasks delivered, and with WITHDATA their infos.
local function claim_lanes(lanes, lease, jobs, now_ms, count, first)
  local tasks, infos = {}, jobs and jobs.with_data and {} or nil
  local admission = jobs and rt.groups.admission(now_ms)
  for i, key in ipairs(lanes) do
    local wanted = count - #tasks
    if wanted == 0 then
      break
    end
    local queue = queue_of(key, lease, jobs, admission)
    local lane_first = first
    if i > 1 and first then
      lane_first = queue:due(now_ms, wanted)
    end
    local live, lane_infos = claim(queue, now_ms, wanted, lane_first)
    for j, task in ipairs(live or {}) do
      tasks[#tasks + 1] = task
      if infos then
        infos[#infos + 1] = lane_infos[j]
      end
    end
  end
  return tasks, infos
end

-- The reply of a poll's claim of `tasks` (with WITHDATA their `infos`),
-- and with RATE the retry-after.
local function poll_reply(tasks, infos, lease, with_tokens, rate, retry_after_ms)
  local reply = {}
  for i, task in ipairs(tasks) do
    if infos then
      reply[i] = { task[1], rt.double(task[2]), lease and lease.until_ms or rt.NULL, infos[i][1], infos[i][2] }
    elseif with_tokens then
      reply[i] = { task[1], rt.double(task[2]), lease.until_ms }
    else
      reply[i] = { task[1], rt.double(task[2]) }
    end
  end
  if rate then
    return { reply, retry_after_ms or -1 }
  end
  return reply
end

-- -> `[[member, due-ms], ...]` (with WITHTOKENS `[[member, due-ms, token],
-- ...]`, with WITHDATA `[[member, due-ms, token, payload, deliveries], ...]`);
-- with RATE `[those, retry-after-ms]`.
handlers['delay.poll'] = function(v)
  local key, count, lease_given, dead_letter, with_tokens = v[1], v[2], v[3], v[4], v[5]
  local data, with_data, worker, rate_given, lanes_given = v[6], v[7], v[8], v[9], v[10]
  if with_tokens and lease_given == false then
    rt.fail(ERRORS.tokens_without_lease)
  end
  if data == false then
    if with_data then
      job.needs_data('WITHDATA')
    end
    if worker ~= false then
      job.needs_data('WORKER')
    end
  end
  if worker ~= false and lease_given == false then
    rt.fail(ERRORS.job_worker_without_lease)
  end
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
    rt.fail(ERRORS.dead_letter_without_lease)
  end
  local rate
  if rate_given ~= false then
    rate = { log = rate_given[1], window_ms = tonumber(rate_given[2]), limit = tonumber(rate_given[3]) }
    if not (rate.window_ms >= 1 and rate.window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    if not (rate.limit >= 1 and rate.limit <= LIMITS.RATE_MAX_LIMIT) then
      rt.out_of_range('limit', rt.bound.RATE_LIMIT)
    end
  end
  local lanes = { key }
  if lanes_given then
    for _, lane in ipairs(lanes_given) do
      lanes[#lanes + 1] = lane
    end
  end
  local jobs
  if data ~= false then
    jobs = { data = data, with_data = with_data, worker = worker ~= false and worker or nil }
    job.check_data_key(data, lease and lease.inflight, lease and lease.dead, lease and lease.deliveries, unpack(lanes))
    rt.call('HLEN', data)
    -- A paused queue delivers nothing and writes nothing.
    if job.is_paused(data) then
      return poll_reply({}, nil, lease, with_tokens, rate)
    end
  end
  if lease then
    rt.zcard(lease.inflight)
    if lease.dead then
      for _, lane in ipairs(lanes) do
        local tasks = { [lane] = true, [lease.inflight] = true }
        if tasks[lease.dead] or tasks[lease.deliveries] or lease.dead == lease.deliveries then
          rt.fail(ERRORS.shared_dead_letter_key)
        end
      end
      rt.zcard(lease.dead)
      rt.zcard(lease.deliveries)
    end
  end
  -- The first lane is checked by its first read, before any write; the
  -- others now, since the first may write before they are read.
  for i = 2, #lanes do
    rt.check_delay_queue_key(lanes[i])
  end
  local now = rt.now_ms()
  local queue = queue_of(key, lease, jobs)
  if rate then
    local written = { lease and lease.inflight, lease and lease.dead, lease and lease.deliveries }
    for _, lane in ipairs(lanes) do
      written[#written + 1] = lane
    end
    for i = 1, 3 + #lanes do
      if written[i] == rate.log then
        rt.fail(ERRORS.shared_rate_log)
      end
    end
    local room, retry_after_ms = rt.rate_window.room(rate.log, now, rate.window_ms, rate.limit)
    if not room then
      -- Limited only when a claim would deliver: nothing is spent either way.
      local admission = jobs and rt.groups.admission(now)
      for _, lane in ipairs(lanes) do
        if deliverable(queue_of(lane, lease, jobs, admission), now) then
          return poll_reply({}, nil, lease, with_tokens, rate, retry_after_ms)
        end
      end
      return poll_reply({}, nil, lease, with_tokens, rate)
    end
    if room < count then
      count = room
    end
  end
  -- Due times, not another family's scores: a gift board's totals would all
  -- be due, and claimed away. The tasks due are the queue's lowest, which
  -- the check reads (and the lowest two only when the lowest could begin
  -- an IDMP seen-key, or when none is due).
  local first
  if max_deliveries == nil and jobs == nil then
    first = queue:due(now, count)
  end
  if first and first[1] and rt.idmp_entry(first[1][2]) ~= 'id' then
    rt.check_delay_queue(first)
  else
    rt.check_delay_queue_key(key)
  end
  if lease then
    lease.until_ms = rt.deadline(now, lease.ms)
    if lease.until_ms == nil then
      LEASE_OUT_OF_RANGE()
    end
  end
  if #lanes > 1 and (max_deliveries or jobs) then
    -- A lane may bury tasks after the lanes before it wrote: the caller's
    -- ACL is asked about the burial before the first write.
    rt.reach('burial')
  end
  local tasks, infos = claim_lanes(lanes, lease, jobs, now, count, first)
  if rate and #tasks > 0 then
    rt.rate_window.spend(rate.log, now, rate.window_ms, #tasks)
  end
  return poll_reply(tasks, infos, lease, with_tokens, rate)
end

-- Whether the token `token` (an integer's text, as the call gave it) names
-- the delivery whose lease ends at `lease_end`: a delivery's token is its
-- lease's end (logic/delay.rs `is_delivery`). A token the double it reads
-- as does not print back names no lease.
local function is_delivery(lease_end, token)
  local value = tonumber(token)
  return lease_end ~= nil and lease_end == value and string.format('%.0f', value) == token
end

-- -> how many were removed.
handlers['delay.ack'] = function(v)
  local inflight, deliveries, data, acked = v[1], v[2], v[3], v[4]
  if deliveries == false and data == false and acked.choice == 1 then
    -- Tasks without tokens and no counts or data to drop: ZREM removes each
    -- task in flight once, and counts them.
    return rt.members_call('ZREM', inflight, acked.value)
  end
  if data ~= false then
    job.check_data_key(data, inflight, deliveries)
  end
  if deliveries ~= false then
    rt.zcard(deliveries)
  end
  if data ~= false then
    rt.call('HLEN', data)
  end
  -- {task, token or nil} for each task named.
  local named_deliveries = {}
  if acked.choice == 1 then
    for i, task in ipairs(acked.value) do
      named_deliveries[i] = { task }
    end
  else
    for i, lease in ipairs(acked.value) do
      named_deliveries[i] = { lease[1], lease[2] }
    end
  end
  -- The tasks in flight (with a token, under the delivery it names), each
  -- once, removed in one ZREM.
  local removed, named = {}, {}
  if rt.zcard(inflight) > 0 then
    for _, delivery in ipairs(named_deliveries) do
      local task, token = delivery[1], delivery[2]
      if not named[task] then
        local lease_end = rt.zscore(inflight, task)
        if lease_end ~= nil and (token == nil or is_delivery(lease_end, token)) then
          removed[#removed + 1] = task
          named[task] = true
        end
      end
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
  if data ~= false then
    for _, task in ipairs(removed) do
      rt.groups.release(data, task)
      job.delete_data(data, task)
    end
  end
  return #removed
end

-- The lease is held while it ends after the millisecond now (at now + 1 or
-- later), with a token by the delivery it names (logic/delay.rs `holds`).
local function holds(lease_end, token, now_ms)
  return lease_end ~= nil and lease_end >= now_ms + 1 and (token == nil or is_delivery(lease_end, token))
end

-- A token argument, or nil when not given.
local function token_of(given)
  if given == false then
    return nil
  end
  return given
end

-- -> 1 when moved, else 0.
handlers['delay.nack'] = function(v)
  local inflight, queue, task, delay_ms = v[1], v[2], v[3], tonumber(v[4])
  local token, data, reason = token_of(v[5]), v[6], v[7]
  if reason ~= false and data == false then
    job.needs_data('REASON')
  end
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
  if data ~= false then
    job.check_data_key(data, inflight, queue)
    rt.call('HLEN', data)
  end
  rt.zcard(queue)
  local lease_end = rt.zcard(inflight) > 0 and rt.zscore(inflight, task) or nil
  if not holds(lease_end, token, now) then
    return 0
  end
  if inflight ~= queue then
    rt.call('ZREM', inflight, task)
  end
  rt.call('ZADD', queue, int_text(due), task)
  if data ~= false then
    rt.call('HDEL', data, job.WORKER .. task)
    if reason ~= false then
      rt.call('HSET', data, job.REASON .. task, reason)
    end
    -- Out of flight until claimed again: its group's slot comes free.
    if inflight ~= queue then
      rt.groups.release(data, task)
    end
  end
  return 1
end

-- -> 1 when the lease was extended, else 0; with a token, the delivery's
-- new token, else 0.
handlers['delay.touch'] = function(v)
  local inflight, task, ms = v[1], v[2], tonumber(v[3])
  local token = token_of(v[4])
  local now = rt.now_ms()
  local until_ms = rt.deadline(now, ms)
  if until_ms == nil then
    LEASE_OUT_OF_RANGE()
  end
  local lease_end = rt.zscore(inflight, task)
  if not holds(lease_end, token, now) then
    return 0
  end
  rt.call('ZADD', inflight, int_text(until_ms), task)
  if token ~= nil then
    return until_ms
  end
  return 1
end

-- How long a queue's earliest task has been due at now (0 before it is),
-- since its millisecond (logic/stats.rs `due_age_ms`); a task scored below
-- 0 counts as due since the unix epoch.
local function due_age_ms(earliest, now_ms)
  if earliest >= now_ms + 1 then
    return 0
  end
  return now_ms - math.floor(earliest > 0 and earliest or 0)
end

-- The next due time of a score above now: its millisecond; nil for +inf
-- and scores past any unix-ms clock.
local function due_time_ms(score)
  if score == score and score ~= math.huge and score ~= -math.huge and score < rt.TWO_53 then
    return math.floor(score)
  end
  return rt.NULL
end

-- -> `[now-ms, tasks, due, oldest-due-age-ms, next-due-ms, inflight,
-- expired, dead, redelivered, paused]` by name.
handlers['delay.stats'] = function(v)
  local queue, inflight, dead, deliveries, data = v[1], v[2], v[3], v[4], v[5]
  -- Every type first: a WRONGTYPE answers before any count.
  if data ~= false then
    rt.call('HLEN', data)
  end
  local tasks = rt.zcard(queue)
  local function set_len(key)
    return key ~= false and rt.zcard(key) or rt.NULL
  end
  local inflight_len, dead_len = set_len(inflight), set_len(dead)
  set_len(deliveries)
  local now = rt.now_ms()
  local due = due_bound(now)
  local earliest, next_due
  if tasks > 0 then
    local first = rt.call('ZRANGE', queue, '0', '0', 'WITHSCORES')
    earliest = first[2] and tonumber(first[2])
    local later = rt.call('ZRANGE', queue, int_text(now + 1), '+inf', 'BYSCORE', 'LIMIT', '0', '1', 'WITHSCORES')
    next_due = later[2] and tonumber(later[2])
  end
  local function count(key, min, max)
    return rt.call('ZCOUNT', key, min, max)
  end
  local due_now = 0
  if earliest ~= nil and earliest < now + 1 then
    due_now = count(queue, '-inf', due)
  end
  local expired = inflight ~= false and count(inflight, '-inf', due) or rt.NULL
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
    'paused', data ~= false and (job.is_paused(data) and 1 or 0) or rt.NULL,
    'capped-groups', data ~= false and job.capped_groups(data) or rt.NULL,
  }
end
