-- RECENT: capped, expiring recently-viewed lists (src/commands/recent.rs,
-- src/logic/recent.rs). A view is scored by the clock in unix ms, strictly
-- above the list's newest score.

local SCORE_LIMIT = rt.TWO_53
local call = rt.call

local function view_scores(now_ms, newest, views)
  local first = now_ms
  if newest ~= nil and newest >= now_ms then
    if newest >= SCORE_LIMIT - views then
      rt.fail(rt.say(ERRORS.no_later_score, { newest = rt.rust_display(newest) }))
    end
    first = math.floor(newest) + 1
  end
  local scores = {}
  for i = 1, views do
    scores[i] = first + i - 1
  end
  return scores
end

-- The `excess` members a trim after the add removes, when the list's lowest
-- two read before it hold them (the views go above every member, so its
-- lowest after are those before that were not viewed again), else nil.
local function trimmed_from(lowest, members, excess)
  local gone = {}
  for i = 1, #lowest do
    local name, viewed = lowest[i][1], false
    for j = 1, #members do
      if members[j] == name then
        viewed = true
        break
      end
    end
    if not viewed and #gone < excess then
      gone[#gone + 1] = name
    end
  end
  return #gone == excess and gone or nil
end

-- -> the list's size after.
handlers['recent.add'] = function(v)
  local key, cap, ttl, members = v[1], v[2], v[3], v[4]
  if cap ~= false then
    cap = rt.positive(cap, 'cap')
  end
  local now = rt.now_ms()
  local expire_at = ttl ~= false and rt.ttl_deadline(now, ttl) or nil
  local top = rt.pairs_of(call('ZRANGE', key, '-1', '-1', 'WITHSCORES'))[1]
  -- Views are whole unix ms: another family's key (a gift board, whose
  -- members CAP would trim) is refused before anything is written.
  local lowest = {}
  if top then
    lowest = rt.lowest_two(key)
    rt.check_recent_list(lowest, top)
  end
  local newest = top and top[2] or nil
  local scores = view_scores(now, newest, #members)
  local views = {}
  for i, member in ipairs(members) do
    views[i] = { member, scores[i] }
  end
  -- The list's size is counted from the replies of the writes, and whether
  -- the add trims is known before it writes (so are the natives a trim runs,
  -- checked before the add).
  local size = top and rt.zcard(key) or 0
  if cap and size + #views > cap then
    rt.reach('trim')
  end
  size = size + rt.zadd_pairs(key, views)
  if cap and size > cap then
    local gone = trimmed_from(lowest, members, size - cap)
    if gone then
      size = size - rt.members_call('ZREM', key, gone)
    else
      size = size - rt.trim_lowest(key, size - cap)
    end
  end
  if expire_at then
    rt.call('PEXPIREAT', key, rt.int_text(expire_at))
  end
  return size
end
