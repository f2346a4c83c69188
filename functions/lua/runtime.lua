-- The runtime every zkit function shares: the grammar walk that parses a call
-- (a port of the module's src/host/grammar/parse.rs, reading the declarations
-- this file is generated with), error replies, the exact number texts the
-- module writes, the clock, and the native calls the families make.
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

-- The texts, bounds and limits are the module's (ERRORS, BOUNDS, LIMITS:
-- docs/constants.json, which the generator writes at the top of the file).
rt.WRONGTYPE = ERRORS.wrong_type
rt.NOT_INTEGER = ERRORS.not_integer
rt.NOT_FLOAT = ERRORS.not_float

-- An error text with its `{name}` placeholders filled from `values` (texts).
function rt.say(template, values)
  return (template:gsub('{([%w_]+)}', values))
end

-- The bounds the module's OutOfRange errors name (src/error.rs, `bound`).
rt.bound = BOUNDS

function rt.out_of_range(what, limit)
  rt.fail(rt.say(ERRORS.out_of_range, { what = what, limit = limit }))
end

-- ---------------------------------------------------------------------------
-- Bytes: Lua compares strings with strcoll, which follows the server's
-- locale; members order by their bytes, as in a sorted set.

local byte, sub, format, upper, lower, find, floor, huge
local native_pcall, native_call, acl_check_cmd

function rt.init()
  if byte then
    return
  end
  byte, sub, format, upper, lower = string.byte, string.sub, string.format, string.upper, string.lower
  find = string.find
  floor, huge = math.floor, math.huge
  native_pcall, native_call, acl_check_cmd = redis.pcall, redis.call, redis.acl_check_cmd
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

-- The spellings of integers and doubles the generated parses take (the
-- usual ones; the walk reads every other): an integer of at most 18 digits,
-- which is always a 64-bit one, and a decimal without exponent of at most
-- 24 characters, which reads as the walk reads it (no NaN, no overflow).
local function plain_integer(word)
  return #word <= 18 and (find(word, '^-?[1-9]%d*$') ~= nil or word == '0')
end

local function plain_double(word)
  if #word <= 24 and find(word, '^[+-]?%d*%.?%d*$') then
    return tonumber(word)
  end
  return nil
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

-- A score in the text of a native command's argument (an exclusive bound,
-- `(` .. score): reads back as exactly `x`. A score that is an argument of
-- its own goes as the number: the server writes a number argument with
-- %.17g (or its shortest round trip), exact too, and cheaper than a Lua
-- string made here.
function rt.arg_score(x)
  if x == huge then
    return 'inf'
  elseif x == -huge then
    return '-inf'
  end
  return format('%.17g', x)
end

-- ---------------------------------------------------------------------------
-- The grammar: a port of src/host/grammar/parse.rs over the declarations of
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
local function arity_width(arg)
  if arg.kind == 'oneof' and not arg.optional then
    local least
    for _, choice in ipairs(arg.args) do
      local width = arity_width(choice)
      if least == nil or width < least then
        least = width
      end
    end
    return least or 0
  end
  if arg.token and arg.multiple and not arg.optional then
    return 1
  end
  return min_width(arg)
end

local function arity_of(args)
  local least, fixed = 1, true
  for _, arg in ipairs(args) do
    least = least + arity_width(arg)
    if arg.optional or arg.multiple or arg.kind == 'oneof' then
      fixed = false
    end
  end
  return fixed and least or -least
end

-- A command's declaration, as the generator writes it; prepared on its
-- first call.
function rt.declare(name, args, declared_arity, native_rows)
  return { name = name, args = args, declared_arity = declared_arity, native_rows = native_rows }
end

local compile_natives, compile_later

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
  compile_natives(command)
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
      self:mistake('missing', table.concat(keywords_of(arg), ' or '))
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
      rt.fail(rt.say(ERRORS.count_too_large, { count = arg.counted_by, list = arg.name }))
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
        rt.out_of_range(arg.name, rt.bound.AT_LEAST_ONE)
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
    rt.fail(rt.say(ERRORS.arity, { command = command.name }))
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
-- Native calls. Each command may run only the native commands its natives
-- table names (functions/lua/natives.lua). Errors of a native call
-- (WRONGTYPE, OOM) become the call's error reply as the server wrote it, as
-- the module's key API answers them; a native command the caller's ACL
-- refuses before the call has written anything becomes the module's
-- refusal, naming it (below: what is checked before the first write).

local audit_call, first_write, refusal

-- Native commands that write: the first one a call runs is where it checks
-- the natives it may run after it (below).
local WRITES = {
  ZADD = true, ZINCRBY = true, ZREM = true, ZREMRANGEBYSCORE = true, PEXPIREAT = true,
  PERSIST = true, UNLINK = true, RENAME = true, SADD = true, SREM = true, HSET = true, HDEL = true,
}

-- Whether the call has started writing (so `first_write` has run), and the
-- native command running (an error raised while it is set is that
-- command's).
local writing, in_native = true, nil

-- A native call's reply, errors as error replies (refusals of the caller's
-- ACL as the module words them).
function rt.pcall(name, ...)
  if not writing and WRITES[name] then
    first_write()
  end
  if audit_call then
    return audit_call(native_pcall, name, ...)
  end
  local reply = native_pcall(name, ...)
  if type(reply) == 'table' and reply.err and not writing then
    refusal(name, ...)
  end
  return reply
end

-- A native call's reply; its error is the call's.
function rt.call(name, ...)
  if not writing and WRITES[name] then
    first_write()
  end
  if audit_call then
    return audit_call(native_call, name, ...)
  end
  in_native = name
  local reply = native_call(name, ...)
  in_native = nil
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

-- `ZRANGE ... WITHSCORES` as {{member, score}, ...}; `with_text` adds the
-- score's text as the reply gave it when that is the text rt.score_text
-- writes (an integer's digits, which both %.17g and the shortest form
-- print), else nil: {{member, score, text}, ...}.
function rt.pairs_of(reply, with_text)
  local out = {}
  for i = 1, #reply, 2 do
    local text = reply[i + 1]
    if with_text then
      out[#out + 1] = { reply[i], tonumber(text),
        (#text < 16 and text ~= '-0' and find(text, '^-?%d+$')) and text or nil }
    else
      out[#out + 1] = { reply[i], tonumber(text) }
    end
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
rt.in_chunks = in_chunks

-- Each of `fields`' value in the hash `key`, in order (false where a
-- field is not there): HMGET in chunks of 512, within Lua's unpack; with
-- no fields, HLEN, so a key of another type is refused as the module's
-- open refuses it.
function rt.hmget(key, fields)
  local n = #fields
  if n == 0 then
    rt.call('HLEN', key)
    return {}
  elseif n <= 512 then
    return rt.call('HMGET', key, unpack(fields))
  end
  local found = {}
  for first = 1, n, 512 do
    local chunk = rt.call('HMGET', key, unpack(fields, first, math.min(first + 511, n)))
    for i = 1, #chunk do
      found[#found + 1] = chunk[i]
    end
  end
  return found
end

-- Writes pairs of {member, score} with ZADD; returns how many were new.
function rt.zadd_pairs(key, pairs_list, option)
  if #pairs_list == 1 and not option then
    local pair = pairs_list[1]
    return call('ZADD', key, pair[2], pair[1])
  end
  return in_chunks('ZADD', key, option, pairs_list, function(pair, argv)
    argv[#argv + 1] = pair[2]
    argv[#argv + 1] = pair[1]
  end)
end

-- Runs `command key member...` (ZREM); returns the sum of the replies.
function rt.members_call(command, key, members)
  local n = #members
  if n == 0 then
    return 0
  elseif n <= 512 then
    return call(command, key, unpack(members))
  end
  return in_chunks(command, key, nil, members, function(member, argv)
    argv[#argv + 1] = member
  end)
end

-- Bytes as text, as Rust's `String::from_utf8_lossy` reads them (each
-- maximal invalid sequence one U+FFFD) and the module's error replies
-- write them (a NUL as `\0`, CR and LF as spaces): a user's value quoted in
-- an error the module words the same way.
local REPLACEMENT = '\239\191\189'

-- The bytes a second byte of a sequence starting with `lead` may be.
local function second_range(lead)
  if lead == 0xE0 then
    return 0xA0, 0xBF
  elseif lead == 0xED then
    return 0x80, 0x9F
  elseif lead == 0xF0 then
    return 0x90, 0xBF
  elseif lead == 0xF4 then
    return 0x80, 0x8F
  end
  return 0x80, 0xBF
end

function rt.utf8_lossy(bytes)
  local out, i, n = {}, 1, #bytes
  while i <= n do
    local b = byte(bytes, i)
    local width = (b < 0x80 and 1) or (b >= 0xC2 and b <= 0xDF and 2) or (b >= 0xE0 and b <= 0xEF and 3)
      or (b >= 0xF0 and b <= 0xF4 and 4) or 0
    local valid = 1
    if width > 1 then
      local low, high = second_range(b)
      local c = byte(bytes, i + 1)
      while c and c >= low and c <= high and valid < width do
        valid = valid + 1
        low, high = 0x80, 0xBF
        c = byte(bytes, i + valid)
      end
    end
    if width ~= 0 and valid == width then
      local char = sub(bytes, i, i + width - 1)
      out[#out + 1] = (char == '\0' and '\\0') or ((char == '\r' or char == '\n') and ' ') or char
    else
      out[#out + 1] = REPLACEMENT
    end
    i = i + valid
  end
  return table.concat(out)
end

-- ---------------------------------------------------------------------------
-- Which family's data a sorted set looks like (src/logic/family.rs): a
-- command that removes members refuses a key that is plainly another
-- family's, before it writes.

local TODAY_MS = LIMITS.TODAY_MS

local function is_tie_break(score)
  return score == score and score ~= huge and score ~= -huge and score ~= floor(score)
    and score < TODAY_MS and score > -TODAY_MS
end

-- The refusal of a key of `expected`'s family that holds what `evidence`
-- says (ERRORS.<family>_<evidence>).
local function wrong_family(expected, evidence)
  rt.fail(ERRORS[expected .. '_' .. evidence])
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

-- Whether two members' names could be an IDMP id and its arguments member
-- (the id's name and 8 bytes more).
local function id_and_args_names(id, args)
  return #args == #id + 8 and sub(args, 1, #id) == id
end

-- Whether the two lowest elements are an IDMP id and its arguments member.
local function is_seen_key_head(lowest)
  local id, args = lowest[1], lowest[2]
  if not (id and args and id_and_args_names(id[1], args[1])) then
    return false
  end
  return rt.idmp_entry(id[2]) == 'id' and rt.idmp_entry(args[2]) == 'args' and floor(id[2]) == floor(args[2])
end

-- The two lowest elements of a sorted set as rt.sample has them, for the
-- seen-key test alone: their scores are read only when their names could
-- begin a seen-key (formatting and reading a score back is most of a
-- sample's cost).
function rt.lowest_two(key)
  local names = call('ZRANGE', key, '0', '1')
  if names[2] and id_and_args_names(names[1], names[2]) then
    return rt.pairs_of(call('ZRANGE', key, '0', '1', 'WITHSCORES'))
  end
  local lowest = {}
  for i = 1, #names do
    lowest[i] = { names[i] }
  end
  return lowest
end

function rt.check_rate_log(lowest, newest)
  if is_seen_key_head(lowest) then
    wrong_family('rate_log', 'looks_like_seen_key')
  end
  if newest then
    local score = newest[2]
    if is_tie_break(score) then
      wrong_family('rate_log', 'looks_like_rank_board')
    end
    if score == score and score ~= huge and score ~= -huge and score < TODAY_MS then
      wrong_family('rate_log', 'not_recent_unix_ms')
    end
  end
end

function rt.check_recent_list(lowest, newest)
  if is_seen_key_head(lowest) then
    wrong_family('recent_list', 'looks_like_seen_key')
  end
  local score = newest[2]
  if is_tie_break(score) then
    wrong_family('recent_list', 'looks_like_rank_board')
  end
  if score == score and score ~= huge and score ~= -huge and score ~= floor(score) then
    wrong_family('recent_list', 'not_whole_unix_ms')
  end
end

function rt.check_delay_queue(lowest)
  if is_seen_key_head(lowest) then
    wrong_family('delay_queue', 'looks_like_seen_key')
  end
  if lowest[1] and is_tie_break(lowest[1][2]) then
    wrong_family('delay_queue', 'looks_like_rank_board')
  end
end

-- A sorted set's lowest element as rt.sample has it ({{member, score}}, or
-- {} when empty), and its lowest two only when the lowest could begin an
-- IDMP seen-key (its score says so): all a family check reads of the lowest
-- (a score printed by the server and read back is most of a sample's cost).
-- The read is also the key's type check.
function rt.lowest_for_checks(key)
  local lowest = rt.pairs_of(call('ZRANGE', key, '0', '0', 'WITHSCORES'))
  if lowest[1] and rt.idmp_entry(lowest[1][2]) == 'id' then
    return rt.sample(key, false)
  end
  return lowest
end

-- Refuses a key of another type or family as a delay queue, before any
-- write.
function rt.check_delay_queue_key(key)
  rt.check_delay_queue(rt.lowest_for_checks(key))
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
-- `zrem` event fires, as for the module's trims); how many it removed.
function rt.trim_lowest(key, excess)
  if excess > 0 then
    return rt.members_call('ZREM', key, call('ZRANGE', key, '0', rt.int_text(excess - 1)))
  end
  return 0
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
rt.MAX_DURATION_MS = LIMITS.MAX_DURATION_MS

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

-- When a key given `TTL seconds` (the argument's text) at `now_ms`
-- expires (commands/args.rs `ttl_deadline`).
function rt.ttl_deadline(now_ms, seconds)
  local ms = tonumber(seconds) * 1000
  local at = ms <= rt.MAX_DURATION_MS and rt.deadline(now_ms, ms) or nil
  if at == nil then
    rt.out_of_range('TTL', rt.bound.DURATION_S)
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
-- The native commands a call may run, checked so that a refusal changes
-- nothing, as the module checks its own before its first write
-- (src/host/call.rs): each must exist under its own name (an operator's
-- rename-command renames or disables it) and the caller's ACL must let it
-- run on the keys the call runs it on (the server checks a script's calls
-- against its caller, one by one, as they run).
--
-- Existence cannot change while the server runs (rename-command acts only
-- while it reads its config), so it is looked up once per command and
-- library load. The ACL can change between any two calls, but a native
-- command refused before the call's first write changes nothing either: it
-- is run, and its refusal is told apart from its other errors
-- (`refusal`). So only the natives a call may run after its first write
-- (their rows say `later`) are checked, with redis.acl_check_cmd, and only
-- when the call writes, just before its first write.

local DENIED = "NOPERM this command needs %s, which this user's ACL does not allow: nothing was changed"

-- A call of each native command as redis.acl_check_cmd is asked about it,
-- KEY where a key goes: the server finds the keys by the command's key specs
-- (and newer servers check the arity).
local KEY = {}
local PROBES = {
  TIME = {},
  ZADD = { KEY, '0', 'm' },
  ZINCRBY = { KEY, '1', 'm' },
  ZREM = { KEY, 'm' },
  ZREMRANGEBYSCORE = { KEY, '0', '0' },
  ZCARD = { KEY },
  ZSCORE = { KEY, 'm' },
  ZRANGE = { KEY, '0', '0' },
  ZREVRANK = { KEY, 'm' },
  ZRANK = { KEY, 'm' },
  ZCOUNT = { KEY, '0', '0' },
  PEXPIREAT = { KEY, '0' },
  PEXPIRETIME = { KEY },
  PERSIST = { KEY },
  UNLINK = { KEY },
  RENAME = { KEY, KEY },
  SADD = { KEY, 'm' },
  SREM = { KEY, 'm' },
  SCARD = { KEY },
  SISMEMBER = { KEY, 'm' },
  HSET = { KEY, 'f', 'v' },
  HDEL = { KEY, 'f' },
  HGET = { KEY, 'f' },
  HEXISTS = { KEY, 'f' },
  HLEN = { KEY },
  HGETALL = { KEY },
  HMGET = { KEY, 'f' },
  MEMORY = { 'USAGE', KEY },
}

-- Whether the server has each native command under its own name.
local available = {}

-- The test variant's records of a call (rt.audit_natives): what its rows
-- let it run, and what it checked before its first write.
local allowed, checked

-- A function that asks whether the caller may run `native` on keys (a, b),
-- its other words fixed: a closure per native, so that a check costs few
-- Lua steps beside acl_check_cmd itself.
local function asker(native)
  local template = PROBES[native]
  assert(template, 'no probe for the native command ' .. native)
  local w1, w2, w3 = template[1], template[2], template[3]
  local ask
  if w1 == nil then
    ask = function() return acl_check_cmd(native) end
  elseif w1 == KEY and w2 == KEY then
    ask = function(a, b) return acl_check_cmd(native, a, b) end
  elseif w1 == KEY and w2 == nil then
    ask = function(a) return acl_check_cmd(native, a) end
  elseif w1 == KEY and w3 == nil then
    ask = function(a) return acl_check_cmd(native, a, w2) end
  elseif w1 == KEY then
    ask = function(a) return acl_check_cmd(native, a, w2, w3) end
  elseif w2 == KEY and w3 == nil then
    ask = function(a) return acl_check_cmd(native, w1, a) end
  else
    error('no way to ask about ' .. native)
  end
  -- acl_check_cmd raises an error for a command the server does not have,
  -- whoever asks.
  if available[native] == nil then
    available[native] = pcall(ask, 'k', 'k')
  end
  return ask
end

-- How many keys a native command's probe takes.
local function key_count(native)
  local count = 0
  for _, word in ipairs(PROBES[native]) do
    if word == KEY then
      count = count + 1
    end
  end
  return count
end

-- The key a native call runs on (its first), '' for none.
local function key_of_call(native, ...)
  for i, word in ipairs(PROBES[native] or {}) do
    if word == KEY then
      return (select(i, ...))
    end
  end
  return ''
end

-- Where a declared argument's value is in a parsed call: its index, its
-- part (its index within its block, or minus its index among a one-of's
-- choices), and whether it is a list.
local function path_of(command, name)
  for i, arg in ipairs(command.args) do
    if arg.name == name then
      return i, nil, arg.multiple
    end
    if arg.kind == 'block' or arg.kind == 'oneof' then
      local sign = arg.kind == 'block' and 1 or -1
      for j, part in ipairs(arg.args) do
        if part.name == name then
          return i, sign * j, part.multiple
        end
      end
    end
  end
  error(command.name .. ': its natives name no argument ' .. name)
end

-- A command's natives table (natives.lua) made ready to check calls with:
-- each row's keys and conditions as indexes into the parsed call, each
-- native command as its asker; the rows checked before the first write
-- (`later`, compiled by compile_later), and those naming a command the
-- server lacks.
compile_natives = function(command)
  local rows, later, missing = {}, {}, {}
  for i, row in ipairs(command.native_rows or {}) do
    local keys = row.on or {}
    if type(keys) == 'string' then
      keys = { keys }
    end
    local compiled = { natives = {}, asks = {}, missing = {}, reached = row.reached }
    if keys[1] then
      compiled.key, compiled.key_part, compiled.each = path_of(command, keys[1])
    end
    if keys[2] then
      local list
      compiled.second_key, compiled.second_key_part, list = path_of(command, keys[2])
      assert(not (list or compiled.each), command.name .. ': a native command on two keys takes no list')
    end
    if row.when then
      compiled.when, compiled.when_part = path_of(command, row.when)
    end
    if row.unless then
      -- One option, or two (the row applies when the call gives neither).
      local names = type(row.unless) == 'table' and row.unless or { row.unless }
      assert(#names <= 2, command.name .. ': a row names at most two options after unless')
      compiled.unless, compiled.unless_part = path_of(command, names[1])
      if names[2] then
        compiled.unless2, compiled.unless2_part = path_of(command, names[2])
      end
    end
    for native in row[1]:gmatch('%S+') do
      assert(key_count(native) == #keys, command.name .. ': ' .. native .. ' takes ' .. key_count(native) .. ' keys')
      compiled.natives[#compiled.natives + 1] = native
      compiled.asks[#compiled.asks + 1] = asker(native)
      if not available[native] then
        compiled.missing[#compiled.missing + 1] = native
      end
    end
    rows[i] = compiled
    if row.later then
      later[#later + 1] = compiled
    end
    if compiled.missing[1] then
      missing[#missing + 1] = compiled
    end
  end
  command.rows = rows
  compile_later(command, later)
  command.missing_rows = missing[1] and missing or nil
end

-- A given value's `part` (path_of): a block's part, or a one-of's value
-- when the call chose that choice, else false.
local function part_of(value, part)
  if part > 0 then
    return value[part]
  end
  return value.choice == -part and value.value
end

-- The value of a call's argument at `index` (and `part` within it), false
-- when the call does not give it.
local function value_at(values, index, part)
  local value = values[index]
  if part and value then
    value = part_of(value, part)
  end
  return value
end

-- The keys a row applies to in a call (a: one key or a list of keys, b: a
-- second key), or nil when the call does not reach it.
local function row_keys(row, values)
  local when, unless, unless2 = row.when, row.unless, row.unless2
  if (when ~= nil and value_at(values, when, row.when_part) == false)
    or (unless ~= nil and value_at(values, unless, row.unless_part) ~= false)
    or (unless2 ~= nil and value_at(values, unless2, row.unless2_part) ~= false) then
    return nil
  end
  local a, b
  if row.key then
    a = value_at(values, row.key, row.key_part)
    if a == false then
      return nil
    end
  end
  if row.second_key then
    b = value_at(values, row.second_key, row.second_key_part)
    if b == false then
      return nil
    end
  end
  return a or true, b
end

local function deny(native, a, b)
  local what = native
  if a then
    what = what .. " on '" .. show(a) .. "'"
    if b then
      what = what .. " and '" .. show(b) .. "'"
    end
  end
  rt.fail(format(DENIED, what))
end

-- Refuses a call that may run a native command the server lacks.
local function refuse_missing(rows, values)
  for r = 1, #rows do
    local row = rows[r]
    if row_keys(row, values) ~= nil then
      rt.fail(rt.say(ERRORS.command_unavailable, { command = row.missing[1] }))
    end
  end
end

-- The call being served: its rows checked before its first write, its
-- parsed values, and the conditions its handler said it reaches.
local later_command, later_values, later_shape, reached, reached_any = nil, nil, 0, {}, false

-- `rt.reach(name)`: the handler will run the natives of the rows that say
-- `reached = name` after its first write (a decision made on what it read).
function rt.reach(name)
  if reached[name] then
    return
  end
  reached[name], reached_any = true, true
  if writing then
    error('reached ' .. name .. ' after the first write', 0)
  end
end

-- A later row's check: asks the caller's ACL about each native of the row,
-- on each of its keys, when the call reaches the row; refuses the first it
-- does not allow, or with `quiet` returns false. True when it allows them
-- all. Its fields are upvalues: a field of the row's table costs a lookup.
local function row_check(row)
  local reached_name, when, when_part = row.reached, row.when, row.when_part
  local unless, unless_part, unless2, unless2_part = row.unless, row.unless_part, row.unless2, row.unless2_part
  local key, key_part, each = row.key, row.key_part, row.each
  local second_key, second_key_part = row.second_key, row.second_key_part
  local asks, natives = row.asks, row.natives
  local count = #asks
  return function(values, quiet)
    if reached_name and not reached[reached_name] then
      return true
    end
    -- A one-of's choice (when_part, unless_part) is looked at only when the
    -- one-of is given.
    if when then
      local given = values[when]
      if given == false or (when_part and part_of(given, when_part) == false) then
        return true
      end
    end
    if unless and values[unless] ~= false and not (unless_part and part_of(values[unless], unless_part) == false) then
      return true
    end
    if unless2 and values[unless2] ~= false
      and not (unless2_part and part_of(values[unless2], unless2_part) == false) then
      return true
    end
    local a, b
    if key then
      a = values[key]
      if key_part and a then
        a = part_of(a, key_part)
      end
      if a == false then
        return true
      end
    end
    if second_key then
      b = values[second_key]
      if second_key_part and b then
        b = part_of(b, second_key_part)
      end
      if b == false then
        return true
      end
    end
    if each then
      for k = 1, #a do
        for n = 1, count do
          if checked then
            checked[natives[n] .. '\0' .. a[k]] = true
          end
          if not asks[n](a[k]) then
            if quiet then
              return false
            end
            deny(natives[n], a[k])
          end
        end
      end
    else
      for n = 1, count do
        if checked then
          checked[natives[n] .. '\0' .. (a or '')] = true
        end
        if not asks[n](a, b) then
          if quiet then
            return false
          end
          deny(natives[n], a, b)
        end
      end
    end
    return true
  end
end

-- A command's later rows as checks (row_check), in order, and those that
-- a `reached` holds back; its plans start empty (plan_of).
compile_later = function(command, later)
  local checks, reached_checks = {}, {}
  for r, row in ipairs(later) do
    checks[r] = row_check(row)
    if row.reached ~= nil then
      reached_checks[#reached_checks + 1] = checks[r]
    end
  end
  command.later, command.later_checks, command.reached_checks = later, checks, reached_checks
  command.plans, command.plan_count = {}, 0
end

-- How many shapes' plans a command keeps: a caller that gives many
-- combinations of options gets the others worked out on each call, so
-- the functions' heap (which the collector marks) stays small.
local KEPT_PLANS = 32

-- Whether a call of the shape `values` has (which arguments it gives)
-- reaches a later row: false when it cannot, true when it does, nil when
-- that also depends on a one-of's choice or a list of keys (parts and
-- `each`), which the row's check looks at as each call comes.
local function reaches_row(row, values)
  local undecided = false
  if row.when then
    if values[row.when] == false then
      return false
    end
    undecided = undecided or row.when_part ~= nil
  end
  for _, unless in ipairs({ { row.unless, row.unless_part }, { row.unless2, row.unless2_part } }) do
    if unless[1] and values[unless[1]] ~= false then
      if unless[2] == nil then
        return false
      end
      undecided = true
    end
  end
  for _, key in ipairs({ { row.key, row.key_part }, { row.second_key, row.second_key_part } }) do
    if key[1] then
      if values[key[1]] == false then
        return false
      end
      undecided = undecided or key[2] ~= nil
    end
  end
  if undecided or row.each then
    return nil
  end
  return true
end

-- The asks of the later rows (but those a `reached` holds back) that a
-- call of the shape `values` has (shape_of) reaches, in the rows' order,
-- worked out once per shape (KEPT_PLANS): `asks`, `natives`, `keys` and
-- `second_keys` (argument indexes, 0 for none) per ask, and a row that its
-- shape alone does not decide (reaches_row) as its check in `checks`
-- (natives[i] false), asked as it comes.
local function plan_of(command, shape, values)
  local plan = { asks = {}, natives = {}, keys = {}, second_keys = {}, checks = {} }
  for r, row in ipairs(command.later) do
    local reaches = row.reached == nil and reaches_row(row, values)
    if reaches == nil then
      local n = #plan.asks + 1
      plan.asks[n], plan.natives[n], plan.keys[n], plan.second_keys[n] = false, false, 0, 0
      plan.checks[n] = command.later_checks[r]
    elseif reaches then
      for i, ask in ipairs(row.asks) do
        local n = #plan.asks + 1
        plan.asks[n], plan.natives[n] = ask, row.natives[i]
        plan.keys[n], plan.second_keys[n] = row.key or 0, row.second_key or 0
      end
    end
  end
  if command.plan_count < KEPT_PLANS then
    command.plans[shape], command.plan_count = plan, command.plan_count + 1
  end
  return plan
end

-- Whether the caller's ACL allows every native of the later rows the call
-- reaches: its shape's plan, then the rows its handler reached.
local function allows_all(command, plan, values)
  local asks, natives, keys, second_keys = plan.asks, plan.natives, plan.keys, plan.second_keys
  for n = 1, #asks do
    local native = natives[n]
    if native then
      local a, b = values[keys[n]], values[second_keys[n]]
      if checked then
        checked[native .. '\0' .. (a or '')] = true
      end
      if not asks[n](a, b) then
        return false
      end
    elseif not plan.checks[n](values, true) then
      return false
    end
  end
  if reached_any then
    local checks = command.reached_checks
    for r = 1, #checks do
      if not checks[r](values, true) then
        return false
      end
    end
  end
  return true
end

first_write = function()
  writing = true
  local command, values = later_command, later_values
  local plan = command.plans[later_shape] or plan_of(command, later_shape, values)
  -- Most calls of a command without options reach no later row.
  if (plan.asks[1] == nil and not reached_any) or allows_all(command, plan, values) then
    return
  end
  -- A refusal is looked for again, in the rows' order, so that the call
  -- names the same native whatever the plan.
  local checks = command.later_checks
  for r = 1, #checks do
    checks[r](values)
  end
end

-- A native call that failed before the call wrote anything: the module's
-- refusal when the caller's ACL does not allow it (what the server's own
-- refusal says differs between servers and versions, so it is asked).
refusal = function(native, ...)
  local asked, allows = pcall(acl_check_cmd, native, ...)
  if asked and not allows then
    local template = PROBES[native] or {}
    local a, b
    for i, word in ipairs(template) do
      if word == KEY then
        if a == nil then
          a = select(i, ...)
        else
          b = select(i, ...)
        end
      end
    end
    deny(native, a, b)
  end
end

-- After a native command failed: the refusal of a native the call may run
-- that the caller's ACL does not allow, or nil. Only a native run before
-- the call's first write can be refused (those after it were checked), so
-- nothing has changed then.
local function refused_native(command, values)
  local rows = command.rows
  for r = 1, #rows do
    local row = rows[r]
    local a, b = row_keys(row, values)
    if a ~= nil then
      local keys = (row.each and a) or { a ~= true and a or nil }
      local asks = row.asks
      for n = 1, #asks do
        for k = 1, math.max(#keys, 1) do
          if not asks[n](keys[k], b) then
            local _, text = pcall(deny, row.natives[n], keys[k], b)
            return text.text
          end
        end
      end
    end
  end
  return nil
end

-- The natives each call of the test variant may run (rt.audit_natives).
local function allow_rows(rows, values)
  for r = 1, #rows do
    local row = rows[r]
    local a = row_keys(row, values)
    if a ~= nil then
      local keys = (row.each and a) or { a == true and '' or a }
      for _, native in ipairs(row.natives) do
        for _, key in ipairs(keys) do
          allowed[native .. '\0' .. key] = true
        end
      end
    end
  end
end

-- Whether a write of the call changed something (the test variant's
-- record: whatever runs then must have been checked).
local changed = false

-- Tests only (functions/gen.py --test-clock): every native call must be one
-- its command's natives table names, on a key it names, and every one after
-- a write of the call that changed something must have been checked before
-- the first write; else the call fails with an internal error.
function rt.audit_natives()
  checked, allowed = {}, {}
  audit_call = function(caller, native, ...)
    local key = key_of_call(native, ...)
    if not allowed[native .. '\0' .. key] then
      error(native .. " on '" .. show(key) .. "' is not in this command's natives (functions/lua/natives.lua)", 0)
    end
    if changed and not checked[native .. '\0' .. key] then
      error(native .. " on '" .. show(key) .. "' runs after a write of the call, unchecked (a `later` row "
        .. "of functions/lua/natives.lua)", 0)
    end
    local reply = native_pcall(native, ...)
    local failed = type(reply) == 'table' and reply.err
    -- A write command's reply 0 says it changed nothing.
    if not failed and reply ~= 0 and WRITES[native] then
      changed = true
    end
    if caller == native_pcall then
      if failed and not writing then
        refusal(native, ...)
      end
      return reply
    end
    if failed then
      in_native = native
      error(failed, 0)
    end
    return reply
  end
end

-- ---------------------------------------------------------------------------
-- The entry point of every function: parses the call (by its generated
-- parse, or by the grammar walk for a call that parse does not take),
-- checks that the keys FCALL declared are the call's keys, runs the handler.

local function keys_text(argv, positions)
  local names = {}
  for i, position in ipairs(positions) do
    names[i] = "'" .. show(argv[position]) .. "'"
  end
  return table.concat(names, ' ')
end

-- The walk's parse of a call, refusing it as the module does; the keys
-- FCALL declared must be the call's.
local function walk(command, keys, argv)
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
  return values
end

-- Whether two parsed calls are the same values (the test variant holds
-- each generated parse to the walk with it).
local function same_values(a, b)
  if type(a) ~= 'table' or type(b) ~= 'table' then
    return a == b or (a ~= a and b ~= b)
  end
  for k, value in pairs(a) do
    if not same_values(value, b[k]) then
      return false
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return false
    end
  end
  return true
end

local run

function rt.entry(command, handler, parse)
  return function(keys, argv)
    if not byte then
      rt.init()
    end
    if not command.prepared then
      prepare(command)
    end
    local ok, reply = pcall(run, command, handler, parse, keys, argv)
    local failed_native = in_native
    writing, in_native = true, nil
    if ok then
      return reply
    end
    if getmetatable(reply) == FAILURE then
      return redis.error_reply(reply.text)
    end
    if failed_native and type(reply) == 'string' then
      return redis.error_reply(refused_native(command, later_values) or reply)
    end
    if type(reply) == 'table' and reply.err then
      return redis.error_reply(reply.err)
    end
    return redis.error_reply('ERR zkit internal error: ' .. command.name .. ': ' .. tostring(reply))
  end
end

-- A parsed call's shape: the sum of 2^(i - 1) over the arguments i it
-- gives (not false), as a generated parse adds it up (functions/gen.py).
local function shape_of(command, values)
  local shape, bit = 0, 1
  for i = 1, #command.args do
    if values[i] ~= false then
      shape = shape + bit
    end
    bit = bit * 2
  end
  return shape
end

-- One call: parsed, its declared keys checked, handled.
run = function(command, handler, parse, keys, argv)
  local values, shape = parse(argv, keys)
  if values == nil then
    values = walk(command, keys, argv)
    shape = shape_of(command, values)
  elseif checked then
    local walked = walk(command, keys, argv)
    if not same_values(values, walked) then
      error('the generated parse of this call is not the walk\'s', 0)
    end
    if shape ~= shape_of(command, values) then
      error('the generated parse of this call gives shape ' .. shape .. ', not ' .. shape_of(command, values), 0)
    end
  end
  if command.missing_rows then
    refuse_missing(command.missing_rows, values)
  end
  if reached_any then
    reached, reached_any = {}, false
  end
  later_command, later_values, later_shape = command, values, shape
  writing = false
  if checked then
    checked, allowed, changed = {}, {}, false
    allow_rows(command.rows, values)
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
