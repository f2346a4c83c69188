-- RATE: exact sliding-window rate limits (src/commands/rate.rs,
-- src/logic/rate.rs). The log is a sorted set with one member per accepted
-- unit of cost, `<unix-ms>-<seq>`, scored by the clock.

local MAX_LIMIT = 1000000
local int_text = rt.int_text

-- The log of one key, read with native calls.
local function log_of(key)
  local log = { key = key }
  function log.size()
    return rt.zcard(key)
  end
  function log.count_up_to(score)
    return rt.call('ZCOUNT', key, '-inf', int_text(score))
  end
  function log.count_above(score)
    return rt.call('ZCOUNT', key, '(' .. int_text(score), '+inf')
  end
  function log.count_at(score)
    return rt.call('ZCOUNT', key, int_text(score), int_text(score))
  end
  function log.nth_above(score, n)
    local found = rt.call('ZRANGE', key, '(' .. int_text(score), '+inf', 'BYSCORE', 'LIMIT', int_text(n), '1', 'WITHSCORES')
    return found[2] and tonumber(found[2]) or nil
  end
  function log.newest()
    local found = rt.call('ZRANGE', key, '-1', '-1', 'WITHSCORES')
    return found[2] and tonumber(found[2]) or nil
  end
  return log
end

local function cutoff(now_ms, window_ms)
  return now_ms - window_ms
end

-- The module saturates at i64::MAX, which a Lua number cannot reach (only a
-- log holding hand-written scores of 2^63 and above waits that long): the
-- library stops at the largest double below 2^63.
local LONGEST_WAIT = 9223372036854774784

local function retry_after_ms(score, window_ms, now_ms)
  local wait = math.ceil(score + window_ms) - now_ms
  if wait > LONGEST_WAIT then
    return LONGEST_WAIT
  end
  return wait > 1 and wait or 1
end

local function expire_at(now_ms, newest, window_ms)
  local newest_ms = now_ms
  if newest > now_ms then
    newest_ms = math.ceil(newest)
    if newest_ms > rt.TWO_53 then
      newest_ms = rt.TWO_53
    end
  end
  return newest_ms + window_ms
end

-- The verdict of a hit of `cost` (logic/rate.rs `hit`), logged when allowed.
local function hit(log, now_ms, limits, cost)
  local widest = 0
  for _, limit in ipairs(limits) do
    if limit.window_ms > widest then
      widest = limit.window_ms
    end
  end
  local oldest_kept = cutoff(now_ms, widest)
  local len = log.size()
  local expired = log.count_up_to(oldest_kept)
  local tightest, longest_wait
  for index, limit in ipairs(limits) do
    local window_start = cutoff(now_ms, limit.window_ms)
    local live
    if window_start == oldest_kept then
      live = len - expired
    else
      live = log.count_above(window_start)
    end
    local over = live + cost - limit.limit
    local verdict
    if over <= 0 then
      verdict = { binding = index, allowed = true, count = live + cost, remaining = limit.limit - (live + cost), retry = -1 }
      if tightest == nil or verdict.remaining < tightest.remaining then
        tightest = verdict
      end
    else
      local waits_for = log.nth_above(window_start, over - 1)
      local remaining = limit.limit - live
      verdict = {
        binding = index,
        allowed = false,
        count = live,
        remaining = remaining > 0 and remaining or 0,
        retry = waits_for and retry_after_ms(waits_for, limit.window_ms, now_ms) or 1,
      }
      if longest_wait == nil or verdict.retry > longest_wait.retry then
        longest_wait = verdict
      end
    end
  end
  local binding = longest_wait or tightest
  if binding.allowed or expired > 0 then
    rt.call('ZREMRANGEBYSCORE', log.key, '-inf', int_text(oldest_kept))
  end
  if binding.allowed then
    local newest = log.newest()
    -- `<unix-ms>-<seq>` names from the count at this ms on, skipping taken
    -- ones, written in one ZADD.
    local seq = log.count_at(now_ms)
    local entries = {}
    while #entries < cost do
      local name = int_text(now_ms) .. '-' .. int_text(seq)
      if rt.zscore(log.key, name) == nil then
        entries[#entries + 1] = { name, now_ms }
      end
      seq = seq + 1
    end
    rt.zadd_pairs(log.key, entries)
    rt.call('PEXPIREAT', log.key, int_text(expire_at(now_ms, newest or -math.huge, widest)))
  end
  return binding
end

-- A repeated event: allowed, with each window's count now (reads only).
local function standing(log, now_ms, limits)
  local tightest
  for index, limit in ipairs(limits) do
    local count = log.count_above(cutoff(now_ms, limit.window_ms))
    local remaining = limit.limit - count
    local verdict = { binding = index, allowed = true, count = count, remaining = remaining > 0 and remaining or 0, retry = -1 }
    if tightest == nil or verdict.remaining < tightest.remaining then
      tightest = verdict
    end
  end
  return tightest
end

-- -> `[allowed, count, remaining, retry-after-ms]`, the binding limit's
-- position when several or when IDMP is given (so the flag is always sixth),
-- and the IDMP flag when IDMP is given.
handlers['rate.hit'] = function(v)
  local key, cost, clause, retain, pairs_given = v[1], v[2], v[3], v[4], v[5]
  local parts = { key, cost == false and '1' or cost }
  for _, pair in ipairs(pairs_given) do
    parts[#parts + 1] = pair[1]
    parts[#parts + 1] = pair[2]
  end
  local event = rt.idmp.args(clause, retain, 'rate.hit', parts)
  local limits = {}
  local smallest
  for i, pair in ipairs(pairs_given) do
    local window_ms, limit = tonumber(pair[1]), tonumber(pair[2])
    if not (window_ms >= 1 and window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    if not (limit >= 1 and limit <= MAX_LIMIT) then
      rt.out_of_range('limit', rt.bound.RATE_LIMIT)
    end
    limits[i] = { window_ms = window_ms, limit = limit }
    if smallest == nil or limit < smallest then
      smallest = limit
    end
  end
  cost = cost == false and 1 or tonumber(cost)
  if not (cost >= 1 and cost <= smallest) then
    rt.out_of_range('cost', rt.bound.UP_TO_LIMIT)
  end
  local now = rt.now_ms()
  local seen = event and rt.idmp.check(event, now, { key }) or nil
  -- Another family's key (a gift board, whose totals would read as hits
  -- long past) is refused, not trimmed.
  if rt.zcard(key) > 0 then
    rt.check_rate_log(rt.sample(key, true))
  end
  local log = log_of(key)
  local verdict
  if seen == 'repeat' then
    verdict = standing(log, now, limits)
  else
    verdict = hit(log, now, limits, cost)
  end
  if event and seen == 'new' and verdict.allowed then
    rt.idmp.record(event, now)
  end
  local reply = { verdict.allowed and 1 or 0, verdict.count, verdict.remaining, verdict.retry }
  if #limits > 1 or event then
    reply[#reply + 1] = verdict.binding
  end
  return rt.idmp.with_flag(reply, seen)
end

-- A score as Rust's `as i64` casts it: toward zero, saturating (the i64::MAX
-- a Lua number cannot reach stops at the largest double below 2^63).
local function whole(score)
  if score ~= score then
    return 0
  elseif score >= LONGEST_WAIT then
    return LONGEST_WAIT
  elseif score <= -9223372036854775808 then
    return -9223372036854775808
  end
  return score >= 0 and math.floor(score) or math.ceil(score)
end

-- -> `[entries, newest-ms, windows]` by name, `windows` one `[window-ms,
-- entries]` pair per window given.
handlers['rate.stats'] = function(v)
  local key, windows = v[1], v[2]
  for _, window in ipairs(windows) do
    local window_ms = tonumber(window)
    if not (window_ms >= 1 and window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
  end
  local entries = rt.zcard(key)
  local newest = log_of(key).newest()
  local now = rt.now_ms()
  local counted = {}
  for i, window in ipairs(windows) do
    local within = rt.call('ZCOUNT', key, '(' .. rt.arg_score(cutoff(now, tonumber(window))), '+inf')
    counted[i] = { tonumber(window), within }
  end
  return { 'entries', entries, 'newest-ms', newest and whole(newest) or rt.NULL, 'windows', counted }
end
