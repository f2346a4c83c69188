-- RANK.MERGE: stores the sum of several boards (times integer weights) in
-- destkey, first-come order kept: a merged entry reached its total when its
-- last contributor did (src/commands/rank_merge.rs, src/logic/merge.rs). In
-- one call, or in steps (`STEP count staging cursor`) whose staging keys,
-- run records and cursors are the module's, byte for byte: a run the module
-- started, the library continues, and the reverse.

local rank = rt.rank
local int_text = rt.int_text

-- ---------------------------------------------------------------------------
-- Exact sums (logic/merge.rs `MemberSum`): a member's weighted totals add up
-- without rounding, in any order, and only the final total must fit a rank
-- score. Each weighted total is below 2^52; the sum is kept as hi * 2^52 +
-- lo with |lo| < 2^52, so every addition stays an exact double.

local TOTAL_LIMIT = LIMITS.TOTAL_LIMIT

-- A sum's parts (hi, lo) after adding `total * weight`.
local function sum_add(hi, lo, total, weight)
  lo = lo + rank.check_total(total * weight)
  if lo >= TOTAL_LIMIT then
    return hi + 1, lo - TOTAL_LIMIT
  elseif lo <= -TOTAL_LIMIT then
    return hi - 1, lo + TOTAL_LIMIT
  end
  return hi, lo
end

-- The merged rank score of a sum's parts, reached at `reached_at` (its
-- contributors' latest) on a board in the order `asc` says; after at least
-- one `sum_add`.
local function sum_score(hi, lo, reached_at, asc)
  local total
  if hi == 0 then
    total = lo
  elseif hi == 1 then
    total = lo + TOTAL_LIMIT
  elseif hi == -1 then
    total = lo - TOTAL_LIMIT
  else
    total = hi * TOTAL_LIMIT -- |total| >= 2^52: refused below
  end
  return rank.encode(total, reached_at, nil, asc)
end

-- The one-shot merge: every source read, every member summed, in the order
-- members were first met (the order the module checks them in). A sum's
-- parts and time are kept in one table each, under the member's name, not
-- in a table per member: a merge of whole boards makes no garbage per
-- member but the strings it reads. Every score is worked out before the
-- first write, so a total out of range changes nothing.
local function merge_at_once(dest, sources, weights, asc)
  local decode = rank.decode
  local order, his, los, reached = {}, {}, {}, {}
  for i, source in ipairs(sources) do
    local reply = rt.call('ZRANGE', source, '0', '-1', 'WITHSCORES')
    local weight = weights[i]
    for j = 1, #reply, 2 do
      local member = reply[j]
      local total, reached_at = decode(tonumber(reply[j + 1]), asc)
      local lo, hi = los[member]
      if lo == nil then
        order[#order + 1] = member
        lo, hi = 0, 0
        reached[member] = reached_at
      else
        hi = his[member]
        if reached_at > reached[member] then
          reached[member] = reached_at
        end
      end
      hi, lo = sum_add(hi, lo, total, weight)
      los[member], his[member] = lo, hi
    end
  end
  local scores = {}
  for _, member in ipairs(order) do
    scores[member] = sum_score(his[member], los[member], reached[member], asc)
  end
  rt.call('UNLINK', dest)
  rt.in_chunks('ZADD', dest, nil, order, function(member, argv)
    argv[#argv + 1] = scores[member]
    argv[#argv + 1] = member
  end)
  return #order
end

-- ---------------------------------------------------------------------------
-- Steps. The staging board holds the members merged so far and the run's
-- record, one member scored +inf:
--   zkit:merge-run:v1:<run>:<args>:<steps>:<staged>:<salt>:done
--   zkit:merge-run:v1:<run>:<args>:<steps>:<staged>:<salt>:at:<source>:<score bits>:<member>
-- and a cursor is `0` or `m2:<run>:<steps>` (logic/merge.rs). Steps, which
-- may reach 2^64 - 1 in a cursor, stay decimal text.

local RECORD_PREFIX = LIMITS.MERGE_RECORD_PREFIX
local U64_MAX = '18446744073709551615'
local U32_MAX = '4294967295'
-- How long a finished run's record stays when staging had no TTL: a day.
local FINISHED_RECORD_TTL_MS = LIMITS.MERGE_FINISHED_RECORD_TTL_MS

local MERGE_ERRORS = {
  staging_is_named = ERRORS.merge_staging_is_named,
  malformed = ERRORS.merge_malformed_cursor,
  foreign = ERRORS.merge_foreign_cursor,
  staging_gone = ERRORS.merge_staging_gone,
  in_progress = ERRORS.merge_run_in_progress,
  replaced = ERRORS.merge_run_replaced,
  stale = ERRORS.merge_stale_cursor,
}

-- A decimal written without sign or leading zeros, at most `max`.
local function is_decimal(text, max)
  if not (text == '0' or text:find('^[1-9][0-9]*$')) then
    return false
  end
  return #text < #max or (#text == #max and rt.compare_bytes(text, max) <= 0)
end

local function is_lower_hex(text, length)
  return #text == length and text:find('^[0-9a-f]*$') ~= nil
end

-- `0`: {start = true}; `m2:<run>:<steps>`: {run, steps}.
local function parse_cursor(text)
  if text == '0' then
    return { start = true }
  end
  if string.sub(text, 1, 3) ~= 'm2:' then
    rt.fail(MERGE_ERRORS.malformed)
  end
  local rest = string.sub(text, 4)
  local colon = rest:find(':', 1, true)
  if not colon then
    rt.fail(MERGE_ERRORS.malformed)
  end
  local run, steps = string.sub(rest, 1, colon - 1), string.sub(rest, colon + 1)
  if not (is_lower_hex(run, 32) and is_decimal(steps, U64_MAX)) then
    rt.fail(MERGE_ERRORS.malformed)
  end
  return { run = run, steps = steps }
end

local function score_bits(score)
  return rt.hex(struct.pack('>d', score))
end

-- The member a record is stored as.
local function record_member(record)
  local head = RECORD_PREFIX .. record.run .. ':' .. record.args .. ':' .. record.steps .. ':'
    .. int_text(record.staged) .. ':' .. int_text(record.salt) .. ':'
  if record.done then
    return head .. 'done'
  end
  return head .. 'at:' .. record.source .. ':' .. score_bits(record.after.score) .. ':' .. record.after.member
end

-- A record read back from its member; nil for anything `record_member`
-- cannot have written. Number fields stay the text they were written as.
local function parse_record(member)
  if string.sub(member, 1, #RECORD_PREFIX) ~= RECORD_PREFIX then
    return nil
  end
  local fields, at = {}, #RECORD_PREFIX + 1
  for i = 1, 5 do
    local colon = member:find(':', at, true)
    if not colon then
      return nil
    end
    fields[i] = string.sub(member, at, colon - 1)
    at = colon + 1
  end
  local run, args, steps, staged, salt = fields[1], fields[2], fields[3], fields[4], fields[5]
  if not (is_lower_hex(run, 32) and is_lower_hex(args, 16) and is_decimal(steps, U64_MAX)
      and is_decimal(staged, U64_MAX) and is_decimal(salt, U32_MAX)) then
    return nil
  end
  local record = { run = run, args = args, steps = steps, staged = staged, salt = tonumber(salt), member = member }
  local tail = string.sub(member, at)
  if tail == 'done' then
    record.done = true
    return record
  end
  if string.sub(tail, 1, 3) ~= 'at:' then
    return nil
  end
  tail = string.sub(tail, 4)
  local colon = tail:find(':', 1, true)
  if not colon then
    return nil
  end
  local source, rest = string.sub(tail, 1, colon - 1), string.sub(tail, colon + 1)
  colon = rest:find(':', 1, true)
  if not (colon and is_decimal(source, U64_MAX)) then
    return nil
  end
  local bits = string.sub(rest, 1, colon - 1)
  if not is_lower_hex(bits, 16) then
    return nil
  end
  local score = struct.unpack('>d', rt.unhex(bits))
  if score ~= score then
    return nil
  end
  record.source = source
  record.after = { score = score, member = string.sub(rest, colon + 1) }
  return record
end

-- The reply of the step that left `record`: {cursor, staged}.
local function record_reply(record)
  local cursor = record.done and '0' or ('m2:' .. record.run .. ':' .. record.steps)
  return { cursor, tonumber(record.staged) }
end

-- ---------------------------------------------------------------------------
-- The run's arguments' checksum (logic/merge.rs `MergeArgs::checksum`):
-- 64-bit FNV-1a over each argument prefixed by its length (8 bytes, little
-- endian), weights as 8-byte little-endian integers. The hash is four 16-bit
-- limbs, low first, so every product is an exact double.

-- The 8 little-endian bytes of a 64-bit integer given as decimal text
-- (two's complement when negative).
local function le64_of_text(text)
  local negative = string.sub(text, 1, 1) == '-'
  local digits = negative and string.sub(text, 2) or text
  local hi, lo = 0, 0
  for i = 1, #digits do
    lo = lo * 10 + (string.byte(digits, i) - 48)
    hi = hi * 10 + math.floor(lo / 4294967296)
    lo = lo % 4294967296
  end
  if negative then
    if lo == 0 then
      hi = (4294967296 - hi) % 4294967296
    else
      lo, hi = 4294967296 - lo, 4294967295 - hi
    end
  end
  local out = {}
  for i = 1, 4 do
    out[i] = string.char(lo % 256)
    lo = math.floor(lo / 256)
  end
  for i = 5, 8 do
    out[i] = string.char(hi % 256)
    hi = math.floor(hi / 256)
  end
  return table.concat(out)
end

local function le64(n)
  return le64_of_text(int_text(n))
end

local function checksum(dest, staging, sources, weights, asc)
  local h0, h1, h2, h3 = 0x2325, 0x8422, 0x9ce4, 0xcbf2 -- 0xcbf29ce484222325
  local function feed_bytes(bytes)
    for i = 1, #bytes do
      h0 = bit.bxor(h0, string.byte(bytes, i))
      -- h * (2^40 + 0x1b3) mod 2^64; 2^40 is 0x100 in the third limb.
      local r0 = h0 * 0x1b3
      local r1 = h1 * 0x1b3
      local r2 = h2 * 0x1b3 + h0 * 0x100
      local r3 = h3 * 0x1b3 + h1 * 0x100
      h0 = r0 % 65536
      r1 = r1 + math.floor(r0 / 65536)
      h1 = r1 % 65536
      r2 = r2 + math.floor(r1 / 65536)
      h2 = r2 % 65536
      r3 = r3 + math.floor(r2 / 65536)
      h3 = r3 % 65536
    end
  end
  local function feed(bytes)
    feed_bytes(le64(#bytes))
    feed_bytes(bytes)
  end
  feed(dest)
  feed(staging)
  feed(le64(#sources))
  for _, source in ipairs(sources) do
    feed(source)
  end
  for _, weight in ipairs(weights) do
    feed(le64_of_text(weight))
  end
  -- A merge without ASC sums as before ASC existed.
  if asc then
    feed('ASC')
  end
  return string.format('%04x%04x%04x%04x', h3, h2, h1, h0)
end

-- ---------------------------------------------------------------------------
-- A run's id. The module draws 128 random bits; a function has no source of
-- randomness (math.random restarts from the same seed with the server), so
-- the library hashes the server's clock in microseconds, a count of the runs
-- it started since it was loaded, and the run's arguments: ids that differ
-- between runs, but that are not secret (docs/functions.md).

local runs_started = 0

local function new_run_id(args, staging)
  runs_started = runs_started + 1
  local time = rt.call('TIME')
  return string.sub(redis.sha1hex(table.concat({ time[1], time[2], int_text(runs_started), args, staging }, ':')), 1, 32)
end

-- ---------------------------------------------------------------------------
-- What the staging key holds: nil (no key), false (no run record on top:
-- another type, a board, 0.3.0 leftovers), or the run's record.
local function staging_state(staging)
  local top = rt.pcall('ZRANGE', staging, '-1', '-1', 'WITHSCORES')
  if type(top) == 'table' and top.err then
    if string.sub(top.err, 1, 9) == 'WRONGTYPE' then
      return false
    end
    rt.fail(top.err)
  end
  if #top == 0 then
    return nil
  end
  if tonumber(top[2]) ~= math.huge then
    return false
  end
  return parse_record(top[1]) or false
end

-- What a step with `cursor` does (logic/merge.rs `plan`): 'start' (and the
-- client's run id, if any), 'continue' or 'replay'.
local function plan(cursor, args, state)
  local record = state or nil
  local unfinished = record ~= nil and not record.done
  if cursor.start then
    if unfinished then
      rt.fail(MERGE_ERRORS.in_progress)
    end
    return 'start', nil
  end
  if not (record and record.run == cursor.run) then
    if cursor.steps == '0' then
      if unfinished then
        rt.fail(MERGE_ERRORS.in_progress)
      end
      return 'start', cursor.run
    end
    rt.fail(record and MERGE_ERRORS.replaced or MERGE_ERRORS.staging_gone)
  end
  if record.args ~= args then
    rt.fail(MERGE_ERRORS.foreign)
  end
  if rt.add_to_digits(cursor.steps, 1) == record.steps then
    return 'replay'
  end
  if cursor.steps == record.steps and not record.done then
    return 'continue'
  end
  rt.fail(MERGE_ERRORS.stale)
end

-- How many entries of `key` come at or before `at` in ascending (score,
-- member) order: those of lower scores, and the ties whose member sorts at
-- or before `at`'s (found by bisection, as ties are ordered by member).
local function entries_through(key, at)
  local score = rt.arg_score(at.score)
  local below = rt.call('ZCOUNT', key, '-inf', '(' .. score)
  local ties = rt.call('ZCOUNT', key, score, score)
  local lo, hi = 0, ties
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local index = int_text(below + mid)
    local member = rt.call('ZRANGE', key, index, index)[1]
    if rt.compare_bytes(member, at.member) <= 0 then
      lo = mid + 1
    else
      hi = mid
    end
  end
  return below + lo
end

-- Up to `limit` entries of `key` strictly after `after` (from the lowest
-- without), and whether more follow them.
local function read_source(key, after, limit)
  local start = after and entries_through(key, after) or 0
  local stop = start + limit
  local reply = rt.call('ZRANGE', key, int_text(start), stop < rt.TWO_53 and int_text(stop) or '-1', 'WITHSCORES')
  local entries = rt.pairs_of(reply)
  local more = #entries > limit
  if more then
    entries[#entries] = nil
  end
  return entries, more
end

-- Reads the next `count` entries of the sources, source by source, from
-- strictly after the record's position (from the start without), and merges
-- every member met for the first time in this run from all sources at once
-- (logic/merge.rs `read_step`). -> merged {{member, score}...}, and where the
-- next step resumes ({source (0-based), after}) or nil.
local function read_step(m, record)
  local merged, seen, read = {}, {}, 0
  local last
  local first = record and tonumber(record.source) or 0
  for index = first, #m.sources - 1 do
    local after = (record and index == first) and record.after or nil
    local entries, more = read_source(m.sources[index + 1], after, m.count - read)
    for _, entry in ipairs(entries) do
      local member, score = entry[1], entry[2]
      read = read + 1
      last = { source = index, score = score, member = member }
      local staged = false
      if record then
        local at = rt.zscore(m.staging, member)
        staged = at ~= nil and at ~= math.huge and at ~= -math.huge
      end
      if not (staged or seen[member]) then
        seen[member] = true
        local hi, lo, latest = 0, 0, nil
        for source, weight in ipairs(m.weights) do
          local found = score
          if source ~= index + 1 then
            found = rt.zscore(m.sources[source], member)
          end
          if found ~= nil then
            local total, reached_at = rank.decode(found, m.asc)
            hi, lo = sum_add(hi, lo, total, tonumber(weight))
            if latest == nil or reached_at > latest then
              latest = reached_at
            end
          end
        end
        merged[#merged + 1] = { member, sum_score(hi, lo, latest, m.asc) }
      end
    end
    if more then
      if last == nil then
        return merged, nil
      end
      return merged, { source = int_text(last.source), after = { score = last.score, member = last.member } }
    end
  end
  return merged, nil
end

-- Adds `record` to staging, salted until no member is spelled like it.
local function add_record(staging, record)
  while true do
    local member = record_member(record)
    if rt.zscore(staging, member) == nil then
      rt.call('ZADD', staging, 'inf', member)
      return
    end
    record.salt = record.salt + 1
  end
end

-- Adds a step's merged members to staging and puts `record` instead of the
-- `previous` one; a run's first step (`previous` nil) replaces the key.
local function stage(m, merged, previous, record)
  if previous == nil then
    rt.call('UNLINK', m.staging)
  end
  rt.zadd_pairs(m.staging, merged)
  if record then
    add_record(m.staging, record)
  end
  -- Unless a merged member spelled like the old record replaced it.
  if previous ~= nil and rt.zscore(m.staging, previous) == math.huge then
    rt.call('ZREM', m.staging, previous)
  end
end

-- The last step: stages its members, moves staging onto destkey and leaves
-- the finished run's record in staging. The module unlinks destkey first
-- (freeing it in the background) where the server cannot then refuse the
-- RENAME; a function cannot tell whether destkey's cluster slot is being
-- migrated, so the library always renames staging over destkey, which the
-- server frees as RENAME frees a key it overwrites (docs/functions.md).
local function finish(m, merged, previous, record, expires_at)
  local record_expires_at = expires_at or (rt.now_ms() + FINISHED_RECORD_TTL_MS)
  stage(m, merged, previous, nil)
  if record.staged > 0 then
    if expires_at then
      -- staging's TTL must not reach destkey through the rename.
      rt.call('PERSIST', m.staging)
    end
    rt.call('RENAME', m.staging, m.dest)
  else
    rt.call('UNLINK', m.dest)
  end
  add_record(m.staging, record)
  rt.call('PEXPIREAT', m.staging, int_text(record_expires_at))
  return record_reply(record)
end

-- Runs the next step of run `run`: `record` is its state after its last
-- step, nil for its first step (staging is then replaced).
local function apply(m, run, args, record)
  local merged, next_at = read_step(m, record)
  local members, expires_at = 0, nil
  if record then
    members = rt.zcard(m.staging) - 1
    local at = rt.call('PEXPIRETIME', m.staging)
    if at >= 0 then
      expires_at = at
    end
  end
  local new = {
    run = run,
    args = args,
    steps = record and rt.add_to_digits(record.steps, 1) or '1',
    staged = members + #merged,
    salt = 0,
  }
  if next_at then
    new.source, new.after = next_at.source, next_at.after
    stage(m, merged, record and record.member, new)
    return record_reply(new)
  end
  new.done = true
  return finish(m, merged, record and record.member, new, expires_at)
end

local function merge_step(m, cursor_text)
  if m.staging == m.dest then
    rt.fail(MERGE_ERRORS.staging_is_named)
  end
  for _, source in ipairs(m.sources) do
    if source == m.staging then
      rt.fail(MERGE_ERRORS.staging_is_named)
    end
  end
  local cursor = parse_cursor(cursor_text)
  -- Sources must be boards; a step that resumes a run needs its staging
  -- board (ZCARD refuses another type).
  for _, source in ipairs(m.sources) do
    rt.zcard(source)
  end
  if cursor.run and cursor.steps ~= '0' then
    rt.zcard(m.staging)
  end
  local args = checksum(m.dest, m.staging, m.sources, m.weights, m.asc)
  local state = staging_state(m.staging)
  local what, run = plan(cursor, args, state)
  if what == 'replay' then
    return record_reply(state)
  elseif what == 'start' then
    return apply(m, run or new_run_id(args, m.staging), args, nil)
  end
  return apply(m, state.run, args, state)
end

-- -> the members of the merged board; with STEP, {next-cursor, members in
-- staging}.
handlers['rank.merge'] = function(v)
  local dest, sources, given_weights, step, asc = v[1], v[3], v[4], v[5], v[6]
  -- Weights stay their text: the checksum hashes them as 64-bit integers.
  local weights = {}
  for i = 1, #sources do
    weights[i] = given_weights ~= false and given_weights[i] or '1'
  end
  if step == false then
    local numbers = {}
    for i, weight in ipairs(weights) do
      numbers[i] = tonumber(weight)
    end
    return merge_at_once(dest, sources, numbers, asc)
  end
  local m = {
    dest = dest,
    sources = sources,
    weights = weights,
    count = rt.positive(step[1], 'count'),
    staging = step[2],
    asc = asc,
  }
  return merge_step(m, step[3])
end
