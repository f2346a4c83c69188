-- zkit-exporter.lua: zkit's metrics for redis_exporter, which runs this
-- script on every scrape (`redis_exporter --script zkit-exporter.lua`) and
-- exports each name-value pair it returns as
--   redis_script_values{key="zkit_queue_due_tasks{queue=\"{jobs}\"}"} 12
-- The scrape config in prometheus-zkit.yml turns that into
--   zkit_queue_due_tasks{queue="{jobs}"} 12
-- (docs/observe.md lists every metric).
--
-- It exports the counters of INFO zkit, and the stats (DELAY.STATS,
-- RANK.STATS, RATE.STATS, ZCARD) of the queues, boards, rate logs and IDMP
-- seen-keys the lists below name, each key once. On a server with the
-- Functions library instead of the module, the stats come from the library's
-- own code, copied at the end of this file (a script cannot FCALL).
--
-- Every read is O(log N) per key, and each scrape is bounded: one SCAN looks
-- at about MAX_SCANNED keys, starting where the last scrape stopped, so every
-- key of the database is looked at once a pass of about keys / MAX_SCANNED
-- scrapes. The first MAX_KEYS keys found for each entry of a list are
-- exported on every scrape from then on, while they exist; keys past that
-- are exported in turn, at most about MAX_ROTATED a scrape, each once a pass.
--
-- Where the scan stands and which keys it found are kept in one hash the
-- script writes, `zkit-exporter:{N}` (N: the first number whose hash slot
-- this node serves), expiring STATE_TTL_MS after the last scrape. Without
-- write access to it (ACL, OOM) the script still exports, starting its scan
-- over each scrape (zkit_exporter_scan_incomplete says so).
--
-- Per-key stats come from masters: on a replica (whose cluster slots belong
-- to its master) only the counters are exported, and nothing is written.

-- ---- What to export: edit these lists --------------------------------------
-- A name may be an exact key or a SCAN pattern; in a queue's pattern the part
-- `*` matched names its other sets, and any of its sets finds the queue. A
-- key is exported once, by the first entry naming it, in the order of the
-- lists below. The defaults follow the guides' layouts.

-- Queues: the queue, its in-flight, dead-letter and deliveries sets and its
-- job data hash (any of the four may be left out).
local QUEUES = {
  { queue = "{*}", inflight = "{*}:inflight", dead = "{*}:dead", deliveries = "{*}:deliveries", data = "{*}:data" },
}
-- IDMP seen-keys, measured against zkit.idmp-max-ids.
local SEEN_KEYS = { "*:seen" }
-- Rate logs, with the windows (ms) the limits of their RATE.HIT calls use:
-- 2 comments per 5 s and 20 per hour, uploads per minute.
local RATE_LOGS = {
  { log = "user:*:comment", windows = { 5000, 3600000 } },
  { log = "user:*:upload", windows = { 60000 } },
}
-- Boards (RANK): a room's boards (`gifts:room:42`, `{room42}:day`,
-- `{room42}:week`, `{room:7}:board`), a game's best runs (`best:level:3`).
local BOARDS = { "gifts:*", "{room*}:*", "*:board", "best:*" }

-- Keys of each entry exported on every scrape; keys past them exported in
-- turn per scrape; keys SCAN looks at per scrape, SCAN_COUNT per call.
local MAX_KEYS = 100
local MAX_ROTATED = 100
local MAX_SCANNED = 20000
local SCAN_COUNT = 1000
-- How long the scan's state outlives the last scrape.
local STATE_TTL_MS = 3600000

-- ---- Nothing to edit below --------------------------------------------------

-- INFO zkit fields that are levels, not counts since the module loaded.
local GAUGES = {
  blocked_clients = true,
  hot_boards = true,
  idmp_max_ids = true,
  tiebreak_window_start_ms = true,
  tiebreak_window_end_ms = true,
}

local STATE_PREFIX = "zkit-exporter:"
-- The state's fields for the keys found: "key:" .. name, valued the entry's id.
local KEY_FIELD = "key:"

-- The library's functions by name, from its code at the end of this file.
local zkit_library

local out = {}

local function number_text(value)
  if value == math.floor(value) and math.abs(value) < 1e15 then
    return string.format("%d", value)
  end
  -- Seconds from milliseconds: three decimals are exact.
  return string.format("%.3f", value)
end

-- A label value: printable ASCII but for `"`, `\` and `%`, which are
-- percent-encoded as every other byte is, so any key name is a valid label.
local function label(text)
  return (string.gsub(text, ".", function(char)
    local byte = string.byte(char)
    if byte < 32 or byte > 126 or char == '"' or char == "\\" or char == "%" then
      return string.format("%%%02X", byte)
    end
  end))
end

local function emit(name, labels, value)
  if value == nil or value == false then
    return
  end
  local key = name
  if labels then
    local parts = {}
    for i = 1, #labels, 2 do
      parts[#parts + 1] = labels[i] .. '="' .. label(labels[i + 1]) .. '"'
    end
    key = name .. "{" .. table.concat(parts, ",") .. "}"
  end
  out[#out + 1] = key
  out[#out + 1] = number_text(value)
end

-- A stats reply, [name, value, ...], as a table by name (nil stays nil).
local function fields(reply)
  local by_name = {}
  for i = 1, #reply, 2 do
    by_name[reply[i]] = reply[i + 1]
  end
  return by_name
end

local function is_pattern(name)
  return string.find(name, "[%*%?%[\\]") ~= nil
end

local function is_zset(key)
  local kind = redis.pcall("TYPE", key)
  return type(kind) == "table" and kind.ok == "zset"
end

-- ---- SCAN patterns, matched here -------------------------------------------
-- One SCAN serves every pattern: each key it returns is matched against the
-- patterns in Lua, as SCAN MATCH would (Redis glob: `*`, `?`, `[...]` with
-- `^` and ranges, `\` escapes). The first `*` is captured: the part that
-- names a queue's other sets.

local function escaped(char)
  if char == "\0" then
    return "%z"
  elseif string.find(char, "^%w$") then
    return char
  end
  return "%" .. char
end

-- A `[...]` set starting at `i` (just past the `[`): its Lua class, and the
-- index past its `]`. Ranges become explicit characters, which Lua's class
-- syntax takes for any endpoint.
local function glob_set(glob, i)
  local negate = string.sub(glob, i, i) == "^"
  if negate then
    i = i + 1
  end
  local chars, n = {}, #glob
  while i <= n do
    local char = string.sub(glob, i, i)
    if char == "\\" and i < n then
      chars[#chars + 1] = escaped(string.sub(glob, i + 1, i + 1))
      i = i + 2
    elseif char == "]" then
      i = i + 1
      break
    elseif i + 2 <= n and string.sub(glob, i + 1, i + 1) == "-" then
      local first, last = string.byte(glob, i), string.byte(glob, i + 2)
      if first > last then
        first, last = last, first
      end
      for byte = first, last do
        chars[#chars + 1] = escaped(string.char(byte))
      end
      i = i + 3
    else
      chars[#chars + 1] = escaped(char)
      i = i + 1
    end
  end
  if #chars == 0 then
    -- `[]` matches no character, `[^]` any.
    return negate and "." or nil, i
  end
  return "[" .. (negate and "^" or "") .. table.concat(chars) .. "]", i
end

-- A glob as an anchored Lua pattern (false for one that matches nothing), and
-- whether it has a `*`.
local function glob_pattern(glob)
  local parts, i, n, captured = { "^" }, 1, #glob, false
  while i <= n do
    local char = string.sub(glob, i, i)
    if char == "*" then
      parts[#parts + 1] = captured and ".*" or "(.*)"
      captured = true
      i = i + 1
    elseif char == "?" then
      parts[#parts + 1] = "."
      i = i + 1
    elseif char == "[" then
      local class
      class, i = glob_set(glob, i + 1)
      if not class then
        return false, false
      end
      parts[#parts + 1] = class
    elseif char == "\\" and i < n then
      parts[#parts + 1] = escaped(string.sub(glob, i + 1, i + 1))
      i = i + 2
    else
      parts[#parts + 1] = escaped(char)
      i = i + 1
    end
  end
  parts[#parts + 1] = "$"
  return table.concat(parts), captured
end

-- A matcher for `name`: key -> the part its first `*` matched ("" without
-- one), or nil when the key does not match.
local function matcher(name)
  if not is_pattern(name) then
    return function(key)
      return key == name and "" or nil
    end
  end
  local pattern, has_star = glob_pattern(name)
  return function(key)
    if not pattern then
      return nil
    end
    local part = string.match(key, pattern)
    if part == nil then
      return nil
    end
    return has_star and part or ""
  end
end

-- `template` with its first `*` replaced by `part`.
local function with_part(template, part)
  local star = string.find(template, "*", 1, true)
  if not star then
    return template
  end
  return string.sub(template, 1, star - 1) .. part .. string.sub(template, star + 1)
end

-- ---- The stats, from the module or from the library's code ----------------

local stats

local function module_stats(command, _, argv)
  local reply = redis.pcall(command, unpack(argv))
  if type(reply) == "table" and not reply.err then
    return reply
  end
end

local library

local function library_stats(command, keys, argv)
  library = library or zkit_library()
  local name = "zkit_" .. string.lower((string.gsub(command, "%.", "_")))
  -- Arguments as FCALL passes them: text.
  local words = {}
  for i, word in ipairs(argv) do
    words[i] = tostring(word)
  end
  local reply = library[name](keys, words)
  if type(reply) == "table" and not reply.err then
    return reply
  end
end

-- ---- The entries: what each list's entry claims and exports ---------------
-- entry.claim(key): the name the entry exports for a key SCAN found (a
-- queue's for any of its sets), or nil; entry.present(name): whether there
-- is anything to export; entry.export(name): its metrics, true when the
-- stats command answered; entry.sets(name): the keys the name covers.

local ENTRIES = {}

local function add_entry(kind, name, entry)
  entry.id = kind .. " " .. name
  entry.exact = not is_pattern(name) and name or nil
  ENTRIES[#ENTRIES + 1] = entry
end

local function one_key(name)
  return { name }
end

for _, spec in ipairs(QUEUES) do
  local options = {}
  for _, option in ipairs({ { "INFLIGHT", spec.inflight }, { "DEAD", spec.dead }, { "DELIVERIES", spec.deliveries }, { "DATA", spec.data } }) do
    if option[2] then
      options[#options + 1] = { word = option[1], template = option[2], match = matcher(option[2]) }
    end
  end
  local is_queue = matcher(spec.queue)
  local function sets(queue)
    local part = is_queue(queue) or ""
    local names = { queue }
    for _, option in ipairs(options) do
      names[#names + 1] = with_part(option.template, part)
    end
    return names
  end
  add_entry("queue", spec.queue, {
    sets = sets,
    claim = function(key)
      -- A queue's other set first: `{*}:inflight` is not a queue of its own
      -- even where the queue's pattern would match it.
      for _, option in ipairs(options) do
        local part = option.match(key)
        if part and is_pattern(option.template) then
          return with_part(spec.queue, part)
        end
      end
      if is_queue(key) then
        return key
      end
    end,
    present = function(queue)
      for _, key in ipairs(sets(queue)) do
        if is_zset(key) then
          return true
        end
      end
      return false
    end,
    export = function(queue)
      local names = sets(queue)
      local argv = { queue }
      for i, option in ipairs(options) do
        argv[#argv + 1] = option.word
        argv[#argv + 1] = names[i + 1]
      end
      local reply = stats("DELAY.STATS", names, argv)
      if not reply then
        return false
      end
      local s = fields(reply)
      local l = { "queue", queue }
      emit("zkit_queue_tasks", l, s["tasks"])
      emit("zkit_queue_due_tasks", l, s["due"])
      emit("zkit_queue_oldest_due_age_seconds", l, s["oldest-due-age-ms"] / 1000)
      if s["next-due-ms"] then
        emit("zkit_queue_next_due_timestamp_seconds", l, s["next-due-ms"] / 1000)
      end
      emit("zkit_queue_inflight_tasks", l, s["inflight"])
      emit("zkit_queue_expired_leases", l, s["expired"])
      emit("zkit_queue_dead_tasks", l, s["dead"])
      emit("zkit_queue_redelivered_tasks", l, s["redelivered"])
      emit("zkit_queue_paused", l, s["paused"])
      emit("zkit_queue_capped_groups", l, s["capped-groups"])
      return true
    end,
  })
end

local function key_entry(kind, name, export)
  local match = matcher(name)
  add_entry(kind, name, {
    sets = one_key,
    claim = function(key)
      if match(key) then
        return key
      end
    end,
    present = is_zset,
    export = export,
  })
end

for _, pattern in ipairs(SEEN_KEYS) do
  key_entry("seen", pattern, function(seen)
    -- Two members an id (the id, and the id with its arguments' digest;
    -- ids zkit 0.3.0 remembered are one): about half the members.
    emit("zkit_idmp_seen_ids", { "seen_key", seen }, math.ceil(redis.call("ZCARD", seen) / 2))
    return true
  end)
end

for _, spec in ipairs(RATE_LOGS) do
  key_entry("rate", spec.log, function(log)
    local argv = { log, "WINDOWS" }
    for _, window in ipairs(spec.windows) do
      argv[#argv + 1] = window
    end
    local reply = stats("RATE.STATS", { log }, argv)
    if not reply then
      return false
    end
    local s = fields(reply)
    emit("zkit_rate_log_entries", { "log", log }, s["entries"])
    for _, pair in ipairs(s["windows"]) do
      emit("zkit_rate_window_entries", { "log", log, "window_seconds", number_text(pair[1] / 1000) }, pair[2])
    end
    return true
  end)
end

for _, pattern in ipairs(BOARDS) do
  key_entry("board", pattern, function(board)
    local reply = stats("RANK.STATS", { board }, { board })
    if not reply then
      return false
    end
    local s = fields(reply)
    emit("zkit_board_members", { "board", board }, s["members"])
    emit("zkit_board_memory_bytes", { "board", board }, s["memory-bytes"])
    for _, q in ipairs({ { "0", "bottom-total" }, { "0.5", "p50-total" }, { "0.9", "p90-total" },
        { "0.99", "p99-total" }, { "1", "top-total" } }) do
      if s[q[2]] then
        emit("zkit_board_total", { "board", board, "quantile", q[1] }, s[q[2]])
      end
    end
    return true
  end)
end

-- The entry that exports a key SCAN found, and the name it exports: the
-- first pattern entry claiming it.
local function claimer(key)
  for _, entry in ipairs(ENTRIES) do
    local name = not entry.exact and entry.claim(key)
    if name then
      return entry, name
    end
  end
end

-- ---- The scan's state -------------------------------------------------------

-- The state's key: on a cluster node, the first `zkit-exporter:{N}` whose
-- slot the node serves (slots it is migrating away excepted), or nil.
local function state_key()
  if not string.find(redis.call("INFO", "cluster"), "cluster_enabled:1", 1, true) then
    return STATE_PREFIX .. "{0}"
  end
  local ranges = {}
  for line in string.gmatch(redis.call("CLUSTER", "NODES"), "[^\n]+") do
    local words = {}
    for word in string.gmatch(line, "%S+") do
      words[#words + 1] = word
    end
    if words[3] and string.find("," .. words[3] .. ",", ",myself,", 1, true) then
      for i = 9, #words do
        local first, last = string.match(words[i], "^(%d+)%-(%d+)$")
        first = first or string.match(words[i], "^(%d+)$")
        if first then
          ranges[#ranges + 1] = { tonumber(first), tonumber(last or first) }
        end
      end
    end
  end
  if #ranges == 0 then
    return nil
  end
  -- A node serving one slot in 16384 finds it within a few times 16384 tries.
  for n = 0, 16384 * 8 do
    local name = STATE_PREFIX .. "{" .. n .. "}"
    local slot = redis.call("CLUSTER", "KEYSLOT", name)
    for _, range in ipairs(ranges) do
      if slot >= range[1] and slot <= range[2] then
        return name
      end
    end
  end
  return nil
end

-- The state as a table: fields by name, and the keys found, by entry id.
local function load_state(key)
  local state = { found = {} }
  if not key then
    return state
  end
  local reply = redis.pcall("HGETALL", key)
  if type(reply) ~= "table" or reply.err then
    return state
  end
  for i = 1, #reply, 2 do
    local field, value = reply[i], reply[i + 1]
    if string.sub(field, 1, #KEY_FIELD) == KEY_FIELD then
      state.found[string.sub(field, #KEY_FIELD + 1)] = value
    else
      state[field] = value
    end
  end
  return state
end

-- `command key word...` in calls of at most 1000 words; false when one
-- fails.
local function call_words(command, key, words)
  for first = 1, #words, 1000 do
    local call = { command, key }
    for i = first, math.min(first + 999, #words) do
      call[#call + 1] = words[i]
    end
    local reply = redis.pcall(unpack(call))
    if type(reply) == "table" and reply.err then
      return false
    end
  end
  return true
end

-- ---- A scrape ---------------------------------------------------------------

local function main()
  local info = redis.call("INFO", "zkit")
  local loaded = false
  for field, value in string.gmatch(info, "zkit_([%w_]+):([^\r\n]*)") do
    loaded = true
    local number = tonumber(value)
    if number then
      if GAUGES[field] then
        emit("zkit_" .. field, nil, number)
      else
        emit("zkit_" .. field .. "_total", nil, number)
      end
    end
  end
  emit("zkit_module_loaded", nil, loaded and 1 or 0)

  local role = string.match(redis.call("INFO", "replication"), "role:(%w+)")
  if role ~= "master" then
    emit("zkit_exporter_keys_exported", nil, 0)
    return out
  end
  stats = loaded and module_stats or library_stats

  local key = state_key()
  local state = load_state(key)
  local run = string.match(redis.call("INFO", "server"), "run_id:(%w+)")
  -- A cursor is this server process's: after a restart or a failover the
  -- pass starts over (the keys found stay found).
  local cursor = state.run == run and state.cursor or "0"
  local scrapes, overflow = 1, 0
  if cursor ~= "0" then
    scrapes = (tonumber(state.scrapes) or 0) + 1
    overflow = tonumber(state.overflow) or 0
  end
  local last_pass_scrapes = tonumber(state["last-pass-scrapes"])
  local last_pass_overflow = tonumber(state["last-pass-overflow"]) or 0

  local by_id = {}
  for _, entry in ipairs(ENTRIES) do
    by_id[entry.id] = entry
    entry.found = 0
  end
  local done, exported, added, forgotten = {}, 0, {}, {}

  local function export(entry, name)
    for _, set in ipairs(entry.sets(name)) do
      done[set] = true
    end
    if entry.export(name) then
      exported = exported + 1
    else
      emit("zkit_exporter_key_errors", { "name", name }, 1)
    end
  end

  -- Exact names, then the keys found before, on every scrape.
  for _, entry in ipairs(ENTRIES) do
    if entry.exact and not done[entry.exact] and entry.present(entry.exact) then
      export(entry, entry.exact)
    end
  end
  local names = {}
  for name in pairs(state.found) do
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local entry = by_id[state.found[name]]
    -- Forgotten when gone, or when the lists changed and it is no longer
    -- this entry's (the scan finds it again).
    if entry and not done[name] and entry.found < MAX_KEYS and claimer(name) == entry and entry.present(name) then
      entry.found = entry.found + 1
      export(entry, name)
    else
      forgotten[#forgotten + 1] = KEY_FIELD .. name
    end
  end

  -- The scan, from where the last scrape stopped.
  local rotated, scanned = 0, 0
  local function take(found_key)
    if done[found_key] then
      return
    end
    local entry, name = claimer(found_key)
    if not entry or done[name] then
      return
    end
    if entry.found < MAX_KEYS then
      entry.found = entry.found + 1
      added[#added + 1] = KEY_FIELD .. name
      added[#added + 1] = entry.id
    else
      rotated = rotated + 1
      overflow = overflow + 1
    end
    export(entry, name)
  end
  repeat
    -- Near the end of the rotation's share, a smaller COUNT: a call returns
    -- about COUNT keys, and each is exported.
    local count = math.max(10, math.min(SCAN_COUNT, MAX_ROTATED - rotated))
    local reply = redis.pcall("SCAN", cursor, "COUNT", count, "TYPE", "zset")
    if type(reply) ~= "table" or reply.err then
      -- Not a cursor SCAN takes: start over.
      reply = redis.call("SCAN", "0", "COUNT", count, "TYPE", "zset")
    end
    cursor = reply[1]
    scanned = scanned + count
    for _, found_key in ipairs(reply[2]) do
      take(found_key)
    end
  until cursor == "0" or scanned >= MAX_SCANNED or rotated >= MAX_ROTATED

  if cursor == "0" then
    last_pass_scrapes, last_pass_overflow = scrapes, overflow
  end
  -- Only what changed is written, and the TTL renewed once half gone: an
  -- idle server's scrapes write nothing (no replication, no save points).
  local words = {}
  for _, pair in ipairs({ { "run", run }, { "cursor", cursor }, { "scrapes", scrapes }, { "overflow", overflow },
      { "last-pass-scrapes", last_pass_scrapes or "" }, { "last-pass-overflow", last_pass_overflow } }) do
    local text = tostring(pair[2])
    if state[pair[1]] ~= text then
      words[#words + 1] = pair[1]
      words[#words + 1] = text
    end
  end
  for _, word in ipairs(added) do
    words[#words + 1] = word
  end
  local saved = key ~= nil
  if saved and #words > 0 then
    saved = call_words("HSET", key, words)
  end
  if saved and #forgotten > 0 then
    saved = call_words("HDEL", key, forgotten)
  end
  if saved and (#words > 0 or #forgotten > 0 or redis.call("PTTL", key) < STATE_TTL_MS / 2) then
    saved = call_words("PEXPIRE", key, { STATE_TTL_MS })
  end

  emit("zkit_exporter_keys_exported", nil, exported)
  -- 1 while a pass (this one or the last) found more keys for an entry than
  -- MAX_KEYS: those past it are exported in turn, once a pass.
  emit("zkit_exporter_keys_capped", nil, (overflow > 0 or last_pass_overflow > 0) and 1 or 0)
  -- 1 when the scan stopped before the end of the keyspace and could not
  -- keep its place: the next scrape starts over, and later keys go unseen.
  emit("zkit_exporter_scan_incomplete", nil, (cursor ~= "0" and not saved) and 1 or 0)
  if last_pass_scrapes then
    emit("zkit_exporter_scan_pass_scrapes", nil, last_pass_scrapes)
  end
  return out
end

-- ---- The Functions library --------------------------------------------------
-- functions/zkit.lua as it is, run as a function whose
-- `redis.register_function` keeps each function by name: on a server without
-- the module, the stats are the library's own. Copied here by `python3
-- scripts/observe-check.py --embed-library` (observe-check fails while this
-- copy differs): edit functions/lua/, never this copy. Its CONFIG changes no
-- stat.

zkit_library = function()
  local functions = {}
  local redis = setmetatable({
    register_function = function(spec)
      functions[spec.function_name] = spec.callback
    end,
  }, { __index = redis })
  -- luacheck: push ignore
-- functions/zkit.lua begins
-- zkit 0.5.0+972cea6dca11 as a Functions library, for Redis 7.0+ and Valkey servers
-- that do not load modules. Load it with
--     redis-cli -x FUNCTION LOAD REPLACE < zkit.lua
-- and call a command as FCALL zkit_<family>_<verb> <numkeys> <keys...>
-- <the command's arguments>: `FCALL zkit_rank_gift 1 board board alice 100`.
-- Generated by functions/gen.py from docs/commands.json and
-- functions/lua/*.lua: edit those, not this file (docs/functions.md).

local VERSION = '0.5.0+972cea6dca11'

-- The module's configs, which a function cannot read: if your module runs
-- with other values (CONFIG SET zkit.<name>), set the same here.
local CONFIG = {
  ['tiebreak-epoch-ms'] = 1704067200000,
  ['tiebreak-span-ms'] = 2199023255552,
  ['idmp-retain-ms'] = 86400000,
  ['idmp-max-ids'] = 1000000,
  ['job-payload-max-bytes'] = 524288,
  ['dead-letters-max'] = 0,
  ['dead-letters-max-age-ms'] = 0,
}

-- The module's texts, bounds, limits and time zones (docs/constants.json) ----
local ERRORS = {
  ['wrong_type'] = 'WRONGTYPE Operation against a key holding the wrong kind of value',
  ['not_integer'] = 'ERR value is not an integer or out of range',
  ['not_float'] = 'ERR value is not a valid float',
  ['out_of_range'] = 'ERR {what} {limit}',
  ['arity'] = 'ERR wrong number of arguments for \'{command}\' command',
  ['count_too_large'] = 'ERR {count} is larger than the number of {list} arguments that follow',
  ['command_unavailable'] = 'ERR this command needs {command}, which the server has renamed or disabled (rename-command): nothing was changed',
  ['total_out_of_range'] = 'ERR total out of range: rank totals must be integers with |total| < 2^52 (4503599627370496)',
  ['time_outside_window'] = 'ERR time {at_ms} is outside the tie-break window [{start_ms}, {end_ms}) ms (see zkit.tiebreak-epoch-ms and zkit.tiebreak-span-ms)',
  ['not_rank_score'] = 'ERR the member\'s score {score} is not a rank score (|score| must be below 2^52)',
  ['repeated_board'] = 'ERR a board is named twice: give each key once',
  ['no_later_score'] = 'ERR the list\'s newest score {newest} leaves no room for a later view',
  ['invalid_weight'] = 'ERR weights must be finite and not negative',
  ['weights_too_large'] = 'ERR weights too large: up + down must be finite',
  ['vote_shared_key'] = 'ERR scores, upvoters and downvoters must be three different keys',
  ['no_post_time'] = 'ERR the item has no post time in the WINDOW key: voting is closed',
  ['voting_closed'] = 'ERR voting is closed: the item was posted at {posted_at_s} and the window of {window_s} seconds has passed',
  ['voter_in_both_sets'] = 'ERR the voter is in both upvoters and downvoters',
  ['cursor_malformed'] = 'ERR invalid cursor: pass back a top or bottom cursor exactly as FEED.PAGE returned it',
  ['cursor_too_long'] = 'ERR the cursor of a member of {member_len} bytes would be {cursor_len} bytes, more than proto-max-bulk-len ({limit}) lets a client send back',
  ['dead_letter_without_lease'] = 'ERR DEADLETTER needs LEASE: only leased tasks are delivered again',
  ['tokens_without_lease'] = 'ERR WITHTOKENS needs LEASE: only a leased delivery has a token',
  ['shared_dead_letter_key'] = 'ERR the dead-letter and deliveries sets must differ from the queue, the in-flight set and each other',
  ['merge_staging_is_named'] = 'ERR the staging key must differ from destkey and from every source key',
  ['merge_malformed_cursor'] = 'ERR invalid merge cursor: pass back the cursor RANK.MERGE returned, or 0 to start the merge',
  ['merge_foreign_cursor'] = 'ERR the cursor belongs to another merge (other destkey, staging key, sources or weights): pass the same arguments, or 0 to start again',
  ['merge_staging_gone'] = 'ERR the staging key of this merge is gone (deleted or expired): start the merge again with cursor 0',
  ['merge_run_in_progress'] = 'ERR the staging key is held by an unfinished merge: continue that merge with its latest cursor, or DEL the staging key to abandon it',
  ['merge_run_replaced'] = 'ERR this merge no longer holds the staging key: another merge started on it; start again with cursor 0',
  ['merge_stale_cursor'] = 'ERR an old cursor of this merge: pass the cursor of its latest reply (sending that one again repeats the reply)',
  ['idmp_seen_key_is_written'] = 'ERR the IDMP seen-key must be a key of its own, not one the command writes',
  ['idmp_retain_without_idmp'] = 'ERR RETAIN sets how long an IDMP event id is remembered: give IDMP too',
  ['idmp_other_arguments'] = 'ERR this IDMP event id was already applied by a call with other arguments (another command, key, member or amount): nothing was changed',
  ['rate_log_looks_like_seen_key'] = 'WRONGTYPE the key looks like an IDMP seen-key (event ids beside their arguments\' digests), not a RATE log: nothing was changed',
  ['rate_log_looks_like_rank_board'] = 'WRONGTYPE the key looks like a RANK board (scores with a tie-break fraction), not a RATE log: nothing was changed',
  ['rate_log_not_recent_unix_ms'] = 'WRONGTYPE the key is not a RATE log (its newest score is no unix ms of this century): nothing was changed',
  ['recent_list_looks_like_seen_key'] = 'WRONGTYPE the key looks like an IDMP seen-key (event ids beside their arguments\' digests), not a RECENT list: nothing was changed',
  ['recent_list_looks_like_rank_board'] = 'WRONGTYPE the key looks like a RANK board (scores with a tie-break fraction), not a RECENT list: nothing was changed',
  ['recent_list_not_whole_unix_ms'] = 'WRONGTYPE the key is not a RECENT list (its scores are not whole unix ms): nothing was changed',
  ['delay_queue_looks_like_seen_key'] = 'WRONGTYPE the key looks like an IDMP seen-key (event ids beside their arguments\' digests), not a DELAY queue: nothing was changed',
  ['delay_queue_looks_like_rank_board'] = 'WRONGTYPE the key looks like a RANK board (scores with a tie-break fraction), not a DELAY queue: nothing was changed',
  ['bound_not_float'] = 'ERR min or max is not a float',
  ['job_needs_data'] = 'ERR {option} needs DATA: a job\'s payload and history are kept in the queue\'s DATA hash',
  ['job_worker_without_lease'] = 'ERR WORKER needs LEASE: only a leased delivery has a holder',
  ['shared_rate_log'] = 'ERR the RATE log must differ from the queues and the sets the poll writes',
  ['job_shared_data_key'] = 'ERR the DATA hash must differ from the call\'s sorted sets: one key cannot hold both',
  ['schedule_zone_without_cron'] = 'ERR TZ needs CRON: an interval has no time zone',
  ['schedule_bad_cron'] = 'ERR invalid cron expression ({why}): give five fields, minute hour day-of-month month day-of-week',
  ['schedule_never_matches'] = 'ERR the cron expression matches no time from START on',
  ['schedule_unknown_zone'] = 'ERR unknown time zone \'{zone}\': give an IANA name such as Europe/Paris',
  ['job_payload_too_large'] = 'ERR a payload of {len} bytes is more than zkit.job-payload-max-bytes ({limit})',
}
local BOUNDS = {
  ['DURATION_MS'] = 'must be between 1 and 3155760000000 ms (100 years)',
  ['DELAY_MS'] = 'must be between 0 and 3155760000000 ms (100 years)',
  ['DURATION_S'] = 'must be between 1 and 3155760000 seconds (100 years)',
  ['RATE_LIMIT'] = 'must be between 1 and 1000000',
  ['PAGE_COUNT'] = 'must be between 1 and 1000',
  ['POSITIVE_INTEGER'] = 'must be a positive integer',
  ['NOT_NEGATIVE'] = 'must not be negative',
  ['AT_LEAST_ONE'] = 'must be at least 1',
  ['NOT_ZERO'] = 'must not be 0',
  ['DUE_MS'] = 'must be a unix ms between 0 and 9007199254740991',
  ['PERCENTILE'] = 'must be between 0 and 100',
  ['GROUP_RATE'] = 'must be between 1 and 10000',
}
local LIMITS = {
  ['MAX_DURATION_MS'] = 3155760000000,
  ['TOTAL_LIMIT'] = 4503599627370496,
  ['CLOCK_LIMIT_MS'] = 9007199254740992,
  ['RATE_MAX_LIMIT'] = 1000000,
  ['FEED_DEFAULT_COUNT'] = 10,
  ['FEED_MAX_COUNT'] = 1000,
  ['SMALLEST_BULK_LIMIT'] = 1048576,
  ['MAX_DEAD_PER_POLL'] = 1000,
  ['IDMP_EXPIRY_LIMIT'] = 1125899906842624,
  ['IDMP_DIGEST_LEN'] = 8,
  ['MERGE_FINISHED_RECORD_TTL_MS'] = 86400000,
  ['MERGE_RECORD_PREFIX'] = 'zkit:merge-run:v1:',
  ['TODAY_MS'] = 1000000000000.0,
  ['JOB_MAX_DUE_MS'] = 9007199254740991,
  ['JOB_TRIM_SPARE'] = 100,
  ['JOB_EXPIRED_REASON'] = 'expired',
  ['GROUP_MAX_RATE'] = 10000,
  ['MAX_SKIPPED_PER_POLL'] = 1000,
}
local ZONES = {
  ['Africa/Abidjan'] = true,
  ['Africa/Accra'] = true,
  ['Africa/Addis_Ababa'] = true,
  ['Africa/Algiers'] = true,
  ['Africa/Asmara'] = true,
  ['Africa/Asmera'] = true,
  ['Africa/Bamako'] = true,
  ['Africa/Bangui'] = true,
  ['Africa/Banjul'] = true,
  ['Africa/Bissau'] = true,
  ['Africa/Blantyre'] = true,
  ['Africa/Brazzaville'] = true,
  ['Africa/Bujumbura'] = true,
  ['Africa/Cairo'] = true,
  ['Africa/Casablanca'] = true,
  ['Africa/Ceuta'] = true,
  ['Africa/Conakry'] = true,
  ['Africa/Dakar'] = true,
  ['Africa/Dar_es_Salaam'] = true,
  ['Africa/Djibouti'] = true,
  ['Africa/Douala'] = true,
  ['Africa/El_Aaiun'] = true,
  ['Africa/Freetown'] = true,
  ['Africa/Gaborone'] = true,
  ['Africa/Harare'] = true,
  ['Africa/Johannesburg'] = true,
  ['Africa/Juba'] = true,
  ['Africa/Kampala'] = true,
  ['Africa/Khartoum'] = true,
  ['Africa/Kigali'] = true,
  ['Africa/Kinshasa'] = true,
  ['Africa/Lagos'] = true,
  ['Africa/Libreville'] = true,
  ['Africa/Lome'] = true,
  ['Africa/Luanda'] = true,
  ['Africa/Lubumbashi'] = true,
  ['Africa/Lusaka'] = true,
  ['Africa/Malabo'] = true,
  ['Africa/Maputo'] = true,
  ['Africa/Maseru'] = true,
  ['Africa/Mbabane'] = true,
  ['Africa/Mogadishu'] = true,
  ['Africa/Monrovia'] = true,
  ['Africa/Nairobi'] = true,
  ['Africa/Ndjamena'] = true,
  ['Africa/Niamey'] = true,
  ['Africa/Nouakchott'] = true,
  ['Africa/Ouagadougou'] = true,
  ['Africa/Porto-Novo'] = true,
  ['Africa/Sao_Tome'] = true,
  ['Africa/Timbuktu'] = true,
  ['Africa/Tripoli'] = true,
  ['Africa/Tunis'] = true,
  ['Africa/Windhoek'] = true,
  ['America/Adak'] = true,
  ['America/Anchorage'] = true,
  ['America/Anguilla'] = true,
  ['America/Antigua'] = true,
  ['America/Araguaina'] = true,
  ['America/Argentina/Buenos_Aires'] = true,
  ['America/Argentina/Catamarca'] = true,
  ['America/Argentina/ComodRivadavia'] = true,
  ['America/Argentina/Cordoba'] = true,
  ['America/Argentina/Jujuy'] = true,
  ['America/Argentina/La_Rioja'] = true,
  ['America/Argentina/Mendoza'] = true,
  ['America/Argentina/Rio_Gallegos'] = true,
  ['America/Argentina/Salta'] = true,
  ['America/Argentina/San_Juan'] = true,
  ['America/Argentina/San_Luis'] = true,
  ['America/Argentina/Tucuman'] = true,
  ['America/Argentina/Ushuaia'] = true,
  ['America/Aruba'] = true,
  ['America/Asuncion'] = true,
  ['America/Atikokan'] = true,
  ['America/Atka'] = true,
  ['America/Bahia'] = true,
  ['America/Bahia_Banderas'] = true,
  ['America/Barbados'] = true,
  ['America/Belem'] = true,
  ['America/Belize'] = true,
  ['America/Blanc-Sablon'] = true,
  ['America/Boa_Vista'] = true,
  ['America/Bogota'] = true,
  ['America/Boise'] = true,
  ['America/Buenos_Aires'] = true,
  ['America/Cambridge_Bay'] = true,
  ['America/Campo_Grande'] = true,
  ['America/Cancun'] = true,
  ['America/Caracas'] = true,
  ['America/Catamarca'] = true,
  ['America/Cayenne'] = true,
  ['America/Cayman'] = true,
  ['America/Chicago'] = true,
  ['America/Chihuahua'] = true,
  ['America/Ciudad_Juarez'] = true,
  ['America/Coral_Harbour'] = true,
  ['America/Cordoba'] = true,
  ['America/Costa_Rica'] = true,
  ['America/Coyhaique'] = true,
  ['America/Creston'] = true,
  ['America/Cuiaba'] = true,
  ['America/Curacao'] = true,
  ['America/Danmarkshavn'] = true,
  ['America/Dawson'] = true,
  ['America/Dawson_Creek'] = true,
  ['America/Denver'] = true,
  ['America/Detroit'] = true,
  ['America/Dominica'] = true,
  ['America/Edmonton'] = true,
  ['America/Eirunepe'] = true,
  ['America/El_Salvador'] = true,
  ['America/Ensenada'] = true,
  ['America/Fort_Nelson'] = true,
  ['America/Fort_Wayne'] = true,
  ['America/Fortaleza'] = true,
  ['America/Glace_Bay'] = true,
  ['America/Godthab'] = true,
  ['America/Goose_Bay'] = true,
  ['America/Grand_Turk'] = true,
  ['America/Grenada'] = true,
  ['America/Guadeloupe'] = true,
  ['America/Guatemala'] = true,
  ['America/Guayaquil'] = true,
  ['America/Guyana'] = true,
  ['America/Halifax'] = true,
  ['America/Havana'] = true,
  ['America/Hermosillo'] = true,
  ['America/Indiana/Indianapolis'] = true,
  ['America/Indiana/Knox'] = true,
  ['America/Indiana/Marengo'] = true,
  ['America/Indiana/Petersburg'] = true,
  ['America/Indiana/Tell_City'] = true,
  ['America/Indiana/Vevay'] = true,
  ['America/Indiana/Vincennes'] = true,
  ['America/Indiana/Winamac'] = true,
  ['America/Indianapolis'] = true,
  ['America/Inuvik'] = true,
  ['America/Iqaluit'] = true,
  ['America/Jamaica'] = true,
  ['America/Jujuy'] = true,
  ['America/Juneau'] = true,
  ['America/Kentucky/Louisville'] = true,
  ['America/Kentucky/Monticello'] = true,
  ['America/Knox_IN'] = true,
  ['America/Kralendijk'] = true,
  ['America/La_Paz'] = true,
  ['America/Lima'] = true,
  ['America/Los_Angeles'] = true,
  ['America/Louisville'] = true,
  ['America/Lower_Princes'] = true,
  ['America/Maceio'] = true,
  ['America/Managua'] = true,
  ['America/Manaus'] = true,
  ['America/Marigot'] = true,
  ['America/Martinique'] = true,
  ['America/Matamoros'] = true,
  ['America/Mazatlan'] = true,
  ['America/Mendoza'] = true,
  ['America/Menominee'] = true,
  ['America/Merida'] = true,
  ['America/Metlakatla'] = true,
  ['America/Mexico_City'] = true,
  ['America/Miquelon'] = true,
  ['America/Moncton'] = true,
  ['America/Monterrey'] = true,
  ['America/Montevideo'] = true,
  ['America/Montreal'] = true,
  ['America/Montserrat'] = true,
  ['America/Nassau'] = true,
  ['America/New_York'] = true,
  ['America/Nipigon'] = true,
  ['America/Nome'] = true,
  ['America/Noronha'] = true,
  ['America/North_Dakota/Beulah'] = true,
  ['America/North_Dakota/Center'] = true,
  ['America/North_Dakota/New_Salem'] = true,
  ['America/Nuuk'] = true,
  ['America/Ojinaga'] = true,
  ['America/Panama'] = true,
  ['America/Pangnirtung'] = true,
  ['America/Paramaribo'] = true,
  ['America/Phoenix'] = true,
  ['America/Port-au-Prince'] = true,
  ['America/Port_of_Spain'] = true,
  ['America/Porto_Acre'] = true,
  ['America/Porto_Velho'] = true,
  ['America/Puerto_Rico'] = true,
  ['America/Punta_Arenas'] = true,
  ['America/Rainy_River'] = true,
  ['America/Rankin_Inlet'] = true,
  ['America/Recife'] = true,
  ['America/Regina'] = true,
  ['America/Resolute'] = true,
  ['America/Rio_Branco'] = true,
  ['America/Rosario'] = true,
  ['America/Santa_Isabel'] = true,
  ['America/Santarem'] = true,
  ['America/Santiago'] = true,
  ['America/Santo_Domingo'] = true,
  ['America/Sao_Paulo'] = true,
  ['America/Scoresbysund'] = true,
  ['America/Shiprock'] = true,
  ['America/Sitka'] = true,
  ['America/St_Barthelemy'] = true,
  ['America/St_Johns'] = true,
  ['America/St_Kitts'] = true,
  ['America/St_Lucia'] = true,
  ['America/St_Thomas'] = true,
  ['America/St_Vincent'] = true,
  ['America/Swift_Current'] = true,
  ['America/Tegucigalpa'] = true,
  ['America/Thule'] = true,
  ['America/Thunder_Bay'] = true,
  ['America/Tijuana'] = true,
  ['America/Toronto'] = true,
  ['America/Tortola'] = true,
  ['America/Vancouver'] = true,
  ['America/Virgin'] = true,
  ['America/Whitehorse'] = true,
  ['America/Winnipeg'] = true,
  ['America/Yakutat'] = true,
  ['America/Yellowknife'] = true,
  ['Antarctica/Casey'] = true,
  ['Antarctica/Davis'] = true,
  ['Antarctica/DumontDUrville'] = true,
  ['Antarctica/Macquarie'] = true,
  ['Antarctica/Mawson'] = true,
  ['Antarctica/McMurdo'] = true,
  ['Antarctica/Palmer'] = true,
  ['Antarctica/Rothera'] = true,
  ['Antarctica/South_Pole'] = true,
  ['Antarctica/Syowa'] = true,
  ['Antarctica/Troll'] = true,
  ['Antarctica/Vostok'] = true,
  ['Arctic/Longyearbyen'] = true,
  ['Asia/Aden'] = true,
  ['Asia/Almaty'] = true,
  ['Asia/Amman'] = true,
  ['Asia/Anadyr'] = true,
  ['Asia/Aqtau'] = true,
  ['Asia/Aqtobe'] = true,
  ['Asia/Ashgabat'] = true,
  ['Asia/Ashkhabad'] = true,
  ['Asia/Atyrau'] = true,
  ['Asia/Baghdad'] = true,
  ['Asia/Bahrain'] = true,
  ['Asia/Baku'] = true,
  ['Asia/Bangkok'] = true,
  ['Asia/Barnaul'] = true,
  ['Asia/Beirut'] = true,
  ['Asia/Bishkek'] = true,
  ['Asia/Brunei'] = true,
  ['Asia/Calcutta'] = true,
  ['Asia/Chita'] = true,
  ['Asia/Choibalsan'] = true,
  ['Asia/Chongqing'] = true,
  ['Asia/Chungking'] = true,
  ['Asia/Colombo'] = true,
  ['Asia/Dacca'] = true,
  ['Asia/Damascus'] = true,
  ['Asia/Dhaka'] = true,
  ['Asia/Dili'] = true,
  ['Asia/Dubai'] = true,
  ['Asia/Dushanbe'] = true,
  ['Asia/Famagusta'] = true,
  ['Asia/Gaza'] = true,
  ['Asia/Harbin'] = true,
  ['Asia/Hebron'] = true,
  ['Asia/Ho_Chi_Minh'] = true,
  ['Asia/Hong_Kong'] = true,
  ['Asia/Hovd'] = true,
  ['Asia/Irkutsk'] = true,
  ['Asia/Istanbul'] = true,
  ['Asia/Jakarta'] = true,
  ['Asia/Jayapura'] = true,
  ['Asia/Jerusalem'] = true,
  ['Asia/Kabul'] = true,
  ['Asia/Kamchatka'] = true,
  ['Asia/Karachi'] = true,
  ['Asia/Kashgar'] = true,
  ['Asia/Kathmandu'] = true,
  ['Asia/Katmandu'] = true,
  ['Asia/Khandyga'] = true,
  ['Asia/Kolkata'] = true,
  ['Asia/Krasnoyarsk'] = true,
  ['Asia/Kuala_Lumpur'] = true,
  ['Asia/Kuching'] = true,
  ['Asia/Kuwait'] = true,
  ['Asia/Macao'] = true,
  ['Asia/Macau'] = true,
  ['Asia/Magadan'] = true,
  ['Asia/Makassar'] = true,
  ['Asia/Manila'] = true,
  ['Asia/Muscat'] = true,
  ['Asia/Nicosia'] = true,
  ['Asia/Novokuznetsk'] = true,
  ['Asia/Novosibirsk'] = true,
  ['Asia/Omsk'] = true,
  ['Asia/Oral'] = true,
  ['Asia/Phnom_Penh'] = true,
  ['Asia/Pontianak'] = true,
  ['Asia/Pyongyang'] = true,
  ['Asia/Qatar'] = true,
  ['Asia/Qostanay'] = true,
  ['Asia/Qyzylorda'] = true,
  ['Asia/Rangoon'] = true,
  ['Asia/Riyadh'] = true,
  ['Asia/Saigon'] = true,
  ['Asia/Sakhalin'] = true,
  ['Asia/Samarkand'] = true,
  ['Asia/Seoul'] = true,
  ['Asia/Shanghai'] = true,
  ['Asia/Singapore'] = true,
  ['Asia/Srednekolymsk'] = true,
  ['Asia/Taipei'] = true,
  ['Asia/Tashkent'] = true,
  ['Asia/Tbilisi'] = true,
  ['Asia/Tehran'] = true,
  ['Asia/Tel_Aviv'] = true,
  ['Asia/Thimbu'] = true,
  ['Asia/Thimphu'] = true,
  ['Asia/Tokyo'] = true,
  ['Asia/Tomsk'] = true,
  ['Asia/Ujung_Pandang'] = true,
  ['Asia/Ulaanbaatar'] = true,
  ['Asia/Ulan_Bator'] = true,
  ['Asia/Urumqi'] = true,
  ['Asia/Ust-Nera'] = true,
  ['Asia/Vientiane'] = true,
  ['Asia/Vladivostok'] = true,
  ['Asia/Yakutsk'] = true,
  ['Asia/Yangon'] = true,
  ['Asia/Yekaterinburg'] = true,
  ['Asia/Yerevan'] = true,
  ['Atlantic/Azores'] = true,
  ['Atlantic/Bermuda'] = true,
  ['Atlantic/Canary'] = true,
  ['Atlantic/Cape_Verde'] = true,
  ['Atlantic/Faeroe'] = true,
  ['Atlantic/Faroe'] = true,
  ['Atlantic/Jan_Mayen'] = true,
  ['Atlantic/Madeira'] = true,
  ['Atlantic/Reykjavik'] = true,
  ['Atlantic/South_Georgia'] = true,
  ['Atlantic/St_Helena'] = true,
  ['Atlantic/Stanley'] = true,
  ['Australia/ACT'] = true,
  ['Australia/Adelaide'] = true,
  ['Australia/Brisbane'] = true,
  ['Australia/Broken_Hill'] = true,
  ['Australia/Canberra'] = true,
  ['Australia/Currie'] = true,
  ['Australia/Darwin'] = true,
  ['Australia/Eucla'] = true,
  ['Australia/Hobart'] = true,
  ['Australia/LHI'] = true,
  ['Australia/Lindeman'] = true,
  ['Australia/Lord_Howe'] = true,
  ['Australia/Melbourne'] = true,
  ['Australia/NSW'] = true,
  ['Australia/North'] = true,
  ['Australia/Perth'] = true,
  ['Australia/Queensland'] = true,
  ['Australia/South'] = true,
  ['Australia/Sydney'] = true,
  ['Australia/Tasmania'] = true,
  ['Australia/Victoria'] = true,
  ['Australia/West'] = true,
  ['Australia/Yancowinna'] = true,
  ['Brazil/Acre'] = true,
  ['Brazil/DeNoronha'] = true,
  ['Brazil/East'] = true,
  ['Brazil/West'] = true,
  ['CET'] = true,
  ['CST6CDT'] = true,
  ['Canada/Atlantic'] = true,
  ['Canada/Central'] = true,
  ['Canada/Eastern'] = true,
  ['Canada/Mountain'] = true,
  ['Canada/Newfoundland'] = true,
  ['Canada/Pacific'] = true,
  ['Canada/Saskatchewan'] = true,
  ['Canada/Yukon'] = true,
  ['Chile/Continental'] = true,
  ['Chile/EasterIsland'] = true,
  ['Cuba'] = true,
  ['EET'] = true,
  ['EST'] = true,
  ['EST5EDT'] = true,
  ['Egypt'] = true,
  ['Eire'] = true,
  ['Etc/GMT'] = true,
  ['Etc/GMT+0'] = true,
  ['Etc/GMT+1'] = true,
  ['Etc/GMT+10'] = true,
  ['Etc/GMT+11'] = true,
  ['Etc/GMT+12'] = true,
  ['Etc/GMT+2'] = true,
  ['Etc/GMT+3'] = true,
  ['Etc/GMT+4'] = true,
  ['Etc/GMT+5'] = true,
  ['Etc/GMT+6'] = true,
  ['Etc/GMT+7'] = true,
  ['Etc/GMT+8'] = true,
  ['Etc/GMT+9'] = true,
  ['Etc/GMT-0'] = true,
  ['Etc/GMT-1'] = true,
  ['Etc/GMT-10'] = true,
  ['Etc/GMT-11'] = true,
  ['Etc/GMT-12'] = true,
  ['Etc/GMT-13'] = true,
  ['Etc/GMT-14'] = true,
  ['Etc/GMT-2'] = true,
  ['Etc/GMT-3'] = true,
  ['Etc/GMT-4'] = true,
  ['Etc/GMT-5'] = true,
  ['Etc/GMT-6'] = true,
  ['Etc/GMT-7'] = true,
  ['Etc/GMT-8'] = true,
  ['Etc/GMT-9'] = true,
  ['Etc/GMT0'] = true,
  ['Etc/Greenwich'] = true,
  ['Etc/UCT'] = true,
  ['Etc/UTC'] = true,
  ['Etc/Universal'] = true,
  ['Etc/Zulu'] = true,
  ['Europe/Amsterdam'] = true,
  ['Europe/Andorra'] = true,
  ['Europe/Astrakhan'] = true,
  ['Europe/Athens'] = true,
  ['Europe/Belfast'] = true,
  ['Europe/Belgrade'] = true,
  ['Europe/Berlin'] = true,
  ['Europe/Bratislava'] = true,
  ['Europe/Brussels'] = true,
  ['Europe/Bucharest'] = true,
  ['Europe/Budapest'] = true,
  ['Europe/Busingen'] = true,
  ['Europe/Chisinau'] = true,
  ['Europe/Copenhagen'] = true,
  ['Europe/Dublin'] = true,
  ['Europe/Gibraltar'] = true,
  ['Europe/Guernsey'] = true,
  ['Europe/Helsinki'] = true,
  ['Europe/Isle_of_Man'] = true,
  ['Europe/Istanbul'] = true,
  ['Europe/Jersey'] = true,
  ['Europe/Kaliningrad'] = true,
  ['Europe/Kiev'] = true,
  ['Europe/Kirov'] = true,
  ['Europe/Kyiv'] = true,
  ['Europe/Lisbon'] = true,
  ['Europe/Ljubljana'] = true,
  ['Europe/London'] = true,
  ['Europe/Luxembourg'] = true,
  ['Europe/Madrid'] = true,
  ['Europe/Malta'] = true,
  ['Europe/Mariehamn'] = true,
  ['Europe/Minsk'] = true,
  ['Europe/Monaco'] = true,
  ['Europe/Moscow'] = true,
  ['Europe/Nicosia'] = true,
  ['Europe/Oslo'] = true,
  ['Europe/Paris'] = true,
  ['Europe/Podgorica'] = true,
  ['Europe/Prague'] = true,
  ['Europe/Riga'] = true,
  ['Europe/Rome'] = true,
  ['Europe/Samara'] = true,
  ['Europe/San_Marino'] = true,
  ['Europe/Sarajevo'] = true,
  ['Europe/Saratov'] = true,
  ['Europe/Simferopol'] = true,
  ['Europe/Skopje'] = true,
  ['Europe/Sofia'] = true,
  ['Europe/Stockholm'] = true,
  ['Europe/Tallinn'] = true,
  ['Europe/Tirane'] = true,
  ['Europe/Tiraspol'] = true,
  ['Europe/Ulyanovsk'] = true,
  ['Europe/Uzhgorod'] = true,
  ['Europe/Vaduz'] = true,
  ['Europe/Vatican'] = true,
  ['Europe/Vienna'] = true,
  ['Europe/Vilnius'] = true,
  ['Europe/Volgograd'] = true,
  ['Europe/Warsaw'] = true,
  ['Europe/Zagreb'] = true,
  ['Europe/Zaporozhye'] = true,
  ['Europe/Zurich'] = true,
  ['GB'] = true,
  ['GB-Eire'] = true,
  ['GMT'] = true,
  ['GMT+0'] = true,
  ['GMT-0'] = true,
  ['GMT0'] = true,
  ['Greenwich'] = true,
  ['HST'] = true,
  ['Hongkong'] = true,
  ['Iceland'] = true,
  ['Indian/Antananarivo'] = true,
  ['Indian/Chagos'] = true,
  ['Indian/Christmas'] = true,
  ['Indian/Cocos'] = true,
  ['Indian/Comoro'] = true,
  ['Indian/Kerguelen'] = true,
  ['Indian/Mahe'] = true,
  ['Indian/Maldives'] = true,
  ['Indian/Mauritius'] = true,
  ['Indian/Mayotte'] = true,
  ['Indian/Reunion'] = true,
  ['Iran'] = true,
  ['Israel'] = true,
  ['Jamaica'] = true,
  ['Japan'] = true,
  ['Kwajalein'] = true,
  ['Libya'] = true,
  ['MET'] = true,
  ['MST'] = true,
  ['MST7MDT'] = true,
  ['Mexico/BajaNorte'] = true,
  ['Mexico/BajaSur'] = true,
  ['Mexico/General'] = true,
  ['NZ'] = true,
  ['NZ-CHAT'] = true,
  ['Navajo'] = true,
  ['PRC'] = true,
  ['PST8PDT'] = true,
  ['Pacific/Apia'] = true,
  ['Pacific/Auckland'] = true,
  ['Pacific/Bougainville'] = true,
  ['Pacific/Chatham'] = true,
  ['Pacific/Chuuk'] = true,
  ['Pacific/Easter'] = true,
  ['Pacific/Efate'] = true,
  ['Pacific/Enderbury'] = true,
  ['Pacific/Fakaofo'] = true,
  ['Pacific/Fiji'] = true,
  ['Pacific/Funafuti'] = true,
  ['Pacific/Galapagos'] = true,
  ['Pacific/Gambier'] = true,
  ['Pacific/Guadalcanal'] = true,
  ['Pacific/Guam'] = true,
  ['Pacific/Honolulu'] = true,
  ['Pacific/Johnston'] = true,
  ['Pacific/Kanton'] = true,
  ['Pacific/Kiritimati'] = true,
  ['Pacific/Kosrae'] = true,
  ['Pacific/Kwajalein'] = true,
  ['Pacific/Majuro'] = true,
  ['Pacific/Marquesas'] = true,
  ['Pacific/Midway'] = true,
  ['Pacific/Nauru'] = true,
  ['Pacific/Niue'] = true,
  ['Pacific/Norfolk'] = true,
  ['Pacific/Noumea'] = true,
  ['Pacific/Pago_Pago'] = true,
  ['Pacific/Palau'] = true,
  ['Pacific/Pitcairn'] = true,
  ['Pacific/Pohnpei'] = true,
  ['Pacific/Ponape'] = true,
  ['Pacific/Port_Moresby'] = true,
  ['Pacific/Rarotonga'] = true,
  ['Pacific/Saipan'] = true,
  ['Pacific/Samoa'] = true,
  ['Pacific/Tahiti'] = true,
  ['Pacific/Tarawa'] = true,
  ['Pacific/Tongatapu'] = true,
  ['Pacific/Truk'] = true,
  ['Pacific/Wake'] = true,
  ['Pacific/Wallis'] = true,
  ['Pacific/Yap'] = true,
  ['Poland'] = true,
  ['Portugal'] = true,
  ['ROC'] = true,
  ['ROK'] = true,
  ['Singapore'] = true,
  ['Turkey'] = true,
  ['UCT'] = true,
  ['US/Alaska'] = true,
  ['US/Aleutian'] = true,
  ['US/Arizona'] = true,
  ['US/Central'] = true,
  ['US/East-Indiana'] = true,
  ['US/Eastern'] = true,
  ['US/Hawaii'] = true,
  ['US/Indiana-Starke'] = true,
  ['US/Michigan'] = true,
  ['US/Mountain'] = true,
  ['US/Pacific'] = true,
  ['US/Samoa'] = true,
  ['UTC'] = true,
  ['Universal'] = true,
  ['W-SU'] = true,
  ['WET'] = true,
  ['Zulu'] = true,
}
local UTC_ZONES = {
  ['Etc/GMT'] = true,
  ['Etc/GMT+0'] = true,
  ['Etc/GMT-0'] = true,
  ['Etc/GMT0'] = true,
  ['Etc/Greenwich'] = true,
  ['Etc/UCT'] = true,
  ['Etc/UTC'] = true,
  ['Etc/Universal'] = true,
  ['Etc/Zulu'] = true,
  ['GMT'] = true,
  ['GMT+0'] = true,
  ['GMT-0'] = true,
  ['GMT0'] = true,
  ['Greenwich'] = true,
  ['UCT'] = true,
  ['UTC'] = true,
  ['Universal'] = true,
  ['Zulu'] = true,
}

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

local compile_natives

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
    first_write(name, ...)
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
    first_write(name, ...)
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

-- Writes pairs of {member, score} with ZADD; returns how many were new.
function rt.zadd_pairs(key, pairs_list, option)
  if #pairs_list == 1 and not option then
    local pair = pairs_list[1]
    return call('ZADD', key, rt.arg_score(pair[2]), pair[1])
  end
  return in_chunks('ZADD', key, option, pairs_list, function(pair, argv)
    argv[#argv + 1] = rt.arg_score(pair[2])
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
-- index within its block, and whether it is a list.
local function path_of(command, name)
  for i, arg in ipairs(command.args) do
    if arg.name == name then
      return i, nil, arg.multiple
    end
    if arg.kind == 'block' then
      for j, part in ipairs(arg.args) do
        if part.name == name then
          return i, j, part.multiple
        end
      end
    end
  end
  error(command.name .. ': its natives name no argument ' .. name)
end

-- The later rows that no `reached` holds back, grouped by the argument
-- that gates them: their `when` condition, else their key's argument (0: a
-- row with neither). A call that does not give an argument skips all of
-- its rows with one test. Groups keep the order the rows first name their
-- arguments in, rows within a group theirs.
local function gate_groups(later)
  local gates, groups, group_of = {}, {}, {}
  for _, row in ipairs(later) do
    if row.reached == nil then
      local gate = row.when or row.key or 0
      local group = group_of[gate]
      if group == nil then
        group = {}
        group_of[gate] = group
        gates[#gates + 1], groups[#groups + 1] = gate, group
      end
      group[#group + 1] = row
    end
  end
  return gates, groups
end

-- A command's natives table (natives.lua) made ready to check calls with:
-- each row's keys and conditions as indexes into the parsed call, each
-- native command as its asker; the rows checked before the first write
-- (`later`, and grouped by gate_groups), and those naming a command the
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
    compiled.when = row.when and (path_of(command, row.when))
    compiled.unless = row.unless and (path_of(command, row.unless))
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
  command.rows, command.later_rows = rows, later
  command.later_gates, command.later_groups = gate_groups(later)
  command.missing_rows = missing[1] and missing or nil
end

-- The value of a call's argument at `index` (and `part` within its block),
-- false when the call does not give it.
local function value_at(values, index, part)
  local value = values[index]
  if part and value then
    value = value[part]
  end
  return value
end

-- The keys a row applies to in a call (a: one key or a list of keys, b: a
-- second key), or nil when the call does not reach it.
local function row_keys(row, values)
  local when, unless = row.when, row.unless
  if (when ~= nil and values[when] == false) or (unless ~= nil and values[unless] ~= false) then
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
local later_command, later_values, reached, reached_any = nil, nil, {}, false

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

-- Asks the caller's ACL about each native of a row the call reaches, on
-- each of its keys (the steps of row_keys, written out: this runs on every
-- call that writes); refuses the first it does not allow, or with `quiet`
-- returns false. True when it allows them all.
local function check_row(row, values, quiet)
  local reached_name, when, unless = row.reached, row.when, row.unless
  if (reached_name and not reached[reached_name]) or (when and values[when] == false)
    or (unless and values[unless] ~= false) then
    return true
  end
  local a, b
  if row.key then
    a = values[row.key]
    if row.key_part and a then
      a = a[row.key_part]
    end
    if a == false then
      return true
    end
  end
  if row.second_key then
    b = values[row.second_key]
    if row.second_key_part and b then
      b = b[row.second_key_part]
    end
    if b == false then
      return true
    end
  end
  local asks, natives = row.asks, row.natives
  if row.each then
    for k = 1, #a do
      for n = 1, #asks do
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
    for n = 1, #asks do
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

-- Whether the caller's ACL allows every native of the later rows a call
-- that reached nothing runs (`gate_groups`: one test per argument, not per
-- row).
local function allows_ungated(command, values)
  local gates, groups = command.later_gates, command.later_groups
  for g = 1, #gates do
    if values[gates[g]] ~= false then
      local group = groups[g]
      for r = 1, #group do
        if not check_row(group[r], values, true) then
          return false
        end
      end
    end
  end
  return true
end

first_write = function()
  writing = true
  local command, values = later_command, later_values
  -- The grouped rows are asked out of order: a refusal is looked for again,
  -- in order, so that the call names the same native whatever the grouping.
  if not reached_any and allows_ungated(command, values) then
    return
  end
  local rows = command.later_rows
  for r = 1, #rows do
    local row = rows[r]
    -- The cheapest test first: a row not reached, or whose key (or block)
    -- the call does not give, asks nothing.
    if (row.reached == nil or reached[row.reached]) and (row.key == nil or values[row.key] ~= false) then
      check_row(row, values)
    end
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

-- One call: parsed, its declared keys checked, handled.
run = function(command, handler, parse, keys, argv)
  local values = parse(argv, keys)
  if values == nil then
    values = walk(command, keys, argv)
  elseif checked then
    local walked = walk(command, keys, argv)
    if not same_values(values, walked) then
      error('the generated parse of this call is not the walk\'s', 0)
    end
  end
  if command.missing_rows then
    refuse_missing(command.missing_rows, values)
  end
  if reached_any then
    reached, reached_any = {}, false
  end
  later_command, later_values = command, values
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

-- Each family's file adds its commands' handlers here, natives.lua the
-- native commands each may run.
local handlers = {}
local natives = {}

-- natives.lua --------------------------------------------------------------
do
-- The native commands each command may run, with the keys it runs them on.
-- A row names native commands (space-separated) and `on`, the declared
-- argument (a key, or a list of keys: each is meant) or arguments (one key
-- per key of the command: RENAME's two) they run on; a row applies when the
-- call gives its keys, and, with `when` or `unless`, when the call gives (or
-- does not give) that option. Every native of a row must exist, or the call
-- is refused before it runs. A row that says `later` names natives the call
-- may run after its first write: the caller's ACL is asked about each, on
-- each key, just before that write (with `reached = name`, only when the
-- handler said rt.reach(name) before it). The natives of the other rows run
-- before the call's first write, or are that write: the server's ACL
-- refusal of one of them is the call's refusal, and nothing has changed.
-- A command runs a native command on a key only if a row names the two: the
-- test variant of the library (functions/gen.py --test-clock) fails any
-- other native call, and any after the first write that a `later` row did
-- not check.

-- What IDMP looks up, remembers (after the command's own write), and
-- forgets past idmp-max-ids (idmp.lua).
local IDMP_LOOKUP = { 'ZSCORE ZCARD', on = 'seen-key' }
local IDMP_RECORD = { 'ZREMRANGEBYSCORE ZADD', on = 'seen-key', later = true }
local IDMP_EVICT = { 'ZRANGE ZSCORE ZREM', on = 'seen-key', later = true, reached = 'idmp-evicts' }

-- A member's rank after a write: shared (ZCOUNT of higher totals) or by
-- ZREVRANK.
local RANK_AFTER = { 'ZREVRANK', on = 'key', unless = 'shared', later = true }
local SHARED_RANK_AFTER = { 'ZCOUNT', on = 'key', when = 'shared', later = true }

natives['rank.gift'] = {
  { 'TIME' },
  { 'ZSCORE ZINCRBY ZADD', on = 'key' },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

natives['rank.set'] = {
  { 'TIME' },
  { 'ZSCORE ZADD', on = 'key' },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

-- Every board after the first is written after the call's first write.
natives['rank.mgift'] = {
  { 'TIME' },
  { 'ZSCORE', on = 'key' },
  { 'ZINCRBY ZADD', on = 'key', later = true },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

-- The reads write nothing: their natives are all run and refused as they go.
local RANK = { 'ZREVRANK', on = 'key', unless = 'shared' }
local SHARED_RANK = { 'ZCOUNT', on = 'key', when = 'shared' }

natives['rank.get'] = {
  { 'ZCARD ZSCORE', on = 'key' },
  RANK,
  SHARED_RANK,
}

natives['rank.mget'] = natives['rank.get']

natives['rank.top'] = {
  { 'ZCARD ZRANGE', on = 'key' },
  SHARED_RANK,
}

natives['rank.around'] = {
  { 'ZCARD ZREVRANK ZRANGE', on = 'key' },
  SHARED_RANK,
}

natives['rank.stats'] = {
  { 'ZCARD ZRANGE MEMORY', on = 'key' },
}

natives['rank.percentile'] = {
  { 'ZSCORE ZCARD ZREVRANK', on = 'key' },
}

natives['rank.quantile'] = {
  { 'ZCARD ZRANGE', on = 'key' },
}

natives['rank.count'] = {
  { 'ZCARD ZCOUNT', on = 'key' },
}

-- The band's page is RANK.TOP's, shared ranks or not.
natives['rank.range'] = {
  { 'ZCARD ZCOUNT ZRANGE', on = 'key' },
}

natives['rank.among'] = {
  { 'ZSCORE', on = 'key' },
}

-- Every step of a run is refused where its last could not rename staging
-- over destkey: the staging rows are checked before a step's first write.
natives['rank.merge'] = {
  { 'ZRANGE', on = 'key' },
  { 'UNLINK', on = 'destkey', unless = 'step' },
  { 'ZADD', on = 'destkey', unless = 'step', later = true },
  { 'TIME', when = 'step', later = true },
  { 'ZCARD ZCOUNT ZSCORE', on = 'key', when = 'step' },
  { 'ZCARD ZRANGE ZSCORE UNLINK ZADD ZREM PEXPIRETIME PERSIST PEXPIREAT', on = 'staging', later = true },
  { 'UNLINK', on = 'destkey', when = 'step', later = true },
  { 'RENAME', on = { 'staging', 'destkey' }, later = true },
}

natives['feed.add'] = {
  { 'ZADD', on = 'key' },
  { 'ZCARD', on = 'key', when = 'n' },
  { 'ZRANGE ZREM', on = 'key', when = 'n', later = true, reached = 'trim' },
}

natives['feed.page'] = {
  { 'ZCARD ZRANGE', on = 'key' },
}

-- A poll that meets dead or expired tasks buries (or drops) them first
-- (its first write), then claims the live ones; with DATA it reads the
-- deadlines before, and writes the tasks' history and holders after.
natives['delay.poll'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZREM', on = 'key' },
  { 'ZREM', on = 'key', later = true, reached = 'burial' },
  { 'ZCARD', on = 'inflight' },
  { 'ZADD', on = 'inflight', later = true },
  { 'ZCARD', on = 'dead' },
  { 'ZADD ZCARD ZRANGE ZREM', on = 'dead', later = true, reached = 'burial' },
  { 'ZCARD ZSCORE', on = 'deliveries' },
  { 'ZINCRBY', on = 'deliveries', later = true },
  { 'ZSCORE ZREM', on = 'deliveries', later = true, reached = 'burial' },
  { 'ZSCORE', on = 'deliveries', when = 'withdata', later = true },
  { 'HLEN HEXISTS HGET', on = 'data' },
  { 'HSET HDEL', on = 'data', later = true },
  { 'HGET', on = 'data', when = 'withdata', later = true },
  -- A claimed occurrence of a repeating job queues the next one
  -- (schedules.lua), in its own lane.
  { 'ZSCORE ZRANGE ZADD', on = 'key', when = 'data', later = true },
  { 'ZSCORE ZADD', on = 'lane', when = 'data', later = true },
  -- The lanes after the first: checked before the first write, claimed
  -- after the lanes before them wrote; the deadlines of their tasks read
  -- then too.
  { 'ZCARD ZRANGE', on = 'lane' },
  { 'ZRANGE ZREM', on = 'lane', later = true },
  { 'HGET', on = 'data', later = true },
  { 'ZSCORE', on = 'deliveries', later = true },
  -- RATE: the window read before the first write, spent after the claim.
  { 'ZCARD ZRANGE ZCOUNT', on = 'log' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZREMRANGEBYSCORE ZADD PEXPIREAT', on = 'log', later = true },
}

-- A group's limits and counts are fields of the DATA hash; the count of
-- capped groups is read after its limits are written.
natives['delay.group'] = {
  { 'ZCARD', on = 'queue' },
  { 'HLEN HGET', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.groups'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'HGETALL', on = 'data' },
}

-- A schedule replaces its pending occurrence (ZREM, its data's HDEL) and
-- queues its first one (schedules.lua).
natives['delay.schedule'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZSCORE ZREM', on = 'queue' },
  { 'ZRANGE ZSCORE ZADD', on = 'queue', later = true },
  { 'HLEN HGET HSET HDEL', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.unschedule'] = {
  { 'ZCARD ZREM', on = 'queue' },
  { 'HLEN HEXISTS HGET HDEL', on = 'data' },
  { 'HDEL', on = 'data', later = true },
}

natives['delay.schedules'] = {
  { 'ZCARD', on = 'queue' },
  { 'HGETALL HGET', on = 'data' },
}

-- With DATA, a task's group gets its slot back (HGET, HSET) as its data goes.
natives['delay.ack'] = {
  { 'ZCARD ZSCORE ZREM', on = 'inflight' },
  { 'ZCARD', on = 'deliveries' },
  { 'ZREM', on = 'deliveries', later = true },
  { 'HLEN', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.nack'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'ZADD', on = 'queue', later = true },
  { 'ZCARD ZSCORE ZREM', on = 'inflight' },
  { 'HLEN', on = 'data' },
  { 'HGET HSET HDEL', on = 'data', later = true },
}

natives['delay.touch'] = {
  { 'TIME' },
  { 'ZSCORE ZADD', on = 'inflight' },
}

natives['delay.stats'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'queue' },
  { 'ZCARD ZCOUNT', on = 'inflight' },
  { 'ZCARD', on = 'dead' },
  { 'ZCARD ZCOUNT', on = 'deliveries' },
  { 'HLEN HEXISTS HGET', on = 'data' },
}

-- Each task after the first is read and written after the call's first
-- write (the first task's ZADD).
natives['delay.add'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZSCORE', on = 'queue' },
  { 'ZRANGE ZSCORE ZADD', on = 'queue', later = true },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZSCORE', on = 'inflight', later = true },
  { 'HLEN', on = 'data' },
  { 'HSET HDEL', on = 'data', later = true },
}

natives['delay.job'] = {
  { 'ZCARD ZSCORE', on = 'queue' },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZCARD ZSCORE', on = 'dead' },
  { 'ZCARD ZSCORE', on = 'deliveries' },
  { 'HLEN HGET', on = 'data' },
}

natives['delay.retry'] = {
  { 'TIME' },
  { 'ZCARD ZSCORE', on = 'dead' },
  { 'ZREM', on = 'dead', later = true },
  { 'ZCARD', on = 'queue' },
  { 'ZRANGE ZADD', on = 'queue', later = true },
  { 'HLEN', on = 'data' },
  { 'HDEL', on = 'data', later = true },
}

natives['delay.pause'] = {
  { 'TIME' },
  { 'ZCARD', on = 'queue' },
  { 'HEXISTS HSET', on = 'data' },
}

natives['delay.resume'] = {
  { 'ZCARD', on = 'queue' },
  { 'HEXISTS HDEL', on = 'data' },
}

-- An allowed hit reads all it needs first; its first write drops the hits
-- that left the window.
natives['rate.hit'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZREMRANGEBYSCORE', on = 'key' },
  { 'ZADD PEXPIREAT', on = 'key', later = true },
  -- A refund (a negative COST) gives the newest units back after that drop.
  { 'ZREM', on = 'key', later = true, reached = 'refunds' },
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

natives['rate.peek'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'key' },
}

-- An acquire reads all it needs first; its first write holds the lease (or,
-- refused, drops the leases that ended).
natives['rate.acquire'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT ZSCORE ZADD', on = 'key' },
  { 'ZREMRANGEBYSCORE PEXPIREAT', on = 'key', later = true },
}

natives['rate.release'] = {
  { 'TIME' },
  { 'ZSCORE ZREM', on = 'key' },
}

natives['rate.stats'] = {
  { 'TIME' },
  { 'ZCARD ZRANGE ZCOUNT', on = 'key' },
}

natives['recent.add'] = {
  { 'TIME' },
  { 'ZRANGE ZCARD ZADD', on = 'key' },
  { 'ZRANGE ZREM', on = 'key', when = 'cap', later = true, reached = 'trim' },
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
}

natives['vote.cast'] = {
  { 'SCARD SADD SREM', on = 'upvoters' },
  { 'SCARD', on = 'downvoters' },
  { 'SADD', on = 'downvoters', later = true, reached = 'down-joins' },
  { 'SREM', on = 'downvoters', later = true, reached = 'down-leaves' },
  { 'ZCARD ZSCORE', on = 'scores' },
  { 'ZINCRBY', on = 'scores', later = true },
  { 'TIME', when = 'window' },
  { 'ZSCORE', on = 'times' },
}

natives['vote.state'] = {
  { 'SISMEMBER', on = 'upvoters' },
  { 'SISMEMBER', on = 'downvoters' },
}
end

-- idmp.lua -----------------------------------------------------------------
do
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
  size = size + rt.call('ZADD', seen, rt.arg_score(at + 0.25), event_id)
  size = size + rt.call('ZADD', seen, rt.arg_score(at + 0.5), event_id .. clause.digest)
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
end

-- feed.lua -----------------------------------------------------------------
do
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
    items = walk(key, rt.arg_score(at.score), '+inf', false, function(score, member)
      return locate(at, score, member) ~= -1
    end, wanted)
  else
    items = walk(key, rt.arg_score(at.score), '-inf', true, function(score, member)
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
end

-- recent.lua ---------------------------------------------------------------
do
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
end

-- vote.lua -----------------------------------------------------------------
do
-- VOTE: up and down votes counted once per voter (src/commands/vote.rs,
-- src/logic/vote.rs).

local function weights(given)
  if given == false then
    return 1, 1
  end
  local up, down = given[1], given[2]
  local function valid(w)
    return w == w and w ~= math.huge and w ~= -math.huge and w >= 0
  end
  if not valid(up) or not valid(down) then
    rt.fail(ERRORS.invalid_weight)
  end
  local sum = up + down
  if sum == math.huge then
    rt.fail(ERRORS.weights_too_large)
  end
  -- `+ 0` turns -0 into 0, so no vote leaves a -0 score behind.
  return up + 0, down + 0
end

local function contribution(in_up, in_down, up, down)
  return (in_up and up or 0) - (in_down and down or 0)
end

-- Makes `voter` a member of `set` (of `size` members) or not; whether it
-- was one before.
local function place_voter(set, size, voter, member)
  if size == 0 and not member then
    return false
  end
  local changed = rt.call(member and 'SADD' or 'SREM', set, voter) == 1
  return member ~= changed
end

-- -> `[score, ups, downs, changed]`.
handlers['vote.cast'] = function(v)
  local scores, upvoters, downvoters, item, voter = v[1], v[2], v[3], v[4], v[5]
  local direction, given_weights, window = v[6].choice, v[7], v[8]
  local up, down = weights(given_weights)
  local window_s
  if window ~= false then
    window_s = rt.non_negative(window[2], 'window seconds')
  end
  if scores == upvoters or scores == downvoters or upvoters == downvoters then
    rt.fail(ERRORS.vote_shared_key)
  end
  local ups_before = rt.scard(upvoters)
  local downs_before = rt.scard(downvoters)
  rt.zcard(scores)
  if window ~= false then
    local posted_at_s = rt.zscore(window[1], item)
    if posted_at_s == nil then
      rt.fail(ERRORS.no_post_time)
    end
    local closes_at_ms = (posted_at_s + window_s) * 1000
    if not (rt.now_ms() <= closes_at_ms) then
      rt.fail(rt.say(ERRORS.voting_closed, { posted_at_s = rt.rust_display(posted_at_s), window_s = window[2] }))
    end
  end
  local want_up, want_down = direction == 1, direction == 2
  -- The downvoters are written after the upvoters: checked before them.
  if want_down then
    rt.reach('down-joins')
  elseif downs_before > 0 then
    rt.reach('down-leaves')
  end
  local in_up = place_voter(upvoters, ups_before, voter, want_up)
  local in_down = place_voter(downvoters, downs_before, voter, want_down)
  local changed = in_up ~= want_up or in_down ~= want_down
  local score
  if changed then
    local delta = contribution(want_up, want_down, up, down) - contribution(in_up, in_down, up, down)
    score = tonumber(rt.call('ZINCRBY', scores, rt.arg_score(delta), item))
  else
    score = rt.zscore(scores, item) or 0
  end
  local function size_after(before, was, is)
    return before + (is and 1 or 0) - (was and 1 or 0)
  end
  return {
    rt.double(score),
    size_after(ups_before, in_up, want_up),
    size_after(downs_before, in_down, want_down),
    changed and 1 or 0,
  }
end

-- -> 1 up, -1 down, 0 none.
handlers['vote.state'] = function(v)
  local upvoters, downvoters, voter = v[1], v[2], v[3]
  -- SISMEMBER refuses a key of another type as SCARD would.
  local in_up = rt.call('SISMEMBER', upvoters, voter) == 1
  local in_down = rt.call('SISMEMBER', downvoters, voter) == 1
  if in_up and in_down then
    rt.fail(ERRORS.voter_in_both_sets)
  end
  return in_up and 1 or (in_down and -1 or 0)
end
end

-- rate.lua -----------------------------------------------------------------
do
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
-- lowest two are `lowest`: counted only when the lowest is one of them.
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
-- on a log of `len` entries whose lowest two are `lowest` ({{member,
-- score}, ...}), with what its writes need: the widest window's cutoff and
-- the entries at or below it.
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

-- A RATE key's size, its lowest two ({{member, score}, ...}) and, with
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
    lowest = rt.sample(key, false)
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
end

-- rank.lua -----------------------------------------------------------------
do
-- RANK: leaderboards where equal totals rank first-come (src/commands/rank.rs,
-- src/logic/rank.rs). A score is `total + j / 2^b`: b = 53 minus the total's
-- bit length, j counts down the tie-break clock (epoch and span in CONFIG),
-- so floor(score) is the total and the earlier a total was reached, the
-- higher it ranks among equals. Every step below is exact in doubles.

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

local function is_power_of_two(n)
  local mantissa = math.frexp(n)
  return mantissa == 0.5
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

-- Whether the tie-break span is a power of two (the default, 2^41): then
-- slots are plain divisions. Worked out on first use: CONFIG is fixed once
-- the library is loaded.
local span_is_power_of_two

-- floor(a * 2^bits / span) for 0 <= a < span <= 2^53, by long division.
local function scaled_slot(a, bits, span)
  if span_is_power_of_two == nil then
    span_is_power_of_two = is_power_of_two(span)
  end
  if span_is_power_of_two then
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
  if is_power_of_two(span) then
    return math.ceil(slot * span / pow2(bits))
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

-- The window of accepted reached-at times [start, end).
local function window()
  local epoch, span = CONFIG['tiebreak-epoch-ms'], CONFIG['tiebreak-span-ms']
  return epoch, epoch + span, span
end

-- The score of `total` reached at `at_ms` (the text the caller gave, for
-- the error).
function rank.encode(total, at_ms, at_text)
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rt.fail(TOTAL_OUT_OF_RANGE)
  end
  local start_ms, span = CONFIG['tiebreak-epoch-ms'], CONFIG['tiebreak-span-ms']
  local end_ms = start_ms + span
  if not (at_ms >= start_ms and at_ms < end_ms) then
    rt.fail(rt.say(ERRORS.time_outside_window,
      { at_ms = at_text or int_text(at_ms), start_ms = int_text(start_ms), end_ms = int_text(end_ms) }))
  end
  -- 53 minus the bit length of |total| (frexp(0) is 0, 0).
  local _, length = math.frexp(total < 0 and -total or total)
  local bits = 53 - length
  local slots = 2 ^ bits
  return (total * slots + slots - 1 - scaled_slot(at_ms - start_ms, bits, span)) / slots
end

-- The total a score encodes (rank.decode's first value, without the time).
function rank.total(score)
  local total = math.floor(score)
  if not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rank.decode(score)
  end
  return total
end

-- The total and reached-at time a score encodes.
function rank.decode(score)
  local total = math.floor(score)
  if total ~= total or total == math.huge or total == -math.huge or not (total < TOTAL_LIMIT and total > -TOTAL_LIMIT) then
    rt.fail(rt.say(ERRORS.not_rank_score, { score = rt.rust_display(score) }))
  end
  local bits = fraction_bits(total)
  local slots = pow2(bits)
  local countdown = math.floor((score - total) * slots)
  if countdown > slots - 1 then
    countdown = slots - 1
  end
  local slot = slots - 1 - countdown
  local start_ms, _, span = window()
  local offset = slot_start(slot, bits, span)
  if offset > span - 1 then
    offset = span - 1
  end
  return total, start_ms + offset
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

-- The 1-based rank of a member, highest first; nil if absent.
local function rank_of(key, member)
  local index = rt.call('ZREVRANK', key, member)
  if index == false or index == nil then
    return nil
  end
  return index + 1
end

-- 1 + the members whose total is higher (scored at total + 1 or more).
local function shared_rank(key, total)
  return rt.call('ZCOUNT', key, int_text(total + 1), '+inf') + 1
end

local function rank_of_member(key, member, total, shared)
  if shared then
    return shared_rank(key, total)
  end
  local found = rank_of(key, member)
  if found == nil then
    rt.fail('ERR zkit internal error: the member is not on the board')
  end
  return found
end

-- Plans an update for a member scored `previous`: checks everything a write
-- can refuse (a foreign score, the range, the time).
local function plan_write(previous, update, at_ms, at_text)
  local previous_total
  if previous ~= nil then
    previous_total = rank.total(previous)
  end
  local total, changed = next_total(previous_total, update)
  local score = rank.encode(total, at_ms, at_text)
  return { total = total, score = changed and score or nil }
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
      rt.call('ZINCRBY', key, rt.arg_score(delta), member)
      return
    end
  end
  rt.call('ZADD', key, rt.arg_score(planned.score), member)
end

-- A member's [total, rank] as the board stands (a repeated event's reply).
local function standing(key, member, shared)
  local score = rt.zscore(key, member)
  if score == nil then
    return { 0, rt.NULL }
  end
  local total = rank.total(score)
  return { total, rank_of_member(key, member, total, shared) }
end

-- When the boards a write gives `TTL seconds` expire (nil without TTL).
local function board_expiry(now, ttl)
  return ttl ~= false and rt.ttl_deadline(now, ttl) or nil
end

-- RANK.GIFT and RANK.SET: `[total, rank]` (+ the IDMP flag). `event` is
-- the checked IDMP clause; `ttl` the TTL's seconds, or false.
local function write_total(key, member, update, at, shared, ttl, event)
  local now = rt.now_ms()
  local expire_at = board_expiry(now, ttl)
  local seen = event and rt.idmp.check(event, now, { key }) or nil
  if seen == 'repeat' then
    return rt.idmp.with_flag(standing(key, member, shared), seen)
  end
  local at_ms = at ~= false and tonumber(at) or now
  local previous = rt.zscore(key, member)
  local planned = plan_write(previous, update, at_ms, at ~= false and at or nil)
  apply_write(key, member, planned, previous, update)
  if expire_at then
    rt.call('PEXPIREAT', key, rt.int_text(expire_at))
  end
  if event then
    rt.idmp.record(event, now)
  end
  local position = rank_of_member(key, member, planned.total, shared)
  return rt.idmp.with_flag({ planned.total, position }, seen)
end

-- `AT unix-ms` and `TTL seconds` as an IDMP digest takes them, appended
-- to `parts`: the time (nothing when the call gives none), then `TTL` and
-- its seconds when given (a call without TTL digests as before TTL
-- existed). SHARED only shapes the reply.
local function terms_parts(parts, at, ttl)
  parts[#parts + 1] = at ~= false and at or ''
  if ttl ~= false then
    parts[#parts + 1] = 'TTL'
    parts[#parts + 1] = rt.int_text(tonumber(ttl))
  end
  return parts
end

handlers['rank.gift'] = function(v)
  local key, member, at, ttl = v[1], v[2], v[4], v[6]
  local event = (v[7] ~= false or v[8] ~= false)
    and rt.idmp.args(v[7], v[8], 'rank.gift', terms_parts({ key, member, v[3] }, at, ttl)) or nil
  return write_total(key, member, { add = tonumber(v[3]) }, at, v[5], ttl, event)
end

handlers['rank.set'] = function(v)
  local key, member, at, ttl = v[1], v[2], v[4], v[7]
  local condition = v[5] ~= false and (v[5].choice == 1 and 'GT' or 'LT') or nil
  local event
  if v[8] ~= false or v[9] ~= false then
    local parts = terms_parts({ key, member, v[3] }, at, ttl)
    parts[#parts + 1] = condition or ''
    event = rt.idmp.args(v[8], v[9], 'rank.set', parts)
  end
  return write_total(key, member, { set = tonumber(v[3]), condition = condition }, at, v[6], ttl, event)
end

-- -> `[[total, rank], ...]` per board, in key order.
handlers['rank.mgift'] = function(v)
  local boards, member, amount, at, shared, ttl = v[2], v[3], tonumber(v[4]), v[5], v[6], v[7]
  local event
  if v[8] ~= false or v[9] ~= false then
    local parts = { rt.int_text(#boards) }
    for _, board in ipairs(boards) do
      parts[#parts + 1] = board
    end
    parts[#parts + 1] = member
    parts[#parts + 1] = v[4]
    event = rt.idmp.args(v[8], v[9], 'rank.mgift', terms_parts(parts, at, ttl))
  end
  -- A set of the names, so the check is linear in the boards.
  local named = {}
  for _, board in ipairs(boards) do
    if named[board] then
      rt.fail(ERRORS.repeated_board)
    end
    named[board] = true
  end
  local now = rt.now_ms()
  local expire_at = board_expiry(now, ttl)
  local seen = event and rt.idmp.check(event, now, boards) or nil
  if seen == 'repeat' then
    local replies = {}
    for i, key in ipairs(boards) do
      replies[i] = standing(key, member, shared)
    end
    return rt.idmp.with_flag(replies, seen)
  end
  local at_ms = at ~= false and tonumber(at) or now
  local planned, previous = {}, {}
  for i, key in ipairs(boards) do
    previous[i] = rt.zscore(key, member)
    planned[i] = plan_write(previous[i], { add = amount }, at_ms, at ~= false and at or nil)
  end
  for i, key in ipairs(boards) do
    apply_write(key, member, planned[i], previous[i], { add = amount })
    if expire_at then
      rt.call('PEXPIREAT', key, rt.int_text(expire_at))
    end
  end
  if event then
    rt.idmp.record(event, now)
  end
  local replies = {}
  for i, key in ipairs(boards) do
    replies[i] = { planned[i].total, rank_of_member(key, member, planned[i].total, shared) }
  end
  return rt.idmp.with_flag(replies, seen)
end

-- `[total, rank, reached-at-ms]` or nil per member (one member: no ZCARD,
-- ZSCORE answers a missing board and refuses another type itself).
local function member_entries(key, members, shared)
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
      local total, reached_at = rank.decode(score)
      entries[i] = { total, rank_of_member(key, member, total, shared), reached_at }
    else
      entries[i] = rt.NULL
    end
  end
  return entries
end

handlers['rank.get'] = function(v)
  return member_entries(v[1], { v[2] }, v[3])[1]
end

handlers['rank.mget'] = function(v)
  return member_entries(v[1], v[3], v[2])
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

-- `[[rank, member, total], ...]` for 0-based positions start..stop.
local function rank_range(key, start, stop, shared)
  if start >= rt.TWO_53 then
    return {}
  end
  if stop >= rt.TWO_53 then
    stop = rt.TWO_53
  end
  local rows = rt.call('ZRANGE', key, int_text(start), int_text(stop), 'REV', 'WITHSCORES')
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
  if shared then
    ranks = shared_ranks(first_position, shared_rank(key, totals[1]), totals)
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
  local key, shared = v[1], v[4]
  local count = rt.non_negative(v[2], 'count')
  local offset = v[3] ~= false and rt.non_negative(v[3], 'offset') or 0
  if rt.zcard(key) == 0 or count == 0 then
    return {}
  end
  return rank_range(key, offset, offset + count - 1, shared)
end

handlers['rank.around'] = function(v)
  local key, member, shared = v[1], v[2], v[4]
  local radius = rt.non_negative(v[3], 'radius')
  local position
  if rt.zcard(key) > 0 then
    position = rank_of(key, member)
  end
  if position == nil then
    return {}
  end
  local index = position - 1
  local start = index - radius
  if start < 0 then
    start = 0
  end
  return rank_range(key, start, index + radius, shared)
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
-- memory-bytes]` by name.
handlers['rank.stats'] = function(v)
  local key = v[1]
  local members = rt.zcard(key)
  local function total_at(position)
    if members == 0 then
      return rt.NULL
    end
    local found = rt.call('ZRANGE', key, int_text(position), int_text(position), 'WITHSCORES')
    if found[2] == nil then
      return rt.NULL
    end
    return rank.total(tonumber(found[2]))
  end
  local reply = { 'members', members, 'top-total', total_at(members > 0 and members - 1 or 0) }
  for _, quantile in ipairs({ { 990, 'p99-total' }, { 900, 'p90-total' }, { 500, 'p50-total' } }) do
    reply[#reply + 1] = quantile[2]
    reply[#reply + 1] = members > 0 and total_at(rt.quantile_position(members, quantile[1])) or rt.NULL
  end
  reply[#reply + 1] = 'bottom-total'
  reply[#reply + 1] = total_at(0)
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
  local key, member = v[1], v[2]
  local score = rt.zscore(key, member)
  if score == nil then
    return rt.NULL
  end
  rank.decode(score)
  local members = rt.zcard(key)
  local rank0 = rank_of(key, member) - 1
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
-- the same steps on the same doubles).
handlers['rank.quantile'] = function(v)
  local key, percentile = v[1], v[2]
  if not (percentile >= 0 and percentile <= 100) then
    rt.out_of_range('percentile', rt.bound.PERCENTILE)
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
  local members = rt.zcard(key)
  local lowest, highest = total_score_range(min, min_open, max, max_open)
  if lowest == nil or members == 0 then
    return 0
  end
  return rt.call('ZCOUNT', key, int_text(lowest), '(' .. int_text(highest + 1))
end

-- -> `[[rank, member, total], ...]` of the members with a total between max
-- and min: the positions below the members with a higher total, read as
-- RANK.TOP reads a page (logic/rank.rs `range_positions`).
handlers['rank.range'] = function(v)
  local key, limit, shared = v[1], v[4], v[5]
  local max, max_open = total_bound(v[2])
  local min, min_open = total_bound(v[3])
  local offset, count = 0, -1
  if limit ~= false then
    offset, count = rt.non_negative(limit[1], 'offset'), tonumber(limit[2])
  end
  if rt.zcard(key) == 0 then
    return {}
  end
  local lowest, highest = total_score_range(min, min_open, max, max_open)
  if lowest == nil then
    return {}
  end
  local above = rt.call('ZCOUNT', key, int_text(highest + 1), '+inf')
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
  return rank_range(key, start, start + take - 1, shared)
end

-- -> `[[rank, member, total], ...]` of the given members on the board,
-- ranked among themselves: each member's score once, sorted as the board
-- sorts them (score descending, then member descending by its bytes; -0
-- ties with 0), the ranks counted down that list (logic/rank.rs
-- `board_order`).
handlers['rank.among'] = function(v)
  local key, shared, given = v[1], v[2], v[3]
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
  table.sort(found, function(a, b)
    if a[1] ~= b[1] then
      return a[1] > b[1]
    end
    return rt.compare_bytes(a[2], b[2]) > 0
  end)
  local totals = {}
  for i, entry in ipairs(found) do
    totals[i] = rank.decode(entry[1])
  end
  local ranks = shared and shared_ranks(1, 1, totals) or nil
  local page = {}
  for i, entry in ipairs(found) do
    page[i] = { ranks and ranks[i] or i, entry[2], totals[i] }
  end
  return page
end
end

-- merge.lua ----------------------------------------------------------------
do
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

local function new_sum()
  return { hi = 0, lo = 0, reached_at = nil }
end

local function sum_add(sum, total, reached_at, weight)
  local lo = sum.lo + rank.check_total(total * weight)
  if lo >= TOTAL_LIMIT then
    lo, sum.hi = lo - TOTAL_LIMIT, sum.hi + 1
  elseif lo <= -TOTAL_LIMIT then
    lo, sum.hi = lo + TOTAL_LIMIT, sum.hi - 1
  end
  sum.lo = lo
  if sum.reached_at == nil or reached_at > sum.reached_at then
    sum.reached_at = reached_at
  end
end

-- The merged rank score; after at least one `sum_add`.
local function sum_score(sum)
  local total
  if sum.hi == 0 then
    total = sum.lo
  elseif sum.hi == 1 then
    total = sum.lo + TOTAL_LIMIT
  elseif sum.hi == -1 then
    total = sum.lo - TOTAL_LIMIT
  else
    total = sum.hi * TOTAL_LIMIT -- |total| >= 2^52: refused below
  end
  return rank.encode(total, sum.reached_at)
end

-- The one-shot merge: every source read, every member summed, in the order
-- members were first met (the order the module checks them in).
local function merge_at_once(dest, sources, weights)
  local index, sums = {}, {}
  for i, source in ipairs(sources) do
    local members = rt.pairs_of(rt.call('ZRANGE', source, '0', '-1', 'WITHSCORES'))
    for _, item in ipairs(members) do
      local total, reached_at = rank.decode(item[2])
      local sum = index[item[1]]
      if sum == nil then
        sum = new_sum()
        index[item[1]] = sum
        sums[#sums + 1] = { item[1], sum }
      end
      sum_add(sum, total, reached_at, weights[i])
    end
  end
  local scored = {}
  for i, entry in ipairs(sums) do
    scored[i] = { entry[1], sum_score(entry[2]) }
  end
  rt.call('UNLINK', dest)
  rt.zadd_pairs(dest, scored)
  return #scored
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

local function checksum(dest, staging, sources, weights)
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
        local sum = new_sum()
        for source, weight in ipairs(m.weights) do
          local found = score
          if source ~= index + 1 then
            found = rt.zscore(m.sources[source], member)
          end
          if found ~= nil then
            local total, reached_at = rank.decode(found)
            sum_add(sum, total, reached_at, tonumber(weight))
          end
        end
        merged[#merged + 1] = { member, sum_score(sum) }
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
  local args = checksum(m.dest, m.staging, m.sources, m.weights)
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
  local dest, sources, given_weights, step = v[1], v[3], v[4], v[5]
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
    return merge_at_once(dest, sources, numbers)
  end
  local m = {
    dest = dest,
    sources = sources,
    weights = weights,
    count = rt.positive(step[1], 'count'),
    staging = step[2],
  }
  return merge_step(m, step[3])
end
end

-- jobs.lua -----------------------------------------------------------------
do
-- Jobs: DELAY tasks that carry their data in a hash beside the queue (its
-- DATA key; src/commands/jobs.rs, src/logic/jobs.rs). DELAY.ADD, DELAY.JOB,
-- DELAY.RETRY, DELAY.PAUSE and DELAY.RESUME; the DATA options of POLL, ACK,
-- NACK and STATS are in delay.lua, which reads the helpers put on `rt.job`.

local call, int_text, arg_score = rt.call, rt.int_text, rt.arg_score

local job = {}
rt.job = job

-- 2^63: a count read from a score saturates at the 64-bit bounds (the
-- module's `as i64`). A reply's integer goes through a double, which cannot
-- hold 2^63 - 1: the library's replies stop at the largest double below it
-- (docs/functions.md, "Where the library differs").
local TWO_63 = 9223372036854775808
local LARGEST_REPLY = 9223372036854774784

-- A task's fields: a one-letter tag, ':' and the task id (logic/jobs.rs
-- `Field`); the queue's own state is in a field without that shape.
job.PAYLOAD, job.DEADLINE, job.REASON, job.DIED_WITH, job.WORKER = 'p:', 'x:', 'r:', 'd:', 'w:'
job.GROUP = 'g:'
job.PAUSED = 'paused'
local ALL_FIELDS = { job.PAYLOAD, job.DEADLINE, job.REASON, job.DIED_WITH, job.WORKER, job.GROUP }

-- Every field of the task goes: it is done, or forgotten.
function job.delete_data(data, task)
  for _, tag in ipairs(ALL_FIELDS) do
    call('HDEL', data, tag .. task)
  end
end

-- A text's integer, as Rust's `str::parse::<i64>` reads it (a sign, digits,
-- leading zeros allowed), or nil when it holds none (or is nil).
function job.int_of(text)
  if not text then
    return nil
  end
  local sign, digits = text:match('^([+-]?)(%d+)$')
  if not digits then
    return nil
  end
  digits = digits:match('^0*(%d-)$')
  if #digits > 19 or (#digits == 19 and rt.compare_bytes(digits,
      sign == '-' and '9223372036854775808' or '9223372036854775807') > 0) then
    return nil
  end
  local value = tonumber(text)
  return value >= TWO_63 and LARGEST_REPLY or value
end

-- A field's integer (`job.int_of`), or nil when the field is absent.
function job.int_field(data, field)
  return job.int_of(call('HGET', data, field))
end

-- What the library refuses where the module serves it (docs/functions.md,
-- "Where the library differs"): `what` (a command or an option) and the
-- feature it belongs to.
function job.not_in_library(what, feature)
  rt.fail('ERR ' .. what .. ' is not in the Functions library: ' .. feature .. ' need the zkit module')
end

-- How many groups of the queue whose data is `data` are at their cap.
function job.capped_groups(data)
  return job.int_field(data, 'capped') or 0
end

-- Whether the queue whose data is `data` is paused.
function job.is_paused(data)
  return call('HEXISTS', data, job.PAUSED) == 1
end

-- A score as the count the module reads from it (toward zero, saturated),
-- for a reply, or nil.
function job.count_of(score)
  if score == nil then
    return nil
  elseif score >= TWO_63 then
    return LARGEST_REPLY
  elseif score <= -TWO_63 then
    return -TWO_63
  end
  return score < 0 and -math.floor(-score) or math.floor(score)
end

-- The text of that count, exact, for a field's value.
function job.count_text(score)
  if score >= TWO_63 then
    return '9223372036854775807'
  elseif score <= -TWO_63 then
    return '-9223372036854775808'
  end
  return int_text(job.count_of(score))
end

-- Refuses a DATA hash that is also one of the call's sorted sets (`...`:
-- keys, false or nil where not named): one key cannot hold both.
function job.check_data_key(data, ...)
  for i = 1, select('#', ...) do
    if data == select(i, ...) then
      rt.fail(ERRORS.job_shared_data_key)
    end
  end
end

function job.needs_data(option)
  rt.fail(rt.say(ERRORS.job_needs_data, { option = option }))
end

-- The double just above x (x >= 0, finite): x plus the gap between doubles
-- at x, which is at least the smallest double (4.9e-324).
local function next_up(x)
  local smallest = math.ldexp(1, -1074)
  if x == 0 then
    return smallest
  end
  local _, exponent = math.frexp(x)
  local step = math.ldexp(1, exponent - 53)
  if step < smallest then
    step = smallest
  end
  return x + step
end

-- The score of a task added due at `due_ms` to a queue whose highest score
-- within that millisecond is `latest` (logic/jobs.rs `arrival_score`).
local function arrival_score(due_ms, latest)
  if latest ~= nil and latest >= due_ms then
    local next = next_up(latest)
    if next < due_ms + 1 then
      return next
    end
    return latest
  end
  return due_ms
end

-- The highest score a queue holds within the millisecond `due_ms`.
local function latest_in_millisecond(queue, due_ms)
  local top = call('ZRANGE', queue, '(' .. int_text(due_ms + 1), int_text(due_ms), 'BYSCORE', 'REV', 'LIMIT', '0',
    '1', 'WITHSCORES')
  return top[2] and tonumber(top[2]) or nil
end

-- The score of the next task added to `queue` due at `due_ms`.
function job.arrival_at(queue, due_ms)
  return arrival_score(due_ms, latest_in_millisecond(queue, due_ms))
end

local KEEP, REPLACE = 1, 2

-- -> per task: 1 added, 2 updated, 0 kept.
handlers['delay.add'] = function(v)
  local queue, data, inflight, rule, within, group, given = v[1], v[2], v[3], v[4], v[5], v[6], v[7]
  rule = rule == false and KEEP or rule.choice
  local with_payloads = given.choice == 2
  if with_payloads and data == false then
    job.needs_data('JOBS')
  end
  if within ~= false and data == false then
    job.needs_data('WITHIN')
  end
  if group ~= false then
    if data == false then
      job.needs_data('GROUP')
    end
  end
  local within_ms
  if within ~= false then
    within_ms = tonumber(within)
    if not (within_ms >= 1 and within_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('WITHIN', rt.bound.DURATION_MS)
    end
  end
  local limit = CONFIG['job-payload-max-bytes']
  local tasks = {}
  for i, item in ipairs(given.value) do
    local due = tonumber(item[1])
    if not (due >= 0 and due <= LIMITS.JOB_MAX_DUE_MS) then
      rt.out_of_range('due-ms', rt.bound.DUE_MS)
    end
    local payload = with_payloads and item[3] or nil
    if payload and #payload > limit then
      rt.fail(rt.say(ERRORS.job_payload_too_large, { len = int_text(#payload), limit = int_text(limit) }))
    end
    tasks[i] = { due = due, task = item[2], payload = payload }
  end
  if data ~= false then
    job.check_data_key(data, queue, inflight)
  end
  if inflight ~= false then
    rt.zcard(inflight)
  end
  if data ~= false then
    call('HLEN', data)
  end
  if rt.zcard(queue) > 0 then
    rt.check_delay_queue((rt.sample(queue, false)))
  end
  -- A due time in the past is due now: scored now, so tasks added to run at
  -- once come out in the order they were added.
  local now = rt.now_ms()
  local replies = {}
  for i, t in ipairs(tasks) do
    local task = t.task
    local queued = rt.zscore(queue, task)
    local added = 0
    if not (inflight ~= false and rt.zscore(inflight, task) ~= nil) then
      local due = t.due < now and now or t.due
      local score
      if queued == nil or rule ~= KEEP then
        score = job.arrival_at(queue, due)
      end
      if queued == nil then
        added = 1
      elseif rule == REPLACE then
        added = 2
      elseif rule ~= KEEP and math.floor(queued) < math.floor(score) then
        -- EXTEND: out, never in.
        added = 2
      end
      if added ~= 0 then
        call('ZADD', queue, arg_score(score), task)
        if data ~= false then
          if t.payload then
            call('HSET', data, job.PAYLOAD .. task, t.payload)
          end
          -- WITHIN counts from when the task is due: now, for a time past.
          local deadline = within_ms and rt.deadline(due, within_ms)
          if deadline then
            call('HSET', data, job.DEADLINE .. task, int_text(deadline))
          else
            call('HDEL', data, job.DEADLINE .. task)
          end
          if group ~= false then
            call('HSET', data, job.GROUP .. task, group)
          else
            call('HDEL', data, job.GROUP .. task)
          end
        end
      end
    end
    replies[i] = added
  end
  return replies
end

-- -> `[state, score, payload, deliveries, last-reason, deadline-ms, worker]`
-- by name.
handlers['delay.job'] = function(v)
  local queue, task, inflight, dead, deliveries, data = v[1], v[2], v[3], v[4], v[5], v[6]
  for _, key in ipairs({ queue, inflight, dead, deliveries }) do
    if key ~= false then
      rt.zcard(key)
    end
  end
  if data ~= false then
    call('HLEN', data)
  end
  local state, score
  for _, named in ipairs({ { 'queued', queue }, { 'inflight', inflight }, { 'dead', dead } }) do
    if named[2] ~= false then
      score = rt.zscore(named[2], task)
      if score ~= nil then
        state = named[1]
        break
      end
    end
  end
  local function field(tag)
    if data == false then
      return rt.NULL
    end
    return call('HGET', data, tag .. task) or rt.NULL
  end
  local function int(tag)
    return data ~= false and job.int_field(data, tag .. task) or nil
  end
  local delivered = deliveries ~= false and job.count_of(rt.zscore(deliveries, task)) or nil
  if state == 'dead' then
    local died_with = int(job.DIED_WITH)
    if died_with ~= nil then
      delivered = died_with
    end
  end
  local deadline = int(job.DEADLINE)
  return {
    'state', state or rt.NULL,
    'score', state and rt.double(score) or rt.NULL,
    'payload', field(job.PAYLOAD),
    'deliveries', delivered or rt.NULL,
    'last-reason', field(job.REASON),
    'deadline-ms', deadline or rt.NULL,
    'worker', field(job.WORKER),
  }
end

-- -> how many were dead.
handlers['delay.retry'] = function(v)
  local dead, queue, data, tasks = v[1], v[2], v[3], v[4]
  if data ~= false then
    job.check_data_key(data, dead, queue)
  end
  rt.zcard(queue)
  if data ~= false then
    call('HLEN', data)
  end
  local any_dead = false
  if rt.zcard(dead) > 0 then
    for _, task in ipairs(tasks) do
      if rt.zscore(dead, task) ~= nil then
        any_dead = true
        break
      end
    end
  end
  if not any_dead then
    return 0
  end
  local now = rt.now_ms()
  local back = {}
  for _, task in ipairs(tasks) do
    if call('ZREM', dead, task) == 1 then
      back[#back + 1] = task
    end
  end
  for _, task in ipairs(back) do
    call('ZADD', queue, arg_score(job.arrival_at(queue, now)), task)
  end
  if data ~= false then
    for _, task in ipairs(back) do
      call('HDEL', data, job.DIED_WITH .. task)
    end
  end
  return #back
end

-- -> 1 when the queue was paused now, 0 when it was already.
handlers['delay.pause'] = function(v)
  local queue, data = v[1], v[2]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  if job.is_paused(data) then
    return 0
  end
  call('HSET', data, job.PAUSED, int_text(rt.now_ms()))
  return 1
end

-- -> 1 when the queue was resumed now, 0 when it was not paused.
handlers['delay.resume'] = function(v)
  local queue, data = v[1], v[2]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  if not job.is_paused(data) then
    return 0
  end
  call('HDEL', data, job.PAUSED)
  return 1
end
end

-- schedules.lua ------------------------------------------------------------
do
-- Repeating jobs: DELAY.SCHEDULE, DELAY.UNSCHEDULE, DELAY.SCHEDULES, and
-- the step a claim takes when it claims an occurrence (`rt.schedules.advance`,
-- from delay.lua's polls); src/commands/schedules.rs, src/logic/schedule.rs.
--
-- A schedule's fields in the queue's DATA hash: `s:<id>` its rule (`every
-- <ms>` or `cron <zone> <expression>`), `n:<id>` the time of its pending
-- occurrence, `t:<id>` the payload each occurrence carries. An occurrence
-- is the task `<id>@<unix ms>`.
--
-- The library serves EVERY rules, and cron rules in UTC or in a zone that
-- has always been UTC (Etc/UTC, GMT: UTC_ZONES). It knows the names of the
-- module's time zones (ZONES), not their rules, so a cron rule in another
-- zone, or one with the cron parser's day extensions (`L`, `W`, `#`), is
-- refused before anything is read or written, and a cron schedule of that
-- kind the module wrote does not move on when the library claims its
-- occurrence (docs/functions.md).

local call, int_text, arg_score = rt.call, rt.int_text, rt.arg_score
local job = rt.job

local schedules = {}
rt.schedules = schedules

-- ---------------------------------------------------------------------------
-- Cron rules in UTC, read as the module's parser reads them (the `croner`
-- crate, five fields, its strict ranges): the same matches, the same error
-- texts where the library reads the expression, and `unsupported` where it
-- does not.

local MINUTE_MS, DAY_MS = 60000, 86400000

-- The fields: minute, hour, day of month, month, day of week (0-7, 7 is
-- Sunday), each with its bounds.
local FIELDS = { { 0, 59 }, { 0, 23 }, { 1, 31 }, { 1, 12 }, { 0, 7 } }

-- The names the parser turns into numbers anywhere in the expression, in
-- its order.
local NAMES = {
  { '%-SUN', '-7' }, { 'SUN', '0' }, { 'MON', '1' }, { 'TUE', '2' }, { 'WED', '3' }, { 'THU', '4' },
  { 'FRI', '5' }, { 'SAT', '6' },
  { 'JAN', '1' }, { 'FEB', '2' }, { 'MAR', '3' }, { 'APR', '4' }, { 'MAY', '5' }, { 'JUN', '6' },
  { 'JUL', '7' }, { 'AUG', '8' }, { 'SEP', '9' }, { 'OCT', '10' }, { 'NOV', '11' }, { 'DEC', '12' },
}

-- What the library leaves to the module: the parser's day extensions, and
-- five fields with text beyond ASCII (whose upper case is Unicode's there).
local UNSUPPORTED, NOT_ASCII = {}, {}

-- The parser's shorthands, read before anything else.
local NICKNAMES = {
  ['@YEARLY'] = '0 0 1 1 *', ['@ANNUALLY'] = '0 0 1 1 *', ['@MONTHLY'] = '0 0 1 * *',
  ['@WEEKLY'] = '0 0 * * SUN', ['@DAILY'] = '0 0 * * *', ['@HOURLY'] = '0 * * * *',
}

-- A number as the parser reads one (Rust's u16), or nil.
local function number(text)
  if not text:find('^%d+$') then
    return nil
  end
  local n = tonumber(text)
  return n <= 65535 and n or nil
end

local function component_error(why)
  return nil, 'Component error: ' .. why
end

-- `first`-`last` as a range part reads it, or an error.
local function range_of(text, what)
  local a, b = text:match('^([^-]*)-([^-]*)$')
  if not a then
    return component_error(what == 'range' and 'Invalid range syntax.' or 'Invalid range syntax in stepping.')
  end
  local first, last = number(a), number(b)
  if not first then
    return component_error(what == 'range' and 'Invalid start of range.' or 'Invalid range start.')
  elseif not last then
    return component_error(what == 'range' and 'Invalid end of range.' or 'Invalid range end.')
  end
  return first, last
end

-- The values of one part of a field (`first`, `last`, `step`), or an
-- error: a text of the parser's, or UNSUPPORTED.
local function read_part(part, min, max)
  if part:find('[LW#]') then
    return nil, UNSUPPORTED
  end
  if part:find('/', 1, true) then
    local range, step_text = part:match('^([^/]*)/([^/]*)$')
    if not range then
      return component_error('Invalid stepped range syntax.')
    end
    local step = number(step_text)
    if not step then
      return component_error('Invalid step.')
    elseif step == 0 then
      return component_error('Step cannot be zero.')
    end
    local first, last
    if range == '*' then
      first, last = min, max
    elseif range:find('-', 1, true) then
      first, last = range_of(range, 'stepping')
      if not first then
        return nil, last
      end
    elseif range == '' then
      return component_error('Invalid step syntax: omitting the starting point like "/' .. step_text
        .. '" is not allowed. Use "*/' .. step_text .. '" for wildcard steps or "X-Y/' .. step_text
        .. '" for range steps.')
    else
      return component_error('Invalid step syntax: single number steps like "' .. range .. '/' .. step_text
        .. '" are not allowed. Use "*/' .. step_text .. '" for wildcard steps or "X-Y/' .. step_text
        .. '" for range steps.')
    end
    if first < min or last > max or first > last then
      return component_error('Range is out of bounds in stepping.')
    end
    return first, last, step
  elseif part:find('-', 1, true) then
    local first, last = range_of(part, 'range')
    if not first then
      return nil, last
    end
    if first > last or first < min or last > max then
      return component_error('Range out of bounds.')
    end
    return first, last, 1
  end
  local value = number(part)
  if not value then
    return component_error('Invalid number.')
  elseif value < min or value > max then
    return component_error('Number out of bounds.')
  end
  return value, value, 1
end

-- One field's matching values (a set), or an error.
local function read_field(text, bounds)
  local min, max = bounds[1], bounds[2]
  local set = {}
  if text == '*' then
    for value = min, max do
      set[value] = true
    end
    return set
  end
  for part in (text .. ','):gmatch('([^,]*),') do
    if part ~= '' then
      local first, last, step = read_part(part, min, max)
      if not first then
        return nil, last
      end
      for value = first, last, step do
        set[value] = true
      end
    end
  end
  return set
end

-- The characters each field may hold (the parser's, `L`, `W`, `#` among
-- them, which read_part leaves to the module).
local ALLOWED = { '^[%d%*/,%-]*$', '^[%d%*/,%-]*$', '^[%d%*/,%-LW%?]*$', '^[%d%*/,%-]*$', '^[%d%*/,%-#L%?]*$' }

-- Whether a text holds a space of Unicode's beyond ASCII (in UTF-8), which
-- the module's parser splits fields at: U+0085, U+00A0, U+1680, U+2000 to
-- U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
local function unicode_space(text)
  return text:find('\194[\133\160]') or text:find('\225\154\128') or text:find('\226\128[\128-\138\168\169\175]')
    or text:find('\226\129\159') or text:find('\227\128\128')
end

-- A five-field cron expression, read: `{ sets, star_dom, star_dow,
-- dom_and_dow }`, or an error (a text of the parser's, UNSUPPORTED or
-- NOT_ASCII).
local function read_cron(expression)
  local not_ascii = expression:find('[\128-\255]') ~= nil
  if not_ascii and unicode_space(expression) then
    return nil, NOT_ASCII
  end
  local text = expression:upper():match('^%s*(.-)%s*$')
  if text == '' then
    return nil, 'CronPattern cannot be an empty string.'
  end
  text = NICKNAMES[text] or text
  for _, name in ipairs(NAMES) do
    text = text:gsub(name[1], name[2])
  end
  local parts = {}
  for part in text:gmatch('%S+') do
    parts[#parts + 1] = part
  end
  if #parts ~= 5 then
    return nil, 'Invalid pattern: Pattern must have 5 fields when seconds are disallowed.'
  elseif not_ascii then
    return nil, NOT_ASCII
  end
  parts[3], parts[5] = parts[3]:gsub('%?', '*'), parts[5]:gsub('%?', '*')
  -- `+` before the day of week: both day fields must match.
  local dom_and_dow = parts[5]:sub(1, 1) == '+'
  if dom_and_dow then
    parts[5] = parts[5]:sub(2)
  end
  for i, part in ipairs(parts) do
    if not part:find(ALLOWED[i]) then
      local ch = part:sub(part:find('[^' .. ALLOWED[i]:sub(3, -4) .. ']'))
      return nil, "Pattern contains illegal characters: CronPattern contains illegal character '" .. ch
        .. "' in part '" .. part .. "'"
    end
  end
  local sets = {}
  for i, part in ipairs(parts) do
    local set, why = read_field(part, FIELDS[i])
    if not set then
      return nil, why
    end
    sets[i] = set
  end
  sets[5][0] = sets[5][0] or sets[5][7]
  return { sets = sets, star_dom = parts[3] == '*', star_dow = parts[5] == '*', dom_and_dow = dom_and_dow }
end

-- The civil date of a day counted from 1970-01-01 (H. Hinnant's algorithm):
-- year, month, day of month.
local function civil(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local month = mp < 10 and mp + 3 or mp - 9
  return yoe + era * 400 + (month <= 2 and 1 or 0), month, doy - math.floor((153 * mp + 2) / 5) + 1
end

-- Whether a day matches: day of month and day of week as cron ORs them
-- when neither is `*` (ANDs them after a `+`).
local function day_matches(cron, day, weekday)
  local by_date, by_weekday = cron.sets[3][day] == true, cron.sets[5][weekday] == true
  if (by_date and cron.star_dow) or (by_weekday and cron.star_dom) then
    return true
  elseif cron.star_dom or cron.star_dow then
    return false
  elseif cron.dom_and_dow then
    return by_date and by_weekday
  end
  return by_date or by_weekday
end

-- The parser's search ends at any step it takes in the year 5000 or later
-- (to another day, hour or minute that matches): 5000-01-01 in unix ms.
local LAST_YEAR, LAST_YEAR_MS = 5000, 95617584000000
-- Enough days for any rule that matches at all: a 29 February may be eight
-- years away.
local MAX_DAYS = 8 * 366 + 2

-- The parser's match in the year 5000, searching from after `after_ms`:
-- on the day it enters that year at (the day it starts from, or 1 January
-- at midnight), the first matching hour from its own on, and in its own
-- hour the first matching minute from its own on (its own only at second
-- 0); nil where it would take a step more.
local function in_the_last_year(cron, after_ms)
  local cursor = math.floor(after_ms / 1000) * 1000 + 1000
  if cursor < LAST_YEAR_MS then
    cursor = LAST_YEAR_MS
  end
  local day = math.floor(cursor / DAY_MS)
  local year, month, date = civil(day)
  if year ~= LAST_YEAR or not cron.sets[4][month] or not day_matches(cron, date, (day + 4) % 7) then
    return nil
  end
  local second_of_day = (cursor - day * DAY_MS) / 1000
  local hour, minute = math.floor(second_of_day / 3600), math.floor(second_of_day / 60) % 60
  local hours, minutes = cron.sets[2], cron.sets[1]
  for h = hour, 23 do
    if hours[h] then
      for m = h == hour and minute or 0, 59 do
        if minutes[m] then
          if h == hour and m == minute and second_of_day % 60 ~= 0 then
            return nil
          end
          return day * DAY_MS + h * 3600000 + m * MINUTE_MS
        end
      end
      return nil
    end
  end
  return nil
end

-- The first matching minute later than `after_ms` (UTC), or nil.
local function cron_after(cron, after_ms)
  local from = (math.floor(after_ms / MINUTE_MS) + 1) * MINUTE_MS
  local day = math.floor(from / DAY_MS)
  local start_minute = (from - day * DAY_MS) / MINUTE_MS
  local hour0, minute0 = math.floor(start_minute / 60), start_minute % 60
  local minutes, hours, months = cron.sets[1], cron.sets[2], cron.sets[4]
  local last_day = day + MAX_DAYS
  while day <= last_day do
    local year, month, date = civil(day)
    if year >= LAST_YEAR then
      return in_the_last_year(cron, after_ms)
    end
    if not months[month] then
      -- To the first of the next month.
      local ahead = day + 32 - date
      day = ahead - (select(3, civil(ahead)) - 1)
      hour0, minute0 = 0, 0
    else
      if day_matches(cron, date, (day + 4) % 7) then
        for hour = hour0, 23 do
          if hours[hour] then
            for minute = hour == hour0 and minute0 or 0, 59 do
              if minutes[minute] then
                return day * DAY_MS + hour * 3600000 + minute * MINUTE_MS
              end
            end
          end
        end
      end
      day = day + 1
      hour0, minute0 = 0, 0
    end
  end
  return nil
end

local RULE, NEXT, PAYLOAD = 's:', 'n:', 't:'

local function occurrence_task(id, at_ms)
  return id .. '@' .. int_text(at_ms)
end

-- The schedule id and occurrence time a task id names (`<id>@<digits>`,
-- split at the last '@', at most 16 digits), or nil.
local function occurrence_of(task)
  local at = task:find('@%d+$')
  if not at or #task - at > 16 then
    return nil
  end
  return task:sub(1, at - 1), tonumber(task:sub(at + 1))
end

-- The interval of an `every <ms>` rule (1 ms to 100 years), or nil for any
-- other text (a cron rule among them).
local function every_ms(rule)
  local ms = job.int_of(rule:match('^every (.*)$'))
  if ms and ms >= 1 and ms <= rt.MAX_DURATION_MS then
    return ms
  end
  return nil
end

-- A cron rule's zone and expression, as the module writes them, or nil.
local function cron_rule(rule)
  return rule:match('^cron ([^ ]*) (.*)$')
end

-- The occurrence after the one at `at_ms` of an interval of `ms`, claimed
-- at `now_ms`: the first point of its grid later than both (the missed
-- ones are skipped), or nil past the last due time a task can hold.
local function next_on_grid(ms, at_ms, now_ms)
  local after = at_ms > now_ms and at_ms or now_ms
  local next = at_ms + (math.floor((after - at_ms) / ms) + 1) * ms
  if next > LIMITS.JOB_MAX_DUE_MS then
    return nil
  end
  return next
end

-- Puts schedule `id`'s occurrence at `at_ms` in `queue` (due now when its
-- time has passed), with the schedule's payload, and makes it the pending
-- one.
local function enqueue(queue, data, id, at_ms, now_ms)
  local task = occurrence_task(id, at_ms)
  if rt.zscore(queue, task) == nil then
    call('ZADD', queue, arg_score(job.arrival_at(queue, at_ms > now_ms and at_ms or now_ms)), task)
  end
  local payload = call('HGET', data, PAYLOAD .. id)
  if payload then
    call('HSET', data, job.PAYLOAD .. task, payload)
  end
  call('HSET', data, NEXT .. id, int_text(at_ms))
end

-- Removes schedule `id`'s pending occurrence from `queue`, with its data,
-- if it is still there; forgets it either way.
local function remove_pending(queue, data, id)
  local at_ms = job.int_field(data, NEXT .. id)
  if at_ms == nil then
    return
  end
  local task = occurrence_task(id, at_ms)
  if call('ZREM', queue, task) == 1 then
    job.delete_data(data, task)
  end
  call('HDEL', data, NEXT .. id)
end

-- After a claim took `task` from `queue` at `now_ms`: when it is the
-- pending occurrence of a schedule in `data`, the schedule's next
-- occurrence goes into `queue`. Any other task, a redelivered occurrence
-- among them, changes nothing.
function schedules.advance(queue, data, task, now_ms)
  local id, at_ms = occurrence_of(task)
  if not id or job.int_field(data, NEXT .. id) ~= at_ms then
    return
  end
  local rule = call('HGET', data, RULE .. id)
  local next, zone, expression
  if rule then
    zone, expression = cron_rule(rule)
  end
  if zone then
    local cron, why = read_cron(expression)
    if not UTC_ZONES[zone] or why == UNSUPPORTED or why == NOT_ASCII then
      -- A cron rule the module wrote, that only the module can follow.
      return
    end
    next = cron and cron_after(cron, at_ms > now_ms and at_ms or now_ms)
  else
    local ms = rule and every_ms(rule)
    next = ms and next_on_grid(ms, at_ms, now_ms)
  end
  if next then
    enqueue(queue, data, id, next, now_ms)
  else
    call('HDEL', data, NEXT .. id)
  end
end

-- -> the first occurrence's time.
handlers['delay.schedule'] = function(v)
  local queue, data, id, rule, zone, start, payload = v[1], v[2], v[3], v[4], v[5], v[6], v[7]
  local ms, cron, rule_text
  if rule.choice == 2 then
    local why
    cron, why = read_cron(rule.value)
    -- The module's order: the expression's error, then the zone's; then
    -- what only the module serves.
    if why and why ~= UNSUPPORTED and why ~= NOT_ASCII then
      rt.fail(rt.say(ERRORS.schedule_bad_cron, { why = why }))
    end
    zone = zone or 'UTC'
    if not ZONES[zone] then
      rt.fail(rt.say(ERRORS.schedule_unknown_zone, { zone = rt.utf8_lossy(zone) }))
    elseif why == UNSUPPORTED then
      job.not_in_library('CRON with L, W or #', "the cron parser's day extensions")
    elseif why == NOT_ASCII then
      job.not_in_library('CRON beyond ASCII', 'cron expressions beyond ASCII')
    elseif not UTC_ZONES[zone] then
      job.not_in_library('TZ', 'time zones other than UTC')
    end
    rule_text = 'cron ' .. zone .. ' ' .. rule.value
  else
    if zone ~= false then
      rt.fail(ERRORS.schedule_zone_without_cron)
    end
    ms = tonumber(rule.value)
    if not (ms >= 1 and ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('EVERY', rt.bound.DURATION_MS)
    end
    rule_text = 'every ' .. int_text(ms)
  end
  local now = rt.now_ms()
  if start ~= false then
    start = tonumber(start)
    if not (start >= 0 and start <= LIMITS.JOB_MAX_DUE_MS) then
      rt.out_of_range('START', rt.bound.DUE_MS)
    end
  else
    start = now
  end
  local first = start
  if cron then
    first = cron_after(cron, start - 1)
    if not first then
      rt.fail(ERRORS.schedule_never_matches)
    end
  end
  if payload ~= false then
    local limit = CONFIG['job-payload-max-bytes']
    if #payload > limit then
      rt.fail(rt.say(ERRORS.job_payload_too_large, { len = int_text(#payload), limit = int_text(limit) }))
    end
  end
  job.check_data_key(data, queue)
  call('HLEN', data)
  if rt.zcard(queue) > 0 then
    rt.check_delay_queue((rt.sample(queue, false)))
  end
  -- A change replaces the pending occurrence: the new rule's first one
  -- takes its place.
  remove_pending(queue, data, id)
  call('HSET', data, RULE .. id, rule_text)
  if payload ~= false then
    call('HSET', data, PAYLOAD .. id, payload)
  else
    call('HDEL', data, PAYLOAD .. id)
  end
  enqueue(queue, data, id, first, now)
  return first
end

-- -> 1 when the schedule existed.
handlers['delay.unschedule'] = function(v)
  local queue, data, id = v[1], v[2], v[3]
  job.check_data_key(data, queue)
  rt.zcard(queue)
  call('HLEN', data)
  if call('HEXISTS', data, RULE .. id) == 0 then
    return 0
  end
  remove_pending(queue, data, id)
  for _, part in ipairs({ RULE, NEXT, PAYLOAD }) do
    call('HDEL', data, part .. id)
  end
  return 1
end

-- -> `[[id, every-ms, cron, tz, next-ms, payload], ...]`, by id.
handlers['delay.schedules'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  local rules = {}
  for i = 1, #fields, 2 do
    if fields[i]:sub(1, 2) == RULE then
      rules[#rules + 1] = { fields[i]:sub(3), fields[i + 1] }
    end
  end
  table.sort(rules, function(a, b)
    return rt.compare_bytes(a[1], b[1]) < 0
  end)
  local rows = {}
  for _, found in ipairs(rules) do
    local id, rule = found[1], found[2]
    local ms = every_ms(rule)
    local zone, expression = cron_rule(rule)
    if UTC_ZONES[zone] then
      local cron, why = read_cron(expression)
      if not cron and why ~= UNSUPPORTED and why ~= NOT_ASCII then
        -- The module does not list a rule it cannot read.
        zone = nil
      end
    end
    if ms or zone then
      local next = job.int_field(data, NEXT .. id)
      rows[#rows + 1] = {
        id,
        ms or rt.NULL,
        expression or rt.NULL,
        zone or rt.NULL,
        next or rt.NULL,
        call('HGET', data, PAYLOAD .. id) or rt.NULL,
      }
    end
  end
  return rows
end
end

-- groups.lua ---------------------------------------------------------------
do
-- Groups (tenants) inside one queue (src/commands/groups.rs, src/logic/groups.rs):
-- DELAY.ADD GROUP puts tasks in a group, DELAY.GROUP sets a group's cap on
-- tasks in flight and its rate limit, DELAY.GROUPS lists them. A claim
-- naming the queue's DATA hash takes a group's tasks only within its limits
-- (`groups.admission`, asked by delay.lua's claims); ACK, NACK and a burial
-- from the in-flight set give a group's slot back (`groups.release`).
--
-- A group's state is in the DATA hash: `c:<group>` its limits (`<cap>
-- <limit> <window-ms>`, 0 for none), `i:<group>` its tasks in flight,
-- `h:<group>` its claim times (unix ms) inside its rate window, oldest
-- first, and `capped` how many groups are at their cap.

local call, int_text = rt.call, rt.int_text
local job = rt.job

local groups = {}
rt.groups = groups

local LIMITS_TAG, IN_FLIGHT_TAG, LOG_TAG = 'c:', 'i:', 'h:'
local CAPPED = 'capped'

-- The integers of a space-separated text, those that read as one.
local function integers(text)
  local numbers = {}
  for word in ((text or '') .. ' '):gmatch('([^ ]*) ') do
    numbers[#numbers + 1] = job.int_of(word)
  end
  return numbers
end

-- A group's limits as `limits_text` wrote them; none for anything else
-- (logic/groups.rs `Limits::parse`).
local function parse_limits(text)
  local n = integers(text)
  if #n == 3 and n[1] >= 0 and n[2] >= 0 and n[3] >= 0 then
    local rate
    if n[2] > 0 and n[3] > 0 then
      rate = { limit = n[2], window_ms = n[3] }
    end
    return { cap = n[1], rate = rate }
  end
  return { cap = 0 }
end

local function limits_text(limits)
  local rate = limits.rate
  return int_text(limits.cap) .. ' ' .. int_text(rate and rate.limit or 0) .. ' '
    .. int_text(rate and rate.window_ms or 0)
end

local function log_text(log)
  local words = {}
  for i, at in ipairs(log) do
    words[i] = int_text(at)
  end
  return table.concat(words, ' ')
end

local function limits_of(data, group)
  return parse_limits(call('HGET', data, LIMITS_TAG .. group))
end

local function in_flight_of(data, group)
  return math.max(job.int_field(data, IN_FLIGHT_TAG .. group) or 0, 0)
end

-- Whether `in_flight` tasks hold a group at its cap (0: no cap).
local function is_at_cap(in_flight, cap)
  return cap > 0 and in_flight >= cap
end

-- Adds `by` (or takes it off) to the count of capped groups.
local function count_capped(data, by)
  local after = (job.int_field(data, CAPPED) or 0) + by
  if after <= 0 then
    call('HDEL', data, CAPPED)
  else
    call('HSET', data, CAPPED, int_text(after))
  end
end

-- What one claim knows of a group (logic/groups.rs `Share`): its limits,
-- tasks in flight and claim times inside its window at `now_ms`, read by
-- `field` (a field's value or nil), and what the claim took of it since.
local function share_of(field, group, now_ms)
  local limits = parse_limits(field(LIMITS_TAG .. group))
  local log = {}
  if limits.rate then
    local oldest_kept = now_ms - limits.rate.window_ms
    for _, at in ipairs(integers(field(LOG_TAG .. group))) do
      if at > oldest_kept then
        log[#log + 1] = at
      end
    end
  end
  local in_flight = job.int_of(field(IN_FLIGHT_TAG .. group)) or 0
  return { limits = limits, in_flight = math.max(in_flight, 0), log = log, taken = 0, entered = 0 }
end

local function is_capped(share)
  return is_at_cap(share.in_flight + share.entered, share.limits.cap)
end

local function is_rate_limited(share)
  local rate = share.limits.rate
  return rate ~= nil and #share.log + share.taken >= rate.limit
end

-- Whether the claim may take one more task of the group: within its rate
-- window, and when it `enters` flight (a leased claim from a queue), within
-- its cap. Counts it when it may.
local function take(share, enters)
  local cap, rate = share.limits.cap, share.limits.rate
  local within_cap = not enters or cap == 0 or share.in_flight + share.entered < cap
  local within_rate = rate == nil or #share.log + share.taken < rate.limit
  if within_cap and within_rate then
    share.taken = share.taken + 1
    if enters then
      share.entered = share.entered + 1
    end
    return true
  end
  return false
end

-- What one claim took of each group, across its lanes (commands/groups.rs
-- `Admission`): read from the DATA hash as it meets each group, written
-- back as each lane's claim ends.
local Admission = {}
Admission.__index = Admission

function groups.admission(now_ms)
  return setmetatable({ now_ms = now_ms, shares = {}, met = {} }, Admission)
end

-- Whether the claim may take `task` of the queue whose data is `data`;
-- `enters` when it enters flight (not a redelivery from its in-flight set).
function Admission:admit(data, task, enters)
  local group = call('HGET', data, job.GROUP .. task)
  if not group then
    return true
  end
  local share = self.shares[group]
  if not share then
    share = share_of(function(field) return call('HGET', data, field) end, group, self.now_ms)
    self.shares[group] = share
    self.met[#self.met + 1] = group
  end
  return take(share, enters)
end

-- Writes what the claim took since the last write: each group's tasks in
-- flight, its log of claims, the count of capped groups.
function Admission:write(data)
  for _, group in ipairs(self.met) do
    local share = self.shares[group]
    if share.taken > 0 then
      if share.entered > 0 then
        local was_capped = is_at_cap(share.in_flight, share.limits.cap)
        local in_flight = share.in_flight + share.entered
        call('HSET', data, IN_FLIGHT_TAG .. group, int_text(in_flight))
        if is_capped(share) and not was_capped then
          count_capped(data, 1)
        end
        share.in_flight = in_flight
      end
      if share.limits.rate then
        for _ = 1, share.taken do
          share.log[#share.log + 1] = self.now_ms
        end
        call('HSET', data, LOG_TAG .. group, log_text(share.log))
      end
      share.taken, share.entered = 0, 0
    end
  end
end

-- `task` left flight (acked, handed back, buried): its group, if any, gets
-- its slot back.
function groups.release(data, task)
  local group = call('HGET', data, job.GROUP .. task)
  if not group then
    return
  end
  local in_flight = in_flight_of(data, group)
  if in_flight == 0 then
    return
  end
  local after = in_flight - 1
  if after == 0 then
    call('HDEL', data, IN_FLIGHT_TAG .. group)
  else
    call('HSET', data, IN_FLIGHT_TAG .. group, int_text(after))
  end
  local cap = limits_of(data, group).cap
  if is_at_cap(in_flight, cap) and not is_at_cap(after, cap) then
    count_capped(data, -1)
  end
end

-- -> 1 when the group has limits now, 0 when they were removed.
handlers['delay.group'] = function(v)
  local queue, data, group, cap_given, rate_given = v[1], v[2], v[3], v[4], v[5]
  local cap = 0
  if cap_given ~= false then
    cap = tonumber(cap_given)
    if cap < 1 then
      rt.out_of_range('CAP', rt.bound.POSITIVE_INTEGER)
    end
  end
  local rate
  if rate_given ~= false then
    local window_ms, limit = tonumber(rate_given[1]), tonumber(rate_given[2])
    if not (limit >= 1 and limit <= LIMITS.GROUP_MAX_RATE) then
      rt.out_of_range('limit', rt.bound.GROUP_RATE)
    end
    if not (window_ms >= 1 and window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    rate = { limit = limit, window_ms = window_ms }
  end
  job.check_data_key(data, queue)
  rt.zcard(queue)
  call('HLEN', data)
  local limits = { cap = cap, rate = rate }
  local in_flight = in_flight_of(data, group)
  local was_capped = is_at_cap(in_flight, limits_of(data, group).cap)
  local capped = is_at_cap(in_flight, cap)
  local has_limits = cap > 0 or rate ~= nil
  if has_limits then
    call('HSET', data, LIMITS_TAG .. group, limits_text(limits))
  else
    call('HDEL', data, LIMITS_TAG .. group)
  end
  if not rate then
    call('HDEL', data, LOG_TAG .. group)
  end
  if capped ~= was_capped then
    count_capped(data, capped and 1 or -1)
  end
  return has_limits and 1 or 0
end

-- -> `[[group, inflight, cap, rate-limit, window-ms, capped, rate-limited],
-- ...]`, by group.
handlers['delay.groups'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  local values, names = {}, {}
  for i = 1, #fields, 2 do
    values[fields[i]] = fields[i + 1]
    if fields[i]:sub(1, #LIMITS_TAG) == LIMITS_TAG then
      names[#names + 1] = fields[i]:sub(#LIMITS_TAG + 1)
    end
  end
  table.sort(names, function(a, b) return rt.compare_bytes(a, b) < 0 end)
  local now = rt.now_ms()
  local rows = {}
  local function field(name)
    return values[name]
  end
  for i, group in ipairs(names) do
    local share = share_of(field, group, now)
    local limits, rate = share.limits, share.limits.rate
    rows[i] = {
      group, share.in_flight, limits.cap, rate and rate.limit or 0, rate and rate.window_ms or 0,
      is_capped(share) and 1 or 0, is_rate_limited(share) and 1 or 0,
    }
  end
  return rows
end
end

-- delay.lua ----------------------------------------------------------------
do
-- DELAY: a delayed-task queue with leases and dead letters
-- (src/commands/delay.rs, src/logic/delay.rs). DELAY.BPOLL blocks, which a
-- script cannot: workers call DELAY.POLL and wait between empty polls.

local int_text, arg_score = rt.int_text, rt.arg_score
local MAX_DEAD_PER_POLL = LIMITS.MAX_DEAD_PER_POLL
local MAX_SKIPPED_PER_POLL = LIMITS.MAX_SKIPPED_PER_POLL
local TRIM_SPARE, EXPIRED_REASON = LIMITS.JOB_TRIM_SPARE, LIMITS.JOB_EXPIRED_REASON
local job = rt.job
local LEASE_OUT_OF_RANGE = function()
  rt.out_of_range('lease', rt.bound.DURATION_MS)
end

-- The most a LIMIT asks for: any count above a sorted set's size is as good.
local LIMIT_CAP = rt.TWO_53

local function limit_text(count)
  if count > LIMIT_CAP then
    count = LIMIT_CAP
  end
  return int_text(count)
end

-- The tasks' names, and the tasks scored `score` alike (for ZADD).
local function names(tasks)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = task[1]
  end
  return out
end

local function scored(tasks, score)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = { task[1], score }
  end
  return out
end

-- A queue (`key`), the sorted sets its lease names (`lease`) and what the
-- poll does with its data (`jobs`: the DATA hash, WITHDATA, the WORKER).
local Queue = {}
Queue.__index = Queue

-- `admission`: with the queue's data, what the claim took of each group,
-- across its lanes (groups.lua).
local function queue_of(key, lease, jobs, admission)
  return setmetatable({ key = key, lease = lease, jobs = jobs, admission = admission }, Queue)
end

-- The queue is the in-flight set it leases into: every task it holds was
-- delivered before.
function Queue:polls_its_inflight_set()
  return self.lease ~= nil and self.lease.inflight == self.key
end

-- Whether the claim may take `task`: its group, if any, within its limits.
-- A redelivery from the in-flight set holds its group's slot already.
function Queue:admit(task)
  local enters = self.lease ~= nil and not self:polls_its_inflight_set()
  return self.admission:admit(self.jobs.data, task, enters)
end

-- The bound of the tasks due at `now_ms`, as ZRANGE BYSCORE reads it: a
-- task is due for the whole of its millisecond (logic/delay.rs `due_bound`,
-- the double just below now + 1).
local function due_bound(now_ms)
  return '(' .. int_text(now_ms + 1)
end

-- Up to `count` tasks due at `now_ms`, earliest first: {{task, due}, ...}.
function Queue:due(now_ms, count)
  return rt.pairs_of(rt.call('ZRANGE', self.key, '-inf', due_bound(now_ms), 'BYSCORE', 'LIMIT', '0',
    limit_text(count), 'WITHSCORES'))
end

-- A claim of one task (the usual poll) writes it without the lists of
-- names and pairs the calls of several build.
function Queue:take(tasks)
  if #tasks == 1 then
    rt.call('ZREM', self.key, tasks[1][1])
  else
    rt.members_call('ZREM', self.key, names(tasks))
  end
end

function Queue:lease_tasks(tasks, until_ms)
  if #tasks == 1 then
    rt.call('ZADD', self.lease.inflight, rt.arg_score(until_ms), tasks[1][1])
  else
    rt.zadd_pairs(self.lease.inflight, scored(tasks, until_ms))
  end
end

function Queue:deliveries(tasks)
  local counts = {}
  for i, task in ipairs(tasks) do
    counts[i] = rt.zscore(self.lease.deliveries, task[1]) or 0
  end
  return counts
end

function Queue:count_delivery(tasks)
  for _, task in ipairs(tasks) do
    rt.call('ZINCRBY', self.lease.deliveries, '1', task[1])
  end
end

-- Each task's not-started-by deadline (unix ms), or false.
function Queue:deadlines(tasks)
  local out = {}
  for i, task in ipairs(tasks) do
    out[i] = job.int_field(self.jobs.data, job.DEADLINE .. task[1]) or false
  end
  return out
end

-- The oldest dead tasks past dead-letters-max, and those older than
-- dead-letters-max-age-ms, after a claim buried `buried` of them
-- (commands/delay.rs `trim_dead_letters`), removed; returns them.
local function trim_dead_letters(dead, buried, now_ms)
  local max, max_age = CONFIG['dead-letters-max'], CONFIG['dead-letters-max-age-ms']
  local trimmed = {}
  if max > 0 then
    local over = rt.zcard(dead) - max
    if over > buried + TRIM_SPARE then
      over = buried + TRIM_SPARE
    end
    if over > 0 then
      trimmed = rt.call('ZRANGE', dead, '0', int_text(over - 1))
    end
  end
  if max_age > 0 then
    -- Both are runs from the oldest: past the ones already taken.
    local older = rt.call('ZRANGE', dead, '-inf', '(' .. arg_score(now_ms - max_age), 'BYSCORE', 'LIMIT',
      int_text(#trimmed), int_text(TRIM_SPARE + buried))
    for _, task in ipairs(older) do
      trimmed[#trimmed + 1] = task
    end
  end
  rt.members_call('ZREM', dead, trimmed)
  return trimmed
end

-- Moves dead tasks (taken from the queue) into the dead-letter set, scored
-- by now, and forgets their counts; with the queue's data, their history
-- says how they died (`expired`: their deadline passed).
function Queue:bury(tasks, now_ms, expired)
  local died_with
  if self.jobs and not expired then
    died_with = self:deliveries(tasks)
  end
  rt.zadd_pairs(self.lease.dead, scored(tasks, now_ms))
  local trimmed = trim_dead_letters(self.lease.dead, #tasks, now_ms)
  rt.members_call('ZREM', self.lease.deliveries, names(tasks))
  if self.jobs then
    local data = self.jobs.data
    for i, task in ipairs(tasks) do
      local name = task[1]
      rt.call('HSET', data, job.DIED_WITH .. name, died_with and job.count_text(died_with[i]) or '0')
      if expired then
        rt.call('HSET', data, job.REASON .. name, EXPIRED_REASON)
      end
      rt.call('HDEL', data, job.DEADLINE .. name)
      rt.call('HDEL', data, job.WORKER .. name)
    end
    for _, name in ipairs(trimmed) do
      job.delete_data(data, name)
    end
    -- Dead while in flight (redelivered from its in-flight set): its
    -- group's slot comes free.
    if self:polls_its_inflight_set() then
      for _, task in ipairs(tasks) do
        rt.groups.release(data, task[1])
      end
    end
  end
end

-- Forgets expired tasks (taken from the queue) and their data: a poll
-- without dead letters drops them.
function Queue:drop_expired(tasks)
  for _, task in ipairs(tasks) do
    job.delete_data(self.jobs.data, task[1])
  end
end

-- The claimed tasks were delivered, leased or not: with WITHDATA, each
-- one's payload and deliveries for the reply; their data learns it (a
-- deadline no longer applies once a task started; a task polled without a
-- lease is done, data and all).
function Queue:delivered(tasks, now_ms)
  local jobs = self.jobs
  local infos
  if jobs.with_data then
    infos = {}
    for i, task in ipairs(tasks) do
      local deliveries = self.lease and self.lease.deliveries and job.count_of(rt.zscore(self.lease.deliveries, task[1]))
      infos[i] = { rt.call('HGET', jobs.data, job.PAYLOAD .. task[1]) or rt.NULL, deliveries or rt.NULL }
    end
  end
  for _, task in ipairs(tasks) do
    local name = task[1]
    if not self.lease then
      job.delete_data(jobs.data, name)
    else
      rt.call('HDEL', jobs.data, job.DEADLINE .. name)
      if jobs.worker then
        rt.call('HSET', jobs.data, job.WORKER .. name, jobs.worker)
      end
    end
  end
  if self.admission then
    self.admission:write(jobs.data)
  end
  -- An occurrence of a repeating job claimed: its next one is queued.
  for _, task in ipairs(tasks) do
    rt.schedules.advance(self.key, jobs.data, task[1], now_ms)
  end
  return infos
end

-- Due tasks split into those to deliver (up to count), those delivered
-- max_deliveries times already and those past their not-started-by
-- deadline (logic/delay.rs `sort_out`), at most MAX_DEAD_PER_POLL of the
-- two; the tasks of a group at its limits are passed over, at most
-- MAX_SKIPPED_PER_POLL of them.
local function sort_out(queue, now_ms, count, max_deliveries)
  local live, dead, expired = {}, {}, {}
  local seen, limit, skipped = 0, count, 0
  local function done()
    return #live == count or #dead + #expired == MAX_DEAD_PER_POLL or skipped == MAX_SKIPPED_PER_POLL
  end
  while true do
    local batch = queue:due(now_ms, limit)
    local exhausted = #batch < limit
    local fresh = {}
    for i = seen + 1, #batch do
      fresh[#fresh + 1] = batch[i]
    end
    seen = seen + #fresh
    local deliveries = max_deliveries and queue:deliveries(fresh) or {}
    local deadlines = queue.jobs and queue:deadlines(fresh) or {}
    for i, task in ipairs(fresh) do
      if done() then
        return live, dead, expired
      end
      local deadline = deadlines[i]
      if max_deliveries and deliveries[i] >= max_deliveries then
        dead[#dead + 1] = task
      elseif deadline and deadline < now_ms then
        expired[#expired + 1] = task
      elseif queue.admission and not queue:admit(task[1]) then
        skipped = skipped + 1
      else
        live[#live + 1] = task
      end
    end
    if exhausted or done() then
      return live, dead, expired
    end
    limit = limit * 2
  end
end

-- Claims up to `count` due tasks at `now_ms` (logic/delay.rs `claim`);
-- `first`, the tasks due, when a poll without dead letters or data read
-- them. -> the tasks delivered (nil: none), and with WITHDATA their infos.
local function claim(queue, now_ms, count, first)
  local lease = queue.lease
  local max_deliveries = lease and lease.max_deliveries
  local live, dead, expired
  if max_deliveries or queue.jobs then
    live, dead, expired = sort_out(queue, now_ms, count, max_deliveries)
  else
    live, dead, expired = first, {}, {}
  end
  if #dead > 0 or #expired > 0 then
    rt.reach('burial')
  end
  if #dead > 0 then
    queue:take(dead)
    queue:bury(dead, now_ms, false)
  end
  if #expired > 0 then
    queue:take(expired)
    if max_deliveries then
      queue:bury(expired, now_ms, true)
    else
      queue:drop_expired(expired)
    end
  end
  if #live == 0 then
    return nil
  end
  queue:take(live)
  if lease then
    queue:lease_tasks(live, lease.until_ms)
    if max_deliveries then
      queue:count_delivery(live)
    end
  end
  local infos
  if queue.jobs then
    infos = queue:delivered(live, now_ms)
  end
  return live, infos
end

-- Whether a claim from `queue` at `now_ms` would deliver a task, looked at
-- without writing (logic/delay.rs `outlook`).
local function deliverable(queue, now_ms)
  local max_deliveries = queue.lease and queue.lease.max_deliveries
  if max_deliveries or queue.jobs then
    return #sort_out(queue, now_ms, 1, max_deliveries) > 0
  end
  return #queue:due(now_ms, 1) > 0
end

-- Claims up to `count` due tasks from `lanes` in the order given, a lane
-- only for what the lanes before it left of `count`; `first`, the first
-- lane's due tasks when a poll without dead letters or data read them.
-- -> the tasks delivered, and with WITHDATA their infos.
local function claim_lanes(lanes, lease, jobs, now_ms, count, first)
  local tasks, infos = {}, jobs and jobs.with_data and {} or nil
  local admission = jobs and rt.groups.admission(now_ms)
  for i, key in ipairs(lanes) do
    local wanted = count - #tasks
    if wanted == 0 then
      break
    end
    local queue = queue_of(key, lease, jobs, admission)
    local lane_first = first
    if i > 1 and first then
      lane_first = queue:due(now_ms, wanted)
    end
    local live, lane_infos = claim(queue, now_ms, wanted, lane_first)
    for j, task in ipairs(live or {}) do
      tasks[#tasks + 1] = task
      if infos then
        infos[#infos + 1] = lane_infos[j]
      end
    end
  end
  return tasks, infos
end

-- The reply of a poll's claim of `tasks` (with WITHDATA their `infos`),
-- and with RATE the retry-after.
local function poll_reply(tasks, infos, lease, with_tokens, rate, retry_after_ms)
  local reply = {}
  for i, task in ipairs(tasks) do
    if infos then
      reply[i] = { task[1], rt.double(task[2]), lease and lease.until_ms or rt.NULL, infos[i][1], infos[i][2] }
    elseif with_tokens then
      reply[i] = { task[1], rt.double(task[2]), lease.until_ms }
    else
      reply[i] = { task[1], rt.double(task[2]) }
    end
  end
  if rate then
    return { reply, retry_after_ms or -1 }
  end
  return reply
end

-- -> `[[member, due-ms], ...]` (with WITHTOKENS `[[member, due-ms, token],
-- ...]`, with WITHDATA `[[member, due-ms, token, payload, deliveries], ...]`);
-- with RATE `[those, retry-after-ms]`.
handlers['delay.poll'] = function(v)
  local key, count, lease_given, dead_letter, with_tokens = v[1], v[2], v[3], v[4], v[5]
  local data, with_data, worker, rate_given, lanes_given = v[6], v[7], v[8], v[9], v[10]
  if with_tokens and lease_given == false then
    rt.fail(ERRORS.tokens_without_lease)
  end
  if data == false then
    if with_data then
      job.needs_data('WITHDATA')
    end
    if worker ~= false then
      job.needs_data('WORKER')
    end
  end
  if worker ~= false and lease_given == false then
    rt.fail(ERRORS.job_worker_without_lease)
  end
  count = count == false and 1 or rt.positive(count, 'count')
  local max_deliveries
  if dead_letter ~= false then
    max_deliveries = rt.positive(dead_letter[3], 'max-deliveries')
  end
  local lease
  if lease_given ~= false then
    local ms = tonumber(lease_given[2])
    if not (ms >= 1 and ms <= rt.MAX_DURATION_MS) then
      LEASE_OUT_OF_RANGE()
    end
    lease = { inflight = lease_given[1], ms = ms, max_deliveries = max_deliveries }
    if dead_letter ~= false then
      lease.dead, lease.deliveries = dead_letter[1], dead_letter[2]
    end
  elseif dead_letter ~= false then
    rt.fail(ERRORS.dead_letter_without_lease)
  end
  local rate
  if rate_given ~= false then
    rate = { log = rate_given[1], window_ms = tonumber(rate_given[2]), limit = tonumber(rate_given[3]) }
    if not (rate.window_ms >= 1 and rate.window_ms <= rt.MAX_DURATION_MS) then
      rt.out_of_range('window', rt.bound.DURATION_MS)
    end
    if not (rate.limit >= 1 and rate.limit <= LIMITS.RATE_MAX_LIMIT) then
      rt.out_of_range('limit', rt.bound.RATE_LIMIT)
    end
  end
  local lanes = { key }
  if lanes_given then
    for _, lane in ipairs(lanes_given) do
      lanes[#lanes + 1] = lane
    end
  end
  local jobs
  if data ~= false then
    jobs = { data = data, with_data = with_data, worker = worker ~= false and worker or nil }
    job.check_data_key(data, lease and lease.inflight, lease and lease.dead, lease and lease.deliveries, unpack(lanes))
    rt.call('HLEN', data)
    -- A paused queue delivers nothing and writes nothing.
    if job.is_paused(data) then
      return poll_reply({}, nil, lease, with_tokens, rate)
    end
  end
  if lease then
    rt.zcard(lease.inflight)
    if lease.dead then
      for _, lane in ipairs(lanes) do
        local tasks = { [lane] = true, [lease.inflight] = true }
        if tasks[lease.dead] or tasks[lease.deliveries] or lease.dead == lease.deliveries then
          rt.fail(ERRORS.shared_dead_letter_key)
        end
      end
      rt.zcard(lease.dead)
      rt.zcard(lease.deliveries)
    end
  end
  -- The first lane is checked by its first read, before any write; the
  -- others now, since the first may write before they are read.
  for i = 2, #lanes do
    if rt.zcard(lanes[i]) > 0 then
      rt.check_delay_queue((rt.sample(lanes[i], false)))
    end
  end
  local now = rt.now_ms()
  local queue = queue_of(key, lease, jobs)
  if rate then
    local written = { lease and lease.inflight, lease and lease.dead, lease and lease.deliveries }
    for _, lane in ipairs(lanes) do
      written[#written + 1] = lane
    end
    for i = 1, 3 + #lanes do
      if written[i] == rate.log then
        rt.fail(ERRORS.shared_rate_log)
      end
    end
    local room, retry_after_ms = rt.rate_window.room(rate.log, now, rate.window_ms, rate.limit)
    if not room then
      -- Limited only when a claim would deliver: nothing is spent either way.
      local admission = jobs and rt.groups.admission(now)
      for _, lane in ipairs(lanes) do
        if deliverable(queue_of(lane, lease, jobs, admission), now) then
          return poll_reply({}, nil, lease, with_tokens, rate, retry_after_ms)
        end
      end
      return poll_reply({}, nil, lease, with_tokens, rate)
    end
    if room < count then
      count = room
    end
  end
  -- Due times, not another family's scores: a gift board's totals would all
  -- be due, and claimed away. The tasks due are the queue's lowest, which
  -- the check reads (and the lowest two only when the lowest could begin
  -- an IDMP seen-key, or when none is due).
  local first
  if max_deliveries == nil and jobs == nil then
    first = queue:due(now, count)
  end
  if first and first[1] and rt.idmp_entry(first[1][2]) ~= 'id' then
    rt.check_delay_queue(first)
  elseif rt.zcard(key) > 0 then
    rt.check_delay_queue((rt.sample(key, false)))
  end
  if lease then
    lease.until_ms = rt.deadline(now, lease.ms)
    if lease.until_ms == nil then
      LEASE_OUT_OF_RANGE()
    end
  end
  if #lanes > 1 and (max_deliveries or jobs) then
    -- A lane may bury tasks after the lanes before it wrote: the caller's
    -- ACL is asked about the burial before the first write.
    rt.reach('burial')
  end
  local tasks, infos = claim_lanes(lanes, lease, jobs, now, count, first)
  if rate and #tasks > 0 then
    rt.rate_window.spend(rate.log, now, rate.window_ms, #tasks)
  end
  return poll_reply(tasks, infos, lease, with_tokens, rate)
end

-- Whether the token `token` (an integer's text, as the call gave it) names
-- the delivery whose lease ends at `lease_end`: a delivery's token is its
-- lease's end (logic/delay.rs `is_delivery`). A token the double it reads
-- as does not print back names no lease.
local function is_delivery(lease_end, token)
  local value = tonumber(token)
  return lease_end ~= nil and lease_end == value and string.format('%.0f', value) == token
end

-- -> how many were removed.
handlers['delay.ack'] = function(v)
  local inflight, deliveries, data, acked = v[1], v[2], v[3], v[4]
  if deliveries == false and data == false and acked.choice == 1 then
    -- Tasks without tokens and no counts or data to drop: ZREM removes each
    -- task in flight once, and counts them.
    return rt.members_call('ZREM', inflight, acked.value)
  end
  if data ~= false then
    job.check_data_key(data, inflight, deliveries)
  end
  if deliveries ~= false then
    rt.zcard(deliveries)
  end
  if data ~= false then
    rt.call('HLEN', data)
  end
  -- {task, token or nil} for each task named.
  local named_deliveries = {}
  if acked.choice == 1 then
    for i, task in ipairs(acked.value) do
      named_deliveries[i] = { task }
    end
  else
    for i, lease in ipairs(acked.value) do
      named_deliveries[i] = { lease[1], lease[2] }
    end
  end
  -- The tasks in flight (with a token, under the delivery it names), each
  -- once, removed in one ZREM.
  local removed, named = {}, {}
  if rt.zcard(inflight) > 0 then
    for _, delivery in ipairs(named_deliveries) do
      local task, token = delivery[1], delivery[2]
      if not named[task] then
        local lease_end = rt.zscore(inflight, task)
        if lease_end ~= nil and (token == nil or is_delivery(lease_end, token)) then
          removed[#removed + 1] = task
          named[task] = true
        end
      end
    end
  end
  if #removed == 0 then
    return 0
  end
  rt.members_call('ZREM', inflight, removed)
  -- Only the counts of tasks that were in flight: a task handed back with
  -- DELAY.NACK keeps counting towards its dead letter.
  if deliveries ~= false then
    rt.members_call('ZREM', deliveries, removed)
  end
  if data ~= false then
    for _, task in ipairs(removed) do
      rt.groups.release(data, task)
      job.delete_data(data, task)
    end
  end
  return #removed
end

-- The lease is held while it ends after the millisecond now (at now + 1 or
-- later), with a token by the delivery it names (logic/delay.rs `holds`).
local function holds(lease_end, token, now_ms)
  return lease_end ~= nil and lease_end >= now_ms + 1 and (token == nil or is_delivery(lease_end, token))
end

-- A token argument, or nil when not given.
local function token_of(given)
  if given == false then
    return nil
  end
  return given
end

-- -> 1 when moved, else 0.
handlers['delay.nack'] = function(v)
  local inflight, queue, task, delay_ms = v[1], v[2], v[3], tonumber(v[4])
  local token, data, reason = token_of(v[5]), v[6], v[7]
  if reason ~= false and data == false then
    job.needs_data('REASON')
  end
  local now = rt.now_ms()
  local due
  if delay_ms == 0 then
    due = now
  else
    due = rt.deadline(now, delay_ms)
  end
  if due == nil then
    rt.out_of_range('delay', rt.bound.DELAY_MS)
  end
  if data ~= false then
    job.check_data_key(data, inflight, queue)
    rt.call('HLEN', data)
  end
  rt.zcard(queue)
  local lease_end = rt.zcard(inflight) > 0 and rt.zscore(inflight, task) or nil
  if not holds(lease_end, token, now) then
    return 0
  end
  if inflight ~= queue then
    rt.call('ZREM', inflight, task)
  end
  rt.call('ZADD', queue, int_text(due), task)
  if data ~= false then
    rt.call('HDEL', data, job.WORKER .. task)
    if reason ~= false then
      rt.call('HSET', data, job.REASON .. task, reason)
    end
    -- Out of flight until claimed again: its group's slot comes free.
    if inflight ~= queue then
      rt.groups.release(data, task)
    end
  end
  return 1
end

-- -> 1 when the lease was extended, else 0; with a token, the delivery's
-- new token, else 0.
handlers['delay.touch'] = function(v)
  local inflight, task, ms = v[1], v[2], tonumber(v[3])
  local token = token_of(v[4])
  local now = rt.now_ms()
  local until_ms = rt.deadline(now, ms)
  if until_ms == nil then
    LEASE_OUT_OF_RANGE()
  end
  local lease_end = rt.zscore(inflight, task)
  if not holds(lease_end, token, now) then
    return 0
  end
  rt.call('ZADD', inflight, int_text(until_ms), task)
  if token ~= nil then
    return until_ms
  end
  return 1
end

-- How long a queue's earliest task has been due at now (0 before it is),
-- since its millisecond (logic/stats.rs `due_age_ms`); a task scored below
-- 0 counts as due since the unix epoch.
local function due_age_ms(earliest, now_ms)
  if earliest >= now_ms + 1 then
    return 0
  end
  return now_ms - math.floor(earliest > 0 and earliest or 0)
end

-- The next due time of a score above now: its millisecond; nil for +inf
-- and scores past any unix-ms clock.
local function due_time_ms(score)
  if score == score and score ~= math.huge and score ~= -math.huge and score < rt.TWO_53 then
    return math.floor(score)
  end
  return rt.NULL
end

-- -> `[now-ms, tasks, due, oldest-due-age-ms, next-due-ms, inflight,
-- expired, dead, redelivered, paused]` by name.
handlers['delay.stats'] = function(v)
  local queue, inflight, dead, deliveries, data = v[1], v[2], v[3], v[4], v[5]
  -- Every type first: a WRONGTYPE answers before any count.
  if data ~= false then
    rt.call('HLEN', data)
  end
  local tasks = rt.zcard(queue)
  local function set_len(key)
    return key ~= false and rt.zcard(key) or rt.NULL
  end
  local inflight_len, dead_len = set_len(inflight), set_len(dead)
  set_len(deliveries)
  local now = rt.now_ms()
  local due = due_bound(now)
  local earliest, next_due
  if tasks > 0 then
    local first = rt.call('ZRANGE', queue, '0', '0', 'WITHSCORES')
    earliest = first[2] and tonumber(first[2])
    local later = rt.call('ZRANGE', queue, int_text(now + 1), '+inf', 'BYSCORE', 'LIMIT', '0', '1', 'WITHSCORES')
    next_due = later[2] and tonumber(later[2])
  end
  local function count(key, min, max)
    return rt.call('ZCOUNT', key, min, max)
  end
  local due_now = 0
  if earliest ~= nil and earliest < now + 1 then
    due_now = count(queue, '-inf', due)
  end
  local expired = inflight ~= false and count(inflight, '-inf', due) or rt.NULL
  local redelivered = deliveries ~= false and count(deliveries, '2', '+inf') or rt.NULL
  return {
    'now-ms', now,
    'tasks', tasks,
    'due', due_now,
    'oldest-due-age-ms', earliest ~= nil and due_age_ms(earliest, now) or 0,
    'next-due-ms', next_due ~= nil and due_time_ms(next_due) or rt.NULL,
    'inflight', inflight_len,
    'expired', expired,
    'dead', dead_len,
    'redelivered', redelivered,
    'paused', data ~= false and (job.is_paused(data) and 1 or 0) or rt.NULL,
    'capped-groups', data ~= false and job.capped_groups(data) or rt.NULL,
  }
end
end

-- The declarations (docs/commands.json) -------------------------------------
local COMMANDS = {}
COMMANDS['rank.gift'] = rt.declare('rank.gift', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'amount', kind = 'integer' },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
}, -4, natives['rank.gift'])
COMMANDS['rank.set'] = rt.declare('rank.set', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'total', kind = 'integer' },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'condition', kind = 'oneof', optional = true, args = {
    { name = 'gt', kind = 'pure-token', token = 'GT' },
    { name = 'lt', kind = 'pure-token', token = 'LT' },
  } },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
}, -4, natives['rank.set'])
COMMANDS['rank.get'] = rt.declare('rank.get', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
}, -3, natives['rank.get'])
COMMANDS['rank.top'] = rt.declare('rank.top', {
  { name = 'key', kind = 'key' },
  { name = 'count', kind = 'integer' },
  { name = 'offset', kind = 'integer', token = 'OFFSET', optional = true },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
}, -3, natives['rank.top'])
COMMANDS['rank.around'] = rt.declare('rank.around', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'radius', kind = 'integer' },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
}, -4, natives['rank.around'])
COMMANDS['rank.merge'] = rt.declare('rank.merge', {
  { name = 'destkey', kind = 'key' },
  { name = 'numkeys', kind = 'integer' },
  { name = 'key', kind = 'key', multiple = true, counted_by = 'numkeys' },
  { name = 'weight', kind = 'integer', token = 'WEIGHTS', optional = true, multiple = true, counted_by = 'numkeys' },
  { name = 'step', kind = 'block', token = 'STEP', optional = true, args = {
    { name = 'count', kind = 'integer' },
    { name = 'staging', kind = 'key' },
    { name = 'cursor', kind = 'string' },
  } },
}, -4, natives['rank.merge'])
COMMANDS['rank.mgift'] = rt.declare('rank.mgift', {
  { name = 'numkeys', kind = 'integer' },
  { name = 'key', kind = 'key', multiple = true, counted_by = 'numkeys' },
  { name = 'member', kind = 'string' },
  { name = 'amount', kind = 'integer' },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
}, -5, natives['rank.mgift'])
COMMANDS['rank.mget'] = rt.declare('rank.mget', {
  { name = 'key', kind = 'key' },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
  { name = 'member', kind = 'string', token = 'MEMBERS', multiple = true },
}, -3, natives['rank.mget'])
COMMANDS['rank.stats'] = rt.declare('rank.stats', {
  { name = 'key', kind = 'key' },
}, 2, natives['rank.stats'])
COMMANDS['rank.percentile'] = rt.declare('rank.percentile', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
}, 3, natives['rank.percentile'])
COMMANDS['rank.quantile'] = rt.declare('rank.quantile', {
  { name = 'key', kind = 'key' },
  { name = 'percentile', kind = 'double' },
}, 3, natives['rank.quantile'])
COMMANDS['rank.count'] = rt.declare('rank.count', {
  { name = 'key', kind = 'key' },
  { name = 'min', kind = 'string' },
  { name = 'max', kind = 'string' },
}, 4, natives['rank.count'])
COMMANDS['rank.range'] = rt.declare('rank.range', {
  { name = 'key', kind = 'key' },
  { name = 'max', kind = 'string' },
  { name = 'min', kind = 'string' },
  { name = 'limit', kind = 'block', token = 'LIMIT', optional = true, args = {
    { name = 'offset', kind = 'integer' },
    { name = 'count', kind = 'integer' },
  } },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
}, -4, natives['rank.range'])
COMMANDS['rank.among'] = rt.declare('rank.among', {
  { name = 'key', kind = 'key' },
  { name = 'shared', kind = 'pure-token', token = 'SHARED', optional = true },
  { name = 'member', kind = 'string', token = 'MEMBERS', multiple = true },
}, -3, natives['rank.among'])
COMMANDS['feed.add'] = rt.declare('feed.add', {
  { name = 'key', kind = 'key' },
  { name = 'n', kind = 'integer', token = 'CAP', optional = true },
  { name = 'data', kind = 'block', multiple = true, args = {
    { name = 'score', kind = 'double' },
    { name = 'member', kind = 'string' },
  } },
}, -4, natives['feed.add'])
COMMANDS['feed.page'] = rt.declare('feed.page', {
  { name = 'key', kind = 'key' },
  { name = 'count', kind = 'integer', token = 'COUNT', optional = true },
  { name = 'direction', kind = 'oneof', optional = true, args = {
    { name = 'cursor', kind = 'string', token = 'NEWER' },
    { name = 'cursor', kind = 'string', token = 'OLDER' },
  } },
}, -2, natives['feed.page'])
COMMANDS['delay.poll'] = rt.declare('delay.poll', {
  { name = 'key', kind = 'key' },
  { name = 'count', kind = 'integer', token = 'COUNT', optional = true },
  { name = 'lease', kind = 'block', token = 'LEASE', optional = true, args = {
    { name = 'inflight', kind = 'key' },
    { name = 'ms', kind = 'integer' },
  } },
  { name = 'deadletter', kind = 'block', token = 'DEADLETTER', optional = true, args = {
    { name = 'dead', kind = 'key' },
    { name = 'deliveries', kind = 'key' },
    { name = 'max-deliveries', kind = 'integer' },
  } },
  { name = 'withtokens', kind = 'pure-token', token = 'WITHTOKENS', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'withdata', kind = 'pure-token', token = 'WITHDATA', optional = true },
  { name = 'name', kind = 'string', token = 'WORKER', optional = true },
  { name = 'rate', kind = 'block', token = 'RATE', optional = true, args = {
    { name = 'log', kind = 'key' },
    { name = 'window-ms', kind = 'integer' },
    { name = 'limit', kind = 'integer' },
  } },
  { name = 'lane', kind = 'key', token = 'LANES', optional = true, multiple = true },
}, -2, natives['delay.poll'])
COMMANDS['delay.bpoll'] = rt.declare('delay.bpoll', {
  { name = 'key', kind = 'key' },
  { name = 'timeout-ms', kind = 'integer' },
  { name = 'count', kind = 'integer', token = 'COUNT', optional = true },
  { name = 'lease', kind = 'block', token = 'LEASE', optional = true, args = {
    { name = 'inflight', kind = 'key' },
    { name = 'ms', kind = 'integer' },
  } },
  { name = 'deadletter', kind = 'block', token = 'DEADLETTER', optional = true, args = {
    { name = 'dead', kind = 'key' },
    { name = 'deliveries', kind = 'key' },
    { name = 'max-deliveries', kind = 'integer' },
  } },
  { name = 'withtokens', kind = 'pure-token', token = 'WITHTOKENS', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'withdata', kind = 'pure-token', token = 'WITHDATA', optional = true },
  { name = 'name', kind = 'string', token = 'WORKER', optional = true },
  { name = 'rate', kind = 'block', token = 'RATE', optional = true, args = {
    { name = 'log', kind = 'key' },
    { name = 'window-ms', kind = 'integer' },
    { name = 'limit', kind = 'integer' },
  } },
  { name = 'lane', kind = 'key', token = 'LANES', optional = true, multiple = true },
}, -3, natives['delay.bpoll'])
COMMANDS['delay.ack'] = rt.declare('delay.ack', {
  { name = 'inflight', kind = 'key' },
  { name = 'deliveries', kind = 'key', token = 'DELIVERIES', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'acked', kind = 'oneof', args = {
    { name = 'task', kind = 'string', token = 'TASKS', multiple = true },
    { name = 'lease', kind = 'block', token = 'LEASES', multiple = true, args = {
      { name = 'task', kind = 'string' },
      { name = 'token', kind = 'integer' },
    } },
  } },
}, -3, natives['delay.ack'])
COMMANDS['delay.nack'] = rt.declare('delay.nack', {
  { name = 'inflight', kind = 'key' },
  { name = 'queue', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'delay-ms', kind = 'integer' },
  { name = 'token', kind = 'integer', token = 'TOKEN', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'reason', kind = 'string', token = 'REASON', optional = true },
}, -5, natives['delay.nack'])
COMMANDS['delay.touch'] = rt.declare('delay.touch', {
  { name = 'inflight', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'ms', kind = 'integer' },
  { name = 'token', kind = 'integer', token = 'TOKEN', optional = true },
}, -4, natives['delay.touch'])
COMMANDS['delay.stats'] = rt.declare('delay.stats', {
  { name = 'queue', kind = 'key' },
  { name = 'inflight', kind = 'key', token = 'INFLIGHT', optional = true },
  { name = 'dead', kind = 'key', token = 'DEAD', optional = true },
  { name = 'deliveries', kind = 'key', token = 'DELIVERIES', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
}, -2, natives['delay.stats'])
COMMANDS['delay.add'] = rt.declare('delay.add', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'inflight', kind = 'key', token = 'INFLIGHT', optional = true },
  { name = 'rule', kind = 'oneof', optional = true, args = {
    { name = 'keep', kind = 'pure-token', token = 'KEEP' },
    { name = 'replace', kind = 'pure-token', token = 'REPLACE' },
    { name = 'extend', kind = 'pure-token', token = 'EXTEND' },
  } },
  { name = 'ms', kind = 'integer', token = 'WITHIN', optional = true },
  { name = 'group', kind = 'string', token = 'GROUP', optional = true },
  { name = 'tasks', kind = 'oneof', args = {
    { name = 'task', kind = 'block', token = 'TASKS', multiple = true, args = {
      { name = 'due-ms', kind = 'integer' },
      { name = 'task', kind = 'string' },
    } },
    { name = 'job', kind = 'block', token = 'JOBS', multiple = true, args = {
      { name = 'due-ms', kind = 'integer' },
      { name = 'task', kind = 'string' },
      { name = 'payload', kind = 'string' },
    } },
  } },
}, -3, natives['delay.add'])
COMMANDS['delay.job'] = rt.declare('delay.job', {
  { name = 'queue', kind = 'key' },
  { name = 'task', kind = 'string' },
  { name = 'inflight', kind = 'key', token = 'INFLIGHT', optional = true },
  { name = 'dead', kind = 'key', token = 'DEAD', optional = true },
  { name = 'deliveries', kind = 'key', token = 'DELIVERIES', optional = true },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
}, -3, natives['delay.job'])
COMMANDS['delay.retry'] = rt.declare('delay.retry', {
  { name = 'dead', kind = 'key' },
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key', token = 'DATA', optional = true },
  { name = 'task', kind = 'string', token = 'TASKS', multiple = true },
}, -4, natives['delay.retry'])
COMMANDS['delay.pause'] = rt.declare('delay.pause', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
}, 3, natives['delay.pause'])
COMMANDS['delay.resume'] = rt.declare('delay.resume', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
}, 3, natives['delay.resume'])
COMMANDS['delay.schedule'] = rt.declare('delay.schedule', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
  { name = 'id', kind = 'string' },
  { name = 'rule', kind = 'oneof', args = {
    { name = 'ms', kind = 'integer', token = 'EVERY' },
    { name = 'expression', kind = 'string', token = 'CRON' },
  } },
  { name = 'zone', kind = 'string', token = 'TZ', optional = true },
  { name = 'unix-ms', kind = 'integer', token = 'START', optional = true },
  { name = 'payload', kind = 'string', token = 'PAYLOAD', optional = true },
}, -6, natives['delay.schedule'])
COMMANDS['delay.unschedule'] = rt.declare('delay.unschedule', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
  { name = 'id', kind = 'string' },
}, 4, natives['delay.unschedule'])
COMMANDS['delay.schedules'] = rt.declare('delay.schedules', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
}, 3, natives['delay.schedules'])
COMMANDS['delay.group'] = rt.declare('delay.group', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
  { name = 'group', kind = 'string' },
  { name = 'cap', kind = 'integer', token = 'CAP', optional = true },
  { name = 'rate', kind = 'block', token = 'RATE', optional = true, args = {
    { name = 'window-ms', kind = 'integer' },
    { name = 'limit', kind = 'integer' },
  } },
}, -4, natives['delay.group'])
COMMANDS['delay.groups'] = rt.declare('delay.groups', {
  { name = 'queue', kind = 'key' },
  { name = 'data', kind = 'key' },
}, 3, natives['delay.groups'])
COMMANDS['rate.hit'] = rt.declare('rate.hit', {
  { name = 'key', kind = 'key' },
  { name = 'cost', kind = 'integer', token = 'COST', optional = true },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
  { name = 'limits', kind = 'block', multiple = true, args = {
    { name = 'window-ms', kind = 'integer' },
    { name = 'limit', kind = 'integer' },
  } },
}, -4, natives['rate.hit'])
COMMANDS['rate.peek'] = rt.declare('rate.peek', {
  { name = 'key', kind = 'key' },
  { name = 'cost', kind = 'integer', token = 'COST', optional = true },
  { name = 'limits', kind = 'block', multiple = true, args = {
    { name = 'window-ms', kind = 'integer' },
    { name = 'limit', kind = 'integer' },
  } },
}, -4, natives['rate.peek'])
COMMANDS['rate.acquire'] = rt.declare('rate.acquire', {
  { name = 'key', kind = 'key' },
  { name = 'holder', kind = 'string' },
  { name = 'lease-ms', kind = 'integer' },
  { name = 'limit', kind = 'integer' },
}, 5, natives['rate.acquire'])
COMMANDS['rate.release'] = rt.declare('rate.release', {
  { name = 'key', kind = 'key' },
  { name = 'holder', kind = 'string' },
  { name = 'token', kind = 'integer', token = 'TOKEN', optional = true },
}, -3, natives['rate.release'])
COMMANDS['rate.stats'] = rt.declare('rate.stats', {
  { name = 'key', kind = 'key' },
  { name = 'window-ms', kind = 'integer', token = 'WINDOWS', multiple = true },
}, -3, natives['rate.stats'])
COMMANDS['recent.add'] = rt.declare('recent.add', {
  { name = 'key', kind = 'key' },
  { name = 'cap', kind = 'integer', token = 'CAP', optional = true },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'member', kind = 'string', token = 'ITEMS', multiple = true },
}, -3, natives['recent.add'])
COMMANDS['vote.cast'] = rt.declare('vote.cast', {
  { name = 'scores', kind = 'key' },
  { name = 'upvoters', kind = 'key' },
  { name = 'downvoters', kind = 'key' },
  { name = 'item', kind = 'string' },
  { name = 'voter', kind = 'string' },
  { name = 'direction', kind = 'oneof', args = {
    { name = 'up', kind = 'pure-token', token = 'UP' },
    { name = 'down', kind = 'pure-token', token = 'DOWN' },
    { name = 'clear', kind = 'pure-token', token = 'CLEAR' },
  } },
  { name = 'weight', kind = 'block', token = 'WEIGHT', optional = true, args = {
    { name = 'up', kind = 'double' },
    { name = 'down', kind = 'double' },
  } },
  { name = 'window', kind = 'block', token = 'WINDOW', optional = true, args = {
    { name = 'times', kind = 'key' },
    { name = 'seconds', kind = 'integer' },
  } },
}, -7, natives['vote.cast'])
COMMANDS['vote.state'] = rt.declare('vote.state', {
  { name = 'upvoters', kind = 'key' },
  { name = 'downvoters', kind = 'key' },
  { name = 'voter', kind = 'string' },
}, 4, natives['vote.state'])

-- Each command's parse, generated from its declaration ---------------------
local PARSES = {}
local KEYWORDS = {
  ['AT'] = 'AT',
  ['at'] = 'AT',
  ['CAP'] = 'CAP',
  ['cap'] = 'CAP',
  ['CLEAR'] = 'CLEAR',
  ['clear'] = 'CLEAR',
  ['COST'] = 'COST',
  ['cost'] = 'COST',
  ['COUNT'] = 'COUNT',
  ['count'] = 'COUNT',
  ['CRON'] = 'CRON',
  ['cron'] = 'CRON',
  ['DATA'] = 'DATA',
  ['data'] = 'DATA',
  ['DEAD'] = 'DEAD',
  ['dead'] = 'DEAD',
  ['DEADLETTER'] = 'DEADLETTER',
  ['deadletter'] = 'DEADLETTER',
  ['DELIVERIES'] = 'DELIVERIES',
  ['deliveries'] = 'DELIVERIES',
  ['DOWN'] = 'DOWN',
  ['down'] = 'DOWN',
  ['EVERY'] = 'EVERY',
  ['every'] = 'EVERY',
  ['EXTEND'] = 'EXTEND',
  ['extend'] = 'EXTEND',
  ['GROUP'] = 'GROUP',
  ['group'] = 'GROUP',
  ['GT'] = 'GT',
  ['gt'] = 'GT',
  ['IDMP'] = 'IDMP',
  ['idmp'] = 'IDMP',
  ['INFLIGHT'] = 'INFLIGHT',
  ['inflight'] = 'INFLIGHT',
  ['ITEMS'] = 'ITEMS',
  ['items'] = 'ITEMS',
  ['JOBS'] = 'JOBS',
  ['jobs'] = 'JOBS',
  ['KEEP'] = 'KEEP',
  ['keep'] = 'KEEP',
  ['LANES'] = 'LANES',
  ['lanes'] = 'LANES',
  ['LEASE'] = 'LEASE',
  ['lease'] = 'LEASE',
  ['LEASES'] = 'LEASES',
  ['leases'] = 'LEASES',
  ['LIMIT'] = 'LIMIT',
  ['limit'] = 'LIMIT',
  ['LT'] = 'LT',
  ['lt'] = 'LT',
  ['MEMBERS'] = 'MEMBERS',
  ['members'] = 'MEMBERS',
  ['NEWER'] = 'NEWER',
  ['newer'] = 'NEWER',
  ['OFFSET'] = 'OFFSET',
  ['offset'] = 'OFFSET',
  ['OLDER'] = 'OLDER',
  ['older'] = 'OLDER',
  ['PAYLOAD'] = 'PAYLOAD',
  ['payload'] = 'PAYLOAD',
  ['RATE'] = 'RATE',
  ['rate'] = 'RATE',
  ['REASON'] = 'REASON',
  ['reason'] = 'REASON',
  ['REPLACE'] = 'REPLACE',
  ['replace'] = 'REPLACE',
  ['RETAIN'] = 'RETAIN',
  ['retain'] = 'RETAIN',
  ['SHARED'] = 'SHARED',
  ['shared'] = 'SHARED',
  ['START'] = 'START',
  ['start'] = 'START',
  ['STEP'] = 'STEP',
  ['step'] = 'STEP',
  ['TASKS'] = 'TASKS',
  ['tasks'] = 'TASKS',
  ['TOKEN'] = 'TOKEN',
  ['token'] = 'TOKEN',
  ['TTL'] = 'TTL',
  ['ttl'] = 'TTL',
  ['TZ'] = 'TZ',
  ['tz'] = 'TZ',
  ['UP'] = 'UP',
  ['up'] = 'UP',
  ['WEIGHT'] = 'WEIGHT',
  ['weight'] = 'WEIGHT',
  ['WEIGHTS'] = 'WEIGHTS',
  ['weights'] = 'WEIGHTS',
  ['WINDOW'] = 'WINDOW',
  ['window'] = 'WINDOW',
  ['WINDOWS'] = 'WINDOWS',
  ['windows'] = 'WINDOWS',
  ['WITHDATA'] = 'WITHDATA',
  ['withdata'] = 'WITHDATA',
  ['WITHIN'] = 'WITHIN',
  ['within'] = 'WITHIN',
  ['WITHTOKENS'] = 'WITHTOKENS',
  ['withtokens'] = 'WITHTOKENS',
  ['WORKER'] = 'WORKER',
  ['worker'] = 'WORKER',
}
PARSES['rank.gift'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7, v8
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v3 = w
  v4 = false
  v5 = false
  v6 = false
  v7 = false
  v8 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'AT' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v4 = w
    elseif u == 'SHARED' then
      if v5 ~= false then return nil end
      i = i + 1
      v5 = true
    elseif u == 'TTL' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v6 = w
    elseif u == 'IDMP' then
      if v7 ~= false then return nil end
      i = i + 1
      local b1 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b1[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b1[2] = w
      v7 = b1
    elseif u == 'RETAIN' then
      if v8 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v8 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7, v8 }
end
PARSES['rank.set'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7, v8, v9
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v3 = w
  v4 = false
  v5 = false
  v6 = false
  v7 = false
  v8 = false
  v9 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'AT' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v4 = w
    elseif u == 'GT' then
      if v5 ~= false then return nil end
      i = i + 1
      local c1
      c1 = true
      v5 = { choice = 1, value = c1 }
    elseif u == 'LT' then
      if v5 ~= false then return nil end
      i = i + 1
      local c2
      c2 = true
      v5 = { choice = 2, value = c2 }
    elseif u == 'SHARED' then
      if v6 ~= false then return nil end
      i = i + 1
      v6 = true
    elseif u == 'TTL' then
      if v7 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v7 = w
    elseif u == 'IDMP' then
      if v8 ~= false then return nil end
      i = i + 1
      local b3 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b3[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b3[2] = w
      v8 = b3
    elseif u == 'RETAIN' then
      if v9 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v9 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7, v8, v9 }
end
PARSES['rank.get'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'SHARED' then
      if v3 ~= false then return nil end
      i = i + 1
      v3 = true
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['rank.top'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v2 = w
  v3 = false
  v4 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'OFFSET' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v3 = w
    elseif u == 'SHARED' then
      if v4 ~= false then return nil end
      i = i + 1
      v4 = true
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['rank.around'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v3 = w
  v4 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'SHARED' then
      if v4 ~= false then return nil end
      i = i + 1
      v4 = true
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['rank.merge'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local count_numkeys
  local v1, v2, v3, v4, v5
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  count_numkeys = tonumber(w)
  if count_numkeys < 1 then return nil end
  v2 = w
  local l1 = {}
  local n3 = count_numkeys
  if n3 == nil or n3 * 1 > argc - i + 1 - 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    nk = nk + 1
    if keys[nk] ~= w then return nil end
    l1[k2] = w
  end
  v3 = l1
  v4 = false
  v5 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 7) then u = KEYWORDS[upper(w)] end
    if u == 'WEIGHTS' then
      if v4 ~= false then return nil end
      i = i + 1
      local l4 = {}
      local n6 = count_numkeys
      if n6 == nil or n6 * 1 > argc - i + 1 - 0 then return nil end
      for k5 = 1, n6 do
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        l4[k5] = w
      end
      v4 = l4
    elseif u == 'STEP' then
      if v5 ~= false then return nil end
      i = i + 1
      local b7 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b7[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b7[2] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b7[3] = w
      v5 = b7
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5 }
end
PARSES['rank.mgift'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local count_numkeys
  local v1, v2, v3, v4, v5, v6, v7, v8, v9
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  count_numkeys = tonumber(w)
  if count_numkeys < 1 then return nil end
  v1 = w
  local l1 = {}
  local n3 = count_numkeys
  if n3 == nil or n3 * 1 > argc - i + 1 - 2 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    nk = nk + 1
    if keys[nk] ~= w then return nil end
    l1[k2] = w
  end
  v2 = l1
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v4 = w
  v5 = false
  v6 = false
  v7 = false
  v8 = false
  v9 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'AT' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v5 = w
    elseif u == 'SHARED' then
      if v6 ~= false then return nil end
      i = i + 1
      v6 = true
    elseif u == 'TTL' then
      if v7 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v7 = w
    elseif u == 'IDMP' then
      if v8 ~= false then return nil end
      i = i + 1
      local b4 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b4[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b4[2] = w
      v8 = b4
    elseif u == 'RETAIN' then
      if v9 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v9 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7, v8, v9 }
end
PARSES['rank.mget'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'SHARED' then
      if v2 ~= false then return nil end
      i = i + 1
      v2 = true
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 7) then u = KEYWORDS[upper(w)] end
  if u ~= 'MEMBERS' then return nil end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 1 ~= 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    l1[k2] = w
  end
  v3 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['rank.stats'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1 }
end
PARSES['rank.percentile'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['rank.quantile'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  x = plain_double(w)
  if x == nil then return nil end
  v2 = x
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['rank.count'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['rank.range'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  v4 = false
  v5 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 5 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'LIMIT' then
      if v4 ~= false then return nil end
      i = i + 1
      local b1 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b1[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b1[2] = w
      v4 = b1
    elseif u == 'SHARED' then
      if v5 ~= false then return nil end
      i = i + 1
      v5 = true
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5 }
end
PARSES['rank.among'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'SHARED' then
      if v2 ~= false then return nil end
      i = i + 1
      v2 = true
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 7) then u = KEYWORDS[upper(w)] end
  if u ~= 'MEMBERS' then return nil end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 1 ~= 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    l1[k2] = w
  end
  v3 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['feed.add'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 3) then u = KEYWORDS[upper(w)] end
    if u == 'CAP' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    else break end
  end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 2 ~= 0 then return nil end
  n3 = n3 / 2
  for k2 = 1, n3 do
    local b4 = {}
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    x = plain_double(w)
    if x == nil then return nil end
    b4[1] = x
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    b4[2] = w
    l1[k2] = b4
  end
  v3 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['feed.page'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 5) then u = KEYWORDS[upper(w)] end
    if u == 'COUNT' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    elseif u == 'NEWER' then
      if v3 ~= false then return nil end
      i = i + 1
      local c1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      c1 = w
      v3 = { choice = 1, value = c1 }
    elseif u == 'OLDER' then
      if v3 ~= false then return nil end
      i = i + 1
      local c2
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      c2 = w
      v3 = { choice = 2, value = c2 }
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['delay.poll'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  v4 = false
  v5 = false
  v6 = false
  v7 = false
  v8 = false
  v9 = false
  v10 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 5 or #w == 6 or #w == 8 or #w == 10) then u = KEYWORDS[upper(w)] end
    if u == 'COUNT' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    elseif u == 'LEASE' then
      if v3 ~= false then return nil end
      i = i + 1
      local b1 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b1[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b1[2] = w
      v3 = b1
    elseif u == 'DEADLETTER' then
      if v4 ~= false then return nil end
      i = i + 1
      local b2 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b2[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b2[2] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b2[3] = w
      v4 = b2
    elseif u == 'WITHTOKENS' then
      if v5 ~= false then return nil end
      i = i + 1
      v5 = true
    elseif u == 'DATA' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v6 = w
    elseif u == 'WITHDATA' then
      if v7 ~= false then return nil end
      i = i + 1
      v7 = true
    elseif u == 'WORKER' then
      if v8 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      v8 = w
    elseif u == 'RATE' then
      if v9 ~= false then return nil end
      i = i + 1
      local b3 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b3[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b3[2] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b3[3] = w
      v9 = b3
    elseif u == 'LANES' then
      if v10 ~= false then return nil end
      i = i + 1
      local l4 = {}
      local n6 = argc - i + 1
      if n6 < 1 or n6 % 1 ~= 0 then return nil end
      for k5 = 1, n6 do
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        l4[k5] = w
      end
      v10 = l4
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7, v8, v9, v10 }
end
PARSES['delay.ack'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 10) then u = KEYWORDS[upper(w)] end
    if u == 'DELIVERIES' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v2 = w
    elseif u == 'DATA' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v3 = w
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 5 or #w == 6) then u = KEYWORDS[upper(w)] end
  if u == 'TASKS' then
    local c1
    local l2 = {}
    local n4 = argc - i + 1
    if n4 < 1 or n4 % 1 ~= 0 then return nil end
    for k3 = 1, n4 do
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      l2[k3] = w
    end
    c1 = l2
    v4 = { choice = 1, value = c1 }
  elseif u == 'LEASES' then
    local c5
    local l6 = {}
    local n8 = argc - i + 1
    if n8 < 1 or n8 % 2 ~= 0 then return nil end
    n8 = n8 / 2
    for k7 = 1, n8 do
      local b9 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b9[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b9[2] = w
      l6[k7] = b9
    end
    c5 = l6
    v4 = { choice = 2, value = c5 }
  else return nil end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['delay.nack'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v4 = w
  v5 = false
  v6 = false
  v7 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 5 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'TOKEN' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v5 = w
    elseif u == 'DATA' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v6 = w
    elseif u == 'REASON' then
      if v7 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      v7 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7 }
end
PARSES['delay.touch'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v3 = w
  v4 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 5) then u = KEYWORDS[upper(w)] end
    if u == 'TOKEN' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v4 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['delay.stats'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  v4 = false
  v5 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 8 or #w == 10) then u = KEYWORDS[upper(w)] end
    if u == 'INFLIGHT' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v2 = w
    elseif u == 'DEAD' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v3 = w
    elseif u == 'DELIVERIES' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v4 = w
    elseif u == 'DATA' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v5 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5 }
end
PARSES['delay.add'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  v4 = false
  v5 = false
  v6 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 5 or #w == 6 or #w == 7 or #w == 8) then u = KEYWORDS[upper(w)] end
    if u == 'DATA' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v2 = w
    elseif u == 'INFLIGHT' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v3 = w
    elseif u == 'KEEP' then
      if v4 ~= false then return nil end
      i = i + 1
      local c1
      c1 = true
      v4 = { choice = 1, value = c1 }
    elseif u == 'REPLACE' then
      if v4 ~= false then return nil end
      i = i + 1
      local c2
      c2 = true
      v4 = { choice = 2, value = c2 }
    elseif u == 'EXTEND' then
      if v4 ~= false then return nil end
      i = i + 1
      local c3
      c3 = true
      v4 = { choice = 3, value = c3 }
    elseif u == 'WITHIN' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v5 = w
    elseif u == 'GROUP' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      v6 = w
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 4 or #w == 5) then u = KEYWORDS[upper(w)] end
  if u == 'TASKS' then
    local c4
    local l5 = {}
    local n7 = argc - i + 1
    if n7 < 1 or n7 % 2 ~= 0 then return nil end
    n7 = n7 / 2
    for k6 = 1, n7 do
      local b8 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b8[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b8[2] = w
      l5[k6] = b8
    end
    c4 = l5
    v7 = { choice = 1, value = c4 }
  elseif u == 'JOBS' then
    local c9
    local l10 = {}
    local n12 = argc - i + 1
    if n12 < 1 or n12 % 3 ~= 0 then return nil end
    n12 = n12 / 3
    for k11 = 1, n12 do
      local b13 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b13[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b13[2] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b13[3] = w
      l10[k11] = b13
    end
    c9 = l10
    v7 = { choice = 2, value = c9 }
  else return nil end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7 }
end
PARSES['delay.job'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  v3 = false
  v4 = false
  v5 = false
  v6 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 8 or #w == 10) then u = KEYWORDS[upper(w)] end
    if u == 'INFLIGHT' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v3 = w
    elseif u == 'DEAD' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v4 = w
    elseif u == 'DELIVERIES' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v5 = w
    elseif u == 'DATA' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v6 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6 }
end
PARSES['delay.retry'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4) then u = KEYWORDS[upper(w)] end
    if u == 'DATA' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      v3 = w
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 5) then u = KEYWORDS[upper(w)] end
  if u ~= 'TASKS' then return nil end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 1 ~= 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    l1[k2] = w
  end
  v4 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['delay.pause'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['delay.resume'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['delay.schedule'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 4 or #w == 5) then u = KEYWORDS[upper(w)] end
  if u == 'EVERY' then
    local c1
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    c1 = w
    v4 = { choice = 1, value = c1 }
  elseif u == 'CRON' then
    local c2
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    c2 = w
    v4 = { choice = 2, value = c2 }
  else return nil end
  v5 = false
  v6 = false
  v7 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 2 or #w == 5 or #w == 7) then u = KEYWORDS[upper(w)] end
    if u == 'TZ' then
      if v5 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      v5 = w
    elseif u == 'START' then
      if v6 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v6 = w
    elseif u == 'PAYLOAD' then
      if v7 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      v7 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7 }
end
PARSES['delay.unschedule'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['delay.schedules'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['delay.group'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  v4 = false
  v5 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 3 or #w == 4) then u = KEYWORDS[upper(w)] end
    if u == 'CAP' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v4 = w
    elseif u == 'RATE' then
      if v5 ~= false then return nil end
      i = i + 1
      local b1 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b1[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b1[2] = w
      v5 = b1
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5 }
end
PARSES['delay.groups'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['rate.hit'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  v4 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4 or #w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'COST' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    elseif u == 'IDMP' then
      if v3 ~= false then return nil end
      i = i + 1
      local b1 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b1[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b1[2] = w
      v3 = b1
    elseif u == 'RETAIN' then
      if v4 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v4 = w
    else break end
  end
  local l2 = {}
  local n4 = argc - i + 1
  if n4 < 1 or n4 % 2 ~= 0 then return nil end
  n4 = n4 / 2
  for k3 = 1, n4 do
    local b5 = {}
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    b5[1] = w
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    b5[2] = w
    l2[k3] = b5
  end
  v5 = l2
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5 }
end
PARSES['rate.peek'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 4) then u = KEYWORDS[upper(w)] end
    if u == 'COST' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    else break end
  end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 2 ~= 0 then return nil end
  n3 = n3 / 2
  for k2 = 1, n3 do
    local b4 = {}
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    b4[1] = w
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    b4[2] = w
    l1[k2] = b4
  end
  v3 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['rate.acquire'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v3 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  if not plain_integer(w) then return nil end
  v4 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['rate.release'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v2 = w
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 5) then u = KEYWORDS[upper(w)] end
    if u == 'TOKEN' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v3 = w
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end
PARSES['rate.stats'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 7) then u = KEYWORDS[upper(w)] end
  if u ~= 'WINDOWS' then return nil end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 1 ~= 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    if not plain_integer(w) then return nil end
    l1[k2] = w
  end
  v2 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2 }
end
PARSES['recent.add'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  v2 = false
  v3 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 3) then u = KEYWORDS[upper(w)] end
    if u == 'CAP' then
      if v2 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v2 = w
    elseif u == 'TTL' then
      if v3 ~= false then return nil end
      i = i + 1
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      v3 = w
    else break end
  end
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 5) then u = KEYWORDS[upper(w)] end
  if u ~= 'ITEMS' then return nil end
  local l1 = {}
  local n3 = argc - i + 1
  if n3 < 1 or n3 % 1 ~= 0 then return nil end
  for k2 = 1, n3 do
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    l1[k2] = w
  end
  v4 = l1
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4 }
end
PARSES['vote.cast'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3, v4, v5, v6, v7, v8
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v3 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v4 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v5 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  u = KEYWORDS[w]
  if u == nil and (#w == 2 or #w == 4 or #w == 5) then u = KEYWORDS[upper(w)] end
  if u == 'UP' then
    local c1
    c1 = true
    v6 = { choice = 1, value = c1 }
  elseif u == 'DOWN' then
    local c2
    c2 = true
    v6 = { choice = 2, value = c2 }
  elseif u == 'CLEAR' then
    local c3
    c3 = true
    v6 = { choice = 3, value = c3 }
  else return nil end
  v7 = false
  v8 = false
  while i <= argc do
    w = argv[i]
    u = KEYWORDS[w]
    if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
    if u == 'WEIGHT' then
      if v7 ~= false then return nil end
      i = i + 1
      local b4 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      x = plain_double(w)
      if x == nil then return nil end
      b4[1] = x
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      x = plain_double(w)
      if x == nil then return nil end
      b4[2] = x
      v7 = b4
    elseif u == 'WINDOW' then
      if v8 ~= false then return nil end
      i = i + 1
      local b5 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      nk = nk + 1
      if keys[nk] ~= w then return nil end
      b5[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b5[2] = w
      v8 = b5
    else break end
  end
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3, v4, v5, v6, v7, v8 }
end
PARSES['vote.state'] = function(argv, keys)
  local argc = #argv
  local i, nk, w, u, x = 1, 0, nil, nil, nil
  local v1, v2, v3
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v1 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  nk = nk + 1
  if keys[nk] ~= w then return nil end
  v2 = w
  w = argv[i]
  if w == nil then return nil end
  i = i + 1
  v3 = w
  if i <= argc or nk ~= #keys then return nil end
  return { v1, v2, v3 }
end


-- The functions -----------------------------------------------------------
redis.register_function({
  function_name = 'zkit_rank_gift',
  callback = rt.entry(COMMANDS['rank.gift'], handlers['rank.gift'], PARSES['rank.gift']),
  flags = {  },
  description = 'RANK.GIFT: Adds an amount to a member\'s total and returns the new total and rank; equal totals rank first-come (with SHARED, equal totals share a rank).',
})
redis.register_function({
  function_name = 'zkit_rank_set',
  callback = rt.entry(COMMANDS['rank.set'], handlers['rank.set'], PARSES['rank.set']),
  flags = {  },
  description = 'RANK.SET: Sets a member\'s total (with GT only a higher one, with LT only a lower one) and returns the total that stands with the member\'s rank; equal totals rank first-come (with SHARED, equal totals share a rank).',
})
redis.register_function({
  function_name = 'zkit_rank_get',
  callback = rt.entry(COMMANDS['rank.get'], handlers['rank.get'], PARSES['rank.get']),
  flags = { 'no-writes' },
  description = 'RANK.GET: Returns a member\'s total, rank and the time it reached its total, or nil.',
})
redis.register_function({
  function_name = 'zkit_rank_top',
  callback = rt.entry(COMMANDS['rank.top'], handlers['rank.top'], PARSES['rank.top']),
  flags = { 'no-writes' },
  description = 'RANK.TOP: Returns a page of the board from the highest total down: rank, member, total.',
})
redis.register_function({
  function_name = 'zkit_rank_around',
  callback = rt.entry(COMMANDS['rank.around'], handlers['rank.around'], PARSES['rank.around']),
  flags = { 'no-writes' },
  description = 'RANK.AROUND: Returns the member and up to radius entries above and below it: rank, member, total.',
})
redis.register_function({
  function_name = 'zkit_rank_merge',
  callback = rt.entry(COMMANDS['rank.merge'], handlers['rank.merge'], PARSES['rank.merge']),
  flags = {  },
  description = 'RANK.MERGE: Stores the sum of several boards (times integer weights) in destkey, keeping first-come order: a merged entry reached its total when its last contributor did.',
})
redis.register_function({
  function_name = 'zkit_rank_mgift',
  callback = rt.entry(COMMANDS['rank.mgift'], handlers['rank.mgift'], PARSES['rank.mgift']),
  flags = {  },
  description = 'RANK.MGIFT: Adds an amount to a member\'s total on several boards at once (each first-come on its own) and returns [total, rank] per board, in key order.',
})
redis.register_function({
  function_name = 'zkit_rank_mget',
  callback = rt.entry(COMMANDS['rank.mget'], handlers['rank.mget'], PARSES['rank.mget']),
  flags = { 'no-writes' },
  description = 'RANK.MGET: Returns what RANK.GET returns for each member, in order: [total, rank, reached-at-ms] or nil.',
})
redis.register_function({
  function_name = 'zkit_rank_stats',
  callback = rt.entry(COMMANDS['rank.stats'], handlers['rank.stats'], PARSES['rank.stats']),
  flags = { 'no-writes' },
  description = 'RANK.STATS: Returns a board\'s size and the spread of its totals, read by name: members, top-total, p99-total, p90-total, p50-total, bottom-total (nil on an empty board) and memory-bytes (MEMORY USAGE\'s estimate).',
})
redis.register_function({
  function_name = 'zkit_rank_percentile',
  callback = rt.entry(COMMANDS['rank.percentile'], handlers['rank.percentile'], PARSES['rank.percentile']),
  flags = { 'no-writes' },
  description = 'RANK.PERCENTILE: Returns the share of the board ranked below a member (first-come ranks), in whole percent rounded up (0 to 100), or nil.',
})
redis.register_function({
  function_name = 'zkit_rank_quantile',
  callback = rt.entry(COMMANDS['rank.quantile'], handlers['rank.quantile'], PARSES['rank.quantile']),
  flags = { 'no-writes' },
  description = 'RANK.QUANTILE: Returns the total at a percentile of the board (0 to 100, decimals allowed), interpolated linearly between the two totals around it, lowest first; nil on an empty board.',
})
redis.register_function({
  function_name = 'zkit_rank_count',
  callback = rt.entry(COMMANDS['rank.count'], handlers['rank.count'], PARSES['rank.count']),
  flags = { 'no-writes' },
  description = 'RANK.COUNT: Returns how many members have a total between min and max, inclusive, as ZCOUNT reads its bounds (-inf, +inf, ( for an exclusive bound).',
})
redis.register_function({
  function_name = 'zkit_rank_range',
  callback = rt.entry(COMMANDS['rank.range'], handlers['rank.range'], PARSES['rank.range']),
  flags = { 'no-writes' },
  description = 'RANK.RANGE: Returns the members whose total lies between max and min, inclusive (bounds as RANK.COUNT reads them), highest first, as a page of the board: rank, member, total, each rank the member\'s rank on the whole board.',
})
redis.register_function({
  function_name = 'zkit_rank_among',
  callback = rt.entry(COMMANDS['rank.among'], handlers['rank.among'], PARSES['rank.among']),
  flags = { 'no-writes' },
  description = 'RANK.AMONG: Returns the given members that are on the board, ordered as the board orders them, each with its rank among them (1-based; with SHARED, equal totals share a rank): rank, member, total.',
})
redis.register_function({
  function_name = 'zkit_feed_add',
  callback = rt.entry(COMMANDS['feed.add'], handlers['feed.add'], PARSES['feed.add']),
  flags = {  },
  description = 'FEED.ADD: Adds or re-scores feed items like ZADD; with CAP, then removes the lowest-scored items beyond n in the same step.',
})
redis.register_function({
  function_name = 'zkit_feed_page',
  callback = rt.entry(COMMANDS['feed.page'], handlers['feed.page'], PARSES['feed.page']),
  flags = { 'no-writes' },
  description = 'FEED.PAGE: Returns a page of a feed, newest first, with exact top and bottom cursors: the newest items, or the items newer or older than a cursor.',
})
redis.register_function({
  function_name = 'zkit_delay_poll',
  callback = rt.entry(COMMANDS['delay.poll'], handlers['delay.poll'], PARSES['delay.poll']),
  flags = { 'allow-oom' },
  description = 'DELAY.POLL: Claims up to count tasks that are due (score <= the server\'s unix ms), earliest first: removes them from the queue, or with LEASE moves them into inflight scored by the lease\'s end; with DEADLETTER, a task already delivered max-deliveries times goes to dead instead. With DATA (the queue\'s job data): nothing while the queue is paused, a task past its not-started-by deadline goes to dead (reason expired) or, without DEADLETTER, is dropped, and WORKER names the holder. Returns [[member, due-ms], ...], with WITHTOKENS [[member, due-ms, token], ...], with WITHDATA [[member, due-ms, token, payload, deliveries], ...].',
})
redis.register_function({
  function_name = 'zkit_delay_ack',
  callback = rt.entry(COMMANDS['delay.ack'], handlers['delay.ack'], PARSES['delay.ack']),
  flags = { 'allow-oom' },
  description = 'DELAY.ACK: Removes finished tasks from an in-flight zset (and, with DELIVERIES, their delivery counts): after TASKS whatever delivery holds them, after LEASES a task only while the delivery its token names holds it. Returns how many were removed.',
})
redis.register_function({
  function_name = 'zkit_delay_nack',
  callback = rt.entry(COMMANDS['delay.nack'], handlers['delay.nack'], PARSES['delay.nack']),
  flags = { 'allow-oom' },
  description = 'DELAY.NACK: Hands a failed task back for a retry: moves it from inflight into queue, due delay-ms from now (0: now). Returns 1 when moved, 0 when its lease had already ended, it was not in flight, or (with TOKEN) another delivery holds it.',
})
redis.register_function({
  function_name = 'zkit_delay_touch',
  callback = rt.entry(COMMANDS['delay.touch'], handlers['delay.touch'], PARSES['delay.touch']),
  flags = { 'allow-oom' },
  description = 'DELAY.TOUCH: Extends a lease: the task\'s lease now ends ms from now. Returns 1 when extended (with TOKEN: the delivery\'s new token), 0 when the lease had already ended, the task was not in flight, or (with TOKEN) another delivery holds it: its worker must stop.',
})
redis.register_function({
  function_name = 'zkit_delay_stats',
  callback = rt.entry(COMMANDS['delay.stats'], handlers['delay.stats'], PARSES['delay.stats']),
  flags = { 'no-writes' },
  description = 'DELAY.STATS: Returns a queue\'s depth and lag, read by name: now-ms, tasks, due, oldest-due-age-ms, next-due-ms, and with the sets named inflight, expired (leases that ended), dead and redelivered (tasks counted more than once), with DATA paused (1 or 0) and capped-groups (groups at their cap on tasks in flight); nil for a key not named.',
})
redis.register_function({
  function_name = 'zkit_delay_add',
  callback = rt.entry(COMMANDS['delay.add'], handlers['delay.add'], PARSES['delay.add']),
  flags = {  },
  description = 'DELAY.ADD: Adds tasks to a queue, due at due-ms (unix ms; a time past is now), in the order given among tasks due in one millisecond; with JOBS each task\'s payload goes into the queue\'s DATA hash. A task the queue already holds (or, with INFLIGHT, a worker holds) is kept as it is (KEEP, the default), replaced (REPLACE: new due time and payload) or pushed back (EXTEND: the due time only moves out, the payload is replaced); a task held by a worker is never touched. WITHIN: a task not delivered within ms of its due time expires. GROUP: the tasks belong to that group (DELAY.GROUP sets its limits). Returns, per task, 1 added, 2 updated, 0 kept.',
})
redis.register_function({
  function_name = 'zkit_delay_job',
  callback = rt.entry(COMMANDS['delay.job'], handlers['delay.job'], PARSES['delay.job']),
  flags = { 'no-writes' },
  description = 'DELAY.JOB: A task\'s state (queued, inflight or dead, looked up in that order among the sets named; nil when in none), its score there (due time, lease end or time of death), and from the DATA hash its payload, last failure reason, not-started-by deadline and worker; deliveries: its count in the deliveries set, or for a dead task the count it died with. Fields by name.',
})
redis.register_function({
  function_name = 'zkit_delay_retry',
  callback = rt.entry(COMMANDS['delay.retry'], handlers['delay.retry'], PARSES['delay.retry']),
  flags = { 'allow-oom' },
  description = 'DELAY.RETRY: Sends dead tasks back to their queue, due now (in the order given): each keeps its payload and last failure reason, and its deliveries count again from 0. Returns how many were dead.',
})
redis.register_function({
  function_name = 'zkit_delay_pause',
  callback = rt.entry(COMMANDS['delay.pause'], handlers['delay.pause'], PARSES['delay.pause']),
  flags = { 'allow-oom' },
  description = 'DELAY.PAUSE: Pauses a queue: polls that name its DATA hash deliver nothing (blocked ones stay blocked) until DELAY.RESUME. Returns 1 when it paused the queue, 0 when it was paused.',
})
redis.register_function({
  function_name = 'zkit_delay_resume',
  callback = rt.entry(COMMANDS['delay.resume'], handlers['delay.resume'], PARSES['delay.resume']),
  flags = { 'allow-oom' },
  description = 'DELAY.RESUME: Resumes a paused queue and wakes the polls blocked on it. Returns 1 when it resumed the queue, 0 when it was not paused.',
})
redis.register_function({
  function_name = 'zkit_delay_schedule',
  callback = rt.entry(COMMANDS['delay.schedule'], handlers['delay.schedule'], PARSES['delay.schedule']),
  flags = {  },
  description = 'DELAY.SCHEDULE: Adds or changes a repeating job: every ms (from START, default now) or at the times a five-field cron expression matches in time zone TZ (default UTC). Its first occurrence goes into the queue as the task <id>@<unix-ms> (with PAYLOAD as its payload); the poll that claims an occurrence puts the next one in the queue. A schedule changed replaces its pending occurrence. Returns the first occurrence\'s time (unix ms).',
})
redis.register_function({
  function_name = 'zkit_delay_unschedule',
  callback = rt.entry(COMMANDS['delay.unschedule'], handlers['delay.unschedule'], PARSES['delay.unschedule']),
  flags = { 'allow-oom' },
  description = 'DELAY.UNSCHEDULE: Cancels a repeating job: its schedule and its pending occurrence (still in the queue) go; an occurrence a worker holds runs to its end. Returns 1 when the schedule existed, else 0.',
})
redis.register_function({
  function_name = 'zkit_delay_schedules',
  callback = rt.entry(COMMANDS['delay.schedules'], handlers['delay.schedules'], PARSES['delay.schedules']),
  flags = { 'no-writes' },
  description = 'DELAY.SCHEDULES: Lists a queue\'s repeating jobs by id: each one\'s rule (every-ms, or cron and tz), the time of its pending occurrence (nil once a cron rule matches no more) and its payload.',
})
redis.register_function({
  function_name = 'zkit_delay_group',
  callback = rt.entry(COMMANDS['delay.group'], handlers['delay.group'], PARSES['delay.group']),
  flags = { 'allow-oom' },
  description = 'DELAY.GROUP: Sets a group\'s limits in a queue: CAP, at most n of its tasks in flight at once (leased and not acked or nacked); RATE, at most limit of its tasks claimed in any window-ms. Neither: the group has no limits. Polls naming the queue\'s DATA hash pass over a group\'s due tasks while it is at a limit. Returns 1 when the group has limits, 0 when they were removed.',
})
redis.register_function({
  function_name = 'zkit_delay_groups',
  callback = rt.entry(COMMANDS['delay.groups'], handlers['delay.groups'], PARSES['delay.groups']),
  flags = { 'no-writes' },
  description = 'DELAY.GROUPS: Lists a queue\'s groups with limits, by name: each one\'s tasks in flight, cap, rate limit and window (0 for none), whether it is at its cap, and whether its rate window is full now.',
})
redis.register_function({
  function_name = 'zkit_rate_hit',
  callback = rt.entry(COMMANDS['rate.hit'], handlers['rate.hit'], PARSES['rate.hit']),
  flags = {  },
  description = 'RATE.HIT: Counts a hit against exact sliding-window limits (several: every one must allow): logs it if at most limit units fall within the last window-ms of each, and returns [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given or IDMP is. A cost above a limit is refused (retry-after-ms -1: it never fits); a negative cost gives that many of the newest units back.',
})
redis.register_function({
  function_name = 'zkit_rate_peek',
  callback = rt.entry(COMMANDS['rate.peek'], handlers['rate.peek'], PARSES['rate.peek']),
  flags = { 'no-writes' },
  description = 'RATE.PEEK: Answers what RATE.HIT with the same cost and limits would answer now, without counting the hit or writing anything: [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given.',
})
redis.register_function({
  function_name = 'zkit_rate_acquire',
  callback = rt.entry(COMMANDS['rate.acquire'], handlers['rate.acquire'], PARSES['rate.acquire']),
  flags = {  },
  description = 'RATE.ACQUIRE: Takes one of limit slots for holder, held until RATE.RELEASE or until lease-ms have passed (a concurrency limit: at most limit at once). A holder that holds one renews its lease. Returns [acquired, held, remaining, retry-after-ms, token]: refused, the ms until a lease ends and frees a slot; acquired, the lease\'s token (its end in unix ms).',
})
redis.register_function({
  function_name = 'zkit_rate_release',
  callback = rt.entry(COMMANDS['rate.release'], handlers['rate.release'], PARSES['rate.release']),
  flags = { 'allow-oom' },
  description = 'RATE.RELEASE: Gives holder\'s slot of a concurrency limit back. Returns 1 when released, 0 when it held none: not there, its lease had ended, or (with TOKEN) another lease of its holds the slot.',
})
redis.register_function({
  function_name = 'zkit_rate_stats',
  callback = rt.entry(COMMANDS['rate.stats'], handlers['rate.stats'], PARSES['rate.stats']),
  flags = { 'no-writes' },
  description = 'RATE.STATS: Returns a rate log\'s entries, read by name: entries (all, live or not yet removed), newest-ms (nil when empty) and windows, [window-ms, entries within it] for each window given.',
})
redis.register_function({
  function_name = 'zkit_recent_add',
  callback = rt.entry(COMMANDS['recent.add'], handlers['recent.add'], PARSES['recent.add']),
  flags = {  },
  description = 'RECENT.ADD: Records views of members in a recently-viewed list (newest first), keeps at most CAP of them and refreshes the TTL; returns the list\'s size.',
})
redis.register_function({
  function_name = 'zkit_vote_cast',
  callback = rt.entry(COMMANDS['vote.cast'], handlers['vote.cast'], PARSES['vote.cast']),
  flags = {  },
  description = 'VOTE.CAST: Casts, switches or clears a voter\'s up or down vote on an item and updates the item\'s score; returns the score, the up and down counts and whether anything changed.',
})
redis.register_function({
  function_name = 'zkit_vote_state',
  callback = rt.entry(COMMANDS['vote.state'], handlers['vote.state'], PARSES['vote.state']),
  flags = { 'no-writes' },
  description = 'VOTE.STATE: Returns a voter\'s vote: 1 up, -1 down, 0 none.',
})

redis.register_function({
  function_name = 'zkit_keys',
  callback = rt.keys_of(COMMANDS),
  flags = { 'no-writes' },
  description = 'The keys of a call (command, arguments...), in the order FCALL declares them.',
})

redis.register_function({
  function_name = 'zkit_version',
  callback = function() return VERSION end,
  flags = { 'no-writes' },
  description = 'The version of this zkit library (release+code digest).',
})
-- functions/zkit.lua ends
  -- luacheck: pop
  return functions
end

return main()
