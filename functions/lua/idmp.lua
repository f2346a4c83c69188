-- `IDMP seen-key event-id [RETAIN ms]`: exactly-once writes
-- (src/commands/idmp.rs). The seen-key is a sorted set of event ids scored by
-- the unix ms at which they are forgotten.
local idmp = {}
rt.idmp = idmp

local RETAIN_WITHOUT_IDMP = 'ERR RETAIN sets how long an IDMP event id is remembered: give IDMP too'
local SEEN_KEY_IS_WRITTEN = 'ERR the IDMP seen-key must be a key of its own, not one the command writes'

-- The parsed `[IDMP seen-key event-id] [RETAIN ms]`, checked: nil without
-- IDMP.
function idmp.args(clause, retain)
  if clause == false then
    if retain ~= false then
      rt.fail(RETAIN_WITHOUT_IDMP)
    end
    return nil
  end
  local retain_ms = CONFIG['idmp-retain-ms']
  if retain ~= false then
    retain_ms = tonumber(retain)
    if not (retain_ms >= 1 and retain_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('retain', rt.bound.DURATION_MS)
    end
  end
  return { seen_key = clause[1], event_id = clause[2], retain_ms = retain_ms }
end

local function expiry(clause, now_ms)
  local at = rt.deadline(now_ms, clause.retain_ms)
  if at == nil then
    rt.out_of_range('retain', rt.bound.DURATION_MS)
  end
  return at
end

-- 'repeat' when the event was applied already, else 'new'; before the
-- command's first write. `written` are the keys the command writes.
function idmp.check(clause, now_ms, written)
  for _, key in ipairs(written) do
    if key == clause.seen_key then
      rt.fail(SEEN_KEY_IS_WRITTEN)
    end
  end
  expiry(clause, now_ms)
  local forgotten_at = rt.zscore(clause.seen_key, clause.event_id)
  if forgotten_at ~= nil and forgotten_at > now_ms then
    return 'repeat'
  end
  return 'new'
end

-- Remembers the event, after the command's write: forgets expired ids, adds
-- this one, and forgets the ids closest to expiring past idmp-max-ids.
function idmp.record(clause, now_ms)
  local at = expiry(clause, now_ms)
  local seen = clause.seen_key
  rt.call('ZREMRANGEBYSCORE', seen, '-inf', rt.int_text(now_ms))
  rt.call('ZADD', seen, rt.int_text(at), clause.event_id)
  local max_ids = CONFIG['idmp-max-ids']
  if max_ids < 1 then
    max_ids = 1
  end
  local excess = rt.zcard(seen) - max_ids
  if excess > 0 then
    local oldest = rt.call('ZRANGE', seen, '0', rt.int_text(excess))
    local doomed = {}
    for _, id in ipairs(oldest) do
      if #doomed < excess and id ~= clause.event_id then
        doomed[#doomed + 1] = id
      end
    end
    rt.members_call('ZREM', seen, doomed)
  end
end

-- A reply with the IDMP flag as its last element when the call gave IDMP.
function idmp.with_flag(reply, seen)
  if seen then
    reply[#reply + 1] = (seen == 'repeat') and 1 or 0
  end
  return reply
end
