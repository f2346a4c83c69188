-- Groups (tenants) inside one queue (src/commands/groups.rs, src/logic/groups.rs):
-- DELAY.ADD GROUP puts tasks in a group, DELAY.GROUP sets a group's cap on
-- tasks in flight and its rate limit, DELAY.GROUPS lists them. A claim
-- naming the queue's DATA hash takes a group's tasks only within its limits
-- (`groups.admission`, asked by delay.lua's claims); ACK, NACK and a burial
-- from the in-flight set give a group's slot back (`groups.release`).
--
-- A group's state is in the DATA hash: `c:<group>` its limits (`<cap>
-- <limit> <window-ms>`, 0 for none), `i:<group>` its tasks in flight,
-- `h:<group>` its claim times (unix ms) inside its rate window, oldest
-- first, and `capped` how many groups are at their cap.

local call, int_text = rt.call, rt.int_text
local job = rt.job

local groups = {}
rt.groups = groups

local LIMITS_TAG, IN_FLIGHT_TAG, LOG_TAG = 'c:', 'i:', 'h:'
local CAPPED = 'capped'

-- The integers of a space-separated text, those that read as one.
local function integers(text)
  local numbers = {}
  for word in ((text or '') .. ' '):gmatch('([^ ]*) ') do
    numbers[#numbers + 1] = job.int_of(word)
  end
  return numbers
end

-- A group's limits as `limits_text` wrote them; none for anything else
-- (logic/groups.rs `Limits::parse`).
local function parse_limits(text)
  local n = integers(text)
  if #n == 3 and n[1] >= 0 and n[2] >= 0 and n[3] >= 0 then
    local rate
    if n[2] > 0 and n[3] > 0 then
      rate = { limit = n[2], window_ms = n[3] }
    end
    return { cap = n[1], rate = rate }
  end
  return { cap = 0 }
end

local function limits_text(limits)
  local rate = limits.rate
  return int_text(limits.cap) .. ' ' .. int_text(rate and rate.limit or 0) .. ' '
    .. int_text(rate and rate.window_ms or 0)
end

local function log_text(log)
  local words = {}
  for i, at in ipairs(log) do
    words[i] = int_text(at)
  end
  return table.concat(words, ' ')
end

local function limits_of(data, group)
  return parse_limits(call('HGET', data, LIMITS_TAG .. group))
end

local function in_flight_of(data, group)
  return math.max(job.int_field(data, IN_FLIGHT_TAG .. group) or 0, 0)
end

-- Whether `in_flight` tasks hold a group at its cap (0: no cap).
local function is_at_cap(in_flight, cap)
  return cap > 0 and in_flight >= cap
end

-- Adds `by` (or takes it off) to the count of capped groups.
local function count_capped(data, by)
  local after = (job.int_field(data, CAPPED) or 0) + by
  if after <= 0 then
    call('HDEL', data, CAPPED)
  else
    call('HSET', data, CAPPED, int_text(after))
  end
end

-- What one claim knows of a group (logic/groups.rs `Share`): its limits,
-- tasks in flight and claim times inside its window at `now_ms`, read by
-- `field` (a field's value or nil), and what the claim took of it since.
local function share_of(field, group, now_ms)
  local limits = parse_limits(field(LIMITS_TAG .. group))
  local log = {}
  if limits.rate then
    local oldest_kept = now_ms - limits.rate.window_ms
    for _, at in ipairs(integers(field(LOG_TAG .. group))) do
      if at > oldest_kept then
        log[#log + 1] = at
      end
    end
  end
  local in_flight = job.int_of(field(IN_FLIGHT_TAG .. group)) or 0
  return { limits = limits, in_flight = math.max(in_flight, 0), log = log, taken = 0, entered = 0 }
end

local function is_capped(share)
  return is_at_cap(share.in_flight + share.entered, share.limits.cap)
end

local function is_rate_limited(share)
  local rate = share.limits.rate
  return rate ~= nil and #share.log + share.taken >= rate.limit
end

-- Whether the claim may take one more task of the group: within its rate
-- window, and when it `enters` flight (a leased claim from a queue), within
-- its cap. Counts it when it may.
local function take(share, enters)
  local cap, rate = share.limits.cap, share.limits.rate
  local within_cap = not enters or cap == 0 or share.in_flight + share.entered < cap
  local within_rate = rate == nil or #share.log + share.taken < rate.limit
  if within_cap and within_rate then
    share.taken = share.taken + 1
    if enters then
      share.entered = share.entered + 1
    end
    return true
  end
  return false
end

-- What one claim took of each group, across its lanes (commands/groups.rs
-- `Admission`): read from the DATA hash as it meets each group, written
-- back as each lane's claim ends.
local Admission = {}
Admission.__index = Admission

function groups.admission(now_ms)
  return setmetatable({ now_ms = now_ms, shares = {}, met = {} }, Admission)
end

-- Whether the claim may take `task` of the queue whose data is `data`;
-- `enters` when it enters flight (not a redelivery from its in-flight set).
function Admission:admit(data, task, enters)
  local group = call('HGET', data, job.GROUP .. task)
  if not group then
    return true
  end
  local share = self.shares[group]
  if not share then
    share = share_of(function(field) return call('HGET', data, field) end, group, self.now_ms)
    self.shares[group] = share
    self.met[#self.met + 1] = group
  end
  return take(share, enters)
end

-- Writes what the claim took since the last write: each group's tasks in
-- flight, its log of claims, the count of capped groups.
function Admission:write(data)
  for _, group in ipairs(self.met) do
    local share = self.shares[group]
    if share.taken > 0 then
      if share.entered > 0 then
        local was_capped = is_at_cap(share.in_flight, share.limits.cap)
        local in_flight = share.in_flight + share.entered
        call('HSET', data, IN_FLIGHT_TAG .. group, int_text(in_flight))
        if is_capped(share) and not was_capped then
          count_capped(data, 1)
        end
        share.in_flight = in_flight
      end
      if share.limits.rate then
        for _ = 1, share.taken do
          share.log[#share.log + 1] = self.now_ms
        end
        call('HSET', data, LOG_TAG .. group, log_text(share.log))
      end
      share.taken, share.entered = 0, 0
    end
  end
end

-- `task` left flight (acked, handed back, buried): its group, if any, gets
-- its slot back.
function groups.release(data, task)
  local group = call('HGET', data, job.GROUP .. task)
  if not group then
    return
  end
  local in_flight = in_flight_of(data, group)
  if in_flight == 0 then
    return
  end
  local after = in_flight - 1
  if after == 0 then
    call('HDEL', data, IN_FLIGHT_TAG .. group)
  else
    call('HSET', data, IN_FLIGHT_TAG .. group, int_text(after))
  end
  local cap = limits_of(data, group).cap
  if is_at_cap(in_flight, cap) and not is_at_cap(after, cap) then
    count_capped(data, -1)
  end
end

-- -> 1 when the group has limits now, 0 when they were removed.
handlers['delay.group'] = function(v)
  local queue, data, group, cap_given, rate_given = v[1], v[2], v[3], v[4], v[5]
  local cap = 0
  if cap_given ~= false then
    cap = tonumber(cap_given)
    if cap < 1 then
      rt.out_of_range('CAP', rt.bound.POSITIVE_INTEGER)
    end
  end
  local rate
  if rate_given ~= false then
    local window_ms, limit = tonumber(rate_given[1]), tonumber(rate_given[2])
    if not (limit >= 1 and limit <= LIMITS.GROUP_MAX_RATE) then
      rt.out_of_range('limit', rt.bound.GROUP_RATE)
    end
    if not (window_ms >= 1 and window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    rate = { limit = limit, window_ms = window_ms }
  end
  job.check_data_key(data, queue)
  rt.zcard(queue)
  local limits = { cap = cap, rate = rate }
  -- The group's fields in one read (the first of the hash: it checks its
  -- type); each field named costs a scan of a small hash, so the count of
  -- capped groups is read only when it changes, and a field that may be
  -- absent is deleted without a look.
  local found = call('HMGET', data, IN_FLIGHT_TAG .. group, LIMITS_TAG .. group)
  local in_flight = math.max(job.int_of(found[1]) or 0, 0)
  local was_capped = is_at_cap(in_flight, parse_limits(found[2]).cap)
  local capped = is_at_cap(in_flight, cap)
  local has_limits = cap > 0 or rate ~= nil
  if has_limits then
    call('HSET', data, LIMITS_TAG .. group, limits_text(limits))
    if not rate then
      call('HDEL', data, LOG_TAG .. group)
    end
  else
    call('HDEL', data, LIMITS_TAG .. group, LOG_TAG .. group)
  end
  if capped ~= was_capped then
    count_capped(data, capped and 1 or -1)
  end
  return has_limits and 1 or 0
end

-- -> `[[group, inflight, cap, rate-limit, window-ms, capped, rate-limited],
-- ...]`, by group.
handlers['delay.groups'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  local values, names = {}, {}
  for i = 1, #fields, 2 do
    values[fields[i]] = fields[i + 1]
    if fields[i]:sub(1, #LIMITS_TAG) == LIMITS_TAG then
      names[#names + 1] = fields[i]:sub(#LIMITS_TAG + 1)
    end
  end
  table.sort(names, function(a, b) return rt.compare_bytes(a, b) < 0 end)
  local now = rt.now_ms()
  local rows = {}
  local function field(name)
    return values[name]
  end
  for i, group in ipairs(names) do
    local share = share_of(field, group, now)
    local limits, rate = share.limits, share.limits.rate
    rows[i] = {
      group, share.in_flight, limits.cap, rate and rate.limit or 0, rate and rate.window_ms or 0,
      is_capped(share) and 1 or 0, is_rate_limited(share) and 1 or 0,
    }
  end
  return rows
end
