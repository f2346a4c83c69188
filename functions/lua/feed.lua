-- FEED: feeds paged by exact cursors (src/commands/feed.rs,
-- src/logic/cursor.rs). A feed is shown newest first: score descending, and
-- among equal scores member descending. A cursor is `f1:<16 hex digits: the
-- score's bits>:<the member's bytes in hex>`, lowercase.

local DEFAULT_COUNT = LIMITS.FEED_DEFAULT_COUNT
local MAX_COUNT = LIMITS.FEED_MAX_COUNT
local MALFORMED = ERRORS.cursor_malformed
-- The shortest proto-max-bulk-len a server takes: shorter cursors always
-- fit. A function cannot read the server's setting (CONFIG is not allowed in
-- scripts): longer ones are checked against its default, 512 MB.
local SMALLEST_BULK_LIMIT = LIMITS.SMALLEST_BULK_LIMIT
local DEFAULT_BULK_LIMIT = 536870912

local hex, unhex = rt.hex, rt.unhex

local function encode(score, member)
  return 'f1:' .. hex(struct.pack('>d', score)) .. ':' .. hex(member)
end

local function decode(cursor)
  if string.sub(cursor, 1, 3) ~= 'f1:' then
    rt.fail(MALFORMED)
  end
  local rest = string.sub(cursor, 4)
  if #rest < 17 or string.sub(rest, 17, 17) ~= ':' then
    rt.fail(MALFORMED)
  end
  local score_hex, member_hex = string.sub(rest, 1, 16), string.sub(rest, 18)
  if not score_hex:find('^[0-9a-f]+$') or #member_hex % 2 ~= 0 or not member_hex:find('^[0-9a-f]*$') then
    rt.fail(MALFORMED)
  end
  local score = struct.unpack('>d', unhex(score_hex))
  if score ~= score then
    rt.fail(MALFORMED)
  end
  return { score = score, member = unhex(member_hex) }
end

-- Where (score, member) is shown relative to a position: -1 above it
-- (newer), 1 below it (older), 0 at it.
local function locate(at, score, member)
  if score > at.score then
    return -1
  elseif score < at.score then
    return 1
  end
  return rt.compare_bytes(at.member, member)
end

local function check_cursor_fits(member_len)
  local cursor_len = 20 + 2 * member_len
  if cursor_len > SMALLEST_BULK_LIMIT and cursor_len > DEFAULT_BULK_LIMIT then
    rt.fail(rt.say(ERRORS.cursor_too_long, { member_len = rt.int_text(member_len),
      cursor_len = rt.int_text(cursor_len), limit = rt.int_text(DEFAULT_BULK_LIMIT) }))
  end
end

-- -> members added.
handlers['feed.add'] = function(v)
  local key, cap, data = v[1], v[2], v[3]
  if cap ~= false then
    cap = rt.positive(cap, 'CAP')
  end
  local members = {}
  for i, item in ipairs(data) do
    members[i] = { item[2], item[1] }
  end
  local size
  if cap then
    -- Whether the add may trim is known before it writes (and so are the
    -- natives a trim runs, checked before the add).
    size = rt.zcard(key)
    if size + #members > cap then
      rt.reach('trim')
    end
  end
  local added = rt.zadd_pairs(key, members)
  if cap then
    rt.trim_lowest(key, size + added - cap)
  end
  return added
end

local function empty_page(cursor)
  local edge = cursor or rt.NULL
  return { {}, edge, edge, 0 }
end

-- Items from a walk of `key` (`ZRANGE key from to BYSCORE [REV]`), after
-- those `skip` says to step over, up to `wanted`.
local function walk(key, from, to, reverse, skip, wanted)
  -- One more than wanted: the cursor's own item, when it is still there, is
  -- the one stepped over.
  local items, offset, batch = {}, 0, wanted + 1
  local skipping = true
  while true do
    local argv = { 'ZRANGE', key, from, to, 'BYSCORE' }
    if reverse then
      argv[#argv + 1] = 'REV'
    end
    for _, word in ipairs({ 'LIMIT', rt.int_text(offset), rt.int_text(batch), 'WITHSCORES' }) do
      argv[#argv + 1] = word
    end
    local got = rt.pairs_of(rt.call(unpack(argv)), true)
    for _, item in ipairs(got) do
      if skipping and not skip(item[2], item[1]) then
        skipping = false
      end
      if not skipping then
        items[#items + 1] = item
        if #items == wanted then
          return items
        end
      end
    end
    if #got < batch then
      return items
    end
    offset = offset + batch
    batch = batch * 2
  end
end

-- -> `[[member, score, ...], top, bottom, more]`.
handlers['feed.page'] = function(v)
  local key, count, direction = v[1], v[2], v[3]
  if count == false then
    count = DEFAULT_COUNT
  else
    count = tonumber(count)
    if not (count >= 1 and count <= MAX_COUNT) then
      rt.out_of_range('COUNT', rt.bound.PAGE_COUNT)
    end
  end
  local newer, at, cursor = false, nil, nil
  if direction ~= false then
    newer = direction.choice == 1
    cursor = direction.value
    at = decode(cursor)
  end
  if rt.zcard(key) == 0 then
    return empty_page(cursor)
  end
  local wanted = count + 1
  local items
  if at == nil then
    items = rt.pairs_of(rt.call('ZRANGE', key, '0', rt.int_text(count), 'REV', 'WITHSCORES'), true)
  elseif newer then
    -- The items closest to the cursor, so repeated pulls leave no gap.
    items = walk(key, at.score, '+inf', false, function(score, member)
      return locate(at, score, member) ~= -1
    end, wanted)
  else
    items = walk(key, at.score, '-inf', true, function(score, member)
      return locate(at, score, member) ~= 1
    end, wanted)
  end
  local more = #items > count and 1 or 0
  while #items > count do
    items[#items] = nil
  end
  if newer then
    local n = #items
    for i = 1, math.floor(n / 2) do
      items[i], items[n + 1 - i] = items[n + 1 - i], items[i]
    end
  end
  local newest, oldest = items[1], items[#items]
  if newest == nil then
    return empty_page(cursor)
  end
  check_cursor_fits(#newest[1])
  check_cursor_fits(#oldest[1])
  local page = {}
  for _, item in ipairs(items) do
    page[#page + 1] = item[1]
    page[#page + 1] = item[3] or rt.score_text(item[2])
  end
  return { page, encode(newest[2], newest[1]), encode(oldest[2], oldest[1]), more }
end
