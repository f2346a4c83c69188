-- RANK: leaderboards where equal totals rank first-come (src/commands/rank.rs,
-- src/logic/rank.rs). A score is `total + j / 2^b`: b = 53 minus the total's
-- bit length, j counts down the tie-break clock (epoch and span in CONFIG),
-- so floor(score) is the total and the earlier a total was reached, the
-- higher it ranks among equals. On a board whose lowest total ranks first
-- (`ASC`, `asc` below) j counts up instead: earlier is lower, and ZRANGE
-- is the board's order. Every step below is exact in doubles.

local TOTAL_LIMIT = LIMITS.TOTAL_LIMIT
local TOTAL_OUT_OF_RANGE = ERRORS.total_out_of_range
local int_text = rt.int_text

local rank = {}
rt.rank = rank

local function pow2(exponent)
  return 2 ^ exponent
end

-- 53 minus the bit length of |total| (|total| < 2^52).
local function fraction_bits(total)
  local magnitude = total < 0 and -total or total
  if magnitude == 0 then
    return 53
  end
  local _, exponent = math.frexp(magnitude)
  return 53 - exponent
end

-- (q + 1, r + added - limit) when r + added reaches `limit`, else
-- (q, r + added), for 0 <= r, added < limit <= 2^53: a step of a long
-- division or multiplication that keeps every value an exact double.
local function add_to_remainder(quotient, rest, limit, added)
  if rest >= limit - added then
    return quotient + 1, rest - (limit - added)
  end
  return quotient, rest + added
end

-- The window of accepted reached-at times [EPOCH_MS, EPOCH_MS + SPAN_MS),
-- read once: CONFIG is fixed once the library is loaded. When the span is a
-- power of two (the default, 2^41), slots are plain divisions. (Worked out
-- by halving: a library's load cannot reach `math`.)
local EPOCH_MS, SPAN_MS = CONFIG['tiebreak-epoch-ms'], CONFIG['tiebreak-span-ms']
local SPAN_IS_POWER_OF_TWO = (function()
  local n = SPAN_MS
  while n > 1 and n % 2 == 0 do
    n = n / 2
  end
  return n == 1
end)()

-- floor(a * 2^bits / span) for 0 <= a < span <= 2^53, by long division.
local function scaled_slot(a, bits, span)
  if SPAN_IS_POWER_OF_TWO then
    return math.floor(a * 2 ^ bits / span)
  end
  local quotient, rest = 0, a
  for _ = 1, bits do
    quotient, rest = add_to_remainder(quotient * 2, rest, span, rest)
  end
  return quotient
end

-- ceil(slot * span / 2^bits) for 0 <= slot < 2^bits, span <= 2^53.
local function slot_start(slot, bits, span)
  if SPAN_IS_POWER_OF_TWO then
    return math.ceil(slot * span / 2 ^ bits)
  end
  -- Long multiplication, keeping the remainder below 2^bits.
  local limit = pow2(bits)
  local quotient, rest = 0, 0
  local _, length = math.frexp(span)
  for i = length - 1, 0, -1 do
    quotient, rest = add_to_remainder(quotient * 2, rest, limit, rest)
    if math.floor(span / pow2(i)) % 2 == 1 then
      quotient, rest = add_to_remainder(quotient, rest, limit, slot)
    end
  end
  return rest > 0 and quotient + 1 or quotient
end

function rank.check_total(total)
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rt.fail(TOTAL_OUT_OF_RANGE)
  end
  return total
end

-- The score of `total` reached at `at_ms` (the text the caller gave, for
-- the error) on a board in the order `asc` says.
function rank.encode(total, at_ms, at_text, asc)
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rt.fail(TOTAL_OUT_OF_RANGE)
  end
  if not (at_ms >= EPOCH_MS and at_ms < EPOCH_MS + SPAN_MS) then
    rt.fail(rt.say(ERRORS.time_outside_window,
      { at_ms = at_text or int_text(at_ms), start_ms = int_text(EPOCH_MS), end_ms = int_text(EPOCH_MS + SPAN_MS) }))
  end
  -- 53 minus the bit length of |total| (frexp(0) is 0, 0).
  local _, length = math.frexp(total < 0 and -total or total)
  local bits = 53 - length
  local slots = 2 ^ bits
  local slot = scaled_slot(at_ms - EPOCH_MS, bits, SPAN_MS)
  if asc then
    return (total * slots + slot) / slots
  end
  return (total * slots + slots - 1 - slot) / slots
end

-- The total a score encodes (rank.decode's first value, without the time).
function rank.total(score)
  local total = math.floor(score)
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rank.decode(score)
  end
  return total
end

-- The total and reached-at time a score encodes, on a board in the order
-- `asc` says.
function rank.decode(score, asc)
  local total = math.floor(score)
  -- Also refuses NaN and the infinities (every comparison with NaN fails).
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rt.fail(rt.say(ERRORS.not_rank_score, { score = rt.rust_display(score) }))
  end
  -- 53 minus the bit length of |total| (frexp(0) is 0, 0).
  local _, length = math.frexp(total < 0 and -total or total)
  local bits = 53 - length
  local slots = 2 ^ bits
  local tick = math.floor((score - total) * slots)
  if tick > slots - 1 then
    tick = slots - 1
  end
  local offset = slot_start(asc and tick or slots - 1 - tick, bits, SPAN_MS)
  if offset > SPAN_MS - 1 then
    offset = SPAN_MS - 1
  end
  return total, EPOCH_MS + offset
end

-- `total + amount` within range.
function rank.add_totals(total, amount)
  return rank.check_total(total + amount)
end

-- The total after a write to a member at `previous` (nil: absent), and
-- whether it changed. The new total is checked even when GT/LT keeps the old.
local function next_total(previous, update)
  local candidate
  if update.add then
    candidate = rank.add_totals(previous or 0, update.add)
  else
    candidate = rank.check_total(update.set)
  end
  if previous == nil then
    return candidate, true
  end
  local replaces
  if update.condition == 'GT' then
    replaces = candidate > previous
  elseif update.condition == 'LT' then
    replaces = candidate < previous
  else
    replaces = candidate ~= previous
  end
  if replaces then
    return candidate, true
  end
  return previous, false
end

-- The 1-based rank of a member, highest first (with `asc`, lowest); nil if
-- absent.
local function rank_of(key, member, asc)
  local index = rt.call(asc and 'ZRANK' or 'ZREVRANK', key, member)
  if index == false or index == nil then
    return nil
  end
  return index + 1
end

-- 1 + the members whose total is higher (scored at total + 1 or more;
-- with `asc` lower, scored below total).
local function shared_rank(key, total, asc)
  if asc then
    return rt.call('ZCOUNT', key, '-inf', '(' .. int_text(total)) + 1
  end
  return rt.call('ZCOUNT', key, int_text(total + 1), '+inf') + 1
end

-- A given `[SHARED | DENSE totals-key]` as the handlers take it: true for
-- SHARED, `{ dense = totals-key }` for DENSE (false, for first-come ranks,
-- is the parse's own value: a call without the option makes no call
-- here). DENSE naming the board itself is refused (rank_board.rs
-- `checked_for`).
local function ranks_of(choice, key)
  if choice.choice == 1 then
    return true
  end
  if choice.value == key then
    rt.fail(ERRORS.totals_key_is_board)
  end
  return { dense = choice.value }
end

-- A member's rank: with SHARED the competition rank, with DENSE the
-- competition rank of its total in the index (where each total stands
-- once: 1 + the distinct totals above it), else its position.
local function rank_of_member(key, member, total, ranks, asc)
  if ranks == true then
    return shared_rank(key, total, asc)
  elseif ranks then
    return shared_rank(ranks.dense, total, asc)
  end
  local found = rank_of(key, member, asc)
  if found == nil then
    rt.fail('ERR zkit internal error: the member is not on the board')
  end
  return found
end

-- Boards ranked by several columns (rank_columns.rs, logic/columns.rs).
-- The columns key is a hash: `columns` holds their count, field i holds
-- `best worst name` (the name last: any bytes). A tuple's total is its
-- digits (each value's distance from its column's worst value) read as a
-- mixed-radix number, the first column most significant; all the radixes
-- multiplied stay at or below 2^52, so every step is exact in doubles.
local MAX_COLUMNS = LIMITS.MAX_COLUMNS

local function radix(column)
  local width = column.best - column.worst
  return (width < 0 and -width or width) + 1
end

-- A column's range, lowest value first.
local function column_range(column)
  if column.best < column.worst then
    return column.best, column.worst
  end
  return column.worst, column.best
end

-- What Columns::new refuses in a list of columns (an error text), or nil;
-- `combinations` is every radix multiplied.
local function columns_problem(list)
  if #list > MAX_COLUMNS then
    return ERRORS.columns_too_many
  end
  for _, column in ipairs(list) do
    local best, worst = column.best, column.worst
    if not (best < TOTAL_LIMIT and best > -TOTAL_LIMIT and worst < TOTAL_LIMIT and worst > -TOTAL_LIMIT) then
      return ERRORS.columns_bound_out_of_range
    end
  end
  local combinations = 1
  for _, column in ipairs(list) do
    -- Exact: a product above 2^52 but below 2^53 is an integer a double
    -- holds, and one above 2^53 rounds to 2^53 or more.
    combinations = combinations * radix(column)
    if combinations > TOTAL_LIMIT then
      return ERRORS.columns_too_wide
    end
  end
  return nil, combinations
end

-- An integer as a stored field spells it (Rust's i64 Display: no sign
-- but `-`, no leading zero), or nil.
local function stored_integer(text)
  if text == '0' or string.find(text, '^%-?[1-9]%d*$') then
    return tonumber(text)
  end
  return nil
end

-- The columns a hash holds, { list, combinations }; nil when the key does
-- not exist; refused when the hash holds no columns. One HGETALL reads
-- them: a call costs more than the few fields it would leave out.
local function stored_columns(key)
  local flat = rt.call('HGETALL', key)
  if #flat == 0 then
    return nil
  end
  local fields = {}
  for i = 1, #flat, 2 do
    fields[flat[i]] = flat[i + 1]
  end
  local n = fields.columns and stored_integer(fields.columns)
  if not n or n < 1 or n > MAX_COLUMNS then
    rt.fail(ERRORS.columns_not)
  end
  local list = {}
  for i = 1, n do
    local stored, best, worst, name = fields[int_text(i)]
    if stored then
      best, worst, name = string.match(stored, '^([^ ]*) ([^ ]*) (.*)$')
    end
    best, worst = best and stored_integer(best), worst and stored_integer(worst)
    if not (best and worst) then
      rt.fail(ERRORS.columns_not)
    end
    list[i] = { name = name, best = best, worst = worst }
  end
  local problem, combinations = columns_problem(list)
  if problem then
    rt.fail(ERRORS.columns_not)
  end
  return { list = list, combinations = combinations }
end

-- The columns a call's `COLUMNS columns-key` names (nil without it),
-- checked as rank_columns.rs `columns_of` checks them.
local function columns_of(columns_key, then_given, asc, key, ranks, data_key)
  if not columns_key then
    if then_given then
      rt.fail(ERRORS.columns_then_without)
    end
    return nil
  end
  if asc then
    rt.fail(ERRORS.columns_with_asc)
  end
  local index = ranks and ranks ~= true and ranks.dense
  if columns_key == key or columns_key == index or columns_key == data_key then
    rt.fail(ERRORS.columns_key_shared)
  end
  return stored_columns(columns_key) or rt.fail(ERRORS.columns_none)
end

local function check_value_count(columns, given)
  if given ~= #columns.list then
    rt.fail(rt.say(ERRORS.columns_value_count, { columns = int_text(#columns.list), given = int_text(given) }))
  end
end

local function value_out_of_range(column, low, high)
  rt.fail(rt.say(ERRORS.columns_value_out_of_range,
    { column = int_text(column), low = int_text(low), high = int_text(high) }))
end

-- The total of a tuple (numbers, one per column).
local function pack_columns(columns, values)
  check_value_count(columns, #values)
  local total = 0
  for i, column in ipairs(columns.list) do
    local low, high = column_range(column)
    local value = values[i]
    if not (value >= low and value <= high) then
      value_out_of_range(i, low, high)
    end
    local digit = value - column.worst
    total = total * radix(column) + (digit < 0 and -digit or digit)
  end
  return total
end

-- The tuple a total packs.
local function unpack_columns(columns, total)
  if not (total >= 0 and total < columns.combinations) then
    rt.fail(rt.say(ERRORS.columns_not_total, { total = int_text(total) }))
  end
  local values, rest = {}, total
  for i = #columns.list, 1, -1 do
    local column = columns.list[i]
    local base = radix(column)
    local digit = rest % base
    rest = (rest - digit) / base
    values[i] = column.best >= column.worst and column.worst + digit or column.worst - digit
  end
  return values
end

-- A write's total with columns: a gift adds each amount to its column (a
-- member not on the board starts at 0 in each), a set packs its values;
-- refused in the module's order: the count, the previous total, the
-- values.
local function columns_total(columns, previous_total, values, add)
  check_value_count(columns, #values)
  local start
  if previous_total ~= nil then
    start = unpack_columns(columns, previous_total)
  end
  if not add then
    return pack_columns(columns, values)
  end
  local sums = {}
  for i, column in ipairs(columns.list) do
    local low, high = column_range(column)
    local sum = (start and start[i] or 0) + values[i]
    if not (sum >= low and sum <= high) then
      value_out_of_range(i, low, high)
    end
    sums[i] = sum
  end
  return pack_columns(columns, sums)
end

-- A write's values with COLUMNS: the one in the total's place, then THEN's.
local function column_values(first, then_values)
  local values = { tonumber(first) }
  for _, value in ipairs(then_values or {}) do
    values[#values + 1] = tonumber(value)
  end
  return values
end

-- A page's rows with each row's columns after its total, with COLUMNS.
local function with_columns(page, columns)
  if columns then
    for _, row in ipairs(page) do
      table.insert(row, 4, unpack_columns(columns, row[3]))
    end
  end
  return page
end

handlers['rank.columns'] = function(v)
  local key, given = v[1], v[2]
  local list = {}
  for i, item in ipairs(given) do
    list[i] = { name = item[1], best = tonumber(item[2]), worst = tonumber(item[3]) }
  end
  local problem, combinations = columns_problem(list)
  if problem then
    rt.fail(problem)
  end
  local slot_ms = math.ceil(CONFIG['tiebreak-span-ms'] / pow2(fraction_bits(combinations - 1)))
  local stored = stored_columns(key)
  if stored then
    local same = #stored.list == #list
    for i, column in ipairs(list) do
      local other = stored.list[i]
      same = same and other.name == column.name and other.best == column.best and other.worst == column.worst
    end
    if not same then
      rt.fail(ERRORS.columns_other)
    end
    return slot_ms
  end
  local argv = { 'HSET', key, 'columns', int_text(#list) }
  for i, column in ipairs(list) do
    argv[#argv + 1] = int_text(i)
    argv[#argv + 1] = int_text(column.best) .. ' ' .. int_text(column.worst) .. ' ' .. column.name
  end
  rt.call(unpack(argv))
  return slot_ms
end

-- Plans an update for a member scored `previous`: checks everything a write
-- can refuse (a foreign score, the range, the time). With `columns` (the
-- write's { columns, values }), the update's total is the tuple packed.
local function plan_write(previous, update, at_ms, at_text, asc, columns)
  local previous_total
  if previous ~= nil then
    previous_total = rank.total(previous)
  end
  if columns then
    local packed = columns_total(columns.columns, previous_total, columns.values, update.add)
    update = { set = packed, condition = update.condition }
  end
  local total, changed = next_total(previous_total, update)
  local score = rank.encode(total, at_ms, at_text, asc)
  return { previous_total = previous_total, total = total, score = changed and score or nil }
end

-- Writes a planned total. A gift is written as ZINCRBY when the increment
-- lands exactly on the planned score, so it fires `zincr` as the module's
-- gift does; otherwise (and for RANK.SET) as ZADD.
local function apply_write(key, member, planned, previous, update)
  if not planned.score then
    return
  end
  if update.add then
    local before = previous or 0
    local delta = planned.score - before
    if before + delta == planned.score then
      rt.call('ZINCRBY', key, delta, member)
      return
    end
  end
  rt.call('ZADD', key, planned.score, member)
end

-- A member's [total, rank] as the board stands (a repeated event's reply);
-- with `columns`, its value in each column last (0 in each for a member no
-- longer on the board).
local function standing(key, member, ranks, asc, columns)
  local score = rt.zscore(key, member)
  if score == nil then
    if columns then
      local zeros = {}
      for i = 1, #columns.list do
        zeros[i] = 0
      end
      return { 0, rt.NULL, zeros }
    end
    return { 0, rt.NULL }
  end
  local total = rank.total(score)
  local position = rank_of_member(key, member, total, ranks, asc)
  return { total, position, columns and unpack_columns(columns, total) or nil }
end

-- Removes `total` from a dense board's index when no member of the board
-- holds it any more: a total `t` is scored in [t, t + 1).
local function drop_unheld_total(index, key, total)
  if rt.call('ZCOUNT', key, int_text(total), '(' .. int_text(total + 1)) == 0 then
    rt.call('ZREM', index, int_text(total))
  end
end

-- Keeps a dense board's index after a member's total went from `previous`
-- (nil: new on the board) to `total`; `indexed` is what the index held for
-- `total` before the write (rank_board.rs `keep_totals`).
local function keep_totals(index, key, previous, total, indexed)
  if indexed == nil then
    local entry = int_text(total)
    rt.call('ZADD', index, entry, entry)
  end
  if previous ~= nil and previous ~= total then
    drop_unheld_total(index, key, previous)
  end
end

-- A board's member data (rank_data.rs): the data hash `DATA data-key` names
-- must be another key than the board and its DENSE index (`ranks` as
-- ranks_of gives them).
local function check_data_key(data_key, key, ranks)
  if data_key == key or (ranks and ranks ~= true and ranks.dense == data_key) then
    rt.fail(ERRORS.data_key_shared)
  end
end

-- A write's `DATA data-key data` ({ data-key, data }), checked as the
-- module checks it: its key, then its length.
local function check_member_data(data, key, ranks)
  check_data_key(data[1], key, ranks)
  local limit = CONFIG['member-data-max-bytes']
  if #data[2] > limit then
    rt.fail(rt.say(ERRORS.member_data_too_large, { len = #data[2], limit = limit }))
  end
end

-- A page (rows of [rank, member, total]) with each row's data last, with
-- `DATA data-key`.
local function with_data(page, data_key)
  if not data_key then
    return page
  end
  local members = {}
  for i, row in ipairs(page) do
    members[i] = row[2]
  end
  local found = rt.hmget(data_key, members)
  for i, row in ipairs(page) do
    row[4] = found[i] or rt.NULL
  end
  return page
end

-- When the boards a write gives `TTL seconds` expire (nil without TTL).
local function board_expiry(now, ttl)
  return ttl ~= false and rt.ttl_deadline(now, ttl) or nil
end

-- RANK.GIFT and RANK.SET: `[total, rank]` (+ the IDMP flag). `event` is
-- the checked IDMP clause; `ttl` the TTL's seconds, or false; `ranks` as
-- ranks_of gives them (with DENSE, the index is kept); `data` the
-- `DATA data-key data` block, or false (the member's data, set with every
-- write); `asc` the board's order; `given_columns` the `COLUMNS
-- columns-key` (false without) and `then_values` THEN's list (false
-- without).
local function write_total(key, member, update, at, ranks, ttl, data, event, asc, given_columns, then_values)
  local index = ranks and ranks ~= true and ranks.dense
  local now = rt.now_ms()
  local expire_at = board_expiry(now, ttl)
  if data then
    check_member_data(data, key, ranks)
  end
  local columns = columns_of(given_columns, then_values ~= false, asc, key, ranks, data and data[1])
  local planned_columns = columns
    and { columns = columns, values = column_values(update.add or update.set, then_values or nil) }
  local seen
  if event then
    -- The keys the write changes: the board, its index, its data hash.
    local written = { key }
    written[#written + 1] = index or nil
    written[#written + 1] = data and data[1] or nil
    seen = rt.idmp.check(event, now, written)
  end
  if seen == 'repeat' then
    return rt.idmp.with_flag(standing(key, member, ranks, asc, columns), seen)
  end
  local at_ms = at ~= false and tonumber(at) or now
  local previous = rt.zscore(key, member)
  local planned = plan_write(previous, update, at_ms, at ~= false and at or nil, asc, planned_columns)
  -- Looked up before the write: an index or data hash of another type
  -- refuses the call.
  local indexed = index and rt.zscore(index, int_text(planned.total))
  if data then
    rt.call('HLEN', data[1])
  end
  apply_write(key, member, planned, previous, update)
  if expire_at then
    rt.call('PEXPIREAT', key, rt.int_text(expire_at))
  end
  if index then
    keep_totals(index, key, planned.previous_total, planned.total, indexed)
    if expire_at then
      rt.call('PEXPIREAT', index, rt.int_text(expire_at))
    end
  end
  if data then
    rt.call('HSET', data[1], member, data[2])
    if expire_at then
      rt.call('PEXPIREAT', data[1], rt.int_text(expire_at))
    end
  end
  if event then
    rt.idmp.record(event, now)
  end
  local position = rank_of_member(key, member, planned.total, ranks, asc)
  local values = columns and unpack_columns(columns, planned.total) or nil
  return rt.idmp.with_flag({ planned.total, position, values }, seen)
end

-- `COLUMNS columns-key` and THEN's values as an IDMP digest takes them,
-- appended to `parts` last: nothing without COLUMNS (a call without it
-- digests as before COLUMNS existed).
local function columns_parts(parts, columns_key, then_values)
  if columns_key then
    parts[#parts + 1] = 'COLUMNS'
    parts[#parts + 1] = columns_key
    for _, value in ipairs(then_values or {}) do
      parts[#parts + 1] = value
    end
  end
  return parts
end

-- `DATA data-key data` as an IDMP digest takes it, appended to `parts`:
-- nothing when the call gives none (it digests as before DATA existed).
local function data_parts(parts, data)
  if data then
    parts[#parts + 1] = 'DATA'
    parts[#parts + 1] = data[1]
    parts[#parts + 1] = data[2]
  end
  return parts
end

-- `ASC` as an IDMP digest takes it, appended to `parts` last: nothing when
-- the call gives none (it digests as before ASC existed).
local function order_parts(parts, asc)
  if asc then
    parts[#parts + 1] = 'ASC'
  end
  return parts
end

-- `AT unix-ms`, `TTL seconds` and `DENSE totals-key` as an IDMP digest
-- takes them, appended to `parts`: the time (nothing when the call gives
-- none), then `TTL` and its seconds when given (a call without TTL digests
-- as before TTL existed), then `DENSE` and the index the write keeps
-- (`choice`: the parse's `[SHARED | DENSE totals-key]`). SHARED only shapes
-- the reply.
local function terms_parts(parts, at, ttl, choice)
  parts[#parts + 1] = at ~= false and at or ''
  if ttl ~= false then
    parts[#parts + 1] = 'TTL'
    parts[#parts + 1] = rt.int_text(tonumber(ttl))
  end
  if choice and choice.choice == 2 then
    parts[#parts + 1] = 'DENSE'
    parts[#parts + 1] = choice.value
  end
  return parts
end

handlers['rank.gift'] = function(v)
  local key, member, at, choice, ttl, data, asc = v[1], v[2], v[4], v[5], v[6], v[7], v[10]
  local columns_key, then_values = v[11], v[12]
  local event = (v[8] ~= false or v[9] ~= false)
    and rt.idmp.args(v[8], v[9], 'rank.gift', columns_parts(
      order_parts(data_parts(terms_parts({ key, member, v[3] }, at, ttl, choice), data), asc),
      columns_key, then_values)) or nil
  -- After IDMP's own checks, as the module's.
  local ranks = choice and ranks_of(choice, key)
  return write_total(key, member, { add = tonumber(v[3]) }, at, ranks, ttl, data, event, asc,
    columns_key, then_values)
end

handlers['rank.set'] = function(v)
  local key, member, at, choice, ttl, data, asc = v[1], v[2], v[4], v[6], v[7], v[8], v[11]
  local columns_key, then_values = v[12], v[13]
  local condition = v[5] ~= false and (v[5].choice == 1 and 'GT' or 'LT') or nil
  local event
  if v[9] ~= false or v[10] ~= false then
    local parts = terms_parts({ key, member, v[3] }, at, ttl, choice)
    parts[#parts + 1] = condition or ''
    parts = columns_parts(order_parts(data_parts(parts, data), asc), columns_key, then_values)
    event = rt.idmp.args(v[9], v[10], 'rank.set', parts)
  end
  local ranks = choice and ranks_of(choice, key)
  local update = { set = tonumber(v[3]), condition = condition }
  return write_total(key, member, update, at, ranks, ttl, data, event, asc, columns_key, then_values)
end

-- -> `[[total, rank], ...]` per board, in key order; with DENSE, each
-- board's dense rank in its own index (one per board, in key order), which
-- the write keeps.
handlers['rank.mgift'] = function(v)
  local boards, member, amount, at, choice, ttl, asc = v[2], v[3], tonumber(v[4]), v[5], v[6], v[7], v[10]
  local indexes = choice and choice.choice == 2 and choice.value or nil
  local event
  if v[8] ~= false or v[9] ~= false then
    local parts = { rt.int_text(#boards) }
    for _, board in ipairs(boards) do
      parts[#parts + 1] = board
    end
    parts[#parts + 1] = member
    parts[#parts + 1] = v[4]
    terms_parts(parts, at, ttl)
    if indexes then
      parts[#parts + 1] = 'DENSE'
      for _, index in ipairs(indexes) do
        parts[#parts + 1] = index
      end
    end
    event = rt.idmp.args(v[8], v[9], 'rank.mgift', order_parts(parts, asc))
  end
  -- A set of the names, so the checks are linear in the keys: no board
  -- twice, no index that is a board, no index for two boards.
  local named = {}
  for _, board in ipairs(boards) do
    if named[board] then
      rt.fail(ERRORS.repeated_board)
    end
    named[board] = true
  end
  if indexes then
    for _, index in ipairs(indexes) do
      if named[index] == true then
        rt.fail(ERRORS.totals_key_is_board)
      end
    end
    for _, index in ipairs(indexes) do
      if named[index] then
        rt.fail(ERRORS.repeated_board)
      end
      named[index] = 'index'
    end
  end
  -- Board i's ranks, as ranks_of gives them: its own index with DENSE.
  local shared = choice ~= false
  local function ranks_at(i)
    return indexes and { dense = indexes[i] } or shared
  end
  local now = rt.now_ms()
  local expire_at = board_expiry(now, ttl)
  local seen
  if event then
    local written = {}
    for _, board in ipairs(boards) do
      written[#written + 1] = board
    end
    if indexes then
      for _, index in ipairs(indexes) do
        written[#written + 1] = index
      end
    end
    seen = rt.idmp.check(event, now, written)
  end
  if seen == 'repeat' then
    local replies = {}
    for i, key in ipairs(boards) do
      replies[i] = standing(key, member, ranks_at(i), asc)
    end
    return rt.idmp.with_flag(replies, seen)
  end
  local at_ms = at ~= false and tonumber(at) or now
  local planned, previous, indexed = {}, {}, {}
  for i, key in ipairs(boards) do
    previous[i] = rt.zscore(key, member)
    planned[i] = plan_write(previous[i], { add = amount }, at_ms, at ~= false and at or nil, asc)
  end
  -- Looked up before the first write: an index of another type refuses the
  -- call.
  if indexes then
    for i, index in ipairs(indexes) do
      indexed[i] = rt.zscore(index, int_text(planned[i].total))
    end
  end
  for i, key in ipairs(boards) do
    apply_write(key, member, planned[i], previous[i], { add = amount })
    if expire_at then
      rt.call('PEXPIREAT', key, rt.int_text(expire_at))
    end
    if indexes then
      keep_totals(indexes[i], key, planned[i].previous_total, planned[i].total, indexed[i])
      if expire_at then
        rt.call('PEXPIREAT', indexes[i], rt.int_text(expire_at))
      end
    end
  end
  if event then
    rt.idmp.record(event, now)
  end
  local replies = {}
  for i, key in ipairs(boards) do
    replies[i] = { planned[i].total, rank_of_member(key, member, planned[i].total, ranks_at(i), asc) }
  end
  return rt.idmp.with_flag(replies, seen)
end

-- A member's `[total, rank, reached-at-ms]` from its score, its columns'
-- values after them with `columns`, and with `data_given` its data
-- (`datum`, rt.NULL for none) last.
local function scored_entry(key, member, score, ranks, asc, columns, data_given, datum)
  local total, reached_at = rank.decode(score, asc)
  local entry = { total, rank_of_member(key, member, total, ranks, asc), reached_at }
  if columns then
    entry[4] = unpack_columns(columns, total)
  end
  if data_given then
    entry[#entry + 1] = datum
  end
  return entry
end

-- `[total, rank, reached-at-ms]` or nil per member (one member: no ZCARD,
-- ZSCORE answers a missing board and refuses another type itself); with
-- `data_key`, each entry's data last. The data hash is read first, as the
-- module opens it before the board.
local function member_entries(key, members, ranks, data_key, asc, columns)
  local data = data_key and rt.hmget(data_key, members)
  local scores = {}
  if #members == 1 or rt.zcard(key) > 0 then
    for i, member in ipairs(members) do
      scores[i] = rt.zscore(key, member) or false
    end
  end
  local entries = {}
  for i, member in ipairs(members) do
    local score = scores[i]
    if score then
      entries[i] = scored_entry(key, member, score, ranks, asc, columns, data, data and data[i] or rt.NULL)
    else
      entries[i] = rt.NULL
    end
  end
  return entries
end

-- One member's entry, as member_entries gives it (RANK.GET: no tables for
-- a list of one).
local function member_entry(key, member, ranks, data_key, asc, columns)
  local data = data_key and rt.hmget(data_key, { member })
  local score = rt.zscore(key, member)
  if not score then
    return rt.NULL
  end
  return scored_entry(key, member, score, ranks, asc, columns, data, data and data[1] or rt.NULL)
end

-- The data key a read names (false: none), checked against the board and
-- its index.
local function read_data_key(data_key, key, ranks)
  if data_key then
    check_data_key(data_key, key, ranks)
  end
  return data_key
end

handlers['rank.get'] = function(v)
  local key, ranks, asc = v[1], v[3], v[5]
  if ranks then
    ranks = ranks_of(ranks, key)
  end
  local data_key = read_data_key(v[4], key, ranks)
  local columns = columns_of(v[6], false, asc, key, ranks, data_key)
  return member_entry(key, v[2], ranks, data_key, asc, columns)
end

handlers['rank.mget'] = function(v)
  local key, ranks, asc = v[1], v[2], v[4]
  if ranks then
    ranks = ranks_of(ranks, key)
  end
  local data_key = read_data_key(v[3], key, ranks)
  local columns = columns_of(v[5], false, asc, key, ranks, data_key)
  return member_entries(key, v[6], ranks, data_key, asc, columns)
end

-- Competition ranks of consecutive entries (logic/rank.rs `shared_ranks`).
local function shared_ranks(first_position, first_shared, totals)
  local ranks = {}
  for i, total in ipairs(totals) do
    if i == 1 then
      ranks[i] = first_shared
    elseif totals[i - 1] == total then
      ranks[i] = ranks[i - 1]
    else
      ranks[i] = first_position + i - 1
    end
  end
  return ranks
end

-- RANK.REMOVE: ZREM of the members; with DENSE, each removed member's
-- total leaves the index when no member holds it any more; with DATA, HDEL
-- of the members' data. The board's, the index's and the data hash's
-- types, and every removed member's score, are read before the first
-- removal (rank_dense.rs).
handlers['rank.remove'] = function(v)
  local key, index, data_key, members = v[1], v[2], v[3], v[4]
  if index == key then
    rt.fail(ERRORS.totals_key_is_board)
  end
  if data_key then
    check_data_key(data_key, key, index and { dense = index })
  end
  if index == false then
    if data_key then
      rt.call('HLEN', data_key)
    end
    local removed = rt.members_call('ZREM', key, members)
    if data_key then
      rt.members_call('HDEL', data_key, members)
    end
    return removed
  end
  local scores = {}
  for i, member in ipairs(members) do
    scores[i] = rt.zscore(key, member) or false
  end
  rt.zcard(index)
  if data_key then
    rt.call('HLEN', data_key)
  end
  local totals = {}
  for i = 1, #members do
    if scores[i] then
      totals[#totals + 1] = rank.total(scores[i])
    end
  end
  local removed = rt.members_call('ZREM', key, members)
  if data_key then
    rt.members_call('HDEL', data_key, members)
  end
  for _, total in ipairs(totals) do
    drop_unheld_total(index, key, total)
  end
  return removed
end

-- RANK.REINDEX: the board's distinct totals, from its lowest score up,
-- every score decoded before the index is replaced as a *STORE replaces
-- its destination (an index of another type refused: rank_dense.rs).
handlers['rank.reindex'] = function(v)
  local key, index = v[1], v[2]
  if index == key then
    rt.fail(ERRORS.totals_key_is_board)
  end
  rt.zcard(index)
  local rows = rt.call('ZRANGE', key, '0', '-1', 'WITHSCORES')
  local entries, last = {}, nil
  for i = 2, #rows, 2 do
    local total = rank.total(tonumber(rows[i]))
    if total ~= last then
      local text = int_text(total)
      entries[#entries + 1] = { text, text }
      last = total
    end
  end
  rt.call('UNLINK', index)
  if #entries > 0 then
    rt.zadd_pairs(index, entries)
  end
  return #entries
end

-- Dense ranks of consecutive entries (logic/rank.rs `dense_ranks`).
local function dense_ranks(first_dense, totals)
  local ranks = {}
  for i, total in ipairs(totals) do
    if i == 1 then
      ranks[i] = first_dense
    elseif totals[i - 1] == total then
      ranks[i] = ranks[i - 1]
    else
      ranks[i] = ranks[i - 1] + 1
    end
  end
  return ranks
end

-- `[[rank, member, total], ...]` for 0-based positions start..stop of a
-- board in the order `asc` says.
local function rank_range(key, start, stop, ranks_asked, asc)
  if start >= rt.TWO_53 then
    return {}
  end
  if stop >= rt.TWO_53 then
    stop = rt.TWO_53
  end
  local rows
  if asc then
    rows = rt.call('ZRANGE', key, int_text(start), int_text(stop), 'WITHSCORES')
  else
    rows = rt.call('ZRANGE', key, int_text(start), int_text(stop), 'REV', 'WITHSCORES')
  end
  if #rows == 0 then
    return {}
  end
  local members, totals = {}, {}
  for i = 1, #rows, 2 do
    members[#members + 1] = rows[i]
    totals[#totals + 1] = rank.total(tonumber(rows[i + 1]))
  end
  local first_position = start + 1
  local ranks
  if ranks_asked == true then
    ranks = shared_ranks(first_position, shared_rank(key, totals[1], asc), totals)
  elseif ranks_asked then
    ranks = dense_ranks(shared_rank(ranks_asked.dense, totals[1], asc), totals)
  else
    ranks = {}
    for i = 1, #totals do
      ranks[i] = first_position + i - 1
    end
  end
  local page = {}
  for i, member in ipairs(members) do
    page[i] = { ranks[i], member, totals[i] }
  end
  return page
end

handlers['rank.top'] = function(v)
  local key, ranks = v[1], v[4]
  local count = rt.non_negative(v[2], 'count')
  local offset = v[3] ~= false and rt.non_negative(v[3], 'offset') or 0
  if ranks then
    ranks = ranks_of(ranks, key)
  end
  local data_key = read_data_key(v[5], key, ranks)
  local columns = columns_of(v[7], false, v[6], key, ranks, data_key)
  if rt.zcard(key) == 0 or count == 0 then
    return with_data({}, data_key)
  end
  local page = rank_range(key, offset, offset + count - 1, ranks, v[6])
  return with_columns(with_data(page, data_key), columns)
end

handlers['rank.around'] = function(v)
  local key, member, ranks, asc = v[1], v[2], v[4], v[6]
  local radius = rt.non_negative(v[3], 'radius')
  if ranks then
    ranks = ranks_of(ranks, key)
  end
  local data_key = read_data_key(v[5], key, ranks)
  local columns = columns_of(v[7], false, asc, key, ranks, data_key)
  -- ZREVRANK (ZRANK) checks the key's type, and finds no member on an
  -- empty board.
  local position = rank_of(key, member, asc)
  if position == nil then
    return with_data({}, data_key)
  end
  local index = position - 1
  local start = index - radius
  if start < 0 then
    start = 0
  end
  local page = rank_range(key, start, index + radius, ranks, asc)
  return with_columns(with_data(page, data_key), columns)
end

-- The 0-based ascending position of the `per_mille` quantile among `n`
-- members (n > 0), by the nearest rank (src/logic/stats.rs).
function rt.quantile_position(n, per_mille)
  local at_or_below = math.ceil(n * per_mille / 1000)
  if at_or_below < 1 then
    at_or_below = 1
  elseif at_or_below > n then
    at_or_below = n
  end
  return at_or_below - 1
end

-- -> `[members, top-total, p99-total, p90-total, p50-total, bottom-total,
-- memory-bytes]` by name: the top is the board's best total (with ASC its
-- lowest), a quantile the nearest rank counted from its bottom.
handlers['rank.stats'] = function(v)
  local key, asc = v[1], v[2]
  local members = rt.zcard(key)
  -- The total at 0-based `position` of the board, best first.
  local function total_at(position)
    if members == 0 then
      return rt.NULL
    end
    local ascending = asc and position or members - 1 - position
    local found = rt.call('ZRANGE', key, int_text(ascending), int_text(ascending), 'WITHSCORES')
    if found[2] == nil then
      return rt.NULL
    end
    return rank.total(tonumber(found[2]))
  end
  local reply = { 'members', members, 'top-total', total_at(0) }
  for _, quantile in ipairs({ { 990, 'p99-total' }, { 900, 'p90-total' }, { 500, 'p50-total' } }) do
    reply[#reply + 1] = quantile[2]
    reply[#reply + 1] = members > 0
      and total_at(members - 1 - rt.quantile_position(members, quantile[1])) or rt.NULL
  end
  reply[#reply + 1] = 'bottom-total'
  reply[#reply + 1] = total_at(members > 0 and members - 1 or 0)
  local memory = 0
  if members > 0 then
    memory = rt.call('MEMORY', 'USAGE', key, 'SAMPLES', '5') or 0
  end
  reply[#reply + 1] = 'memory-bytes'
  reply[#reply + 1] = memory
  return reply
end

-- -> ceil((members - rank0 - 1) * 100 / members), rank0 the member's
-- 0-based first-come rank, or nil (logic/rank.rs `percentile`). The
-- quotient is corrected on exact products, so it is the integer one.
handlers['rank.percentile'] = function(v)
  local key, member, asc = v[1], v[2], v[3]
  local score = rt.zscore(key, member)
  if score == nil then
    return rt.NULL
  end
  rank.decode(score, asc)
  local members = rt.zcard(key)
  local rank0 = rank_of(key, member, asc) - 1
  local scaled = (members - rank0 - 1) * 100
  local quotient = math.floor(scaled / members)
  if quotient * members > scaled then
    quotient = quotient - 1
  elseif (quotient + 1) * members <= scaled then
    quotient = quotient + 1
  end
  if quotient * members < scaled then
    quotient = quotient + 1
  end
  return quotient
end

-- -> the total at a percentile, interpolated between the totals at
-- ascending positions floor and ceil of (members - 1) * percentile / 100,
-- or nil on an empty board (logic/rank.rs `quantile_at`, `interpolate`:
-- the same steps on the same doubles). With ASC the board's bottom is its
-- highest total: the percentile is read as 100 - percentile.
handlers['rank.quantile'] = function(v)
  local key, percentile = v[1], v[2]
  if not (percentile >= 0 and percentile <= 100) then
    rt.out_of_range('percentile', rt.bound.PERCENTILE)
  end
  if v[3] then
    percentile = 100 - percentile
  end
  local members = rt.zcard(key)
  if members == 0 then
    return rt.NULL
  end
  local index = (members - 1) * percentile / 100
  local low_at = math.floor(index)
  local high_at = math.ceil(index)
  local fraction = index - low_at
  local function total_at(position)
    local found = rt.call('ZRANGE', key, int_text(position), int_text(position), 'WITHSCORES')
    if found[2] == nil then
      rt.fail('ERR zkit internal error: ZRANGE found no member')
    end
    return rank.total(tonumber(found[2]))
  end
  local low = total_at(low_at)
  local high = low
  if high_at ~= low_at then
    high = total_at(high_at)
  end
  if fraction == 0 or low == high then
    return rt.double(low)
  end
  return rt.double(low + (high - low) * fraction)
end

-- A RANK.COUNT bound, as ZCOUNT reads one: a number, exclusive after `(`.
local function total_bound(word)
  local exclusive = string.sub(word, 1, 1) == '('
  local value = rt.parse_f64(exclusive and string.sub(word, 2) or word)
  if value == nil then
    rt.fail(ERRORS.bound_not_float)
  end
  return value, exclusive
end

-- The totals between a lower and an upper bound (total_bound's), as the
-- lowest and highest of them; nil when none lies between them
-- (logic/rank.rs `total_score_range`).
local function total_score_range(min, min_open, max, max_open)
  local lowest = min_open and math.floor(min) + 1 or math.ceil(min)
  local highest = max_open and math.ceil(max) - 1 or math.floor(max)
  local limit = TOTAL_LIMIT - 1
  if lowest < -limit then
    lowest = -limit
  end
  if highest > limit then
    highest = limit
  end
  if not (lowest <= highest) then
    return nil
  end
  return lowest, highest
end

-- -> the members with a total between the bounds: ZCOUNT of the scores
-- [low, high) that hold those totals.
handlers['rank.count'] = function(v)
  local key = v[1]
  local min, min_open = total_bound(v[2])
  local max, max_open = total_bound(v[3])
  local lowest, highest = total_score_range(min, min_open, max, max_open)
  if lowest == nil then
    -- No total lies between the bounds: the key's type is still checked.
    rt.zcard(key)
    return 0
  end
  -- ZCOUNT checks the key's type, and counts 0 on an empty board.
  return rt.call('ZCOUNT', key, int_text(lowest), '(' .. int_text(highest + 1))
end

-- -> `[[rank, member, total], ...]` of the members with a total between max
-- and min: the positions below the members with a better total, read as
-- RANK.TOP reads a page (logic/rank.rs `range_positions`).
local function range_page(key, min, min_open, max, max_open, offset, count, ranks, asc)
  if rt.zcard(key) == 0 then
    return {}
  end
  local lowest, highest = total_score_range(min, min_open, max, max_open)
  if lowest == nil then
    return {}
  end
  local above
  if asc then
    above = rt.call('ZCOUNT', key, '-inf', '(' .. int_text(lowest))
  else
    above = rt.call('ZCOUNT', key, int_text(highest + 1), '+inf')
  end
  local within = rt.call('ZCOUNT', key, int_text(lowest), '(' .. int_text(highest + 1))
  if offset >= within then
    return {}
  end
  local take = within - offset
  if count >= 0 and count < take then
    take = count
  end
  if take == 0 then
    return {}
  end
  local start = above + offset
  return rank_range(key, start, start + take - 1, ranks, asc)
end

handlers['rank.range'] = function(v)
  local key, limit, ranks = v[1], v[4], v[5]
  local max, max_open = total_bound(v[2])
  local min, min_open = total_bound(v[3])
  local offset, count = 0, -1
  if limit ~= false then
    offset, count = rt.non_negative(limit[1], 'offset'), tonumber(limit[2])
  end
  if ranks then
    ranks = ranks_of(ranks, key)
  end
  local data_key = read_data_key(v[6], key, ranks)
  local page = range_page(key, min, min_open, max, max_open, offset, count, ranks, v[7])
  return with_data(page, data_key)
end

-- -> `[[rank, member, total], ...]` of the given members on the board,
-- ranked among themselves: each member's score once, sorted as the board
-- sorts them (score descending, then member descending by its bytes; with
-- ASC both ascending; -0 ties with 0), the ranks counted down that list
-- (logic/rank.rs `board_order`).
handlers['rank.among'] = function(v)
  local key, ranks_asked, asc, given = v[1], v[2], v[4], v[6]
  local data_key = read_data_key(v[3], key, false)
  local columns = columns_of(v[5], false, asc, key, false, data_key)
  local found, asked = {}, {}
  for _, member in ipairs(given) do
    if not asked[member] then
      asked[member] = true
      local score = rt.zscore(key, member)
      if score ~= nil then
        found[#found + 1] = { score, member }
      end
    end
  end
  -- Ascending with ASC (asc is true or false), else the exact reverse; an
  -- entry is never before itself (the sort compares one with itself).
  table.sort(found, function(a, b)
    if a[1] ~= b[1] then
      return (a[1] < b[1]) == asc
    end
    local bytes = rt.compare_bytes(a[2], b[2])
    return bytes ~= 0 and (bytes < 0) == asc
  end)
  local totals = {}
  for i, entry in ipairs(found) do
    totals[i] = rank.decode(entry[1], asc)
  end
  local ranks
  if ranks_asked ~= false then
    ranks = ranks_asked.choice == 1 and shared_ranks(1, 1, totals) or dense_ranks(1, totals)
  end
  local page = {}
  for i, entry in ipairs(found) do
    page[i] = { ranks and ranks[i] or i, entry[2], totals[i] }
  end
  return with_columns(with_data(page, data_key), columns)
end
