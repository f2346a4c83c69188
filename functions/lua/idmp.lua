-- `IDMP seen-key event-id [RETAIN ms]`: exactly-once writes
-- (src/commands/idmp.rs; the seen-key format is src/logic/idmp.rs's). An
-- event id applied with retention r at unix ms t expires at e = t + r and is
-- two members: the id, scored e + 0.25, and the id followed by the first 8
-- bytes of the SHA-1 of the call's arguments (netstrings, the command's name
-- first), scored e + 0.5. A call with the same id and arguments is a retry;
-- with other arguments it is refused.
local idmp = {}
rt.idmp = idmp

local RETAIN_WITHOUT_IDMP = ERRORS.idmp_retain_without_idmp
local SEEN_KEY_IS_WRITTEN = ERRORS.idmp_seen_key_is_written
local OTHER_ARGUMENTS = ERRORS.idmp_other_arguments
-- Expiries stay below 2^50, so that expiry + 0.25 is exact.
local EXPIRY_LIMIT = LIMITS.IDMP_EXPIRY_LIMIT
local DIGEST_LEN = LIMITS.IDMP_DIGEST_LEN

-- The 8-byte digest of a call's arguments: `command` (lower case), then
-- each part, as netstrings.
local function digest(command, parts)
  local text = { #command, ':', command, ',' }
  for _, part in ipairs(parts) do
    text[#text + 1] = #part
    text[#text + 1] = ':'
    text[#text + 1] = part
    text[#text + 1] = ','
  end
  local hex = string.sub(redis.sha1hex(table.concat(text)), 1, 2 * DIGEST_LEN)
  return (hex:gsub('..', function(pair) return string.char(tonumber(pair, 16)) end))
end

-- The parsed `[IDMP seen-key event-id] [RETAIN ms]`, checked: nil without
-- IDMP. `parts` are the call's arguments as its digest takes them.
function idmp.args(clause, retain, command, parts)
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
  return { seen_key = clause[1], event_id = clause[2], retain_ms = retain_ms, digest = digest(command, parts) }
end

local function max_ids()
  local most = CONFIG['idmp-max-ids']
  return most < 1 and 1 or most
end

local function expiry(clause, now_ms)
  local at = rt.deadline(now_ms, clause.retain_ms)
  if at == nil or at >= EXPIRY_LIMIT then
    rt.out_of_range('retain', rt.bound.DURATION_MS)
  end
  return at
end

-- 'repeat' when the event was applied with these arguments, else 'new';
-- before the command's first write. `written` are the keys it writes.
function idmp.check(clause, now_ms, written)
  for _, key in ipairs(written) do
    if key == clause.seen_key then
      rt.fail(SEEN_KEY_IS_WRITTEN)
    end
  end
  expiry(clause, now_ms)
  -- Whether remembering this event may forget others (record, below):
  -- known before the command's first write, which checks the natives that
  -- takes.
  clause.size = rt.zcard(clause.seen_key)
  if clause.size + 2 > 2 * max_ids() then
    rt.reach('idmp-evicts')
  end
  local id = rt.zscore(clause.seen_key, clause.event_id)
  local args
  if id ~= nil then
    args = rt.zscore(clause.seen_key, clause.event_id .. clause.digest)
  end
  local function live(score)
    return score ~= nil and math.floor(score) > now_ms
  end
  if not live(id) then
    return 'new'
  end
  local entry = rt.idmp_entry(id)
  if entry == 'bare' then
    return 'repeat'
  elseif entry == 'id' then
    if live(args) then
      return 'repeat'
    end
    rt.fail(OTHER_ARGUMENTS)
  end
  -- The id is spelled like another id's arguments member: an id of its own.
  return 'new'
end

-- Remembers the event, after the command's write: forgets expired ids, adds
-- this one and its arguments, and forgets the ids closest to expiring past
-- idmp-max-ids (an id with its arguments member).
function idmp.record(clause, now_ms)
  local at = expiry(clause, now_ms)
  local seen, event_id = clause.seen_key, clause.event_id
  local size = clause.size - rt.call('ZREMRANGEBYSCORE', seen, '-inf', rt.int_text(now_ms))
  size = size + rt.call('ZADD', seen, at + 0.25, event_id)
  size = size + rt.call('ZADD', seen, at + 0.5, event_id .. clause.digest)
  -- Each id is two members.
  local excess = size - 2 * max_ids()
  if excess <= 0 then
    return
  end
  local doomed = {}
  local offset, batch = 0, 2 * excess + 2
  while #doomed < excess do
    local members = rt.pairs_of(rt.call('ZRANGE', seen, rt.int_text(offset), rt.int_text(offset + batch - 1), 'WITHSCORES'))
    for _, item in ipairs(members) do
      if #doomed >= excess then
        break
      end
      local member, score = item[1], item[2]
      local entry = rt.idmp_entry(score)
      if entry == 'bare' and member ~= event_id then
        doomed[#doomed + 1] = { member }
      elseif entry == 'args' and #member >= DIGEST_LEN then
        local id = string.sub(member, 1, #member - DIGEST_LEN)
        if id ~= event_id then
          doomed[#doomed + 1] = { member, math.floor(score) }
          doomed[#doomed + 1] = { id, math.floor(score) }
        end
      end
    end
    if #members < batch then
      break
    end
    offset = offset + batch
  end
  for _, item in ipairs(doomed) do
    local member, own_expiry = item[1], item[2]
    -- An id goes with an arguments member of its own expiry only.
    local score = rt.zscore(seen, member)
    if own_expiry == nil or (score ~= nil and math.floor(score) == own_expiry) then
      rt.call('ZREM', seen, member)
    end
  end
end

-- A reply with the IDMP flag as its last element when the call gave IDMP.
function idmp.with_flag(reply, seen)
  if seen then
    reply[#reply + 1] = (seen == 'repeat') and 1 or 0
  end
  return reply
end
