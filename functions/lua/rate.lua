-- RATE: exact sliding-window rate limits (src/commands/rate.rs,
-- src/logic/rate.rs). The log is a sorted set with one member per accepted
-- unit of cost, `<unix-ms>-<seq>`, scored by the clock. A concurrency limit
-- is a sorted set of holders, each scored by the unix ms its lease ends.

local MAX_LIMIT, TODAY_MS = LIMITS.RATE_MAX_LIMIT, LIMITS.TODAY_MS
local int_text = rt.int_text

-- A log's entries, read with native calls.
local function count_up_to(key, score)
  return rt.call('ZCOUNT', key, '-inf', int_text(score))
end

local function count_above(key, score)
  return rt.call('ZCOUNT', key, '(' .. int_text(score), '+inf')
end

local function count_at(key, score)
  local at = int_text(score)
  return rt.call('ZCOUNT', key, at, at)
end

local function nth_above(key, score, n)
  local found = rt.call('ZRANGE', key, '(' .. int_text(score), '+inf', 'BYSCORE', 'LIMIT', int_text(n), '1', 'WITHSCORES')
  return found[2] and tonumber(found[2]) or nil
end

local function newest_entry(key)
  return rt.pairs_of(rt.call('ZRANGE', key, '-1', '-1', 'WITHSCORES'))[1]
end

local function newest_of(key)
  local found = rt.call('ZRANGE', key, '-1', '-1', 'WITHSCORES')
  return found[2] and tonumber(found[2]) or nil
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

local function widest_window(limits)
  local widest = 0
  for _, limit in ipairs(limits) do
    if limit.window_ms > widest then
      widest = limit.window_ms
    end
  end
  return widest
end

-- The entries at or below `oldest_kept` of a log of `len` entries whose
-- lowest are `lowest`: counted only when the lowest is one of them.
local function expired_count(key, len, lowest, oldest_kept)
  if len > 0 and lowest[1][2] <= oldest_kept then
    return count_up_to(key, oldest_kept)
  end
  return 0
end

-- Whether refused verdict `a` waits longer than `b`: a cost above a limit
-- (retry -1) never fits, longest of all.
local function waits_longer(a, b)
  local a_never, b_never = a.retry == -1, b.retry == -1
  if a_never ~= b_never then
    return a_never
  end
  return a.retry > b.retry
end

-- The verdict of a hit of `cost` (logic/rate.rs `judge`), from reads only,
-- on a log of `len` entries whose lowest are `lowest` (checked_log's), with
-- what its writes need: the widest window's cutoff and the entries at or
-- below it.
local function judge(key, now_ms, limits, cost, len, lowest)
  local oldest_kept = cutoff(now_ms, widest_window(limits))
  local expired = expired_count(key, len, lowest, oldest_kept)
  local tightest, longest_wait
  for index, limit in ipairs(limits) do
    local window_start = cutoff(now_ms, limit.window_ms)
    local live
    if window_start == oldest_kept then
      live = len - expired
    else
      live = count_above(key, window_start)
    end
    local over = live + cost - limit.limit
    local verdict
    if over <= 0 then
      verdict = { binding = index, allowed = true, count = live + cost, remaining = limit.limit - (live + cost), retry = -1 }
      if tightest == nil or verdict.remaining < tightest.remaining then
        tightest = verdict
      end
    else
      local retry = -1
      if cost <= limit.limit then
        -- With no entry at or below the window's start, the entries above
        -- it are all of them, the lowest first.
        local waits_for
        if expired == 0 and window_start == oldest_kept and lowest[over] then
          waits_for = lowest[over][2]
        else
          waits_for = nth_above(key, window_start, over - 1)
        end
        retry = waits_for and retry_after_ms(waits_for, limit.window_ms, now_ms) or 1
      end
      local remaining = limit.limit - live
      verdict = { binding = index, allowed = false, count = live, remaining = remaining > 0 and remaining or 0, retry = retry }
      if longest_wait == nil or waits_longer(verdict, longest_wait) then
        longest_wait = verdict
      end
    end
  end
  return longest_wait or tightest, oldest_kept, expired
end

-- Logs `units` entries at `now_ms` on a log of `len` entries whose newest
-- score is `newest` (nil: empty), after dropping those that left the widest
-- window, `window_ms`: `<unix-ms>-<seq>` names from the count at this ms
-- on, skipping taken ones, written in one ZADD.
local function log_units(key, now_ms, units, len, newest, window_ms)
  local oldest_kept = cutoff(now_ms, window_ms)
  local seq = len > 0 and count_at(key, now_ms) or 0
  local entries = {}
  while #entries < units do
    local name = int_text(now_ms) .. '-' .. int_text(seq)
    local taken = len > 0 and rt.zscore(key, name)
    if not taken or taken <= oldest_kept then
      entries[#entries + 1] = { name, now_ms }
    end
    seq = seq + 1
  end
  rt.call('ZREMRANGEBYSCORE', key, '-inf', int_text(oldest_kept))
  rt.zadd_pairs(key, entries)
  rt.call('PEXPIREAT', key, int_text(expire_at(now_ms, newest or -math.huge, window_ms)))
end

-- The verdict of a hit of `cost` (logic/rate.rs `hit`), logged when allowed,
-- on a log read as `judge` reads it, its newest score `newest` (nil: empty,
-- or not read yet). An allowed hit reads all it needs before its first write, which
-- drops the hits that left the window: the newest entry and the entries at
-- this ms are none of those (the window is at least 1 ms), and a name the
-- hit may take is free after that drop when its entry is one of them.
local function hit(key, now_ms, limits, cost, len, lowest, newest)
  local binding, oldest_kept, expired = judge(key, now_ms, limits, cost, len, lowest)
  if not binding.allowed then
    if expired > 0 then
      rt.call('ZREMRANGEBYSCORE', key, '-inf', int_text(oldest_kept))
    end
    return binding
  end
  if newest == nil and len > 0 then
    newest = newest_of(key)
  end
  log_units(key, now_ms, cost, len, newest, widest_window(limits))
  return binding
end

-- A repeated event: allowed, with each window's count now, less
-- `given_back` of its newest entries (reads only).
local function standing(key, now_ms, limits, given_back)
  local tightest
  for index, limit in ipairs(limits) do
    local count = count_above(key, cutoff(now_ms, limit.window_ms)) - given_back
    count = count > 0 and count or 0
    local remaining = limit.limit - count
    local verdict = { binding = index, allowed = true, count = count, remaining = remaining > 0 and remaining or 0, retry = -1 }
    if tightest == nil or verdict.remaining < tightest.remaining then
      tightest = verdict
    end
  end
  return tightest
end

-- A refund of `units` (logic/rate.rs `refund`) on a log read as `judge`
-- reads it: entries that left the widest window go, then the `units`
-- newest (every live one, when fewer), by ZREM. The newest entries are in
-- every window that holds any, so each window counts that many fewer: the
-- verdict is read before the writes.
local function refund(key, now_ms, limits, units, len, lowest)
  local oldest_kept = cutoff(now_ms, widest_window(limits))
  local expired = expired_count(key, len, lowest, oldest_kept)
  local live = len - expired
  local given_back = units < live and units or live
  local verdict = standing(key, now_ms, limits, given_back)
  local newest = given_back > 0 and rt.call('ZRANGE', key, int_text(-given_back), '-1') or nil
  if expired > 0 then
    rt.call('ZREMRANGEBYSCORE', key, '-inf', int_text(oldest_kept))
  end
  if newest then
    rt.members_call('ZREM', key, newest)
  end
  return verdict
end

-- The `window-ms limit` pairs, checked in range.
local function checked_limits(pairs_given)
  local limits = {}
  for i, pair in ipairs(pairs_given) do
    local window_ms, limit = tonumber(pair[1]), tonumber(pair[2])
    if not (window_ms >= 1 and window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    if not (limit >= 1 and limit <= MAX_LIMIT) then
      rt.out_of_range('limit', rt.bound.RATE_LIMIT)
    end
    limits[i] = { window_ms = window_ms, limit = limit }
  end
  return limits
end

-- A RATE key's size, its lowest (rt.lowest_for_checks: {{member, score}},
-- the lowest two when the lowest could begin a seen-key) and, with
-- `highest`, its highest ({member, score} or nil), checked to be a RATE
-- key: another family's key (a gift board, whose totals would read as hits
-- long past or leases long ended) is refused, not trimmed. A lowest score
-- of today or later passes every check of the highest, so then the highest
-- is read only when asked for (as the module's `open_log`: a native call
-- less on a live log).
local function checked_log(key, highest)
  local len = rt.zcard(key)
  local lowest, top = {}, nil
  if len > 0 then
    lowest = rt.lowest_for_checks(key)
    if highest or lowest[1][2] < TODAY_MS then
      top = newest_entry(key)
    end
    rt.check_rate_log(lowest, top)
  end
  return len, lowest, top
end

-- A poll's RATE window (commands/delay.rs `window_room` and `spend`), for
-- delay.lua: the claims it allows now, and the claims logged in it.
rt.rate_window = {}

-- -> how many claims the window of `limit` per `window_ms` allows at
-- `now_ms` (at least 1), or false and the ms until it has room.
function rt.rate_window.room(key, now_ms, window_ms, limit)
  if checked_log(key) == 0 then
    return limit
  end
  local window_start = cutoff(now_ms, window_ms)
  local live = count_above(key, window_start)
  if live + 1 <= limit then
    return limit - live
  end
  local waits_for = nth_above(key, window_start, live - limit)
  return false, waits_for and retry_after_ms(waits_for, window_ms, now_ms) or 1
end

-- Logs `units` claims at `now_ms`, as RATE.HIT logs its units.
function rt.rate_window.spend(key, now_ms, window_ms, units)
  local len = rt.zcard(key)
  log_units(key, now_ms, units, len, len > 0 and newest_of(key) or nil, window_ms)
end

-- `[allowed, count, remaining, retry-after-ms]`, and the binding limit's
-- position when several limits are given or `with_position`.
local function verdict_reply(verdict, limits, with_position)
  local reply = { verdict.allowed and 1 or 0, verdict.count, verdict.remaining, verdict.retry }
  if #limits > 1 or with_position then
    reply[#reply + 1] = verdict.binding
  end
  return reply
end

-- -> `[allowed, count, remaining, retry-after-ms]`, the binding limit's
-- position when several or when IDMP is given (so the flag is always sixth),
-- and the IDMP flag when IDMP is given.
handlers['rate.hit'] = function(v)
  local key, cost, clause, retain, pairs_given = v[1], v[2], v[3], v[4], v[5]
  local event
  if clause ~= false or retain ~= false then
    local parts = { key, cost == false and '1' or cost }
    for _, pair in ipairs(pairs_given) do
      parts[#parts + 1] = pair[1]
      parts[#parts + 1] = pair[2]
    end
    event = rt.idmp.args(clause, retain, 'rate.hit', parts)
  end
  local limits = checked_limits(pairs_given)
  cost = cost == false and 1 or tonumber(cost)
  -- A cost above a limit is refused by it, and a negative one is a refund.
  if cost == 0 then
    rt.out_of_range('cost', rt.bound.NOT_ZERO)
  end
  local now = rt.now_ms()
  local seen = event and rt.idmp.check(event, now, { key }) or nil
  local len, lowest, top = checked_log(key)
  local verdict
  if seen == 'repeat' then
    verdict = standing(key, now, limits, 0)
  elseif cost < 0 then
    rt.reach('refunds')
    verdict = refund(key, now, limits, -cost, len, lowest)
  else
    verdict = hit(key, now, limits, cost, len, lowest, top and top[2])
  end
  if event and seen == 'new' and verdict.allowed then
    rt.idmp.record(event, now)
  end
  return rt.idmp.with_flag(verdict_reply(verdict, limits, event ~= nil), seen)
end

-- -> what RATE.HIT would reply now without IDMP, nothing written.
handlers['rate.peek'] = function(v)
  local key, cost, pairs_given = v[1], v[2], v[3]
  local limits = checked_limits(pairs_given)
  cost = cost == false and 1 or tonumber(cost)
  if cost < 1 then
    rt.out_of_range('cost', rt.bound.AT_LEAST_ONE)
  end
  local now = rt.now_ms()
  local len, lowest = checked_log(key)
  return verdict_reply(judge(key, now, limits, cost, len, lowest), limits, false)
end

-- -> `[acquired, held, remaining, retry-after-ms, token]` (logic/rate.rs
-- `acquire`): a slot while fewer than `limit` leases have not ended, or the
-- holder's own lease renewed. Everything is read before the first write.
handlers['rate.acquire'] = function(v)
  local key, holder, lease_ms, limit = v[1], v[2], tonumber(v[3]), tonumber(v[4])
  local now = rt.now_ms()
  local until_ms = rt.deadline(now, lease_ms)
  if until_ms == nil then
    rt.out_of_range('lease', rt.bound.DURATION_MS)
  end
  if not (limit >= 1 and limit <= MAX_LIMIT) then
    rt.out_of_range('limit', rt.bound.RATE_LIMIT)
  end
  local len, _, top = checked_log(key, true)
  local ended = len > 0 and count_up_to(key, now) or 0
  local live = len - ended
  local lease_end = len > 0 and rt.zscore(key, holder) or nil
  local renewal = lease_end ~= nil and lease_end > now
  if not (renewal or live < limit) then
    -- The lease whose end frees a slot: live - limit + 1 must end first.
    local ends = nth_above(key, now, live - limit)
    if ended > 0 then
      rt.call('ZREMRANGEBYSCORE', key, '-inf', int_text(now))
    end
    local remaining = limit - live
    return { 0, live, remaining > 0 and remaining or 0, ends and retry_after_ms(ends, 0, now) or 1, -1 }
  end
  -- The latest lease after this one is held: a renewal may have shortened
  -- the latest, which is then the next below it or this one.
  local latest = until_ms
  local other = top
  if other and other[1] == holder then
    other = rt.pairs_of(rt.call('ZRANGE', key, '-2', '-2', 'WITHSCORES'))[1]
  end
  if other and other[2] > latest then
    latest = other[2]
  end
  -- Held before the ended leases go: a set whose leases all ended is never
  -- empty in between.
  rt.call('ZADD', key, int_text(until_ms), holder)
  if ended > 0 then
    rt.call('ZREMRANGEBYSCORE', key, '-inf', int_text(now))
  end
  rt.call('PEXPIREAT', key, int_text(expire_at(now, latest, 0)))
  local held = renewal and live or live + 1
  local remaining = limit - held
  return { 1, held, remaining > 0 and remaining or 0, -1, until_ms }
end

-- -> 1 when the holder's lease (with TOKEN: the lease ending at the token,
-- an integer's text the double it reads as prints back to) has not ended
-- and is released, else 0 and nothing changed (logic/delay.rs `holds`).
handlers['rate.release'] = function(v)
  local key, holder, token = v[1], v[2], v[3]
  local now = rt.now_ms()
  local lease_end = rt.zscore(key, holder)
  if lease_end == nil or lease_end <= now then
    return 0
  end
  if token ~= false and not (lease_end == tonumber(token) and string.format('%.0f', lease_end) == token) then
    return 0
  end
  rt.call('ZREM', key, holder)
  return 1
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
  local newest = newest_of(key)
  local now = rt.now_ms()
  local counted = {}
  for i, window in ipairs(windows) do
    local within = rt.call('ZCOUNT', key, '(' .. rt.arg_score(cutoff(now, tonumber(window))), '+inf')
    counted[i] = { tonumber(window), within }
  end
  return { 'entries', entries, 'newest-ms', newest and whole(newest) or rt.NULL, 'windows', counted }
end
