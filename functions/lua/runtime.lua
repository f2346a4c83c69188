-- The runtime every zkit function shares: the grammar walk that parses a call
-- (a port of the module's src/host/grammar.rs, reading the declarations this
-- file is generated with), error replies, the exact number texts the module
-- writes, the clock, and the native calls the families make.
--
-- Lua 5.1 as Redis and Valkey embed it: numbers are doubles, so integers are
-- exact up to 2^53. While a library loads, only `redis.register_function`
-- and `redis.log` are reachable (no `string`, `math`, `table`): everything
-- that needs them is set up by `rt.init` on the first call. Integer arguments stay the text the caller sent (checked
-- to be a 64-bit integer as Redis's string2ll checks it) and are converted
-- where a command uses them, so an error can print them exactly.

local rt = {}

-- ---------------------------------------------------------------------------
-- Errors: a handler raises `rt.fail(text)`; the entry point replies with it.

local FAILURE = {}

function rt.fail(text)
  error(setmetatable({ text = text }, FAILURE), 0)
end

rt.WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value'
rt.NOT_INTEGER = 'ERR value is not an integer or out of range'
rt.NOT_FLOAT = 'ERR value is not a valid float'

-- The bounds the module's OutOfRange errors name (src/error.rs, `bound`).
rt.bound = {
  DURATION_MS = 'must be between 1 and 3155760000000 ms (100 years)',
  DELAY_MS = 'must be between 0 and 3155760000000 ms (100 years)',
  DURATION_S = 'must be between 1 and 3155760000 seconds (100 years)',
  RATE_LIMIT = 'must be between 1 and 1000000',
  UP_TO_LIMIT = 'must be between 1 and the limit',
  PAGE_COUNT = 'must be between 1 and 1000',
  POSITIVE_INTEGER = 'must be a positive integer',
  NOT_NEGATIVE = 'must not be negative',
  AT_LEAST_ONE = 'must be at least 1',
}

function rt.out_of_range(what, limit)
  rt.fail('ERR ' .. what .. ' ' .. limit)
end

-- ---------------------------------------------------------------------------
-- Bytes: Lua compares strings with strcoll, which follows the server's
-- locale; members order by their bytes, as in a sorted set.

local byte, sub, format, upper, lower, floor, huge

function rt.init()
  if byte then
    return
  end
  byte, sub, format, upper, lower = string.byte, string.sub, string.format, string.upper, string.lower
  floor, huge = math.floor, math.huge
end

-- -1, 0 or 1 as `a` sorts before, with or after `b`, byte by byte.
function rt.compare_bytes(a, b)
  if a == b then
    return 0
  end
  local la, lb = #a, #b
  local n = la < lb and la or lb
  for i = 1, n do
    local x, y = byte(a, i), byte(b, i)
    if x ~= y then
      return x < y and -1 or 1
    end
  end
  return la < lb and -1 or 1
end

local function same_keyword(word, token)
  return #word == #token and upper(word) == token
end
rt.same_keyword = same_keyword

-- A word as an error message shows it: Rust's `escape_ascii`, cut after 40
-- characters.
local ESCAPES = { [9] = '\\t', [10] = '\\n', [13] = '\\r', [34] = '\\"', [39] = "\\'", [92] = '\\\\' }
local function show(word)
  local out, n = {}, 0
  for i = 1, #word do
    local b = byte(word, i)
    local text = ESCAPES[b]
    if not text then
      if b >= 32 and b < 127 then
        text = string.char(b)
      else
        text = format('\\x%02x', b)
      end
    end
    out[#out + 1] = text
    n = n + #text
    if n > 40 then
      break
    end
  end
  local text = table.concat(out)
  if #text > 40 then
    return sub(text, 1, 40) .. '...'
  end
  return text
end
rt.show = show

-- ---------------------------------------------------------------------------
-- Numbers.

rt.TWO_53 = 9007199254740992

-- A 64-bit integer as Redis's string2ll reads it (no '+', no leading zeros,
-- no spaces): the text itself, or nil.
function rt.parse_i64(word)
  local digits, negative = word, false
  if byte(word, 1) == 45 then
    digits, negative = sub(word, 2), true
  end
  if digits == '0' then
    return (not negative) and word or nil
  end
  if not digits:find('^[1-9]%d*$') then
    return nil
  end
  if #digits > 19 then
    return nil
  end
  if #digits == 19 then
    local most = negative and '9223372036854775808' or '9223372036854775807'
    if rt.compare_bytes(digits, most) > 0 then
      return nil
    end
  end
  return word
end

local function is_decimal(body)
  local mantissa, exponent = body:match('^([^eE]*)[eE](.*)$')
  if not mantissa then
    mantissa = body
  elseif not exponent:find('^[+-]?%d+$') then
    return false
  end
  return mantissa:find('^%d+%.?%d*$') ~= nil or mantissa:find('^%.%d+$') ~= nil
end

-- A double as the module reads one (Rust's grammar: no hex, no spaces,
-- `inf`/`infinity` in any case), refusing NaN and, like Redis's strtod
-- check, a finite text too large for a double or so small it would round to
-- zero: the number, or nil.
function rt.parse_f64(word)
  local body = word
  local first = byte(word, 1)
  if first == 43 or first == 45 then
    body = sub(word, 2)
  end
  local named = lower(body)
  local infinite_name = named == 'inf' or named == 'infinity'
  if not (infinite_name or named == 'nan' or is_decimal(body)) then
    return nil
  end
  local value = tonumber(word)
  if value == nil or value ~= value then
    return nil
  end
  if (value == huge or value == -huge) and not infinite_name then
    return nil
  end
  if value == 0 and (body:match('^[^eE]*') or ''):find('[1-9]') then
    return nil
  end
  return value
end

-- The text of an integral double (|x| < 2^63), as the server prints it.
function rt.int_text(x)
  return format('%d', x)
end

-- The shortest decimal digits that read back as `x` (finite, above 0), and
-- the exponent e with x = 0.DIGITS * 10^e: what Rust's float printing and
-- the ryu crate find (the shortest, then the closest). Up to 15 digits the
-- nearest text is the only one that can read back; at 16, a power of two
-- (whose gap below is half the gap above) may read back from the nearest
-- text's neighbour instead; 17 digits always read back.
local function leading_digits(text)
  local lead, rest, exponent = text:match('^(%d)%.?(%d*)e([-+]%d+)$')
  return lead .. rest, tonumber(exponent) + 1
end

local function trimmed(digits, exponent)
  local first = digits:find('[1-9]')
  digits = sub(digits, first):gsub('0+$', '')
  return digits, exponent - (first - 1)
end

local SMALLEST_NORMAL = 2.2250738585072014e-308

local function shortest_digits(x)
  if x < SMALLEST_NORMAL then
    -- Subnormals hold fewer digits: their shortest text may be far shorter
    -- than the 15-digit one (`5e-324`), and their gaps are even.
    for precision = 1, 17 do
      local text = format('%.' .. (precision - 1) .. 'e', x)
      if tonumber(text) == x then
        return trimmed(leading_digits(text))
      end
    end
  end
  for precision = 15, 17 do
    local text = format('%.' .. (precision - 1) .. 'e', x)
    if tonumber(text) == x then
      return trimmed(leading_digits(text))
    end
    if precision == 16 then
      local digits, exponent = leading_digits(text)
      for _, step in ipairs({ 1, -1 }) do
        local neighbour = rt.add_to_digits(digits, step)
        if neighbour then
          local shifted = exponent + (#neighbour - #digits)
          if tonumber('0.' .. neighbour .. 'e' .. shifted) == x then
            return trimmed(neighbour, shifted)
          end
        end
      end
    end
  end
  error('no exact text for ' .. format('%.17g', x))
end

-- A string of decimal digits plus or minus one in its last place (nil
-- below zero; one digit longer on a carry).
function rt.add_to_digits(digits, step)
  local out = {}
  local carry = step
  for i = #digits, 1, -1 do
    local d = byte(digits, i) - 48 + carry
    carry = 0
    if d == 10 then
      d, carry = 0, 1
    elseif d == -1 then
      d, carry = 9, -1
    end
    out[i] = string.char(48 + d)
  end
  if carry == -1 then
    return nil
  end
  local text = table.concat(out)
  if carry == 1 then
    text = '1' .. text
  end
  return text
end

local function zeros(n)
  return string.rep('0', n)
end


-- A score as the module prints it in RESP2 replies (logic/score.rs): whole
-- numbers up to 2^62 as integers, `inf`, `-inf`, `-0`, else the ryu
-- crate's shortest form (`0.1`, `1e-7`, `9.223372036854776e18`).
local INTEGER_LIMIT = 4611686018427387904
function rt.score_text(x)
  if x ~= x then
    return 'nan'
  elseif x == huge then
    return 'inf'
  elseif x == -huge then
    return '-inf'
  elseif x == 0 then
    return (1 / x < 0) and '-0' or '0'
  elseif x == floor(x) and x <= INTEGER_LIMIT and x >= -INTEGER_LIMIT then
    return format('%d', x)
  end
  local sign = ''
  if x < 0 then
    sign, x = '-', -x
  end
  local digits, kk = shortest_digits(x)
  local length = #digits
  local k = kk - length
  if k >= 0 and kk <= 16 then
    return sign .. digits .. zeros(kk - length) .. '.0'
  elseif kk > 0 and kk <= 16 then
    return sign .. sub(digits, 1, kk) .. '.' .. sub(digits, kk + 1)
  elseif kk > -5 and kk <= 0 then
    return sign .. '0.' .. zeros(-kk) .. digits
  elseif length == 1 then
    return sign .. digits .. 'e' .. (kk - 1)
  end
  return sign .. sub(digits, 1, 1) .. '.' .. sub(digits, 2) .. 'e' .. (kk - 1)
end

-- A double as Rust's `{}` prints it in the module's error texts: the
-- shortest digits, written out without an exponent (`1e21` is
-- `1000000000000000000000`, `1.5e-7` is `0.00000015`).
function rt.rust_display(x)
  if x ~= x then
    return 'NaN'
  elseif x == huge then
    return 'inf'
  elseif x == -huge then
    return '-inf'
  elseif x == 0 then
    return (1 / x < 0) and '-0' or '0'
  end
  local sign = ''
  if x < 0 then
    sign, x = '-', -x
  end
  local digits, exponent = shortest_digits(x)
  if exponent <= 0 then
    return sign .. '0.' .. zeros(-exponent) .. digits
  elseif exponent < #digits then
    return sign .. sub(digits, 1, exponent) .. '.' .. sub(digits, exponent + 1)
  end
  return sign .. digits .. zeros(exponent - #digits)
end

-- Bytes as lowercase hex digits, and back (from an even number of them).
function rt.hex(bytes)
  if #bytes <= 4000 then
    -- One format call for the whole member (string.byte returns each byte).
    return string.format(string.rep('%02x', #bytes), string.byte(bytes, 1, -1))
  end
  return (bytes:gsub('.', function(c) return string.format('%02x', string.byte(c)) end))
end

function rt.unhex(text)
  return (text:gsub('..', function(pair) return string.char(tonumber(pair, 16)) end))
end

-- A score as an argument of a native command: reads back as exactly `x`.
function rt.arg_score(x)
  if x == huge then
    return 'inf'
  elseif x == -huge then
    return '-inf'
  end
  return format('%.17g', x)
end

-- ---------------------------------------------------------------------------
-- The grammar: a port of src/host/grammar.rs over the declarations of
-- docs/commands.json. A parsed call is one value per declared argument:
-- false for an option not given, true for a keyword alone, the text of a
-- key, string or integer, the number of a double, {choice = i, value = v} for
-- a one-of, and an array for a block's parts or a list's items.

-- The facts below depend on a declaration alone: each is worked out on
-- first use and kept in the argument's table (fields ending in `_cache`).

local function keywords_of(arg)
  if arg.keywords_cache then
    return arg.keywords_cache
  end
  local out = {}
  if arg.token then
    out[1] = arg.token
  elseif arg.kind == 'oneof' then
    for _, choice in ipairs(arg.args) do
      for _, keyword in ipairs(keywords_of(choice)) do
        out[#out + 1] = keyword
      end
    end
  end
  arg.keywords_cache = out
  return out
end

local function is_option(arg)
  if arg.option_cache == nil then
    arg.option_cache = (arg.optional and #keywords_of(arg) > 0) or false
  end
  return arg.option_cache
end

local min_width, item_width_of

local function item_width(arg)
  if arg.width_cache == nil then
    arg.width_cache = item_width_of(arg)
  end
  return arg.width_cache
end

item_width_of = function(arg)
  if arg.kind == 'pure-token' then
    return 0
  elseif arg.kind == 'block' then
    local width = 0
    for _, part in ipairs(arg.args) do
      width = width + min_width(part)
    end
    return width
  elseif arg.kind == 'oneof' then
    local least
    for _, choice in ipairs(arg.args) do
      local width = min_width(choice)
      if least == nil or width < least then
        least = width
      end
    end
    return least or 0
  end
  return 1
end

min_width = function(arg)
  if arg.optional then
    return 0
  end
  return (arg.token and 1 or 0) + item_width(arg)
end

-- Every keyword of a grammar (options and list keywords alike).
local function all_keywords(args, out)
  out = out or {}
  for _, arg in ipairs(args) do
    if arg.token then
      out[#out + 1] = arg.token
    end
    if arg.kind == 'block' or arg.kind == 'oneof' then
      all_keywords(arg.args, out)
    end
  end
  return out
end

local function counters(args, out)
  out = out or {}
  for _, arg in ipairs(args) do
    if arg.counted_by then
      out[arg.counted_by] = true
    end
    if arg.kind == 'block' or arg.kind == 'oneof' then
      counters(arg.args, out)
    end
  end
  return out
end

local write_usage

local function usage_item(arg)
  if arg.kind == 'pure-token' then
    return ''
  elseif arg.kind == 'block' then
    local parts = {}
    for i, part in ipairs(arg.args) do
      parts[i] = write_usage(part)
    end
    return table.concat(parts, ' ')
  elseif arg.kind == 'oneof' then
    local parts = {}
    for i, choice in ipairs(arg.args) do
      parts[i] = write_usage(choice)
    end
    local inner = table.concat(parts, ' | ')
    if arg.optional then
      return inner
    end
    return '<' .. inner .. '>'
  end
  return arg.name
end

write_usage = function(arg)
  local one = arg.token or ''
  local item = usage_item(arg)
  if item ~= '' then
    if one ~= '' then
      one = one .. ' '
    end
    one = one .. item
    if arg.multiple then
      one = one .. ' [' .. item .. ' ...]'
    end
  end
  if arg.optional then
    return '[' .. one .. ']'
  end
  return one
end

-- A list introduced by its keyword (`TASKS task [task ...]`) counts one
-- word, so a call without the keyword reaches the parser's usage error.
local function arity_of(args)
  local least, fixed = 1, true
  for _, arg in ipairs(args) do
    if arg.token and arg.multiple and not arg.optional then
      least = least + 1
    else
      least = least + min_width(arg)
    end
    if arg.optional or arg.multiple or arg.kind == 'oneof' then
      fixed = false
    end
  end
  return fixed and least or -least
end

-- A command's declaration, as the generator writes it; prepared on its
-- first call.
function rt.declare(name, args, declared_arity)
  return { name = name, args = args, declared_arity = declared_arity }
end

local function prepare(command)
  local name, args = command.name, command.args
  local usage = { upper(name) }
  for _, arg in ipairs(args) do
    usage[#usage + 1] = write_usage(arg)
  end
  local arity = arity_of(args)
  assert(arity == command.declared_arity, name .. ': arity ' .. arity .. ' is not the declared ' .. command.declared_arity)
  command.arity = arity
  command.usage = table.concat(usage, ' ')
  command.keywords = all_keywords(args)
  command.counters = counters(args)
  command.prepared = true
end

local MISTAKES = {
  missing = function(what) return what .. ' is missing' end,
  incomplete = function(keyword) return keyword .. ' is missing a value' end,
  empty = function(keyword) return keyword .. ' needs at least one value' end,
  unpaired = function(group) return "values come in groups of '" .. group .. "'" end,
  repeated = function(keyword) return keyword .. ' is given twice' end,
  exclusive = function(first, second) return first .. ' and ' .. second .. ' exclude each other' end,
  unexpected = function(word) return "unexpected '" .. word .. "'" end,
}

local Parser = {}
Parser.__index = Parser

function Parser:mistake(kind, a, b)
  rt.fail('ERR syntax error: ' .. MISTAKES[kind](a, b) .. '; usage: ' .. self.command.usage)
end

function Parser:peek()
  if self.at < self.argc then
    return self.argv[self.at]
  end
  return nil
end

function Parser:remaining()
  local left = self.argc - self.at
  return left > 0 and left or 0
end

function Parser:word(missing)
  local word = self:peek()
  if word == nil then
    self:mistake(missing[1], missing[2])
  end
  self.at = self.at + 1
  return word
end

local function is_token(arg, word)
  return arg.token ~= nil and same_keyword(word, arg.token)
end

local function find_option(group, word)
  for i, arg in ipairs(group) do
    if arg.kind == 'oneof' and arg.token == nil then
      for c, choice in ipairs(arg.args) do
        if is_token(choice, word) then
          return i, c
        end
      end
    elseif is_token(arg, word) then
      return i, nil
    end
  end
  return nil
end

local function option_keyword(option, choice)
  if choice and option.kind == 'oneof' then
    return keywords_of(option.args[choice])[1]
  end
  return keywords_of(option)[1]
end

-- The fewest words the arguments after each one of a sequence take.
local function widths_after(args)
  if not args.after_cache then
    local after, sum = {}, 0
    for i = #args, 1, -1 do
      after[i] = sum
      sum = sum + min_width(args[i])
    end
    args.after_cache = after
  end
  return args.after_cache
end

function Parser:sequence(args)
  local values = {}
  local i, n = 1, #args
  local after = widths_after(args)
  while i <= n do
    if not is_option(args[i]) then
      values[#values + 1] = self:required(args[i], after[i])
      i = i + 1
    else
      local group_end = n + 1
      for j = i, n do
        if not is_option(args[j]) then
          group_end = j
          break
        end
      end
      local group = {}
      for j = i, group_end - 1 do
        group[#group + 1] = args[j]
      end
      local found = {}
      for j = 1, #group do
        found[j] = false
      end
      while true do
        local word = self:peek()
        if word == nil then
          break
        end
        local index, choice = find_option(group, word)
        if index == nil then
          break
        end
        local option = group[index]
        if found[index] ~= false then
          local first
          if type(found[index]) == 'table' and found[index].choice and option.kind == 'oneof' then
            first = keywords_of(option.args[found[index].choice])[1]
          else
            first = keywords_of(option)[1]
          end
          local again = option_keyword(option, choice)
          if first == again then
            self:mistake('repeated', again)
          end
          self:mistake('exclusive', first, again)
        end
        self.at = self.at + 1
        if choice and option.kind == 'oneof' then
          found[index] = { choice = choice, value = self:after_keyword(option.args[choice]) }
        else
          found[index] = self:after_keyword(option)
        end
      end
      for j = 1, #group do
        values[#values + 1] = found[j]
      end
      i = group_end
    end
  end
  return values
end

function Parser:after_keyword(arg)
  local keyword = arg.token or arg.name
  if arg.multiple then
    return self:list(arg, 0, keyword)
  end
  if arg.kind == 'pure-token' then
    return true
  end
  return self:item(arg, { 'incomplete', keyword })
end

-- A required argument; `after` is the fewest words the declaration's
-- arguments after it take.
function Parser:required(arg, after)
  if arg.kind == 'oneof' then
    local word = self:peek()
    if word == nil then
      self:mistake('missing', arg.name)
    end
    for c, choice in ipairs(arg.args) do
      if is_token(choice, word) then
        self.at = self.at + 1
        return { choice = c, value = self:after_keyword(choice) }
      end
    end
    self:mistake('unexpected', show(word))
  end
  if arg.token then
    local word = self:peek()
    if word == nil then
      self:mistake('missing', arg.token)
    end
    if not same_keyword(word, arg.token) then
      self:mistake('unexpected', show(word))
    end
    self.at = self.at + 1
    return self:after_keyword(arg)
  end
  if arg.multiple then
    return self:list(arg, after, nil)
  end
  return self:item(arg, { 'missing', arg.name })
end

function Parser:list(arg, after, keyword)
  local width = item_width(arg)
  if width < 1 then
    width = 1
  end
  local count
  if arg.counted_by then
    for i = #self.counts, 1, -1 do
      if self.counts[i][1] == arg.counted_by then
        count = self.counts[i][2]
        break
      end
    end
    assert(count, 'a list is counted by an integer declared before it')
    local left = self:remaining() - after
    if left < 0 then
      left = 0
    end
    local room = floor(left / width)
    if count > room then
      rt.fail('ERR ' .. arg.counted_by .. ' is larger than the number of ' .. arg.name .. ' arguments that follow')
    end
  else
    local left = self:remaining()
    if left == 0 then
      if keyword then
        self:mistake('empty', keyword)
      end
      self:mistake('missing', arg.name)
    end
    if left % width ~= 0 then
      local group = arg.name
      if arg.kind == 'block' then
        local names = {}
        for i, part in ipairs(arg.args) do
          names[i] = part.name
        end
        group = table.concat(names, ' ')
      end
      self:mistake('unpaired', group)
    end
    count = left / width
  end
  local items = {}
  for i = 1, count do
    items[i] = self:item(arg, { 'missing', arg.name })
  end
  return items
end

function Parser:not_a(word, error_text)
  for _, keyword in ipairs(self.command.keywords) do
    if same_keyword(word, keyword) then
      self:mistake('unexpected', show(word))
    end
  end
  rt.fail(error_text)
end

function Parser:item(arg, missing)
  local kind = arg.kind
  if kind == 'block' then
    local values = {}
    for i, part in ipairs(arg.args) do
      values[i] = self:item(part, missing)
    end
    return values
  elseif kind == 'key' then
    local position = self.at
    local word = self:word(missing)
    self.keys[#self.keys + 1] = position
    return word
  elseif kind == 'string' then
    return self:word(missing)
  elseif kind == 'integer' or kind == 'unix-time' then
    local word = self:word(missing)
    if rt.parse_i64(word) == nil then
      self:not_a(word, rt.NOT_INTEGER)
    end
    if self.command.counters[arg.name] then
      local n = tonumber(word)
      if n < 1 then
        rt.fail('ERR ' .. arg.name .. ' ' .. rt.bound.AT_LEAST_ONE)
      end
      self.counts[#self.counts + 1] = { arg.name, n }
    end
    return word
  elseif kind == 'double' then
    local word = self:word(missing)
    local value = rt.parse_f64(word)
    if value == nil then
      self:not_a(word, rt.NOT_FLOAT)
    end
    return value
  elseif kind == 'pure-token' then
    return true
  end
  error('a one-of is read by its keyword')
end

-- Parses `argv` (the command's arguments, its name not included) by the
-- command's grammar: the values, and the argv indexes of its keys.
function rt.parse(command, argv)
  local argc = #argv + 1
  local arity = command.arity
  if (arity >= 0 and argc ~= arity) or (arity < 0 and argc < -arity) then
    rt.fail("ERR wrong number of arguments for '" .. command.name .. "' command")
  end
  local parser = setmetatable({
    command = command,
    argv = argv,
    argc = argc,
    at = 1,
    counts = {},
    keys = {},
  }, Parser)
  local values = parser:sequence(command.args)
  local extra = parser:peek()
  if extra ~= nil then
    parser:mistake('unexpected', show(extra))
  end
  return values, parser.keys
end

-- ---------------------------------------------------------------------------
-- Native calls. Errors of a native call (WRONGTYPE, OOM) become the call's
-- error reply as the server wrote it, as the module's key API answers them.

function rt.call(...)
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then
    rt.fail(reply.err)
  end
  return reply
end
local call = rt.call

-- A sorted set's size, refusing another type (the module's `key_len`).
function rt.zcard(key)
  return call('ZCARD', key)
end

function rt.scard(key)
  return call('SCARD', key)
end

-- The score of a member, or nil.
function rt.zscore(key, member)
  local score = call('ZSCORE', key, member)
  if score then
    return tonumber(score)
  end
  return nil
end

-- `ZRANGE ... WITHSCORES` as {{member, score}, ...}.
function rt.pairs_of(reply)
  local out = {}
  for i = 1, #reply, 2 do
    out[#out + 1] = { reply[i], tonumber(reply[i + 1]) }
  end
  return out
end

-- Runs `command key [option] item...` in calls of at most 512 items (Lua
-- passes a call's arguments on a bounded stack), each item's words from
-- `words(item)`; returns the sum of the replies.
local function in_chunks(command, key, option, items, words)
  local total = 0
  local i, n = 1, #items
  while i <= n do
    local argv = { command, key, option }
    if not option then
      argv[3] = nil
    end
    local last = i + 511
    if last > n then
      last = n
    end
    for j = i, last do
      words(items[j], argv)
    end
    total = total + call(unpack(argv))
    i = last + 1
  end
  return total
end

-- Writes pairs of {member, score} with ZADD; returns how many were new.
function rt.zadd_pairs(key, pairs_list, option)
  return in_chunks('ZADD', key, option, pairs_list, function(pair, argv)
    argv[#argv + 1] = rt.arg_score(pair[2])
    argv[#argv + 1] = pair[1]
  end)
end

-- Runs `command key member...` (ZREM); returns the sum of the replies.
function rt.members_call(command, key, members)
  return in_chunks(command, key, nil, members, function(member, argv)
    argv[#argv + 1] = member
  end)
end

-- ---------------------------------------------------------------------------
-- Which family's data a sorted set looks like (src/logic/family.rs): a
-- command that removes members refuses a key that is plainly another
-- family's, before it writes.

local TODAY_MS = 1e12
local TIE_BREAK = 'scores with a tie-break fraction'
local SEEN_KEY = "event ids beside their arguments' digests"
local FAMILY_NAMES = {
  rank = 'a RANK board', rate = 'a RATE log', recent = 'a RECENT list',
  delay = 'a DELAY queue', seen = 'an IDMP seen-key',
}

local function is_tie_break(score)
  return score == score and score ~= huge and score ~= -huge and score ~= floor(score)
    and score < TODAY_MS and score > -TODAY_MS
end

local function wrong_family(expected, looks_like, because)
  if looks_like then
    rt.fail('WRONGTYPE the key looks like ' .. FAMILY_NAMES[looks_like] .. ' (' .. because .. '), not '
      .. FAMILY_NAMES[expected] .. ': nothing was changed')
  end
  rt.fail('WRONGTYPE the key is not ' .. FAMILY_NAMES[expected] .. ' (' .. because .. '): nothing was changed')
end

-- The two lowest elements of a sorted set ({{member, score}, ...}) and its
-- highest ({member, score} or nil).
function rt.sample(key, highest)
  local lowest = rt.pairs_of(call('ZRANGE', key, '0', '1', 'WITHSCORES'))
  local top
  if highest then
    top = rt.pairs_of(call('ZRANGE', key, '-1', '-1', 'WITHSCORES'))[1]
  end
  return lowest, top
end

-- Whether the two lowest elements are an IDMP id and its arguments member.
local function is_seen_key_head(lowest)
  local id, args = lowest[1], lowest[2]
  if not (id and args) then
    return false
  end
  return rt.idmp_entry(id[2]) == 'id' and rt.idmp_entry(args[2]) == 'args'
    and floor(id[2]) == floor(args[2]) and #args[1] == #id[1] + 8 and sub(args[1], 1, #id[1]) == id[1]
end

function rt.check_rate_log(lowest, newest)
  if is_seen_key_head(lowest) then
    wrong_family('rate', 'seen', SEEN_KEY)
  end
  if newest then
    local score = newest[2]
    if is_tie_break(score) then
      wrong_family('rate', 'rank', TIE_BREAK)
    end
    if score == score and score ~= huge and score ~= -huge and score < TODAY_MS then
      wrong_family('rate', nil, 'its newest score is no unix ms of this century')
    end
  end
end

function rt.check_recent_list(lowest, newest)
  if is_seen_key_head(lowest) then
    wrong_family('recent', 'seen', SEEN_KEY)
  end
  local score = newest[2]
  if is_tie_break(score) then
    wrong_family('recent', 'rank', TIE_BREAK)
  end
  if score == score and score ~= huge and score ~= -huge and score ~= floor(score) then
    wrong_family('recent', nil, 'its scores are not whole unix ms')
  end
end

function rt.check_delay_queue(lowest)
  if is_seen_key_head(lowest) then
    wrong_family('delay', 'seen', SEEN_KEY)
  end
  if lowest[1] and is_tie_break(lowest[1][2]) then
    wrong_family('delay', 'rank', TIE_BREAK)
  end
end

-- What a seen-key member is, by its score's fraction (src/logic/idmp.rs).
function rt.idmp_entry(score)
  local fraction = score - floor(score)
  if fraction == 0.5 then
    return 'args'
  elseif fraction == 0.25 then
    return 'id'
  end
  return 'bare'
end

-- Removes the `excess` lowest members of a sorted set, as ZREM (so the
-- `zrem` event fires, as for the module's trims).
function rt.trim_lowest(key, excess)
  if excess > 0 then
    rt.members_call('ZREM', key, call('ZRANGE', key, '0', rt.int_text(excess - 1)))
  end
end

-- ---------------------------------------------------------------------------
-- The clock: the server's unix ms (`TIME`), read once per call.

function rt.server_now_ms()
  local t = rt.call('TIME')
  return tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end

rt.now_ms = rt.server_now_ms

-- Durations added to the clock (logic/clock.rs): 100 years at most, and a
-- sum that stays an exact integer in a double.
rt.MAX_DURATION_MS = 3155760000000

function rt.deadline(now_ms, duration_ms)
  if not (duration_ms >= 1 and duration_ms <= rt.MAX_DURATION_MS) then
    return nil
  end
  local at = now_ms + duration_ms
  if at < 0 or at > rt.TWO_53 then
    return nil
  end
  return at
end

-- A positive integer argument (commands/args.rs).
function rt.positive(text, what)
  local n = tonumber(text)
  if not (n > 0) then
    rt.out_of_range(what, rt.bound.POSITIVE_INTEGER)
  end
  return n
end

function rt.non_negative(text, what)
  local n = tonumber(text)
  if n < 0 then
    rt.out_of_range(what, rt.bound.NOT_NEGATIVE)
  end
  return n
end

-- ---------------------------------------------------------------------------
-- Replies.

function rt.double(x)
  return { double = x }
end

rt.NULL = false

-- ---------------------------------------------------------------------------
-- The entry point of every function: parses the call, checks that the keys
-- FCALL declared are the call's keys, runs the handler.

local function keys_text(argv, positions)
  local names = {}
  for i, position in ipairs(positions) do
    names[i] = "'" .. show(argv[position]) .. "'"
  end
  return table.concat(names, ' ')
end

local run

function rt.entry(command, handler)
  return function(keys, argv)
    rt.init()
    if not command.prepared then
      prepare(command)
    end
    local ok, reply = pcall(run, command, handler, keys, argv)
    if ok then
      return reply
    end
    if getmetatable(reply) == FAILURE then
      return redis.error_reply(reply.text)
    end
    if type(reply) == 'table' and reply.err then
      return redis.error_reply(reply.err)
    end
    return redis.error_reply('ERR zkit internal error: ' .. command.name .. ': ' .. tostring(reply))
  end
end

-- One call: parsed, its declared keys checked, handled.
run = function(command, handler, keys, argv)
  local values, positions = rt.parse(command, argv)
  local declared = #keys == #positions
  if declared then
    for i, position in ipairs(positions) do
      if keys[i] ~= argv[position] then
        declared = false
        break
      end
    end
  end
  if not declared then
    rt.fail('ERR zkit library: FCALL must declare the call\'s keys, in order: ' .. #positions
      .. ' (' .. keys_text(argv, positions) .. '), then the command\'s arguments')
  end
  return handler(values)
end

-- `FCALL_RO zkit_keys 0 <command> <arguments...>`: the keys of a call, in
-- order, as FCALL must declare them (what COMMAND GETKEYS answers for the
-- module's commands), or the call's grammar error.
function rt.keys_of(commands)
  return function(_, argv)
    rt.init()
    local ok, reply = pcall(function()
      local name = lower(argv[1] or '')
      local command = commands[name]
      if command == nil then
        rt.fail("ERR zkit library: unknown command '" .. show(argv[1] or '') .. "'")
      end
      if not command.prepared then
        prepare(command)
      end
      local args = {}
      for i = 2, #argv do
        args[i - 1] = argv[i]
      end
      local _, positions = rt.parse(command, args)
      local keys = {}
      for i, position in ipairs(positions) do
        keys[i] = args[position]
      end
      return keys
    end)
    if ok then
      return reply
    end
    if getmetatable(reply) == FAILURE then
      return redis.error_reply(reply.text)
    end
    return redis.error_reply('ERR zkit internal error: ' .. tostring(reply))
  end
end
