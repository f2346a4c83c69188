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
  hot_sets = true,
  -- hot_sets's name before zkit 0.5.0, which INFO still gives (deprecated).
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
-- scripts/suites/observe-check.py --embed-library` (observe-check fails while this
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
-- zkit 0.5.0+b798a2564c14 as a Functions library, for Redis 7.0+ and Valkey servers
-- that do not load modules. Load it with
--     redis-cli -x FUNCTION LOAD REPLACE < zkit.lua
-- and call a command as FCALL zkit_<family>_<verb> <numkeys> <keys...>
-- <the command's arguments>: `FCALL zkit_rank_gift 1 board board alice 100`.
-- Generated by functions/gen.py from docs/commands.json and
-- functions/lua/*.lua: edit those, not this file (docs/functions.md).

local VERSION = '0.5.0+b798a2564c14'

-- The module's configs, which a function cannot read: if your module runs
-- with other values (CONFIG SET zkit.<name>), set the same here.
local CONFIG = {
  ['tiebreak-epoch-ms'] = 1704067200000,
  ['tiebreak-span-ms'] = 2199023255552,
  ['idmp-retain-ms'] = 86400000,
  ['idmp-max-ids'] = 1000000,
  ['job-payload-max-bytes'] = 524288,
  ['member-data-max-bytes'] = 4096,
  ['dead-letters-max'] = 0,
  ['dead-letters-max-age-ms'] = 0,
}

-- The module's texts, bounds, limits (docs/constants.json) and time zones (functions/zones.json) ----
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
  ['totals_key_is_board'] = 'ERR the DENSE totals-key must be another key than the board',
  ['data_key_shared'] = 'ERR the DATA key must be another key than the board and its DENSE totals-key',
  ['member_data_too_large'] = 'ERR member data of {len} bytes is more than zkit.member-data-max-bytes ({limit})',
  ['columns_too_many'] = 'ERR a board has at most 16 columns',
  ['columns_bound_out_of_range'] = 'ERR a column\'s best and worst values must be integers with |value| < 2^52 (4503599627370496)',
  ['columns_too_wide'] = 'ERR the columns\' ranges hold more than 2^52 (4503599627370496) combinations: a score cannot hold them',
  ['columns_other'] = 'ERR the key holds other columns: boards written with them would read wrong (declare the new columns at a new key)',
  ['columns_none'] = 'ERR no columns at the COLUMNS key (RANK.COLUMNS declares them)',
  ['columns_not'] = 'ERR the COLUMNS key holds no board\'s columns (RANK.COLUMNS writes them)',
  ['columns_value_count'] = 'ERR the board has {columns} columns; the call gives values for {given}',
  ['columns_value_out_of_range'] = 'ERR column {column}\'s value would be outside its range [{low}, {high}]',
  ['columns_not_total'] = 'ERR the member\'s total {total} packs no tuple of these columns (was it written without COLUMNS?)',
  ['columns_then_without'] = 'ERR THEN needs COLUMNS',
  ['columns_with_asc'] = 'ERR ASC does not apply with COLUMNS: each column\'s best and worst values set the order',
  ['columns_key_shared'] = 'ERR the COLUMNS key must be another key than the board, its DENSE totals-key and its DATA key',
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
  ['SEASON_AT'] = 'must be a unix ms between 0 and 253370764799999 (the end of 9998)',
  ['PERCENTILE'] = 'must be between 0 and 100',
  ['GROUP_RATE'] = 'must be between 1 and 10000',
}
local LIMITS = {
  ['MAX_DURATION_MS'] = 3155760000000,
  ['TOTAL_LIMIT'] = 4503599627370496,
  ['MAX_COLUMNS'] = 16,
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
  ['SEASON_AT_LIMIT_MS'] = 253370764799999,
  ['JOB_TRIM_SPARE'] = 100,
  ['JOB_EXPIRED_REASON'] = 'expired',
  ['GROUP_MAX_RATE'] = 10000,
  ['MAX_SKIPPED_PER_POLL'] = 1000,
}
local ZONES = {
  ['Africa/Abidjan'] = 1,
  ['Africa/Accra'] = 1,
  ['Africa/Addis_Ababa'] = 2,
  ['Africa/Algiers'] = 3,
  ['Africa/Asmara'] = 2,
  ['Africa/Asmera'] = 2,
  ['Africa/Bamako'] = 1,
  ['Africa/Bangui'] = 4,
  ['Africa/Banjul'] = 1,
  ['Africa/Bissau'] = 5,
  ['Africa/Blantyre'] = 6,
  ['Africa/Brazzaville'] = 4,
  ['Africa/Bujumbura'] = 6,
  ['Africa/Cairo'] = 7,
  ['Africa/Casablanca'] = 8,
  ['Africa/Ceuta'] = 9,
  ['Africa/Conakry'] = 1,
  ['Africa/Dakar'] = 1,
  ['Africa/Dar_es_Salaam'] = 2,
  ['Africa/Djibouti'] = 2,
  ['Africa/Douala'] = 4,
  ['Africa/El_Aaiun'] = 10,
  ['Africa/Freetown'] = 1,
  ['Africa/Gaborone'] = 6,
  ['Africa/Harare'] = 6,
  ['Africa/Johannesburg'] = 6,
  ['Africa/Juba'] = 11,
  ['Africa/Kampala'] = 2,
  ['Africa/Khartoum'] = 12,
  ['Africa/Kigali'] = 6,
  ['Africa/Kinshasa'] = 4,
  ['Africa/Lagos'] = 4,
  ['Africa/Libreville'] = 4,
  ['Africa/Lome'] = 1,
  ['Africa/Luanda'] = 4,
  ['Africa/Lubumbashi'] = 6,
  ['Africa/Lusaka'] = 6,
  ['Africa/Malabo'] = 4,
  ['Africa/Maputo'] = 6,
  ['Africa/Maseru'] = 6,
  ['Africa/Mbabane'] = 6,
  ['Africa/Mogadishu'] = 2,
  ['Africa/Monrovia'] = 13,
  ['Africa/Nairobi'] = 2,
  ['Africa/Ndjamena'] = 14,
  ['Africa/Niamey'] = 4,
  ['Africa/Nouakchott'] = 1,
  ['Africa/Ouagadougou'] = 1,
  ['Africa/Porto-Novo'] = 4,
  ['Africa/Sao_Tome'] = 15,
  ['Africa/Timbuktu'] = 1,
  ['Africa/Tripoli'] = 16,
  ['Africa/Tunis'] = 17,
  ['Africa/Windhoek'] = 18,
  ['America/Adak'] = 19,
  ['America/Anchorage'] = 20,
  ['America/Anguilla'] = 21,
  ['America/Antigua'] = 21,
  ['America/Araguaina'] = 22,
  ['America/Argentina/Buenos_Aires'] = 23,
  ['America/Argentina/Catamarca'] = 24,
  ['America/Argentina/ComodRivadavia'] = 24,
  ['America/Argentina/Cordoba'] = 25,
  ['America/Argentina/Jujuy'] = 26,
  ['America/Argentina/La_Rioja'] = 27,
  ['America/Argentina/Mendoza'] = 28,
  ['America/Argentina/Rio_Gallegos'] = 29,
  ['America/Argentina/Salta'] = 30,
  ['America/Argentina/San_Juan'] = 31,
  ['America/Argentina/San_Luis'] = 32,
  ['America/Argentina/Tucuman'] = 33,
  ['America/Argentina/Ushuaia'] = 34,
  ['America/Aruba'] = 21,
  ['America/Asuncion'] = 35,
  ['America/Atikokan'] = 36,
  ['America/Atka'] = 19,
  ['America/Bahia'] = 37,
  ['America/Bahia_Banderas'] = 38,
  ['America/Barbados'] = 39,
  ['America/Belem'] = 40,
  ['America/Belize'] = 41,
  ['America/Blanc-Sablon'] = 21,
  ['America/Boa_Vista'] = 42,
  ['America/Bogota'] = 43,
  ['America/Boise'] = 44,
  ['America/Buenos_Aires'] = 23,
  ['America/Cambridge_Bay'] = 45,
  ['America/Campo_Grande'] = 46,
  ['America/Cancun'] = 47,
  ['America/Caracas'] = 48,
  ['America/Catamarca'] = 24,
  ['America/Cayenne'] = 49,
  ['America/Cayman'] = 36,
  ['America/Chicago'] = 50,
  ['America/Chihuahua'] = 51,
  ['America/Ciudad_Juarez'] = 52,
  ['America/Coral_Harbour'] = 36,
  ['America/Cordoba'] = 25,
  ['America/Costa_Rica'] = 53,
  ['America/Coyhaique'] = 54,
  ['America/Creston'] = 55,
  ['America/Cuiaba'] = 56,
  ['America/Curacao'] = 21,
  ['America/Danmarkshavn'] = 57,
  ['America/Dawson'] = 58,
  ['America/Dawson_Creek'] = 59,
  ['America/Denver'] = 60,
  ['America/Detroit'] = 61,
  ['America/Dominica'] = 21,
  ['America/Edmonton'] = 62,
  ['America/Eirunepe'] = 63,
  ['America/El_Salvador'] = 64,
  ['America/Ensenada'] = 65,
  ['America/Fort_Nelson'] = 66,
  ['America/Fort_Wayne'] = 67,
  ['America/Fortaleza'] = 68,
  ['America/Glace_Bay'] = 69,
  ['America/Godthab'] = 70,
  ['America/Goose_Bay'] = 71,
  ['America/Grand_Turk'] = 72,
  ['America/Grenada'] = 21,
  ['America/Guadeloupe'] = 21,
  ['America/Guatemala'] = 73,
  ['America/Guayaquil'] = 74,
  ['America/Guyana'] = 75,
  ['America/Halifax'] = 76,
  ['America/Havana'] = 77,
  ['America/Hermosillo'] = 78,
  ['America/Indiana/Indianapolis'] = 67,
  ['America/Indiana/Knox'] = 79,
  ['America/Indiana/Marengo'] = 80,
  ['America/Indiana/Petersburg'] = 81,
  ['America/Indiana/Tell_City'] = 82,
  ['America/Indiana/Vevay'] = 83,
  ['America/Indiana/Vincennes'] = 84,
  ['America/Indiana/Winamac'] = 85,
  ['America/Indianapolis'] = 67,
  ['America/Inuvik'] = 86,
  ['America/Iqaluit'] = 87,
  ['America/Jamaica'] = 88,
  ['America/Jujuy'] = 26,
  ['America/Juneau'] = 89,
  ['America/Kentucky/Louisville'] = 90,
  ['America/Kentucky/Monticello'] = 91,
  ['America/Knox_IN'] = 79,
  ['America/Kralendijk'] = 21,
  ['America/La_Paz'] = 21,
  ['America/Lima'] = 92,
  ['America/Los_Angeles'] = 93,
  ['America/Louisville'] = 90,
  ['America/Lower_Princes'] = 21,
  ['America/Maceio'] = 94,
  ['America/Managua'] = 95,
  ['America/Manaus'] = 96,
  ['America/Marigot'] = 21,
  ['America/Martinique'] = 97,
  ['America/Matamoros'] = 98,
  ['America/Mazatlan'] = 99,
  ['America/Mendoza'] = 28,
  ['America/Menominee'] = 100,
  ['America/Merida'] = 101,
  ['America/Metlakatla'] = 102,
  ['America/Mexico_City'] = 103,
  ['America/Miquelon'] = 104,
  ['America/Moncton'] = 105,
  ['America/Monterrey'] = 106,
  ['America/Montevideo'] = 107,
  ['America/Montreal'] = 108,
  ['America/Montserrat'] = 21,
  ['America/Nassau'] = 108,
  ['America/New_York'] = 109,
  ['America/Nipigon'] = 108,
  ['America/Nome'] = 110,
  ['America/Noronha'] = 111,
  ['America/North_Dakota/Beulah'] = 112,
  ['America/North_Dakota/Center'] = 113,
  ['America/North_Dakota/New_Salem'] = 114,
  ['America/Nuuk'] = 70,
  ['America/Ojinaga'] = 115,
  ['America/Panama'] = 36,
  ['America/Pangnirtung'] = 87,
  ['America/Paramaribo'] = 116,
  ['America/Phoenix'] = 55,
  ['America/Port-au-Prince'] = 117,
  ['America/Port_of_Spain'] = 21,
  ['America/Porto_Acre'] = 118,
  ['America/Porto_Velho'] = 119,
  ['America/Puerto_Rico'] = 21,
  ['America/Punta_Arenas'] = 120,
  ['America/Rainy_River'] = 121,
  ['America/Rankin_Inlet'] = 122,
  ['America/Recife'] = 123,
  ['America/Regina'] = 124,
  ['America/Resolute'] = 125,
  ['America/Rio_Branco'] = 118,
  ['America/Rosario'] = 25,
  ['America/Santa_Isabel'] = 65,
  ['America/Santarem'] = 126,
  ['America/Santiago'] = 127,
  ['America/Santo_Domingo'] = 128,
  ['America/Sao_Paulo'] = 129,
  ['America/Scoresbysund'] = 130,
  ['America/Shiprock'] = 60,
  ['America/Sitka'] = 131,
  ['America/St_Barthelemy'] = 21,
  ['America/St_Johns'] = 132,
  ['America/St_Kitts'] = 21,
  ['America/St_Lucia'] = 21,
  ['America/St_Thomas'] = 21,
  ['America/St_Vincent'] = 21,
  ['America/Swift_Current'] = 133,
  ['America/Tegucigalpa'] = 134,
  ['America/Thule'] = 135,
  ['America/Thunder_Bay'] = 108,
  ['America/Tijuana'] = 65,
  ['America/Toronto'] = 108,
  ['America/Tortola'] = 21,
  ['America/Vancouver'] = 136,
  ['America/Virgin'] = 21,
  ['America/Whitehorse'] = 137,
  ['America/Winnipeg'] = 121,
  ['America/Yakutat'] = 138,
  ['America/Yellowknife'] = 62,
  ['Antarctica/Casey'] = 139,
  ['Antarctica/Davis'] = 140,
  ['Antarctica/DumontDUrville'] = 141,
  ['Antarctica/Macquarie'] = 142,
  ['Antarctica/Mawson'] = 143,
  ['Antarctica/McMurdo'] = 144,
  ['Antarctica/Palmer'] = 145,
  ['Antarctica/Rothera'] = 146,
  ['Antarctica/South_Pole'] = 144,
  ['Antarctica/Syowa'] = 2,
  ['Antarctica/Troll'] = 147,
  ['Antarctica/Vostok'] = 148,
  ['Arctic/Longyearbyen'] = 149,
  ['Asia/Aden'] = 2,
  ['Asia/Almaty'] = 150,
  ['Asia/Amman'] = 151,
  ['Asia/Anadyr'] = 152,
  ['Asia/Aqtau'] = 153,
  ['Asia/Aqtobe'] = 154,
  ['Asia/Ashgabat'] = 155,
  ['Asia/Ashkhabad'] = 155,
  ['Asia/Atyrau'] = 156,
  ['Asia/Baghdad'] = 157,
  ['Asia/Bahrain'] = 158,
  ['Asia/Baku'] = 159,
  ['Asia/Bangkok'] = 160,
  ['Asia/Barnaul'] = 161,
  ['Asia/Beirut'] = 162,
  ['Asia/Bishkek'] = 163,
  ['Asia/Brunei'] = 164,
  ['Asia/Calcutta'] = 165,
  ['Asia/Chita'] = 166,
  ['Asia/Choibalsan'] = 167,
  ['Asia/Chongqing'] = 168,
  ['Asia/Chungking'] = 168,
  ['Asia/Colombo'] = 169,
  ['Asia/Dacca'] = 170,
  ['Asia/Damascus'] = 171,
  ['Asia/Dhaka'] = 170,
  ['Asia/Dili'] = 172,
  ['Asia/Dubai'] = 173,
  ['Asia/Dushanbe'] = 174,
  ['Asia/Famagusta'] = 175,
  ['Asia/Gaza'] = 176,
  ['Asia/Harbin'] = 168,
  ['Asia/Hebron'] = 177,
  ['Asia/Ho_Chi_Minh'] = 178,
  ['Asia/Hong_Kong'] = 179,
  ['Asia/Hovd'] = 180,
  ['Asia/Irkutsk'] = 181,
  ['Asia/Istanbul'] = 182,
  ['Asia/Jakarta'] = 160,
  ['Asia/Jayapura'] = 183,
  ['Asia/Jerusalem'] = 184,
  ['Asia/Kabul'] = 185,
  ['Asia/Kamchatka'] = 186,
  ['Asia/Karachi'] = 187,
  ['Asia/Kashgar'] = 188,
  ['Asia/Kathmandu'] = 189,
  ['Asia/Katmandu'] = 189,
  ['Asia/Khandyga'] = 190,
  ['Asia/Kolkata'] = 165,
  ['Asia/Krasnoyarsk'] = 191,
  ['Asia/Kuala_Lumpur'] = 192,
  ['Asia/Kuching'] = 164,
  ['Asia/Kuwait'] = 2,
  ['Asia/Macao'] = 179,
  ['Asia/Macau'] = 179,
  ['Asia/Magadan'] = 193,
  ['Asia/Makassar'] = 164,
  ['Asia/Manila'] = 194,
  ['Asia/Muscat'] = 173,
  ['Asia/Nicosia'] = 195,
  ['Asia/Novokuznetsk'] = 196,
  ['Asia/Novosibirsk'] = 197,
  ['Asia/Omsk'] = 198,
  ['Asia/Oral'] = 199,
  ['Asia/Phnom_Penh'] = 160,
  ['Asia/Pontianak'] = 200,
  ['Asia/Pyongyang'] = 201,
  ['Asia/Qatar'] = 158,
  ['Asia/Qostanay'] = 202,
  ['Asia/Qyzylorda'] = 203,
  ['Asia/Rangoon'] = 204,
  ['Asia/Riyadh'] = 2,
  ['Asia/Saigon'] = 178,
  ['Asia/Sakhalin'] = 205,
  ['Asia/Samarkand'] = 206,
  ['Asia/Seoul'] = 207,
  ['Asia/Shanghai'] = 168,
  ['Asia/Singapore'] = 192,
  ['Asia/Srednekolymsk'] = 208,
  ['Asia/Taipei'] = 209,
  ['Asia/Tashkent'] = 210,
  ['Asia/Tbilisi'] = 211,
  ['Asia/Tehran'] = 212,
  ['Asia/Tel_Aviv'] = 184,
  ['Asia/Thimbu'] = 213,
  ['Asia/Thimphu'] = 213,
  ['Asia/Tokyo'] = 183,
  ['Asia/Tomsk'] = 214,
  ['Asia/Ujung_Pandang'] = 164,
  ['Asia/Ulaanbaatar'] = 167,
  ['Asia/Ulan_Bator'] = 167,
  ['Asia/Urumqi'] = 188,
  ['Asia/Ust-Nera'] = 215,
  ['Asia/Vientiane'] = 160,
  ['Asia/Vladivostok'] = 216,
  ['Asia/Yakutsk'] = 217,
  ['Asia/Yangon'] = 204,
  ['Asia/Yekaterinburg'] = 218,
  ['Asia/Yerevan'] = 219,
  ['Atlantic/Azores'] = 220,
  ['Atlantic/Bermuda'] = 221,
  ['Atlantic/Canary'] = 222,
  ['Atlantic/Cape_Verde'] = 223,
  ['Atlantic/Faeroe'] = 224,
  ['Atlantic/Faroe'] = 224,
  ['Atlantic/Jan_Mayen'] = 149,
  ['Atlantic/Madeira'] = 225,
  ['Atlantic/Reykjavik'] = 1,
  ['Atlantic/South_Georgia'] = 226,
  ['Atlantic/St_Helena'] = 1,
  ['Atlantic/Stanley'] = 227,
  ['Australia/ACT'] = 228,
  ['Australia/Adelaide'] = 229,
  ['Australia/Brisbane'] = 230,
  ['Australia/Broken_Hill'] = 231,
  ['Australia/Canberra'] = 228,
  ['Australia/Currie'] = 232,
  ['Australia/Darwin'] = 233,
  ['Australia/Eucla'] = 234,
  ['Australia/Hobart'] = 232,
  ['Australia/LHI'] = 235,
  ['Australia/Lindeman'] = 236,
  ['Australia/Lord_Howe'] = 235,
  ['Australia/Melbourne'] = 237,
  ['Australia/NSW'] = 228,
  ['Australia/North'] = 233,
  ['Australia/Perth'] = 238,
  ['Australia/Queensland'] = 230,
  ['Australia/South'] = 229,
  ['Australia/Sydney'] = 228,
  ['Australia/Tasmania'] = 232,
  ['Australia/Victoria'] = 237,
  ['Australia/West'] = 238,
  ['Australia/Yancowinna'] = 231,
  ['Brazil/Acre'] = 118,
  ['Brazil/DeNoronha'] = 111,
  ['Brazil/East'] = 129,
  ['Brazil/West'] = 96,
  ['CET'] = 239,
  ['CST6CDT'] = 50,
  ['Canada/Atlantic'] = 76,
  ['Canada/Central'] = 121,
  ['Canada/Eastern'] = 108,
  ['Canada/Mountain'] = 62,
  ['Canada/Newfoundland'] = 132,
  ['Canada/Pacific'] = 136,
  ['Canada/Saskatchewan'] = 124,
  ['Canada/Yukon'] = 137,
  ['Chile/Continental'] = 127,
  ['Chile/EasterIsland'] = 240,
  ['Cuba'] = 77,
  ['EET'] = 241,
  ['EST'] = 36,
  ['EST5EDT'] = 109,
  ['Egypt'] = 7,
  ['Eire'] = 242,
  ['Etc/GMT'] = 1,
  ['Etc/GMT+0'] = 1,
  ['Etc/GMT+1'] = 243,
  ['Etc/GMT+10'] = 244,
  ['Etc/GMT+11'] = 245,
  ['Etc/GMT+12'] = 246,
  ['Etc/GMT+2'] = 226,
  ['Etc/GMT+3'] = 49,
  ['Etc/GMT+4'] = 21,
  ['Etc/GMT+5'] = 36,
  ['Etc/GMT+6'] = 124,
  ['Etc/GMT+7'] = 55,
  ['Etc/GMT+8'] = 247,
  ['Etc/GMT+9'] = 248,
  ['Etc/GMT-0'] = 1,
  ['Etc/GMT-1'] = 4,
  ['Etc/GMT-10'] = 141,
  ['Etc/GMT-11'] = 249,
  ['Etc/GMT-12'] = 250,
  ['Etc/GMT-13'] = 251,
  ['Etc/GMT-14'] = 252,
  ['Etc/GMT-2'] = 6,
  ['Etc/GMT-3'] = 2,
  ['Etc/GMT-4'] = 173,
  ['Etc/GMT-5'] = 253,
  ['Etc/GMT-6'] = 188,
  ['Etc/GMT-7'] = 160,
  ['Etc/GMT-8'] = 164,
  ['Etc/GMT-9'] = 183,
  ['Etc/GMT0'] = 1,
  ['Etc/Greenwich'] = 1,
  ['Etc/UCT'] = 1,
  ['Etc/UTC'] = 1,
  ['Etc/Universal'] = 1,
  ['Etc/Zulu'] = 1,
  ['Europe/Amsterdam'] = 239,
  ['Europe/Andorra'] = 254,
  ['Europe/Astrakhan'] = 255,
  ['Europe/Athens'] = 241,
  ['Europe/Belfast'] = 242,
  ['Europe/Belgrade'] = 256,
  ['Europe/Berlin'] = 149,
  ['Europe/Bratislava'] = 257,
  ['Europe/Brussels'] = 239,
  ['Europe/Bucharest'] = 258,
  ['Europe/Budapest'] = 259,
  ['Europe/Busingen'] = 260,
  ['Europe/Chisinau'] = 261,
  ['Europe/Copenhagen'] = 149,
  ['Europe/Dublin'] = 242,
  ['Europe/Gibraltar'] = 262,
  ['Europe/Guernsey'] = 242,
  ['Europe/Helsinki'] = 263,
  ['Europe/Isle_of_Man'] = 242,
  ['Europe/Istanbul'] = 182,
  ['Europe/Jersey'] = 242,
  ['Europe/Kaliningrad'] = 264,
  ['Europe/Kiev'] = 265,
  ['Europe/Kirov'] = 266,
  ['Europe/Kyiv'] = 265,
  ['Europe/Lisbon'] = 267,
  ['Europe/Ljubljana'] = 256,
  ['Europe/London'] = 242,
  ['Europe/Luxembourg'] = 239,
  ['Europe/Madrid'] = 268,
  ['Europe/Malta'] = 269,
  ['Europe/Mariehamn'] = 263,
  ['Europe/Minsk'] = 270,
  ['Europe/Monaco'] = 271,
  ['Europe/Moscow'] = 272,
  ['Europe/Nicosia'] = 195,
  ['Europe/Oslo'] = 149,
  ['Europe/Paris'] = 271,
  ['Europe/Podgorica'] = 256,
  ['Europe/Prague'] = 257,
  ['Europe/Riga'] = 273,
  ['Europe/Rome'] = 274,
  ['Europe/Samara'] = 275,
  ['Europe/San_Marino'] = 274,
  ['Europe/Sarajevo'] = 256,
  ['Europe/Saratov'] = 276,
  ['Europe/Simferopol'] = 277,
  ['Europe/Skopje'] = 256,
  ['Europe/Sofia'] = 278,
  ['Europe/Stockholm'] = 149,
  ['Europe/Tallinn'] = 279,
  ['Europe/Tirane'] = 280,
  ['Europe/Tiraspol'] = 261,
  ['Europe/Ulyanovsk'] = 281,
  ['Europe/Uzhgorod'] = 265,
  ['Europe/Vaduz'] = 260,
  ['Europe/Vatican'] = 274,
  ['Europe/Vienna'] = 282,
  ['Europe/Vilnius'] = 283,
  ['Europe/Volgograd'] = 284,
  ['Europe/Warsaw'] = 285,
  ['Europe/Zagreb'] = 256,
  ['Europe/Zaporozhye'] = 265,
  ['Europe/Zurich'] = 260,
  ['GB'] = 242,
  ['GB-Eire'] = 242,
  ['GMT'] = 1,
  ['GMT+0'] = 1,
  ['GMT-0'] = 1,
  ['GMT0'] = 1,
  ['Greenwich'] = 1,
  ['HST'] = 244,
  ['Hongkong'] = 179,
  ['Iceland'] = 1,
  ['Indian/Antananarivo'] = 2,
  ['Indian/Chagos'] = 286,
  ['Indian/Christmas'] = 160,
  ['Indian/Cocos'] = 204,
  ['Indian/Comoro'] = 2,
  ['Indian/Kerguelen'] = 253,
  ['Indian/Mahe'] = 173,
  ['Indian/Maldives'] = 253,
  ['Indian/Mauritius'] = 287,
  ['Indian/Mayotte'] = 2,
  ['Indian/Reunion'] = 173,
  ['Iran'] = 212,
  ['Israel'] = 184,
  ['Jamaica'] = 88,
  ['Japan'] = 183,
  ['Kwajalein'] = 288,
  ['Libya'] = 16,
  ['MET'] = 239,
  ['MST'] = 55,
  ['MST7MDT'] = 60,
  ['Mexico/BajaNorte'] = 65,
  ['Mexico/BajaSur'] = 99,
  ['Mexico/General'] = 103,
  ['NZ'] = 144,
  ['NZ-CHAT'] = 289,
  ['Navajo'] = 60,
  ['PRC'] = 168,
  ['PST8PDT'] = 93,
  ['Pacific/Apia'] = 290,
  ['Pacific/Auckland'] = 144,
  ['Pacific/Bougainville'] = 291,
  ['Pacific/Chatham'] = 289,
  ['Pacific/Chuuk'] = 141,
  ['Pacific/Easter'] = 240,
  ['Pacific/Efate'] = 292,
  ['Pacific/Enderbury'] = 293,
  ['Pacific/Fakaofo'] = 294,
  ['Pacific/Fiji'] = 295,
  ['Pacific/Funafuti'] = 250,
  ['Pacific/Galapagos'] = 296,
  ['Pacific/Gambier'] = 248,
  ['Pacific/Guadalcanal'] = 249,
  ['Pacific/Guam'] = 297,
  ['Pacific/Honolulu'] = 244,
  ['Pacific/Johnston'] = 244,
  ['Pacific/Kanton'] = 293,
  ['Pacific/Kiritimati'] = 298,
  ['Pacific/Kosrae'] = 299,
  ['Pacific/Kwajalein'] = 288,
  ['Pacific/Majuro'] = 250,
  ['Pacific/Marquesas'] = 300,
  ['Pacific/Midway'] = 245,
  ['Pacific/Nauru'] = 301,
  ['Pacific/Niue'] = 245,
  ['Pacific/Norfolk'] = 302,
  ['Pacific/Noumea'] = 303,
  ['Pacific/Pago_Pago'] = 245,
  ['Pacific/Palau'] = 183,
  ['Pacific/Pitcairn'] = 304,
  ['Pacific/Pohnpei'] = 249,
  ['Pacific/Ponape'] = 249,
  ['Pacific/Port_Moresby'] = 141,
  ['Pacific/Rarotonga'] = 305,
  ['Pacific/Saipan'] = 297,
  ['Pacific/Samoa'] = 245,
  ['Pacific/Tahiti'] = 244,
  ['Pacific/Tarawa'] = 250,
  ['Pacific/Tongatapu'] = 306,
  ['Pacific/Truk'] = 141,
  ['Pacific/Wake'] = 250,
  ['Pacific/Wallis'] = 250,
  ['Pacific/Yap'] = 141,
  ['Poland'] = 285,
  ['Portugal'] = 267,
  ['ROC'] = 209,
  ['ROK'] = 207,
  ['Singapore'] = 192,
  ['Turkey'] = 182,
  ['UCT'] = 1,
  ['US/Alaska'] = 20,
  ['US/Aleutian'] = 19,
  ['US/Arizona'] = 55,
  ['US/Central'] = 50,
  ['US/East-Indiana'] = 67,
  ['US/Eastern'] = 109,
  ['US/Hawaii'] = 244,
  ['US/Indiana-Starke'] = 79,
  ['US/Michigan'] = 61,
  ['US/Mountain'] = 60,
  ['US/Pacific'] = 93,
  ['US/Samoa'] = 245,
  ['UTC'] = 1,
  ['Universal'] = 1,
  ['W-SU'] = 272,
  ['WET'] = 267,
  ['Zulu'] = 1,
}
local ZONE_TABLES = {
  { '######' },
  { '#####$' },
  { '#######[sU#%#o/7##&Rr##%&z%`#&\'4YK#%\'dsU##\'zLA#%(5qj##(KI`#%' },
  { '#####%' },
  { '#####\'%GHj##' },
  { '#####&' },
  { '#####&#16U#$#CC##&#]Mt#$#oZA#&$-pt#$$?}A#&$Y-7#$$l9`#&%*DU#$%<Q##&%U[t#$%hiA#&&\'#t#$&90A#&&R;7#$&eG`#&\'#RU#$\'5`##&\'Njt#$\'awA#&\'{1t#$(2>A#&(KI7#$(^U`#&)&h7#$).n##&)PMt#$)Z*A#&)t?t#$*+LA#&*DW7#$*Vd`#&*poU#$+\'|##&+A+t#$+S8A#&+mMt#$,$ZA#&,>@U#$,Or`#&,i}U#$,|/##&-:9t#$-LFA#&-f[t#$-xiA#&.6t7#$.I%`#&.c0U#$.u=##&/3\'K#$/E=`#&/_4-#$/qJA#&0/@j#$0AW##&0ZMK#$0md`#&1,Jj#$1>b##&1WWK#$1jn`#&2(e-#$2:{A#&2Sqj#$2g-##&3%#K#$379`#&3P{j#$3d7##&3}-K#$44C`#&4M:-#$4_``#&4yFj#$5.1##&5ISK#$5XM##&5ua-#$6(j##&6F^K#$6Rp`#&6VH-#$6Xt`#&8Ac-#$8F``#&8JnK#$8QLA#&<^/K#$<scA#&=.<-#$=D``#&=YHj#$=pmA#&>*UK#$>@z##&>VRj#$>m+`#&?\'`K#$?=8A#&?Rm-#$?iE##&@#yj#$@:BA#&@O+K#$@fO##&@|(j#$A6[`#&AL5K#$AbiA#&AxB-#$B2v##&BHNj#$B_\'`#&Bt[K#$C0%##&CDi-#$C[1`#&CqfK#$D,>A#&DAs-#$DWK##&Dn$j#$E(W`#&E>1K#$ETU##&Ej>-#$F%b`#&F:Jj#$FPoA#&FgH-#$F||##&G7Tj#$GM-`#&GcbK#$Gy:A#&H3o-#$HJ7`#&H_{j#$HvDA#&I0y-#$IFQ##&I]*j#$Ir^`#&J-7K#$JBkA#&JXD-#$Joh`#&K)Pj#$K?uA#&KT^K#$Kl\'##&L&Zj#$L<3`#&LQhK#$Lh@A#&L}u-#$M8M##&MN&j#$MeJA#&Mz3K#$N5W##&NK0j#$Nad`#&Nw=K#$O1qA#&OGJ-#$O^###&OsVj#$P./`#&PCdK#$PZ-##&Poq-#$Q+9`#&Q@nK#$QVFA#&Ql{-#$R\'S##&R=,j#$RR``#&Ri9K#$S$^##&S9F-#$SOj`#&SeRj#$S{wA#&T6P-#$TL)##&Tb]j#$Tx5`#&U2jK#$UHBA#&U^w-#$Uu?`#&V/(j#$VELA#&V[&-#$VqY##&W,2j#$WAf`#&WW?K#$WmsA#&X(L-#$X>p`#&XSXj#$Xj}A#&Y$fK#$Y;/##&YPcj#$Yg;`#&Y|pK#$Z7HA#&ZL}-#$ZcU##&Zy.j#$[4RA#&[I;K#$[``##&[v8j#$]0l`#&]FEK#$][yA#&]rR-#$^-+##&^B_j#$^X7`#&^nlK#$_*5##&_>y-#$_UA`#&_kvK#$`&NA#&`<(-#$`Q[##&`h4j#$`}h`#&a8AK#$aNf##&adN-#$azr`#&b4Zj#$bK$A#&' },
  { '######%0j##%%8yU##&\'$A#%&1v7##&R;`#%&e\'7##\'\'5`#%\'.jt##)nr`#%*bZU##5Mx##%5Xnt##5z4A#%6(jt##6Ft`#%6RPU##6od`#%6}mU##7C3t#%7LuU##7PW7#%7UJU##7o@U#%7w[7##7{^t#%8)tt##8<0U#%8FmU##8Jzt#%8U&U##8h=7#%8qHU##8uUt#%9&37##98It#%9@eU##9Drt#%9R0U##9dVU#%9k5t##9p3t#%:#=7##:4d7#%::Qt##:>`7#%:ent##:i|7#%;4?7##;9=7#%;_[7##;ciU#%<.,U##<3*U#%<XHU##<]Ut#%=(eU##=,rt#%=R5t##=W3t#%=}Qt##>&`7#%>Lnt##>P|7#%>w?7##>|=7#%?F[7##?JiU#%?q,U##?v*U#%@@HU##@DUt#%@keU##@ort#%A:5t##A?3t#%AeQt##Ai`7#%B4#7##B8|7#%B_?7##Bd=7#%C.[7##C2iU#%CX,U##C^*U#%D(HU##D,Ut#%DReU##DVrt#%D}5t##E\'3t#%ELQt##EP`7#%Ew#7##E{|7#%FF?7##FK=7#%Fq[7##FuiU#%G@,U##GE*U#%GkHU##GoUt#%H:eU##H>rt#%He5t##Hj3t#%I4Qt##I8`7#%I_#7##Ic|7#%J.?7##J3=7#%JX[7##J]iU#%K(,U##K-*U#%KRHU##KVUt#%K}eU##L&rt#%LL5t##LQ3t#%LwQt##L{`7#%MF#7##MJ|7#%Mq?7##Mv=7#%N@[7##NDiU#%Nk,U##Np*U#%O:HU##O>Ut#%OeeU##Oirt#%P45t##P93t#%P_Qt##Pc`7#%Q.#7##Q2|7#%QX?7##Q^=7#%R([7##R,iU#%RR,U##RW*U#%R}HU##S&Ut#%SLeU##SPrt#%Sw5t##S|3t#%TFQt##TJ`7#%Tq#7##Tu|7#%U@?7##UE=7#%Uk[7##UoiU#%V:,U##V?*U#%VeHU##ViUt#%W4eU##W8rt#%W_5t##Wd3t#%X.Qt##X2`7#%XX#7##X]|7#%Y(?7##Y,LU#%YR[7##YViU#%Y},U##Z\'*U#%ZLHU##ZPUt#%ZweU##Z{rt#%[F5t##[K3t#%' },
  { '######%0j##%%8yU##&\'$A#%&1v7##&R;`#%&e\'7##\'\'5`#%\'.jt##)nr`#%*m(-#&+\'[K#%+=4j#&+Ri-#%+iAK#&,#uj#%,9N-#&,O\'K#%,eZj#&,|$j#%-6X-#&-L1K#%-bej#&-x>-#%.2rK#&.HJj#%._$-#&.tWK#%//0j#&/De-#%/[.-#&/u$-#%0,:j#&0E0j#%0WGK#&0q=K#%1(T-#&1B:j#%1Saj#&1nGK#%2$nK#&2>T-#%2Pkj#&2jaj#%2|xK#&3:nK#%3M*-#&3gkj#%3y6j#&47xK#%4ICK#&4d*-#%4uP-#&546j#%5FMK#&5`CK#%5rZ-#&60P-#%6Bgj#&6]MK#%6ntK#&7-Z-#%7?&-#&7Xgj#%7l#K#&8)tK#%8<0-#&8U&-#%8h<j#&9&2j#%98IK#&9R0-#%9dV-#&:#<j#%:4cj#&:NIK#%:aa-#&:zV-#%;1mj#&;Jcj#%;]zK#&;wa-#%<.,-#&<Gmj#%<Y8j#&<szK#%=+6-#&=D,-#%=VBj#&=p8j#%>\'OK#&>@EK#%>R]-#&>mBj#%?#ij#&?=OK#%?NvK#&?i]-#%?{sj#&@9ij#%@L%K#&@evK#%@x2-#&A6sj#%AH>j#&Ac%K#%AtKK#&B32-#%BDX-#&B_>j#%BqUK#&C/KK#%CAc-#&CZX-#%Cmoj#&D,UK#%D=|K#&DWc-#%Dj.-#&E(oj#%E;+K#&ES|K#%Eg8-#&F%.-#%F7Dj#&FP:j#%FcQK#&F}8-#%G3_-#&GMDj#%G_kj#&GyQK#%H0i-#&HI_-#%H[uj#&Hukj#%I-\'K#&IFi-#%IX4-#&Iruj#%J)@j#&JC\'K#%JU>-#&Jo4-#%K&Jj#&K?@j#%KQWK#&KkMK#%K}e-#&L<Jj#%LMqj#&LhWK#%Lz#K#&M8e-#%MJ{j#&Mdqj#%Mw-K#&N5#K#%NG:-#&Na{j#%NsFj#&O2-K#%OCSK#&O^:-#%Ooa-#&P.Fj#%P@^K#&PYSK#%Plk-#&Q*a-#%Q<wj#&QV^K#%Qi)K#&R\'k-#%R96-#&RRwj#%Rf3K#&S$)K#%S6@-#&SO6-#%SbLj#&S{Bj#%T2YK#&TL@-#%T^g-#&TxLj#%U.sj#&UHYK#%UZq-#&Utg-#%V+}j#&VDsj#%VW/K#&Vqq-#%W(<-#&WA}j#%WSHj#&Wn/K#%X%F-#&X><-#%XPRj#&XjHj#%X|`K#&Y:UK#%YLm-#&YgRj#%Yxyj#&Z7`K#%ZI+K#&Zcm-#%Zv(j#&[3yj#%[F5K#&[`+K#%[rB-#&]1(j#%]BNj#&]]5K#%]n[K#&^-B-#%^>i-#&^XNj#%^kfK#&_)[K#%_;s-#&_Ti-#%_h$j#&`&fK#%`81K#&`Qs-#%`d>-#&a#$j#%a5;K#&aN1K#%aaH-#&az>-#%b1Tj#&bJJj#%' },
  { '#####\'&%#K##&\'$A#%&1v7##&R;`#%&e\'7##\'\'5`#%\'.jt##', 8, 12 },
  { '#####&#16-#$#E###&#]Bj#$#q:A#&$-ej#$$A]A#&$XrK#$$mt`#&%*$-#$%>1##&%U0j#$%jHA#&&&=K#$&:kA#&&QJ-#$&g\'`#&\'#GK#$\'7?##&\'NT-#$\'cVA#&\'zaj#$(3yA#&(JnK#$(`5`#&(v{-#$)0M##&)G,j#$)[eA#&)t*-#$*-,A#&*D6j#$*XC`#&1K?K#$;VI##&' },
  { '#####&#16-#$#E###&#]Bj#$#q:A#&$-ej#$$A]A#&$XrK#$$mt`#&%*$-#$%>1##&%U0j#$%jHA#&&&=K#$&:kA#&&QJ-#$&g\'`#&\'#GK#$\'7?##&\'NT-#$\'cVA#&\'zaj#$(3yA#&(JnK#$(`5`#&(v{-#$)0M##&)G,j#$)[eA#&)t*-#$*-,A#&*D6j#$*XC`#&1K?K#$:#[##&' },
  { '#####(#{7}`#' },
  { '#####%\'cLU#&\'thK#%' },
  { '######:*rK#%:V.j##' },
  { '#####&(iL-#%(t.U#&).m-#%)DEt#&)Z)K#%)pht#&*+KK#%*AZU#&*Vcj#%*m]U#&+(5K#%+=St#&+S7K#%+ivt#&,$YK#%,:37#&,Oqj#%,jBU#&/qkj#%0,p7#&7Z=##%7kh`#&' },
  { '#####%&R0U#&&dVU#%\'#RU#&\'5_U#%+q0U#&,#tt#%,9M7#&,O&U#%,i}U#&,|#t#%3}C7#&44E##%4ICK#&4d*-#%4uP-#&546j#%5FMK#&5`CK#%' },
  { '#####&.^<j#%.r+K#&//|##%/B8-#&/[yA#%/nDj#&0-+##%0?B-#&0X7`#%0kNj#&1)DA#%1;[K#&1TQ##%1gi-#&2%^`#%27uj#&2Q[##%2d\'K#&2}h`#%35$j#&3MuA#%3a1K#&3z\'##%41>-#&4J3`#%4]Jj#&4v@A#%5-WK#&5G=`#%5YTj#&5sJA#%6*bK#&6CW##%6Uo-#&6od`#%7&{j#&7?qA#%7R-K#&7ln`#%8#:-#&8<{A#%8O7K#&8i-##%8{D-#&999`#%9KPj#&9eFA#%9w^K#&' },
  { '#####)#0bK#*#F:A#)#[o-#*#s7`#)$-lK#*$CDA#)$Xy-#*$oQ##)$wm-#*%?^`#)%MhK#*%kkA#)&&D-#*&<h`#)&QPj#*&huA#)\'#N-#*\'9\'##)\'NZj#*\'e3`#)\'zhK#*(5@A#)(Ju-#*(aM##)(w&j#*)2JA#))G3K#*)t0A#+*.d7#**D=##+*Ypt#**pI`#++*}U#*+>*A#++V/7#*+j7##+,(,U#*,:C`#+,S97#*,fPA#+-$Et#*-7M`#+-ORU#*-cZA#+-{`7#*.3h##+.L]U#*._t`#+.xj7#*/0&A#+/Hvt#*/]#`#+/u(U#*0-0A#+0E57#*0X=##+0qAt#*1)I`#+1B?7#*1TVA#+1nKt#*2%d##+2>XU#*2QaA#+2jf7#*2}n##+3:rt#*3Mz`#+3gp7#*3z,A#+47|t#*4J9##+4d.U#*4st`#+55+t#*5D&A#+5a8U#*5p3##+61E7#*6A0A#+6^BU#*6m=##+7.O7#*7=I`#+7Y[t#*7iVA#+8*iU#*89d##+8Uv7#*8ep`#+9\'\'t#*96n##+9S%7#*9bz`#+:$1t#*:3,A#+:O>U#*:_9##+:{K7#*;/E`#+;KWt#*;[C##+;xU7#*<,O`#+<Hbt#*<W]A#+<toU#*=(j##+=D|7#*=Sv`#+=q-t#*>%(A#+>A:U#*>Q%`#+>n7t#*>}2A#+?>DU#*?M?##+?jQ7#*?yK`#+@:^t#*@IXA#+@fkU#*@vU`#+A7ht#*AFcA#+AcuU#*Arp##+B4\'7#*BB|`#+B`3t#*Bo.A#+C0@U#*C?;##+C[M7#*Cl8A#+D-JU#*D<E##+DXW7#*DhQ`#+E)dt#*E8_A#+ETqU#*Edl##+F&#7#*F4x`#+FQ/t#*Fav##+G#-7#*G2\'`#+GN9t#*G^4A#+GzFU#*H.A##+HJS7#*HYM`#+Hv`t#*I+K##+IG^7#*IVW`#+Isjt#*J\'eA#+JCwU#*JRr##+Jp)7#*K$#`#+K@5t#*KO0A#+KlBU#*K|-`#+L=?t#*LL:A#+LiLU#*LxG##+M9Y7#*MHS`#+Meft#*MtaA#+N5sU#*NE^`#+Nbpt#*NqkA#+O2}U#*OAx##+O_/7#*On)`#+P/;t#*P>6A#+PZHU#*PjC##+Q+U7#*Q;@A#+QWRU#*QgM##+R(`7#*R7Y`#+RSlt#*RcgA#+S$yU#*S3t##+SP+7#*S`%`#+S|7t#*T1###+TM57#*T]/`#+TyAt#*U-<A#+UINU#*UXI##+Uu[7#*V)U`#+VEht#*VUS##+Vrf7#*W&``#+WBrt#*WQmA#+Wo$U#*W}z##+X?17#*XN+`#+Xk=t#*Xz8A#+Y;JU#*YK5`#+YhGt#*YwBA#+Z8TU#*ZGO##+Zdb7#*Zs[`#+[4nt#*[CiA#+[`{U#*[pf`#+]1xt#*]@sA#+]^*U#*]m%##+^.77#*^=1`#+^YCt#*^i>A#+_*PU#*_9K##+_U^7#*_fHA#+`\'ZU#*`6U##+`Rh7#*`bb`#+a#tt#*a2oA#+aO&U#*a^|##+a{37#*b/-`#+bK?t#*' },
  { '#####*#0b##+#F9t#*#[n`#+#s77#*$-l##+$CCt#*$Xx`#+$oPU#*$wl`#+%?^7#*%Mh##+%kjt#*&&C`#+&<h7#*&QPA#+&htt#*\'#M`#+\'9&U#*\'NZA#+\'e37#*\'zh##+(5?t#*(Jt`#+(aLU#*(w&A#+)2It#*)G3##+)t/t#,*.cj#+*D<U#,*YpK#+*pI7#,+*}-#++>)t#,+V.j#++j6U#,,(,-#+,:C7#,,S8j#+,fOt#,-$EK#+-7M7#,-OR-#+-cYt#,-{_j#+.3gU#,.L]-#+._t7#,.xij#+/0%t#,/HvK#+/]#7#,/u(-#+0-/t#,0E4j#+0X<U#,0qAK#+1)I7#,1B>j#+1TUt#,1nKK#+2%cU#,2>X-#+2Q`t#,2jej#+2}mU#,3:rK#+3Mz7#,3goj#+3z+t#,47|K#+4J8U#,4d.-#+4st7#,55+K#+5D%t#,5a8-#+5p2U#,61Dj#+6A/t#,6^B-#+6m<U#,7.Nj#+7=I7#,7Y[K#+7iUt#,8*i-#+89cU#,8Uuj#+8ep7#,9\'\'K#+96mU#,9S$j#+9bz7#,:$1K#+:3+t#,:O>-#+:_8U#,:{Jj#+;/E7#,;KWK#+;[BU#,;xTj#+<,O7#,<HbK#+<W[t#,<to-#+=(iU#,=D{j#+=Sv7#,=q-K#+>%\'t#,>A:-#+>Q%7#,>n7K#+>}1t#,?>D-#+?M>U#,?jPj#+?yK7#,@:^K#+@IWt#,@fk-#+@vU7#,A7hK#+AFbt#,Acu-#+AroU#,B4&j#+BB|7#,B`3K#+Bo-t#,C0@-#+C?:U#,C[Lj#+Cl7t#,D-J-#+D<DU#,DXVj#+DhQ7#,E)dK#+E8^t#,ETq-#+EdkU#,F%}j#+F4x7#,FQ/K#+FauU#,G#,j#+G2\'7#,GN9K#+G^3t#,GzF-#+H.@U#,HJRj#+HYM7#,Hv`K#+I+JU#,IG]j#+IVW7#,IsjK#+J\'dt#,JCw-#+JRqU#,Jp(j#+K$#7#,K@5K#+KO/t#,KlB-#+K|-7#,L=?K#+LL9t#,LiL-#+LxFU#,M9Xj#+MHS7#,MefK#+Mt`t#,N5s-#+NE^7#,NbpK#+Nqjt#,O2}-#+OAwU#,O_.j#+On)7#,P/;K#+P>5t#,PZH-#+PjBU#,Q+Tj#+Q;?t#,QWR-#+QgLU#,R(_j#+R7Y7#,RSlK#+Rcft#,S$y-#+S3sU#,SP*j#+S`%7#,S|7K#+T0}U#,TM4j#+T]/7#,TyAK#+U-;t#,UIN-#+UXHU#,UuZj#+V)U7#,VEhK#+VURU#,Vrej#+W&`7#,WBrK#+WQlt#,Wo$-#+W}yU#,X?0j#+XN+7#,Xk=K#+Xz7t#,Y;J-#+YK57#,YhGK#+YwAt#,Z8T-#+ZGNU#,Zdaj#+Zs[7#,[4nK#+[Cht#,[`{-#+[pf7#,]1xK#+]@rt#,]^*-#+]m$U#,^.6j#+^=17#,^YCK#+^i=t#,_*P-#+_9JU#,_U]j#+_fGt#,`\'Z-#+`6TU#,`Rgj#+`bb7#,a#tK#+a2nt#,aO&-#+a^{U#,a{2j#+b/-7#,bK?K#+' },
  { '#####-' },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#./G7##//U?t#./rS##/0\'=7#.0BkA#/0T+7#.0o^##/1$G7#.1>z##/1PDU#.1kwA#/1{aU#.2<t`#/2Kn7#.2kRA#/2wzt#.7Wx##/7g%t#.' },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#.-N_A#/-_HU#.-zl##/.0Et#.5;b`#/5DmU#.5_S`#/5pz7#.' },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#--N_j#/-_HU#.-zl##/.0Et#.3TkA#-3W\'K#.5;b`#/5DmU#.' },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#--N_j#/', 23, 11 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#--$Bj#.-4x`#--M#K#/-_HU#.-zl##/.0Et#.', 24, 16 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3&U#--:}-#.-N_A#/', 24, 11 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#-,}m-#.-3\'##--N)K#.-_I##--zlK#/.0Et#.3SeA#-3c_j#.', 24, 16 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#.', 27, 11 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#--N_j#/', 26, 11 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3&U#--:}-#.-N_A#/-_HU#.-zl##/.0Et#.3T``#-3[4j#.', 24, 16 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,d?t#-,}m-#.-3\'##--=yj#.3T``#-3[4j#.5;b`#/5>=t#.5C}A#-5^dK#.5p/##-6.q-#.' },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#--N_j#/-_HU#.-zl##/.0Et#.3TkA#-3V6j#.', 23, 14 },
  { '#####.$yj##/%*Et#.,+qA#/,6}U#.,QTA#/,c/7#.-#Q`#/-3;t#.-N_A#/-_HU#.-zl##/.0Et#.3TU##-', 24, 15 },
  { '#####-$@$-#.%&oA#-%hk-#.%zl##-&92-#.&K(A#-&eIK#.&w?`#-\'5aj#.\'K9`#-\'ay-#.\'w[`#-(2@-#.(Gt##-(^WK#.(t0A#-).oj#.)DG`#-)Z,-#.)pj`#-*+N-#.*A\'##-*VfK#.*m>A#-+\'}j#.+=U`#-+S:-#.+ix`#-,$]-#.,:5##-,REK#.,fLA#-,|0j#.-6d`#--M#K#.-_I##--y:j#..38A#-.I\'K#..ZcA#-.u>j#./+p##-/EV-#./WW##-/rSK#.0(.A#-0Ba-#.0T+`#-0nmj#.1&)##-1>zK#.1Q5`#-1k,-#.1}BA#-2<)K#.2Q]A#-2d(j#.2}j##-35&-#.3Mv`#-3f0j#.3wVA#-46=K#.4Gd##-4bJ-#.4sp`#-53GK#.5C}A#-5_T-#.5p/##-6/aj#.6DI##-6Y2-#.6pU`#-7*>j#.7@cA#-7V<-#.7k3`#-8\'Hj#.8;@A#-8RUK#.8gM##-9#c-#.98JA#-9Noj#.9dW##-9z|K#.:4d`#-:Kyj#.:`qA#-:x+K#.;1###-;H8-#.;]{A#-;tDj#.<.-##-<DQK#.<Y9`#-<p_-#.=*FA#-=A[K#.' },
  { '#####0' },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#.-#Q`#/-1ZU#.-N_A#/-[wU#.-{[`#/.,8U#..Jx`#/.Yr7#..w*A#//+#t#./G7##//U?t#./rS##/0\'=7#.0BkA#/0T+7#.0o^##/1$G7#.1>z##/1PDU#.1kwA#/1{aU#.2<t`#/2Kn7#.2kRA#/2wzt#.7+z`#/7;dt#.' },
  { '#####1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21B=t#11TU##21nJU#12)p##22;:U#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14vDA#2549t#15GA`#25`FU#15sNA#260S7#16C[##06]P-#26oh7#07-]j#27?tt#07XjK#27lr7#08)w-#28=#t#08U(j#28i0U#09&5K#299=7#09R2j#29eIt#0:#?K#2:5VU#0:NL-#2:bSt#0:zXj#2;2aU#0;JfK#2;^n7#0;wcj#2<.zt#0<GpK#2' },
  { '#####-&W<A#.&eTU#-&|j`#.\'5b7#-\'LwA#.\'ant#-\'yt`#.(1ZU#-' },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.' },
  { '#####2$s|`#0${l7#2)8+`#0)>eU#2' },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-1>zK#.1PE##-1kwj#.1lh##-' },
  { '#####0-ftt#-.-*-#0' },
  { '#####1#0``#2#F8U#1#[mA#2#s5t#1$-j`#2$CBU#1$XwA#2$oO7#1${-##2%?[t#1%Mf`#2%kiU#1&&BA#2&<ft#1&QO##2&hsU#1\'#LA#2\'9%7#1\'NY##2\'e1t#1\'zf`#2(5>U#1(JsA#2(aK7#1(w%##2)2HU#1)G1`#2)^U7#1)t/##2*.bt#1*D;`#2*YoU#1*pHA#2+*|7#1+>)##2+V-t#1+j5`#2,(+7#1,:BA#2,S7t#1,fO##2-$DU#1-7LA#2-OQ7#1-cY##2-{^t#1.3f`#2.L[7#1._sA#2.xht#1/0%##2/HuU#1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21B=t#11TU##21nJU#12%b`#22>W7#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14ssA#255*U#15D%##25a77#15p1`#261Ct#16A/##26^A7#16m;`#27.Mt#17=HA#27YZU#17iU##28*h7#189b`#28Utt#18eoA#29\'&U#196l`#29S#t#19byA#2:$0U#1:3+##2:O=7#1:_7`#2:{It#1;/DA#2;KVU#1;[A`#2;xSt#1<,NA#2<HaU#1<W[##2<tn7#1=(h`#2=Dzt#1=SuA#2=q,U#1>%\'##2>A97#1>Q$A#2>n6U#1>}1##2?>C7#1?M=`#2?jOt#1?yJA#2@:]U#1@IW##2@fj7#1@vTA#2A7gU#1AFb##2Act7#1Arn`#2B4%t#1BB{A#2B`2U#1Bo-##2C0?7#1C?9`#2C[Kt#1Cl7##2D-I7#1D<C`#2DXUt#1DhPA#2E)cU#1E8^##2ETp7#1Edj`#2F%|t#1F4wA#2FQ.U#1Fat`#2G#+t#1G2&A#2GN8U#1G^3##2GzE7#1H.?`#2HJQt#1HYLA#2Hv_U#1I+I`#2IG[t#1IVVA#2IsiU#1J\'d##2JCv7#1JRp`#2Jp\'t#1K#}A#2K@4U#1KO/##2KlA7#1K|,A#2L=>U#1LL9##2LiK7#1LxE`#2M9Wt#1MHRA#2MeeU#1Mt`##2N5r7#1NE]A#2NboU#1Nqj##2O2|7#1OAv`#2O_-t#1On(A#2P/:U#1P>5##2PZG7#1PjA`#2Q+St#1Q;?##2QWQ7#1QgK`#2R(^t#1R7XA#2RSkU#1Rcf##2S$x7#1S3r`#2SP)t#1S`$A#2S|6U#1T0|`#2TM3t#1T].A#2Ty@U#1U-;##2UIM7#1UXG`#2UuYt#1V)TA#2VEgU#1VUQ`#2Vrdt#1W&_A#2WBqU#1WQl##2Wo#7#1W}x`#2X?/t#1XN*A#2Xk<U#1Xz7##2Y;I7#1YK4A#2YhFU#1YwA##2Z8S7#1ZGM`#2Zd`t#1ZsZA#2[4mU#1[Ch##2[`z7#1[peA#2]1wU#1]@r##2]^)7#1]m#`#2^.5t#1^=0A#2^YBU#1^i=##2_*O7#1_9I`#2_U[t#1_fG##2`\'Y7#1`6S`#2`Rft#1`baA#2a#sU#1a2n##2aO%7#1a^z`#2a{1t#1b/,A#2bK>U#1' },
  { '#####1$-j`#2$CBU#1$XwA#2$oO7#1%*)##2%?[t#1%U5`#2%kiU#1&&BA#2&<ft#1&QO##2&hsU#1\'#LA#2\'9%7#1\'NY##2\'e1t#1\'zf`#2(5>U#1(JsA#2(aK7#1(w%##2)2HU#1)G1`#2)^U7#1)t/##2*.bt#1*D;`#2*YoU#1*pHA#2+*|7#1+>)##2+V-t#1+j5`#2,(+7#1,:BA#2,S7t#1,fO##2-$DU#1-7LA#2-OQ7#1-cY##2-{^t#1.3f`#2.L[7#1._sA#2.xht#1/0%##2/HuU#1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21TTU#01o9t#2', 44, 65 },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-,&H-#.,2p`#-,QTj#.,`^`#--#R-#.-1[##--N_j#.-[x##--{]-#..,9##-.Jy-#..Yr`#-.w*j#./+$A#-/G7K#./U@A#-/rSK#.0\'=`#-0Bkj#.0T+`#-0o^K#.1$G`#-1>zK#.1PE##-1kwj#.1{b##-2<u-#.2Kn`#-2kRj#.2w{A#-3:$-#.3H-##-3h\'K#.3u*A#-46=K#.4E7##-4dw-#.4r4A#-52Vj#.5APA#-5_T-#.5m^##-6/aj#.6>ZA#-6ZnK#.6jh##-7+{-#.7;eA#-7WxK#.7g&A#-8)*-#.873##-8T6j#.8d0A#-9%CK#.94=##-9PP-#.9`I`#-9|]j#.:0VA#-:O;K#.:[d##-' },
  { '#####2(hkU#0):,U#2/[|t#0/u&j#20-.U#00X:j#-0gC`#00q@-#21)Gt#01B=K#21TTU#01nJ-#22)oU#02;:-#22Q_U#02jdK#22}l7#03:q-#23Mxt#03gnK#23z*U#047{-#24J77#04d,j#24vCt#0549K#25GA7#05`F-#25sMt#060Rj#26CZU#06]P-#26oh7#07-]j#27?tt#07XjK#27lr7#08)w-#28=#t#08U(j#28aaU#0' },
  { '#####-597K#39<YK#-' },
  { '#####.' },
  { '#####2#0`7#0#F8-#2#[lt#0#s5K#2$-j7#0$CB-#2$Xvt#0$oNj#2$wjt#0%?[K#2%Mf7#0%ki-#2&&At#0&<fK#2&QNU#0&hs-#2\'#Kt#0\'9$j#2\'NXU#0\'e1K#2\'zf7#0(5>-#2(Jrt#0(aJj#2(w$U#0)2H-#2)G17#0)^Tj#2)t.U#0*.bK#2*D;7#0*Yo-#2*pGt#0+*{j#2+>(U#0+V-K#2+j57#0,(*j#2,:At#0,S7K#2,fNU#0-$D-#2-7Kt#0-OPj#2-cXU#0-{^K#2.3f7#0.LZj#2._rt#0.xhK#2/0$U#0/Hu-#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#21TTU#01nJ-#22%b7#02>Vj#22Q_U#02jdK#22}l7#03:q-#23Mxt#03gnK#23z*U#047{-#24J77#04d,j#24srt#055*-#25D$U#05a6j#25p17#061CK#26A.U#06^@j#26m;7#07.MK#27=Gt#07YZ-#27iTU#08*gj#289b7#08UtK#28ent#09\'&-#296l7#09S#K#29bxt#0:$0-#2:3*U#0:O<j#2:_77#0:{IK#2;/Ct#0;KV-#2;[A7#0;xSK#2<,Mt#0<Ha-#2<WZU#0<tmj#2=(h7#0=DzK#2=Stt#0=q,-#2>%&U#0>A8j#2>Q#t#0>n6-#2>}0U#0?>Bj#2?M=7#0?jOK#2?yIt#0@:]-#2@IVU#0@fij#2@vSt#0A7g-#2AFaU#0Acsj#2Arn7#0B4%K#2BBzt#0B`2-#2Bo,U#0C0>j#2C?97#0C[KK#2Cl6U#0D-Hj#2D<C7#0DXUK#2DhOt#0E)c-#2E8]U#0EToj#2Edj7#0F%|K#2F4vt#0FQ.-#2Fat7#0G#+K#2G2%t#0GN8-#2G^2U#0GzDj#2H.?7#0HJQK#2HYKt#0Hv_-#2I+I7#0IG[K#2IVUt#0Isi-#2J\'cU#0JCuj#2JRp7#0Jp\'K#2K#|t#0K@4-#2KO.U#0Kl@j#2K|+t#0L=>-#2LL8U#0LiJj#2LxE7#0M9WK#2MHQt#0Mee-#2Mt_U#0N5qj#2NE[t#0Nbo-#2NqiU#0O2{j#2OAv7#0O_-K#2On\'t#0P/:-#2P>4U#0PZFj#2PjA7#0Q+SK#2Q;>U#0QWPj#2QgK7#0R(^K#2R7Wt#0RSk-#2RceU#0S$wj#2S3r7#0SP)K#2S`#t#0S|6-#2T0|7#0TM3K#2T]-t#0Ty@-#2U-:U#0UILj#2UXG7#0UuYK#2V)St#0VEg-#2VUQ7#0VrdK#2W&^t#0WBq-#2WQkU#0Wn}j#2W}x7#0X?/K#2XN)t#0Xk<-#2Xz6U#0Y;Hj#2YK3t#0YhF-#2Yw@U#0Z8Rj#2ZGM7#0Zd`K#2ZsYt#0[4m-#2[CgU#0[`yj#2[pdt#0]1w-#2]@qU#0]^(j#2]m#7#0^.5K#2^=/t#0^YB-#2^i<U#0_*Nj#2_9I7#0_U[K#2_fFU#0`\'Xj#2`6S7#0`RfK#2`b`t#0a#s-#2a2mU#0aO$j#2a^z7#0a{1K#2b/+t#0bK>-#2' },
  { '#####2/[|t#0/u&j#20-.U#00E3K#20q@U#11)HA#21B=t#11TU##21nJU#12)p##22;:U#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14vDA#2549t#15GA`#25`FU#15sNA#260S7#16C[##26]PU#16oh`#27-^7#17?uA#27Xjt#17lr`#28)wU#18=$A#28U)7#18i1##29&5t#199=`#29R37#19eJA#2:#?t#1:5W##2:NLU#1:bTA#2:zY7#1;2b##2;Jft#1;^n`#2;wd7#1<.{A#2' },
  { '#####2/[|t#0/u&j#20-.U#00E3K#20q@U#11)HA#21B=t#11TU##21nJU#12)p##22;:U#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14vDA#2549t#15GA`#25`FU#15sNA#260S7#16A/##26^A7#16m;`#27.Mt#17=HA#27YZU#17iU##28*h7#189b`#28Utt#18eoA#29\'&U#196l`#29S#t#19byA#2:$0U#1:3+##2:O=7#1:_7`#2:{It#1;/DA#2;KVU#1;[A`#2;xSt#1<,NA#2<KQ`#1', 44, 108 },
  { '#####2\'G-`#0\'ReU#2\'s:A#0(#r7#2-.5##0-AQ7#2-YA`#0-a+7#2' },
  { '#####.#-@A#-#DUK#.#Vl`#-#pc-#.$\'yA#-$A`K#.$S+##-$l0j#.%$7`#-%=yj#.%ODA#-%j+K#.%|A`#-&:8-#.&LNA#-&fDj#.&x[##-\'7B-#.\'Hh`#-\'cNj#.\'tuA#-(3[K#.(Er`#-(_i-#.(r$A#-)/uj#.)B1##-)[\'K#.)n=`#-*-$j#.*>JA#-*X1K#.*jW##-+)>-#.+>r##-+TJj#.+gb##-,%WK#.,7n`#-,QTj#.,c{A#-,zDj#.-4-##--Mo-#.-a*A#--y{j#..17##-.J-K#..]C`#-.v:-#./-PA#-/G7K#./X^##-/sD-#.0,;`#-0CPj#.0Uh##-0m}-#.1)E`#-1?k-#.1R&A#-1lhK#.2#3##-2<u-#.2N?`#-2i&j#.2zLA#-393K#.3KI`#-3e@-#.3wVA#-45Lj#.4Gd##-4bJ-#.4sp`#-52Vj#.5FNA#-5^dK#.5pz`#-6.q-#.6CXA#-6Y}j#.6ssA#-7%@j#.7C4A#-7R.j#.7oA##-8$,-#.8?M`#-8O8j#.9>9##-9I&-#.9jE`#-9u2j#.::RA#-:E?K#.:bQ`#-:tij#.;2_A#-;DvK#.;^l##-;q(-#.<.x`#-<B%K#.<Z*A#-<mAK#.=,\'`#-=>>j#.' },
  { '#####1' },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-,&H-#.,2p`#-,QTj#.,`^`#--#R-#.-1[##--N_j#.-[x##--{]-#..,9##-.Jy-#..Yr`#-.w*j#./+$A#-/G7K#./U@A#-/rSK#.0\'=`#-0Bkj#.0T+`#-0o^K#.1$G`#-1>zK#.1PE##-1kwj#.1{b##-2<u-#.2Kn`#-2kRj#.2w{A#-', 46, 40 },
  { '#####.\'x7t#/(1yj#.(GR-#/(^+K#.(s_j#/).8-#.)ClK#/)YDj#.)oy-#/*+B-#.*@vK#/*VNj#.*m(-#/+\'[K#.+=4j#/+Ri-#.+iAK#/,#uj#.,9N-#/,O\'K#.,eZj#/,|$j#.-6X-#/-L1K#.-bej#/-x>-#..2rK#/.HJj#.._$-#/.tWK#.//0j#//De-#./PM###' },
  { '#####+$oO`#,\'zg-#1(5?##,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#,)t/K#1*.cA#,*D<-#1*Yp##,*pHj#1+*|`#,+>)K#1+V.A#,+j6-#1,(+`#,,:Bj#1,S8A#,,fOK#1-$E##,-7Lj#1-OQ`#,-cYK#1-{_A#,.3g-#1.L[`#,._sj#1.xiA#,/0%K#1/Hv##,/[}j#1/u\'`#,0-/K#10E4A#,0X<-#10qA##,1)Hj#11B>A#,1TUK#11nK##,2%c-#12>W`#,2Q`K#12jeA#,2}m-#13:r##,3Myj#13goA#,3z+K#147|##,4J8-#14d-`#,4ssj#155+##,5D%K#15a7`#,5p2-#161DA#,6A/K#16^A`#,6m<-#17.NA#,7=Hj#17Y[##,7iUK#18*h`#,89c-#18UuA#,8eoj#19\'\'##,96m-#19S$A#,9byj#1:$1##,:3+K#1:O=`#,:_8-#1:{JA#,;/Dj#1' },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1' },
  { '#####1#0``#2#F8U#1#[mA#2#s5t#1$-j`#2$CBU#1$XwA#2$oO7#1$wkA#2', 44, 11 },
  { '#####0$XvK#-$oNA#0$wjK#-%?[##0%U4j#-%kh`#0&&AK#-&<f##0&QN-#-&hr`#0\'#KK#-\'9$A#0\'NX-#-\'e1##0\'zej#-(5=`#0(JrK#-(aJA#0(w$-#-)2G`#0)G0j#-)^TA#0)t.-#-*.b##0*D:j#-*Yn`#0*pGK#-+*{A#0+>(-#-+V-##0+j4j#-,(*A#0,:AK#-,S7##0,fN-#--$C`#0-7KK#--OPA#0-cX-#--{^##0.3ej#-.LZA#0._rK#-.xh##0/0$-#-/Ht`#0/[|K#-/u&A#00-.-#-0E3##00X:j#-0q?`#01)GK#-1B=##01TT-#-1nI`#02%aj#-2>VA#02Q_-#-2jd##02}kj#-3:p`#03MxK#-3gn##03z*-#-47z`#04J6j#-4d,A#04srK#-55)`#05D$-#-5a6A#05p0j#-61C##06A.-#-6^@A#06m:j#-7.M##07=GK#-7YY`#07iT-#-8*gA#089aj#-8Ut##08enK#-9\'%`#096kj#-9S###09bxK#-:$/`#0:3*-#-:O<A#0:_6j#-:{I##0;/CK#-;KU`#0;[@j#-;xS##0<,MK#-<H``#0<WZ-#-<tmA#0=(gj#-=Dz##0=StK#-=q+`#0>%&-#->A8A#0>Q#K#->n5`#0>}0-#-?>BA#0?M<j#-?jO##0?yIK#-@:[`#0@IV-#-@fiA#0@vSK#-A7f`#0AFa-#-AcsA#0Armj#-B4%##0BBzK#-B`1`#0Bo,-#-C0>A#0C?8j#-C[K##0Cl6-#-D-HA#0D<Bj#-DXU##0DhOK#-E)b`#0E8]-#-EToA#0Edij#-F%|##0F4vK#-FQ-`#0Fasj#-G#+##0G2%K#-GN7`#0G^2-#-GzDA#0H.>j#-HJQ##0HYKK#-Hv^`#0I+Hj#-IG[##0IVUK#-Ish`#0J\'c-#-JCuA#0JRoj#-Jp\'##0K#|K#-K@3`#0KO.-#-Kl@A#0K|+K#-L==`#0LL8-#-LiJA#0LxDj#-M9W##0MHQK#-Med`#0Mt_-#-N5qA#0NE[K#-Nbn`#0Nqi-#-O2{A#0OAuj#-O_-##0On\'K#-P/9`#0P>4-#-PZFA#0Pj@j#-Q+S##0Q;>-#-QWPA#0QgJj#-R(^##0R7WK#-RSj`#0Rce-#-S$wA#0S3qj#-SP)##0S`#K#-S|5`#0T0{j#-TM3##0T]-K#-Ty?`#0U-:-#-UILA#0UXFj#-UuY##0V)SK#-VEf`#0VUPj#-Vrd##0W&^K#-WBp`#0WQk-#-Wn}A#0W}wj#-X?/##0XN)K#-Xk;`#0Xz6-#-Y;HA#0YK3K#-YhE`#0Yw@-#-Z8RA#0ZGLj#-Zd`##0ZsYK#-[4l`#0[Cg-#-[`yA#0[pdK#-]1v`#0]@q-#-]^(A#0]l}j#-^.5##0^=/K#-^YA`#0^i<-#-_*NA#0_9Hj#-_U[##0_fF-#-`\'XA#0`6Rj#-`Rf##0`b`K#-a#r`#0a2m-#-aO$A#0a^yj#-a{1##0b/+K#-bK=`#0' },
  { '#####1$-j`#2$CBU#1$XwA#2$oO7#1%*)##2%?[t#1%U5`#2', 44, 13 },
  { '#####0*ZS7#-*k=K#0+*p7#-+8-K#0+V,U#-+cT-#0.JyU#-.Ys-#05PaU#-8+V-#0' },
  { '#####2+ADA#0+Rjt#2+mQ##0,#wU#2' },
  { '#####,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,\'zg-#1(5?##,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#,)t/K#1*.cA#,*D<-#1*Yp##,*pHj#1+*|`#,+>)K#1+V.A#,+j6-#1,(+`#,,:Bj#1,S8A#,,fOK#1-$E##,-7Lj#1-OQ`#,-cYK#1-{_A#,.3g-#1.L[`#,._sj#1.xiA#,/0%K#1/Hv##,/[}j#1/u\'`#,0-/K#10E4A#,0X<-#10qA##,1)Hj#11B>A#,1TUK#11nK##,2%c-#12>W`#,2Q`K#12jeA#,2}m-#13:r##,3Myj#13goA#,3z+K#147|##,4J8-#14d-`#,4vDj#154:A#,5GB-#15`G##,5sNj#160S`#,6A/K#16^A`#,6m<-#17.NA#,7=Hj#17Y[##,7iUK#18*h`#,89c-#18UuA#,8eoj#19\'\'##,96m-#19S$A#,9byj#1:$1##,:3+K#1:O=`#,:_8-#1:{JA#,;/Dj#1;KW##,;[B-#1;xTA#,<,Nj#1<Hb##,<W[K#1<tn`#,=(i-#1=D{A#,=Suj#1=q-##,>%\'K#1>A9`#,>Q$j#1>n7##,>}1K#1?>C`#,?M>-#1?jPA#,?yJj#1@:^##,@IWK#1@fj`#,@vTj#1A7h##,AFbK#1Act`#,Aro-#1B4&A#,BB{j#1B`3##,Bo-K#1C0?`#,C?:-#1C[LA#,Cl7K#1D-I`#,D<D-#1DXVA#,DhPj#1E)d##,E8^K#1ETp`#,Edk-#1F%}A#,F4wj#1FQ/##,Fau-#1G#,A#,G2&j#1GN9##,G^3K#1GzE`#,H.@-#1HJRA#,HYLj#1Hv`##,I+J-#1IG]A#,IVVj#1Isj##,J\'dK#1JCv`#,JRq-#1Jp(A#,K#}j#1K@5##,KO/K#1KlA`#,K|,j#1L=?##,LL9K#1LiK`#,LxF-#1M9XA#,MHRj#1Mef##,Mt`K#1N5r`#,NE]j#1Nbp##,NqjK#1O2|`#,OAw-#1O_.A#,On(j#1P/;##,P>5K#1PZG`#,PjB-#1Q+TA#,Q;?K#1QWQ`#,QgL-#1R(_A#,R7Xj#1RSl##,RcfK#1S$x`#,S3s-#1SP*A#,S`$j#1S|7##,T0}-#1TM4A#,T].j#1TyA##,U-;K#1UIM`#,UXH-#1UuZA#,V)Tj#1VEh##,VUR-#1VreA#,W&_j#1WBr##,WQlK#1Wo#`#,W}y-#1X?0A#,XN*j#1Xk=##,Xz7K#1Y;I`#,YK4j#1YhG##,YwAK#1Z8S`#,ZGN-#1ZdaA#,ZsZj#1[4n##,[ChK#1[`z`#,[pej#1]1x##,]@rK#1]^)`#,]m$-#1^.6A#,^=0j#1^YC##,^i=K#1_*O`#,_9J-#1_U]A#,_fGK#1`\'Y`#,`6T-#1`RgA#,`baj#1a#t##,a2nK#1aO%`#,a^{-#1a{2A#,b/,j#1bK?##,' },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,%*)K#1%?]A#,%U6-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,\'zg-#1(5?##,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#,)t/K#1*.cA#,*D<-#1*Yp##,*pHj#1+*|`#,+>)K#1+V.A#,+j6-#1,(+`#,,:Bj#1,S8A#,,fOK#1-$E##,-7Lj#1-OQ`#,-cYK#1-{_A#,.3g-#1.L[`#,._sj#1.xiA#,/0%K#1/Hv##,/[}j#1/u\'`#,0-/K#10E4A#,0X<-#10qA##,1)Hj#11B>A#,1TUK#11nK##,2%c-#12>W`#,2Q`K#12jeA#,2}m-#13:r##,3Myj#13goA#,3z+K#147|##,4J8-#14d-`#,4ssj#155+##,5D%K#15a7`#,5p2-#161DA#,6A/K#16^A`#,6m<-#17.NA#,7=Hj#17Y[##,7iUK#18*h`#,89c-#18UuA#,8eoj#1' },
  { '#####0#0_j#-#F7`#0', 61, 68 },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#.1>z##/1PDU#.1kwA#/1mW7#.2<t`#/2Kn7#.' },
  { '#####-$-iA#.$CA7#-$Xv##.$oMt#-%*\'`#.%?ZU#-%U4A#.%kh7#-&&A##.&<eU#-&QM`#.&hr7#-\'#K##.\'9#t#-\'NW`#.\'e0U#-\'zeA#.(5=7#-(Jr##.(aIt#-(w#`#.)2G7#-)G0A#.)^St#-)t-`#.*.aU#-*D:A#.*Yn7#-*pG##.+*zt#-+>\'`#.+V,U#-+j4A#.,()t#-,:A##.,S6U#-,fM`#.-$C7#--7K##.-OOt#--cW`#.-{]U#-.3eA#..LYt#-._r##..xgU#-/0#`#./Ht7#-/[|##./u%t#-0--`#.0E2U#-0X:A#.0q?7#-1)G##.1B<U#-1TS`#.1nI7#-2%aA#.2>Ut#-2Q^`#.2jcU#-2}kA#.3:p7#-3Mx##.3gmU#-3z)`#.47z7#-4J6A#.4d+t#-4sr##.55)7#-5D#`#.5a5t#-5p0A#.61BU#-6A-`#.6^?t#-6m:A#.7.LU#-7=G##.7YY7#-7iS`#.8*ft#-89aA#.8UsU#-8en##.9\'%7#-96kA#.9R}U#-9bx##.:$/7#-:3)`#.:O;t#-:_6A#.:{HU#-;/C##.;KU7#-;[@A#.;xRU#-<,M##.<H`7#-<WY`#.<tlt#-=(gA#.=DyU#-=St##.=q+7#->%%`#.>A7t#->Q###.>n57#->}/`#.?>At#-?M<A#.?jNU#-?yI##.@:[7#-@IU`#.@fht#-@vS##.A7f7#-AF``#.Acrt#-ArmA#.B4$U#-BBz##.B`17#-Bo+`#.C0=t#-C?8A#.C[JU#-Cl5`#.D-Gt#-D<BA#.DXTU#-DhO##.E)b7#-E8[`#.ETnt#-EdiA#.F%{U#-F4v##.FQ-7#-FasA#.G#*U#-G2%##.GN77#-G^1`#.GzCt#-H.>A#.HJPU#-HYK##.Hv^7#-I+HA#.IGZU#-IVU##.Ish7#-J\'b`#.JCtt#-JRoA#.Jp&U#-K#|##.K@37#-KO-`#.Kl?t#-K|+##.L==7#-LL7`#.LiIt#-LxDA#.M9VU#-MHQ##.Med7#-Mt^`#.N5pt#-NE[##.Nbn7#-Nqh`#.O2zt#-OAuA#.O_,U#-On\'##.P/97#-P>3`#.PZEt#-Pj@A#.Q+RU#-Q;=`#.QWOt#-QgJA#.R(]U#-R7W##.RSj7#-Rcd`#.S$vt#-S3qA#.SP(U#-S`###.S|57#-T0{A#.TM2U#-T]-##.Ty?7#-U-9`#.UIKt#-UXFA#.UuXU#-V)S##.VEf7#-VUPA#.VrcU#-W&^##.WBp7#-WQj`#.Wn|t#-W}wA#.X?.U#-XN)##.Xk;7#-Xz5`#.Y;Gt#-YK3##.YhE7#-Yw?`#.Z8Qt#-ZGLA#.Zd_U#-ZsY##.[4l7#-[Cf`#.[`xt#-[pd##.]1v7#-]@p`#.]^\'t#-]l}A#.^.4U#-^=/##.^YA7#-^i;`#._*Mt#-_9HA#._UZU#-_fE`#.`\'Wt#-`6RA#.`ReU#-`b`##.a#r7#-a2l`#.aO#t#-a^yA#.a{0U#-b/+##.bK=7#-' },
  { '#####.\'x7t#/(1yj#.(GR-#/(^+K#.(s_j#/).8-#.)ClK#/)YDj#.)oy-#/*+B-#.*@vK#/*VNj#.*m(-#/+\'[K#.+=4j#/+Ri-#.+iAK#/,#uj#.,9N-#/,O\'K#.,eZj#/,|$j#.-6X-#/-L1K#.-bej#/-x>-#..2rK#/.HJj#.._$-#/.tWK#.//0j#//De-#./[.-#//u$-#.0,:j#/0E0j#.0WGK#/0q=K#.1(T-#/1B:j#.1Saj#/1nGK#.2$nK#/2>T-#.2Pkj#/2jaj#.2|xK#/3:nK#.3M*-#/3gkj#.3y6j#/47xK#.4ICK#/4d*-#.4uP-#/546j#.5FMK#/5`CK#.5rZ-#/60P-#.6Bgj#/6]MK#.6ntK#/7-Z-#.7?&-#/7Xgj#.7l#K#/8)tK#.8<0-#/8U&-#.8h<j#/9&2j#.98IK#/9R0-#.9dV-#/:#<j#.:4cj#/:NIK#.:aa-#/:zV-#.;1mj#/;Jcj#.;]zK#/;wa-#.<.,-#/<Gmj#.<Y8j#/=+6-#\'=D,-#/=VBj#\'=p8j#/>\'OK#\'>@EK#/>R]-#\'>mBj#/?#ij#\'?=OK#/?NvK#\'?i]-#/?{sj#\'@9ij#/@L%K#\'@evK#/@x2-#\'A6sj#/AH>j#\'Ac%K#/AtKK#\'B32-#/BDX-#\'B_>j#/BqUK#\'C/KK#/CAc-#\'CZX-#/Cmoj#\'D,UK#/D=|K#\'DWc-#/Dj.-#\'E(oj#/E;+K#\'ES|K#/Eg8-#\'F%.-#/F7Dj#\'FP:j#/FcQK#\'F}8-#/G3_-#\'GMDj#/G_kj#\'GyQK#/H0i-#\'HI_-#/H[uj#\'Hukj#/I-\'K#\'IFi-#/IX4-#\'Iruj#/J)@j#\'JC\'K#/JU>-#\'Jo4-#/K&Jj#\'K?@j#/KQWK#\'KkMK#/K}e-#\'L<Jj#/LMqj#\'LhWK#/Lz#K#\'M8e-#/MJ{j#\'Mdqj#/Mw-K#\'N5#K#/NG:-#\'Na{j#/NsFj#\'O2-K#/OCSK#\'O^:-#/Ooa-#\'P.Fj#/P@^K#\'PYSK#/Plk-#\'Q*a-#/Q<wj#\'QV^K#/Qi)K#\'R\'k-#/R96-#\'RRwj#/Rf3K#\'S$)K#/S6@-#\'SO6-#/SbLj#\'S{Bj#/T2YK#\'TL@-#/T^g-#\'TxLj#/U.sj#\'UHYK#/UZq-#\'Utg-#/V+}j#\'VDsj#/VW/K#\'Vqq-#/W(<-#\'WA}j#/WSHj#\'Wn/K#/X%F-#\'X><-#/XPRj#\'XjHj#/X|`K#\'Y:UK#/YLm-#\'YgRj#/Yxyj#\'Z7`K#/ZI+K#\'Zcm-#/Zv(j#\'[3yj#/[F5K#\'[`+K#/[rB-#\']1(j#/]BNj#\']]5K#/]n[K#\'^-B-#/^>i-#\'^XNj#/^kfK#\'_)[K#/_;s-#\'_Ti-#/_h$j#\'`&fK#/`81K#\'`Qs-#/`d>-#\'a#$j#/a5;K#\'aN1K#/aaH-#\'az>-#/b1Tj#\'bJJj#/' },
  { '#####-#0_A#.#F77#-#[l##.#s4U#-$-iA#.$CA7#-$Xv##.$oMt#-%*\'`#.%?ZU#-%U4A#.%kh7#-&&A##.&<eU#-&QM`#.&hr7#-\'#K##.\'9#t#-\'NW`#.\'e0U#-\'zeA#.(5=7#-(Jr##.(aIt#-(w#`#.)2G7#-)G0A#.)^St#-)t-`#.*.aU#-*D:A#.*Yn7#-*pG##.+*zt#-+>&j`.+V+``-+j3K`/,((U`-,:@-`.,S5``-,fLj`.-$BA`--7J-`.-OO#`--cVj`.-{[``-.3dK`..LY#`-._q-`..xf``-//}j`./HsA`-/[{-`./u%#`-0-,j`.0E1``-0X9K`.0q>A`-1)F-`.1B;``-1TRj`.1nHA`-2%`K`.2>U#`-2Q]j`.2jb``-2}jK`.3:oA`-3Mw-`.3gl``-3z(j`.47yA`-4J5K`.4d+#`-4sq-`.55(A`-5C}j`.5a5#`-5p/K`.61A``-6A,j`.6^?#`-6m9K`.', 69, 81 },
  { '#####0\'NX-#-\'e1##0\'zej#-(5=`#0(JrK#-(aJA#0(w$-#-)2G`#0)G0j#-)^TA#0)t.-#-*.b##0*D:j#-*Yn`#0*pGK#-+*{A#0+>(-#-+V-##0+j4j#-,(*A#0,:AK#-,S7##0,fN-#--$C`#0-7KK#--OPA#0-cX-#--{^##0.3ej#-.LZA#0._rK#-.xh##0/0$-#-/Ht`#0/[|K#-/u&A#00-.-#-0E3##00X:j#-0q?`#01)GK#-1B=##01TT-#-1nI`#02%aj#-2>VA#02Q_-#-2jd##02}kj#-3:p`#03MxK#-3gn##03z*-#-47z`#04J6j#-4d,A#04srK#-55)`#05D$-#-5a6A#05p0j#-61C##06A.-#-6^@A#06m:j#-7.M##07=GK#-7YY`#07iT-#-8*gA#089aj#-8Ut##08enK#-', 61, 93 },
  { '#####2$rl##0$}W7#2)JBA#0)Y&U#2-5`##0-IVU#24MS##04`j7#2' },
  { '#####0.$`7#-.,oj#0' },
  { '#####4%aUA#.-bg-#-' },
  { '#####-#0_A#.#F77#-#[l##.#s4U#-', 69, 2 },
  { '#####0#0^t#-#F6j#0#[kU#-#s4-#0$-ht#-$@oj#0$XuU#-$m,-#0%*\'7#-%=CK#0%U3t#-%kgj#0&&@U#-&<e-#0&QM7#-&hqj#0\'$;7#-\'6QK#0\'IY7#-\'cNj#0\'uft#-(3[K#0(LQt#-(_i-#0(x_U#-)/uj#0)Hl7#-)[\'K#0)txt#-*-$j#0*E*U#-*X1K#0*kHU#-+)>-#0+;U7#-+TJj#0+hRU#-,%WK#0,8`7#-,Pe-#0,fM7#-,}bK#0-7JU#--MoU#0-cW7#--y|7#0.3dt#-.J-t#0._qU#-.v:U#0/0#7#-/FG7#0/[{U#-/rSt#00--7#-0CQ7#00WI7#-0q?7#01(Ut#-1B<U#01TS7#-1nI7#02%`t#-2>Ut#02Q^7#-2jcU#02}jt#-3:p7#03M+t#-4d+t#04sqU#-548U#05Dnt#-5`E7#05p/t#-60Qt#06A-7#-6]O7#06n*U#-7/=7#07?sU#-7YY7#07iS7#-8*ft#089`t#-8UsU#08emU#-9\'%7#096jt#-9R}U#09bwU#-:$/7#0:3)7#-:O;t#0:_5t#-:{HU#0;/BU#-;KU7#0;[?t#-;xRU#0<,LU#-<H`7#0<WY7#-<tlt#0=(ft#-=DyU#0=SsU#-=q+7#0>%%7#->A7t#0>P}U#->n57#0>}/7#-?>At#0?M;t#-?jNU#0?yHU#-@:[7#0@IU7#-@fht#0@vRU#-A7f7#0AF`7#-Acrt#0Arlt#-B4$U#0BByU#-B`17#0Bo+7#-C0=t#0C?7t#-C[JU#0Cl57#-D-Gt#0D<At#-DXTU#0DhNU#-E)b7#0E8[7#-ETnt#0Edht#-F%{U#0F4uU#-FQ-7#0Fart#-G#*U#0G2$U#-GN77#0G^17#-GzCt#0H.=t#-HJPU#0HYJU#-Hv^7#0I+Gt#-IGZU#0IVTU#-Ish7#0J\'b7#-JCtt#0JRnt#-Jp&U#0K#{U#-K@37#0KO-7#-Kl?t#0K|*U#-L==7#0LL77#-LiIt#0LxCt#-M9VU#0MHPU#-Med7#0Mt^7#-N5pt#0NEZU#-Nbn7#0Nqh7#-O2zt#0OAtt#-O_,U#0On&U#-P/97#0P>37#-PZEt#0Pj?t#-Q+RU#0Q;=7#-QWOt#0QgIt#-R(]U#0R7VU#-RSj7#0Rcd7#-S$vt#0S3pt#-SP(U#0S_}U#-S|57#0T0zt#-TM2U#0T],U#-Ty?7#0U-97#-UIKt#0UXEt#-UuXU#0V)RU#-VEf7#0VUOt#-VrcU#0W&]U#-WBp7#0WQj7#-Wn|t#0W}vt#-X?.U#0XN(U#-Xk;7#0Xz57#-Y;Gt#0YK2U#-YhE7#0Yw?7#-Z8Qt#0ZGKt#-Zd_U#0ZsXU#-[4l7#0[Cf7#-[`xt#0[pcU#-]1v7#0]@p7#-]^\'t#0]l|t#-^.4U#0^=.U#-^YA7#0^i;7#-_*Mt#0_9Gt#-_UZU#0_fE7#-`\'Wt#0`6Qt#-`ReU#0`b_U#-a#r7#0a2l7#-aO#t#0a^xt#-a{0U#0b/*U#-bK=7#0' },
  { '#####1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#1' },
  { '#####2#0`7#0#F8-#2#[lt#0#s5K#2$-j7#0$CB-#2$Xvt#0$oNj#2$wjt#0%?[K#2%Mf7#0%ki-#2&&At#0&<fK#2&QNU#0&hs-#2\'#Kt#0\'9$j#2\'NXU#0\'e1K#2\'zf7#0(5>-#2(Jrt#0(aJj#2(w$U#0)2H-#2)G17#0)^Tj#2)t.U#0*.bK#2*D;7#0*Yo-#2*pGt#0+*{j#2+>(U#0+V-K#2+j57#0,(*j#2,:At#0,S7K#2,fNU#0-$D-#2-7Kt#0', 50, 75 },
  { '#####0#0_j#-#F7`#0#[lK#-#s5##0$-ij#-$CA`#0$XvK#-$oNA#0%Mej#-%kh`#0', 61, 68 },
  { '#####2#0`7#0#F8-#2#[lt#0#s5K#2$-j7#0$CB-#2$Xvt#0$oNj#2$wjt#0%?[K#2%Mf7#0%ki-#2&&At#0&<fK#2&QNU#04d,j#24srt#0', 61, 72 },
  { '#####0#0_j#-#F7`#0', 50, 75 },
  { '#####0#0_j#-#F7`#0#[lK#-#s5##0$-ij#-$CA`#0', 61, 68 },
  { '#####0#0_j#-#F7`#0', 81, 17 },
  { '#####0#0_j#-#F7`#04d,j#24srt#-', 61, 71 },
  { '#####,$-k-#1$CC##,$Xwj#1$oO`#,%*)K#1%?]A#,%U6-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#2', 44, 21 },
  { '#####0$-ij#-$CA`#0$XvK#-$oNA#0%*(-#-%?[##0%U4j#-%kh`#0&&AK#-&<f##0&QN-#-&hr`#0\'#KK#-\'9$A#0\'NX-#-\'e1##0\'zej#-(5=`#0(JrK#-(aJA#0(w$-#-)2G`#0)G0j#-)^TA#0)t.-#-*.b##0*D:j#-*Yn`#0*pGK#-+*{A#0+>(-#-+V-##0+j4j#-,(*A#0,:AK#-,S7##0,fN-#--$C`#0-7KK#--OPA#0-cX-#--{^##0.3ej#-.LZA#0._rK#-.xh##0/0$-#-/Ht`#0/[|K#-/u&A#00-.-#-0E3##00X:j#-0q?`#01)GK#-1B=##21TTU#0', 61, 58 },
  { '#####0$wjK#-%?[##0%Mej#-%kh`#0&&AK#-&<f##0&QN-#-&hr`#0\'#KK#-\'9$A#0\'NX-#-\'e1##0\'zej#-(5=`#0(JrK#-(aJA#0(w$-#-)2G`#0)G0j#-)^TA#0' },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,$wkj#1%?]A#,%Mg-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#+', 20, 29 },
  { '#####0#0_j#-#F7`#0#[lK#-#s5##0$-ij#-$CA`#0$XvK#-$oNA#0%Mej#-', 61, 7 },
  { '#####2#0`7#0#F8-#2#[lt#0#s5K#2$-j7#0$CB-#2$Xvt#0$oNj#2$wjt#0%?[K#2%Mf7#0%ki-#2&&At#0&<fK#2&QNU#0&hs-#2\'#Kt#0\'9$j#2\'NXU#0\'e1K#2\'zf7#0(5>-#2(Jrt#0(aJj#2(w$U#0)2H-#2)G17#0)^Tj#2)t.U#0*.bK#2*D;7#0*Yo-#2*pGt#0+*{j#2+>(U#0+V-K#2+j57#0,(*j#2,:At#0,S7K#2,fNU#0-$D-#2-7Kt#0-OPj#2-cXU#0-{^K#2.3f7#0.LZj#2._rt#0.xhK#2/0$U#0/Hu-#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#2', 87, 58 },
  { '#####0*b^7#-*m>j#0+2uU#-+=V-#0,Zl7#-,fLj#0.Sz7#-._Zj#0' },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,$wkj#1%?]A#,%Mg-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,\'zg-#1(5?##,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#,)t/K#1*.cA#,*D<-#1*Yp##,*pHj#1+*|`#,+>)K#1+V.A#,+j6-#1,(+`#,,:Bj#1,S8A#,,fOK#1-$E##,-7Lj#1-OQ`#,-cYK#1-{_A#,.3g-#1.L[`#,._sj#1.xiA#,/0%K#1/Hv##,/[}j#1/u\'`#,0-/K#10E4A#,0X<-#10qA##,1)Hj#11B>A#,1TUK#11nK##,2%c-#12>W`#,2Q`K#12jeA#,2}m-#13:r##,3Myj#13goA#,3z+K#147|##,4J8-#14d-`#,4ssj#155+##,5D%K#15a7`#,5p2-#161DA#,', 65, 70 },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#./G7##//U?t#.', 68, 12 },
  { '#####2$Y0A#0%Lt7#2\'IY`#0\'UA7#2\'ugA#0(&Mt#2-WB-#0-wzt#2.(cA#0/|pt#23zuA#044]U#24MSt#04`j`#2' },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-.Jy-#..Yr`#-' },
  { '#####-\'x7K#.(1z`#-' },
  { '#####2+j57#0,(*j#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#21TTU#01nJ-#22)oU#02;:-#22Q_U#02jdK#22}l7#03:q-#23Mxt#03gnK#23z*U#047{-#24J77#04d,j#24vCt#0549K#25GA7#05`F-#25sMt#060Rj#2', 50, 82 },
  { '#####1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21B=t#11TU##21nJU#12)p##22;:U#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14vDA#2549t#15GA`#25`FU#15sNA#260S7#16C[##26]PU#16oh`#27-^7#17?uA#27Xjt#17lr`#28)wU#18=$A#28U)7#18i1##29&5t#199=`#29R37#19eJA#2:#?t#1:5W##2:NLU#1:bTA#2:zY7#1;2b##2;Jft#1;^n`#2;wd7#1<.{A#2<Gpt#1' },
  { '#####0', 50, 9 },
  { '#####2(hkU#0)2^K#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#21TTU#01nJ-#22)oU#02;:-#22Q_U#02jdK#22}l7#03:q-#23Mxt#03gnK#23z*U#047{-#24J77#04d,j#24vCt#0549K#25GA7#05`F-#25sMt#060Rj#26CZU#0', 38, 31 },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,$wkj#1%?]A#,%Mg-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,\'zg-#1(5?##,(Jsj#1(aK`#,(w%K#1)2I##,)G2-#1)^U`#,9\'\'K#+96mU#,9S$j#+9bz7#,:$1K#+:3+t#,:XIK#+', 20, 99 },
  { '#####2', 101, 4 },
  { '#####-\'{4-#.+>\'7#/+V,-#.+j3t#/,()K#.,:@U#/,S6-#.,fM7#/-$Bj#.-7JU#/-OOK#.-cW7#/-{]-#..3dt#/.LYK#.._qU#/.xg-#./0#7#//Hsj#./[{U#//u%K#.0--7#/0E2-#.0X9t#/0q>j#.1)FU#/1B<-#.1TS7#/1nHj#.2%`t#/2>UK#.2Q^7#/2jc-#.2}jt#/3:oj#.3MwU#/3gm-#.3z)7#/47yj#.4J5t#/4d+K#.4sqU#/55(j#.5D#7#/5a5K#.5p/t#/61B-#.6A-7#/6^?K#.6m9t#/7.L-#.7=FU#/7YXj#.7iS7#/8*fK#.89`t#/8Us-#.8emU#/9\'$j#.96jt#/9R}-#.9bwU#/:$.j#.:3)7#/:O;K#.:_5t#/:{H-#.;/BU#/;KTj#.;[?t#/;xR-#.<,LU#/<H_j#.<WY7#/<tlK#.=(ft#/=Dy-#.=SsU#/=q*j#.>%%7#/>A7K#.>P}U#/>n4j#.>}/7#/?>AK#.?M;t#/?jN-#.?yHU#/@:Zj#.@IU7#/@fhK#.@vRU#/A7ej#.AF`7#/AcrK#.Arlt#/B4$-#.BByU#/B`0j#.Bo+7#/C0=K#.C?7t#/C[J-#.Cl57#/D-GK#.D<At#/DXT-#.DhNU#/E)aj#.E8[7#/ETnK#.Edht#/F%{-#.F4uU#/FQ,j#.Fart#/G#*-#.G2$U#/GN6j#.G^17#/GzCK#.H.=t#/HJP-#.HYJU#/Hv]j#.I+Gt#/IGZ-#.IVTU#/Isgj#.J\'b7#/JCtK#.JRnt#/Jp&-#.K#{U#/K@2j#.KO-7#/Kl?K#.K|*U#/L=<j#.LL77#/LiIK#.LxCt#/M9V-#.MHPU#/Mecj#.Mt^7#/N5pK#.NEZU#/Nbmj#.Nqh7#/O2zK#.OAtt#/O_,-#.On&U#/P/8j#.P>37#/PZEK#.Pj?t#/Q+R-#.Q;=7#/QWOK#.QgIt#/R(]-#.R7VU#/RSij#.Rcd7#/S$vK#.S3pt#/SP(-#.S_}U#/S|4j#.T0zt#/TM2-#.T],U#/Ty>j#.U-97#/UIKK#.UXEt#/UuX-#.V)RU#/VEej#.VUOt#/Vrc-#.W&]U#/WBoj#.WQj7#/Wn|K#.W}vt#/X?.-#.XN(U#/Xk:j#.Xz57#/Y;GK#.YK2U#/YhDj#.Yw?7#/Z8QK#.ZGKt#/Zd_-#.ZsXU#/[4kj#.[Cf7#/[`xK#.[pcU#/]1uj#.]@p7#/]^\'K#.]l|t#/^.4-#.^=.U#/^Y@j#.^i;7#/_*MK#._9Gt#/_UZ-#._fE7#/`\'WK#.`6Qt#/`Re-#.`b_U#/a#qj#.a2l7#/aO#K#.a^xt#/a{0-#.b/*U#/bK<j#.' },
  { '#####-#0_A#.#F77#-#[l##.#s4U#-$-iA#.$CA7#-%*\'`#.%?ZU#-%U4A#.%kh7#-&&A##.&<eU#-&QM`#.&hr7#-\'#K##.\'9#t#-\'NW`#.\'e0U#-\'zeA#.(5=7#-(Jr##.(aIt#-(w#`#.)2G7#-)G0A#.)^St#-)t-`#.*.aU#-*D:A#.*Yn7#-*pG##.+*zt#-+>\'`#.+V,U#-+j4A#.,()t#-,:A##.,S6U#-,fM`#.-$C7#--7K##.-OOt#--cW`#.-{]U#-.3dK`..LY#`-._q-`..xf``-//}j`./HsA`-/[{-`./u%#`-0-,j`.0E1``-0X9K`.0q>A`-1)F-`.1B;``-1TRj`.1nHA`-2%`K`.2>U#`-2Q]j`.2jb``-2}jK`.3:oA`-3Mw-`.3gl``-3z(j`.47yA`-4J5K`.4d+#`-', 69, 72 },
  { '#####2+j57#0,(*j#2', 101, 4 },
  { '#####.#0RA#/#6K7#.$,wA#/$6rt#.$xXA#5%$7##6%8{-#.%F9##/%Qpt#.&BRA#/&K^7#.&m#`#/&wjt#.\'>l`#/\'GwU#.\'NVA#/\'ueU#.+]%##/+f%7#.,-\'##/,6}U#.,S5`#/,b>U#.-#Q`#/-3;t#.-OO##/-_HU#.-zl##/./U7#.3bn`#/3y8-#.45M7#/4GdK#.4`j7#/4sq-#.51gU#/5C}j#.5]t7#/5p/K#.6.%t#/6A,j#.6Y2U#/6m9K#.7*?7#/7=F-#.7V<U#/7iRj#.8\'I7#/89`K#.8RUt#/8em-#.' },
  { '#####0#0_j#-#F7`#0#[lK#-#s5##0$-ij#-$CA`#0$XvK#-$oNA#0%*(-#-', 61, 5 },
  { '#####0#0_j#-#F7`#0#[lK#-#s5##0$-ij#-$CA`#0$XvK#-$oNA#0$wjK#-%?[##0', 90, 10 },
  { '#####)#0bK#*#F:A#)#[o-#*#s7`#)$-lK#*$CDA#)$Xy-#*$oQ##)$wm-#*%?^`#)%MhK#*%kkA#)&&D-#*&<h`#)&QPj#*&huA#)\'#N-#*\'9\'##)\'NZj#*\'e3`#)\'zhK#*(5@A#)(Ju-#*(aM##)(w&j#*)2JA#))G3K#*)^W##+', 20, 29 },
  { '#####/*ZQt#\'*k<-#/+*nt#\'+8,-#/+V+7#\'+cRj#/,&G7#\',2oj#/,QSt#\',`]j#/1>yU#\'1PD-#/1kvt#\'1lg-#/2<t7#\'2Kmj#/' },
  { '#####1#0``#2#F8U#1#[mA#2#s5t#1$-j`#2$CBU#1$XwA#2$oO7#1$wkA#2%?[t#1%Mf`#2%kiU#1&&BA#2&<ft#1&QO##2&hsU#1\'#LA#2\'9%7#1\'NY##2\'e1t#1\'zf`#2(5>U#1(JsA#2(aK7#1(w%##2)2HU#1)G1`#2)^U7#1)t/##2*.bt#1*D;`#2*YoU#1*pHA#2+*|7#1+>)##2+V-t#1+j5`#2,(+7#1,:BA#2,S7t#1,fO##2-$DU#1-7LA#2-OQ7#1-cY##2-{^t#1.3f`#2.L[7#1._sA#2.xht#1/0%##2/HuU#1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21B=t#11TU##21nJU#12%b`#22>W7#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14ssA#255*U#15D%##25a77#15p1`#261Ct#16A/##2', 50, 84 },
  { '#####1#0``#2#F8U#1#[mA#2#s5t#1$-j`#2$CBU#1$XwA#2$oO7#1$wkA#2%?[t#1%Mf`#2%kiU#1&&BA#2&<ft#1&QO##2&hsU#1\'#LA#2\'9%7#1\'NY##2\'e1t#1\'zf`#2(5>U#1(JsA#2(aK7#1(w%##2)2HU#1)G1`#2)^U7#1)t/##2*.bt#1*D;`#2*YoU#1*pHA#2+*|7#1+>)##2+V-t#1+j5`#2,(+7#1,:BA#2,S7t#1,fO##2-$DU#1-7LA#2-OQ7#1-cY##2', 50, 48 },
  { '#####1#0``#2#F8U#1#[mA#2#s5t#1$-j`#2$CBU#1$XwA#2$oO7#1$wkA#2%?[t#1%Mf`#2%kiU#1&&BA#2&<ft#1&QO##2&hsU#1\'#LA#2\'9%7#1\'NY##2\'e1t#1\'zf`#2(5>U#1(JsA#2(aK7#1(w%##2)2HU#1)G1`#2)^U7#1)t/##2*.bt#1*D;`#2*YoU#1*pHA#2+*|7#1+>)##2+V-t#1+j5`#2,(+7#1,:BA#2,S7t#1,fO##2-$DU#1-7LA#2-OQ7#1-cY##2-{^t#1.3f`#2.L[7#1._sA#2.xht#1/0%##2/HuU#1/[}A#2/u\'7#10-/##20E3t#10X;`#20q@U#11)HA#21B=t#11TU##21nJU#12%b`#22>W7#12Q`##22jdt#12}l`#2', 50, 70 },
  { '#####2/[|t#0/u&j#20-.U#00E3K#20q@U#11)HA#21B=t#11TU##21nJU#12)p##22;:U#12Q`##22jdt#12}l`#23:qU#13MyA#23gnt#13z+##247{U#14J7`#24d-7#14vDA#2549t#15GA`#25`FU#15sNA#260S7#16A/##26^A7#16m;`#27.Mt#17=HA#27YZU#17iU##28*h7#189b`#28Utt#18eoA#29\'&U#196l`#29S#t#19byA#2:$0U#1:3+##2:O=7#1:_7`#2:{It#1;/DA#2;KVU#1;[A`#2;xSt#1<,NA#2', 50, 108 },
  { '#####7*+Mt#.' },
  { '#####0)Hl7#-)^SK#0)t-7#-*.a-#0*D9t#-*Ymj#0*pFU#-+*zK#0+@S7#-+V,-#0+j4A#-,(*A#0,:A##-,S7##0,fM`#--$C`#0-7K##--OPA#0-cW`#--{^##0.3eA#-.LZA#0._r##-.xh##0/0#`#-/Ht`#0/[|##-/u&A#00--`#-0E3##03z)7#-47yj#04J5t#-4d+K#07=GK#-7YY`#07iT-#-8*gA#089aj#-8Ut##08enK#-9\'%`#0', 61, 90 },
  { '#####0*ZS7#-*k=K#0+*p7#-+8-K#0+V,U#-+cT-#0', 63, 10 },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-' },
  { '#####.#-@A#-#DUK#.#Vl`#-#pc-#.$\'yA#-$A`K#.$S+##-$l0j#.%$7`#-%=yj#.%ODA#-%j+K#.%|A`#-&:8-#.&LNA#-&fDj#.&x[##-\'7B-#.\'Hh`#-\'cNj#.\'tuA#-(3[K#.(Er`#-(_i-#.(r$A#-)/uj#.)B1##-)[\'K#.)n=`#-*-$j#.*>JA#-*X1K#.*jW##-+)>-#.+>r##-+TJj#.+gb##-,%WK#.,7n`#-,QTj#.,c{A#-,zDj#.-4-##--Mo-#.-a*A#--y{j#..17##-.J-K#..]C`#-.v:-#./-PA#-/G7K#./X^##-/sD-#.0,;`#-0CPj#.0Uh##-0m}-#.1)E`#-1?k-#.1R&A#-1lhK#.2#3##-2<u-#.2N?`#-2i&j#.2zLA#-393K#.3KI`#-3e@-#.3wVA#-45Lj#.4Gd##-4bJ-#.4sp`#-52Vj#.5FNA#-5^dK#.5pz`#-6.q-#.6CXA#-6Y}j#.6ssA#-7%@j#.7C4A#-7R.j#.7oA##-8$,-#.8?M`#-8O8j#.9>9##-9I&-#.' },
  { '#####2#0`7#0#F8U#2#[lt#0#s5t#2$-j7#0$CBU#2$Xvt#0$oO7#2%*(U#0%?[t#2%U57#0%kiU#2&&At#0&<ft#2&QNU#0&hsU#2\'#Kt#0\'9%7#2\'NXU#0\'e1t#2\'zf7#0(5>U#2(Jrt#0(aK7#2(w$U#0)2HU#2)G17#0)^U7#2)t.U#0*.bt#2*D;7#0*YoU#2*pGt#0+*|7#2+>(U#0+V-t#2+j57#0,(+7#2,:At#0,S7t#2,fNU#0-$DU#2-7Kt#0-OQ7#2-cXU#0-{^t#2.3f7#0.L[7#2._rt#0.xht#2/0$U#0/HuU#2/[|t#0/u\'7#20-.U#00E3t#20X;7#00q@U#21)Gt#01B=t#21TTU#01nJU#22%b7#02>W7#22Q_U#02jdt#22}l7#03:qU#23Mxt#03gnt#23z*U#047{U#2', 50, 74 },
  { '#####2$-j7#0$CB-#2$Xvt#0$oNj#2%*(U#0%?[K#2%U57#0%ki-#2&&At#0&<fK#2&QNU#0&hs-#2\'#Kt#0\'9$j#2\'NXU#0\'e1K#2\'zf7#0(5>-#2(Jrt#0(aJj#2(w$U#0)2H-#2)G17#0)^Tj#2)t.U#0*.bK#2*D;7#0*Yo-#2*pGt#0+*{j#2+>(U#0+V-K#2+j57#0,(*j#2,:At#0,S7K#2,fNU#0-$D-#2-7Kt#0-OPj#2-cXU#0-{^K#2.3f7#0.LZj#2._rt#0.xhK#2/0$U#0/Hu-#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#21TTU#0', 50, 65 },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#.1>z##/1PDU#.1kwA#/1lgU#.', 68, 16 },
  { '#####2' },
  { '#####2$-j7#0$CB-#2$Xvt#0$oNj#2%*(U#0%?[K#2%U57#0%ki-#2&&At#0&<fK#2&QNU#0&hs-#2\'#Kt#0\'9$j#2\'NXU#0\'e1K#2\'zf7#0(5>-#2(Jrt#0(aJj#2(w$U#0)2H-#2)G17#0)^Tj#2)t.U#0*.bK#2*D;7#0*Yo-#2*pGt#0+*{j#2+>(U#0+V-K#2+j57#0,(*j#2,:At#0,S7K#2,fNU#0-$D-#2-7Kt#0-OPj#2-cXU#0-{^K#2.3f7#0.LZj#2._rt#0.xhK#2/0$U#0/Hu-#2/[|t#0/u&j#20-.U#00E3K#20X;7#00q@-#21)Gt#01B=K#21TTU#02>Vj#22Q_U#02jdK#22}l7#03:q-#23Mxt#03gnK#23z*U#047{-#24J77#0', 50, 77 },
  { '#####-*ZRj#.*k=##-+*oj#.+8-##-+V,-#.+cS`#-5Pa-#.' },
  { '#####.#-@A#-#DUK#.#Vl`#-#pc-#.$\'yA#-$A`K#.$S+##-$l0j#.%$7`#-%=yj#.%ODA#-%j+K#.%|A`#-&:8-#.&LNA#-&fDj#.&x[##-\'7B-#.\'Hh`#-\'cNj#.\'tuA#-(3[K#.(Er`#-(_i-#.(r$A#-)/uj#.)B1##-)[\'K#.)n=`#-*-$j#.*>JA#-*X1K#.*jW##-+)>-#.+>r##-+TJj#.+gb##-,%WK#.,7n`#-,QTj#.,c{A#-,zDj#.-4-##--Mo-#.-a*A#--y{j#..17##-.J-K#..]C`#-.v:-#./-PA#-/G7K#./X^##-/sD-#.0,;`#-0CPj#.0Uh##-0m}-#.1)E`#-1?k-#.1R&A#-1lhK#.2#3##-2<u-#.2N?`#-2i&j#.2zLA#-393K#.3KI`#-3e@-#.3wVA#-45Lj#.4Gd##-4bJ-#.4sp`#-52Vj#.5FNA#-5^dK#.5pz`#-6.q-#.6CXA#-6Y}j#.6ssA#-7%@j#.7C4A#-7R.j#.7oA##-8$,-#.8?M`#-8O8j#.9>9##-9I&-#.9jE`#-9u2j#.::RA#-:E?K#.:bQ`#-:tij#.;2_A#-;DvK#.;^l##-;q(-#.<.x`#-<B%K#.<Z*A#-<mAK#.=,\'`#-=>>j#.=W4A#-=jKK#.>(A##->:X-#.>SM`#->fej#.?$ZA#-?6rK#.?PW`#-?c$-#.?|eA#-@3|K#.@Lr##-@`.-#.@y#`#-A0:j#.AI0A#-A[GK#.Au=##-B,T-#.BF:A#-BWaj#.BrG##-C)_-#.CBS`#-CTkj#.CnaA#-D%xK#.D>n##-DQ*-#.DkkA#-D}6j#.E;x##-EN4-#.Eh)`#-Ez@j#.F86A#-FJMK#.FdC##-FvZ-#.G4O`#-GFgj#.GaM##-GrtK#.H1Y`#-HCqj#.H]gA#-Hp#K#.I-t##-I@0-#.IY%`#-Il<j#.J*2A#-J<IK#.JV/`#-JiFj#.K\'<A#-K9SK#.KRI##-Kea-#.L#U`#-L5mj#.LNcA#-LazK#.L{``#-M2,-#.MKmA#-M_)K#.Mwz##-N/6-#.NH+`#-NZBj#.Nt8A#-O+OK#.ODE##-OV]-#.OqBA#-P\'ij#.PAO##-PSg-#.Pm[`#-Q$sj#.Q=iA#-QP%K#.Qiv##-Q|2-#.R:sA#-RL>j#.Rg%##-Ry<-#.S71`#-SIHj#.Sc>A#-SuUK#.T3K##-TEc-#.T_W`#-Tqoj#.U0U##-UA|K#.U[b`#-Unyj#.V,oA#-V?+K#.VW|##-Vk8-#.W)-`#-W;Dj#.WT:A#-WgQK#.X&7`#-X8Nj#.XQDA#-Xd[K#.X}Q##-Y4i-#.YM^`#-Y`uj#.YykA#-Z1\'K#.ZJh`#-Z]4-#.ZvuA#-[.1K#.[G\'##-[Y>-#.[s3`#-]*Jj#.]C@A#-]UWK#.]oM##-^&e-#.^@JA#-^Qqj#.^lW##-_#o-#._<d`#-_N{j#._hqA#-_{-K#.`9###-`K:-#.`e{A#-`wFj#.a6-##-aHD-#.ab9`#-atPj#.b2FA#-bD^K#.' },
  { '#####3#))##0#F77#3#PS##0#s4U#3#|v##0$CA7#3$M=##0$oMt#3$yTA#0%?ZU#-1nI`#01rW##-' },
  { '#####.*ZRA#/*k<U#.+*oA#/+8,U#.+V+`#/+cS7#.,&G`#/,2p7#.,QTA#/,`^7#.-#Q`#/-1ZU#.-N_A#/-[wU#.-{[`#/.,8U#..Jx`#/.Yr7#..w*A#//+#t#./G7##//U?t#./rS##/0\'=7#.0BkA#/0T+7#.0o^##/1$G7#.1>z##/1PDU#.1kwA#/1{aU#.2<t`#/2Kn7#.2kRA#/2wzt#.3:#`#/3H,U#.3h\'##/3u)t#.46=##/4E6U#.4dv`#/4r3t#.52VA#/5AOt#.5_S`#/5m]U#.6/aA#/6>Yt#.6Zn##/6jgU#.7+z`#/7;dt#.7Wx##/7g%t#.8))`#/872U#.8T6A#/8d/t#.9%C##/94<U#.9PO`#/9`I7#.9|]A#/:0Ut#.:O;##/:[cU#.' },
  { '#####/\'x7K#\'(1{-#/(GRU##(^+K#\'(s_j##).8-#\')ClK##)YDj#\')oy-##*+B-#\'*@vK##*VNj#\'*m(-##+\'[K#\'+=4j##+Ri-#\'+iAK##,#uj#\',9N-##,O\'K#\',eZj##,|$j#\'-6X-##-L1K#\'-bej##-x>-#\'.2rK##.HJj#\'._$-##.tWK#\'//0j##/De-#\'/[.-##/u$-#\'0,:j##0E0j#\'0WGK##0q=K#\'1(T-##1B:j#\'1Saj##1nGK#\'2$nK##2>T-#\'2Pkj##2jaj#\'2|xK##3:nK#\'3M*-##3gkj#\'3y6j##47xK#\'4ICK##4d*-#\'4uP-##546j#\'5FMK##5`CK#\'5rZ-##60P-#\'6Bgj##6]MK#\'6ntK##7-Z-#\'7?&-##7Xgj#\'7l#K##8)tK#\'8<0-##8U&-#\'8h<j##9&2j#\'98IK##9R0-#\'9dV-##:#<j#\':4cj##:NIK#\':aa-##:zV-#\';1mj##;Jcj#\';]zK##;wa-#\'<.,-##<Gmj#\'<Y8j##<szK#\'', 70, 90 },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,$wkj#1%?]A#,%Mg-#1%kj##,&&Bj#1&<gA#,&QOK#1&ht##,\'#Lj#1\'9%`#,\'NYK#1\'e2A#,\'zg-#1(5?##,', 89, 22 },
  { '#####7#0_-#6#F7##7#[kj#6#s4A#7$-i-#6$CA##7$Xuj#6$oM`#7%*\'K#6%?ZA#7%U4-#6%kh##7&&@j#6&<eA#7&QMK#6&hr##7\'#Jj#6\'9#`#7\'NWK#6\'e0A#7\'ze-#6(5=##7(Jqj#6(aI`#7(w#K#6)2G##7)G0-#6)^S`#7)t-K#6*.aA#7*D:-#6*Yn##7*pFj#6+*z`#7+>&U`6+V+K`7+j37`5,((A`7,:?t`6,S5K`7,fLU`6-$B-`7-7It`6-ONj`7-cVU`6-{[K`7.3d7`6.LXj`7._pt`6.xfK`7//}U`6/Hs-`7/[zt`6/u$j`70-,U`60E1K`70X97`60q>-`71)Et`61B;K`71TRU`61nH-`72%`7`62>Tj`72Q]U`62jbK`72}j7`63:o-`73Mvt`63glK`73z(U`647y-`74J57`64d*j`74spt`655(-`75C}U`65a4j`75p/7`661AK`76A,U`66^>j`76m97`67.LA#77=Fj#67YY##77iSK#68*f`#789a-#68UsA#78emj#69\'%##796k-#69R}A#79bwj#6:$/##7:3)K#6:O;`#7:_6-#6:{HA#7;/Bj#6;KU##7;[@-#6;xRA#7<,Lj#6<H`##7<WYK#6<tl`#7=(g-#6=DyA#7=Ssj#6=q+##7>%%K#6>A7`#7>P}j#6>n5##7>}/K#6?>A`#7?M<-#6?jNA#7?yHj#6@:[##7@IUK#6@fh`#7@vRj#6A7f##7AF`K#6Acr`#7Arm-#6B4$A#7BByj#6B`1##7Bo+K#6C0=`#7C?8-#6C[JA#7Cl5K#6D-G`#7D<B-#6DXTA#7DhNj#6E)b##7E8[K#6ETn`#7Edi-#6F%{A#7F4uj#6FQ-##7Fas-#6G#*A#7G2$j#6GN7##7G^1K#6GzC`#7H.>-#6HJPA#7HYJj#6Hv^##7I+H-#6IGZA#7IVTj#6Ish##7J\'bK#6JCt`#7JRo-#6Jp&A#7K#{j#6K@3##7KO-K#6Kl?`#7K|*j#6L==##7LL7K#6LiI`#7LxD-#6M9VA#7MHPj#6Med##7Mt^K#6N5p`#7NEZj#6Nbn##7NqhK#6O2z`#7OAu-#6O_,A#7On&j#6P/9##7P>3K#6PZE`#7Pj@-#6Q+RA#7Q;=K#6QWO`#7QgJ-#6R(]A#7R7Vj#6RSj##7RcdK#6S$v`#7S3q-#6SP(A#7S_}j#6S|5##7T0{-#6TM2A#7T],j#6Ty?##7U-9K#6UIK`#7UXF-#6UuXA#7V)Rj#6VEf##7VUP-#6VrcA#7W&]j#6WBp##7WQjK#6Wn|`#7W}w-#6X?.A#7XN(j#6Xk;##7Xz5K#6Y;G`#7YK2j#6YhE##7Yw?K#6Z8Q`#7ZGL-#6Zd_A#7ZsXj#6[4l##7[CfK#6[`x`#7[pcj#6]1v##7]@pK#6]^\'`#7]l}-#6^.4A#7^=.j#6^YA##7^i;K#6_*M`#7_9H-#6_UZA#7_fEK#6`\'W`#7`6R-#6`ReA#7`b_j#6a#r##7a2lK#6aO#`#7a^y-#6a{0A#7b/*j#6bK=##7' },
  { '#####1$-j`#2' },
  { '#####2+ADA#0+Rjt#2+mQ##0,#wU#24NC`#04Y:U#2' },
  { '#####--6ZA#.-L37#--bh##.-x?t#-', 69, 44 },
  { '#####,#0a-#1#F9##,#[mj#1#s6A#,$-k-#1$CC##,$Xwj#1$oO`#,%*)K#1%?]A#,%U6-#1', 93, 13 },
  { '#####,', 58, 3 },
  { '#####+#0aU#,#F9K#+#[n7#,#s6j#+$-kU#,$CCK#+$Xx7#,$oP-#+$wl7#,%?]j#+%MgU#,%kjK#+&&C7#,&<gj#+&QOt#,&htK#+\'#M7#,\'9&-#+\'NYt#,\'e2j#+\'zgU#,(5?K#+(Jt7#,(aL-#+(w%t#,)2IK#+)G2U#,)^V-#+', 20, 29 },
  { '#####86/]A#96?|##87-A`#97;57#89Q0j#9:3#t#8:Kv7#9:_{j#8:wm-#9;/<j#8;H2j`9;[8j#8;t?K`9<,EK#8<DL-`9<W3K#8' },
  { '#####:6/]j#;6@d7#:7-B-#;7;6U#:' },
  { '#####<' },
  { '#####9#*jK#<#F1K#9#Vgj#<#s.j#9$&8-#<$C;K#9$R5K#<$oH-#9%#B-#<%?Tj#9%NNj#<%kbK#9%{L-#<&<_j#9&KXj#<&hlK#9&wfK#<\'8y-#9\'Gs-#<\'e*j#9\'t$j#<(57K#9(D1K#<(aD-#9(sZj#<)2AK#9)ChK#<)^N-#9)mH-#<*.Zj#9*=Tj#<*YhK#9*ibK#<+*)K#9+;OK#<+V&j#9+hLj#<,($-#9,8YK#<,S0j#9,dg-#<-$=K#9-6T-#<-Ly-#9-baj#<-y*j#9.2nK#<.I7K#9.^{-#<.uD-#9//,j#</EPj#9/[*-#</rN-#90,6j#<0BZj#90WCK#<0nhK#91(P-#<1>u-#91S]j#<1ftK#92$jK#<2<$-#92Pgj#<2h0j#92|tK#<38=K#93M&-#<3dJ-#93y2j#<44Vj#94J0-#<4`dK#94uL-#<51aj#95G:-#<5]nK#95sFj#<6-{-#96oa-#<7*9K#97?mj#<7V6j#97lk-#<8\'CK#98<wj#<8RP-#98i)K#<9#]j#9996-#<9NjK#99eBj#<9zw-#9:5OK#<:KtK#9:bLj#<:x&-#9;2YK#<;H2j#9;^g-#<;t?K#9<.sj#<<DL-#9<Z%K#<<pXj#9=+}j#<=AV-#9=W/K#<=mcj#9>(<-#<>=pK#9>SHj#<>i}-#9?$UK#<?:.j#9?Oc-#<?g,-#9?|`K#<@78j#9@Lm-#<@cEK#9@xyj#<A3R-#9AI+K#<A__j#9Au8-#<B/lK#9BEDj#<B[ij#9BrB-#<C,vK#9CBNj#<CX(-#9Cn[K#<D)4j#9D>i-#<DTAK#9Djuj#<E&>j#9E;s-#<EQKK#9Eh$j#<E}X-#9F81K#<FMej#9Fd>-#<FyrK#9G4Jj#<GJ$-#9G`WK#<Gv|K#9H1Tj#<HG.-#9H]bK#<Hs:j#9I-o-#<ICGK#9IX{j#<IoT-#9J*-K#<J?aj#9JV*j#<Jl_-#9K\'7K#<K<kj#9KRD-#<KhxK#9L#Pj#<L9*-#9LN^K#<Le6j#9Lzk-#<M64-#9MKhK#<Mb@j#9Mwu-#<N2MK#9NH&j#<N^Z-#9Nt3K#<O.gj#9OD@-#<OYtK#9OpLj#<P+qj#9PAJ-#<PW#K#9PmVj#<Q(0-#9Q=dK#<QS<j#9Qiq-#<R$IK#9R9}j#<RPFj#9Rf{-#<R|SK#9S7,j#<SLa-#9Sc9K#<Sxmj#9T3F-#<THzK#9T_Rj#<Tu,-#9U/`K#<UF)K#9U[]j#<Ur6-#9V,jK#<VBBj#9VWw-#<VnOK#9W)(j#<W>]-#9WT5K#<Wjij#9X&2j#<X;g-#9XQ?K#<Xgsj#9X}L-#<Y8%K#9YMXj#<Yd2-#9YyfK#<Z4>j#9ZIs-#<Za<-#9ZvpK#<[1Hj#9[F}-#<[]UK#9[s.j#<]-c-#9]C;K#<]Xoj#9]oH-#<^)|K#9^?Tj#<^Uyj#9^lR-#<_\'+K#9_<_j#<_R8-#9_hlK#<`#Dj#9`8y-#<`NQK#9`e*j#<`{Nj#9a6(-#<aK[K#9ab4j#<awi-#9b2AK#<bGuj#9' },
  { '#####=6/^7#;' },
  { '#####>%@DU#?%M^7#>%kaU#?%{K7#>&<^t#?&KWt#>&hkU#?&weU#>\'8x7#?\'Gr7#>\'e)t#?\'t#t#>(56U#?(D0U#>(aC7#?(q-t#>)2@U#?)A:U#>)^M7#?)mG7#>*.Yt#?*=St#>*YgU#?*iaU#>+*t7#?+9n7#>+V%t#?+fkU#>,(#7#?,6x7#>,P^t#?,df7#>,|kU#?-4rt#>-Lx7#?-a$U#>-y)t#?.1|t#>.I6U#?.^.U#>.uC7#?/.;7#>/EOt#?/YGt#>/rM7#?0*TU#>0BYt#?0Ub7#>0ngU#?1\'_U#>1>t7#?1Rl7#>1k%t#?2#xt#>2<#7#?2O*U#>2h/t#?2{77#>38<U#?3L4U#>3dI7#?3xA7#>44Ut#?4HMt#>4`cU#?4tZU#>50p7#?5G97#>5[|t#?5sEt#>6-.U#?6CRU#>6X;7#?6o`7#>7)Gt#?7?lt#>7UE7#?7lj7#>8&Qt#?8<vt#>8Q_U#?8i(U#>8}l7#?9957#>9Mxt#?9eAt#>9z*U#?:5NU#>:K\'t#?:bKt#>:w4U#?;2XU#>;GA7#?;^f7#>;sMt#?<.rt#><CZU#?<Z$U#><oh7#?=+|t#>=@eU#?=W.U#>=lr7#?>(;7#>>=#t#?>SGt#>>i0U#??$TU#>?9=7#??Ob7#>?f:U#??|_U#>@6G7#?@Ll7#>@bSt#?@xxt#>A2aU#?AI*U#>A^n7#?Au77#>B.zt#?BECt#>BZx7#?BrA7#>C,)t#?CBMt#>CW6U#?CnZU#>D(C7#?D>h7#>DSOt#?Djtt#>E%M7#?E;r7#>EPYt#?Eh#t#>E|gU#?F80U#>FLt7#?Fd=7#>Fy%t#?G4It#>GI2U#?G`VU#>Gv/t#?H1St#>HF<U#?H]aU#>HrI7#?I-n7#>IBUt#?IXzt#>IncU#?J*,U#>J>p7#?JV)t#>JkmU#?K\'6U#>K;z7#?KRC7#>Kh+t#?L#Ot#>L88U#?LN]U#>LdE7#?Lzj7#>M5BU#?MKgU#>MaO7#?Mwt7#>N1[t#?NH%t#>N]iU#?Nt2U#>O-v7#?OD?7#>OY\'t#?OpKt#>P+%7#?PAI7#>PV1t#?PmUt#>Q\'>U#?Q=cU#>QRK7#?Qip7#>R#Wt#?R9|t#>ROU7#?Rfz7#>R{bt#?S7+t#>SKoU#?Sc8U#>Sw|7#?T3E7#>TH-t#?T_Qt#>Tt:U#?U/_U#>UE7t#?U[[t#>UqDU#?V,iU#>VAQ7#?VWv7#>Vm^t#?W)\'t#>W=kU#?WT4U#>Wix7#?X&1t#>X:uU#?XQ>U#>Xg\'7#?X}K7#>Y73t#?YMWt#>Yc@U#?YyeU#>Z3M7#?ZIr7#>Z`JU#?ZvoU#>[0W7#?[F|7#>[[dt#?[s-t#>],qU#?]C:U#>]X#7#?]oG7#>^)/t#?^?St#>^U-7#?^lQ7#>_&9t#?_<^t#>_QFU#?_hkU#>_}S7#?`8x7#>`M`t#?`e)t#>`z^7#?a6\'7#>aJjt#?ab3t#>avwU#?b2@U#>bG)7#?' },
  { '#####.$yj##/%*Et#.(wcA#-', 120, 27 },
  { '######&@E##.' },
  { '######3y6j#&47xK##4ICK#&4d*-##4uP-#&546j##5FMK#&5`CK##5rZ-#&60P-##6Bgj#&6]MK##6ntK#&7-Z-##7?&-#&7Xgj##7l#K#&8)tK##8<0-#&8U&-##8h<j#&9&2j##98IK#&9R0-##9dV-#&:#<j##:4cj#&:NIK##:aa-#&:zV-##;1mj#&;Jcj##;]zK#&;wa-##<.,-#&<Gmj##<Y8j#&<szK##=+6-#&=D,-##=VBj#&=p8j##>\'OK#&>@EK##>R]-#&>mBj##?#ij#&?=OK##?NvK#&?i]-##?{sj#&@9ij##@L%K#&@evK##@x2-#&A6sj##AH>j#&Ac%K##AtKK#&B32-##BDX-#&B_>j##BqUK#&C/KK##CAc-#&CZX-##Cmoj#&D,UK##D=|K#&DWc-##Dj.-#&E(oj##E;+K#&ES|K##Eg8-#&F%.-##F7Dj#&FP:j##FcQK#&F}8-##G3_-#&GMDj##G_kj#&GyQK##H0i-#&HI_-##H[uj#&Hukj##I-\'K#&IFi-##IX4-#&Iruj##J)@j#&JC\'K##JU>-#&Jo4-##K&Jj#&K?@j##KQWK#&KkMK##K}e-#&L<Jj##LMqj#&LhWK##Lz#K#&M8e-##MJ{j#&Mdqj##Mw-K#&N5#K##NG:-#&Na{j##NsFj#&O2-K##OCSK#&O^:-##Ooa-#&P.Fj##P@^K#&PYSK##Plk-#&Q*a-##Q<wj#&QV^K##Qi)K#&R\'k-##R96-#&RRwj##Rf3K#&S$)K##S6@-#&SO6-##SbLj#&S{Bj##T2YK#&TL@-##T^g-#&TxLj##U.sj#&UHYK##UZq-#&Utg-##V+}j#&VDsj##VW/K#&Vqq-##W(<-#&WA}j##WSHj#&Wn/K##X%F-#&X><-##XPRj#&XjHj##X|`K#&Y:UK##YLm-#&YgRj##Yxyj#&Z7`K##ZI+K#&Zcm-##Zv(j#&[3yj##[F5K#&[`+K##[rB-#&]1(j##]BNj#&]]5K##]n[K#&^-B-##^>i-#&^XNj##^kfK#&_)[K##_;s-#&_Ti-##_h$j#&`&fK##`81K#&`Qs-##`d>-#&a#$j##a5;K#&aN1K##aaH-#&az>-##b1Tj#&bJJj##' },
  { '#####:.WVU##.xz`#:<yq-#;' },
  { '#####%\'x6-#&(1yj#%(GR-#&(^+K#%(s_j#&).8-#%)ClK#&)YDj#%)oy-#&*+B-#%*@vK#&*VNj#%', 9, 11 },
  { '#####=(Gp##:(^RU#=(t,A#:).jt#=)DC`#:)Z\'7#=)pf`#:*+?t#=*@t7#:*VLU#=*m%t#:+\'Y7#=+=2U#:+Rft#=+i?7#:,#sU#=,9Kt#:,O%7#=,eXU#:,{}U#=-L/`#;-YHA#=-bcU#:-x;t#=.2p7#:.HHU#=.^|t#:.tU7#=//.U#:/Dbt#=/[+t#:/t|t#=0,8U#:0E.U#=0WE7#:0q;7#=1(Qt#:1B8U#=1S_U#:1nE7#=2$l7#:2>Qt#=2PiU#:2j_U#=2|v7#:3:l7#=3M\'t#:3giU#==\'[##;' },
  { '#####&$^Dj#$$l8A#&%*D-#$%<O`#&%U[K#$%hh##&&\'#K#$&<l`#&&R:j#$&eFA#&\'#GK#$\'5S##&*A$j#$*VcA#&*m]-#$+(5##&+=ij#$+SA`#&+ivK#$,%?##&,>UK#$,PK`#&,iQK#$,|XA#&-8X-#$-KuA#&-d/K#$-xr`#&.3KK#$.I$A#&._X-#$.sO`#&/0UK#$/C]j#&/[c-#$/pZ-#&0,oj#$0@gj#&0W|K#$0ltK#&13k-#$1=qj#&1T0-#$1jo-#&2%<j#$2:{j#&2PT-#$2g-K#&2|aj#$3:Vj#&3LnK#$3esj#&3ykj#$44D-#&4IxK#$4cnK#&4v*-#$53{-#&5F6j#$5`xK#&5rCK#$61*-#&6BP-#$6]6j#&6oMK#$7-CK#&7?Z-#$80;`#&8;tK#$8UZ-#&8h&-#$9&gj#&99#K#$9QtK#&9e0-#$:#&-#&:5<j#$:N2j#&:aIK#$:z?K#&;1V-#$;K<j#&;]cj#$;wIK#&<*Rj#$' },
  { '#####?(Glt#@(^OK#?).h7#>)DA##?)Z$U#>)pd##?*+=7#>*@qU#?*VIt#>*m#7#?+\'VU#>+=/t#?+Rd7#>+i<U#?,#pt#>,9I7#?,N}U#>,eUt#?,{zt#>-L-##9-YE`#>-b`t#?-x97#>.2mU#?.HEt#>.^z7#?.tRU#>//+t#?/D`7#>/[)7#?/tz7#>0,5t#?0E+t#>0WBU#?0q8U#>1(O7#?1B5t#>1S[t#?1nBU#>2$iU#?2>O7#>2Pft#?2j[t#>2|sU#?3:iU#>3M%7#?3gft#>3y1t#?47sU#>4I>U#?4d%7#>4uK7#?541t#>5FHU#?5`>U#>5rU7#?60K7#>6]I##96np##>' },
  { '#####;(^SK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;-bd##=-x<A#;.2p`#=.HI##;.^}A#=.tU`#A///K#;/Dcj#A/[,j#;/t}j#A0,9K#;0E/K#A0WF-#;0q<-#A1(Rj#;1B9K#A1S`K#;1nF-#A2$m-#;2>Rj#A2PjK#;2j`K#A2|w-#;3:m-#A3M(j#;' },
  { '#####;(GpK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;-bd##=-x<A#;.2p`#=.HI##;.^}A#=.tU`#;///##=/DcA#;/[,A#=/t}A#;0,9##=0E/##;0WE`#=0q;`#;1(RA#=1B9##;1S`##=1nE`#;2$l`#=2>RA#;2Pj##=2j`##;2|v`#=3:l`#;3M(A#=3gj##;' },
  { '#####;(GpK#=(^S##;(t,j#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;' },
  { '#####;(^SK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;-bd##=-x<A#;.2p`#=.HI##;.^}A#=.tU`#;///##=/DcA#;/[,A#=/t}A#;0,9##=0E/##;0WE`#=0q;`#;', 153, 37 },
  { '#####$(w``#A).l7#$)D:A#A)Z(U#$)ph##A*+JU#$*A$A#A*VMK#$*m&j#A+\'Z-#$+=3K#A+Rgj#$+i@-#A,#tK#$,9Lj#A,O&-#$,eYK#A,|#K#$-6cA#A-LFA#$-c*A#A-xiA#$.3A`#A.I%`#$._Y##A.u=##$//qA#A/ETA#$/[8A#A/qwA#$0,O`#A0B3`#$0Wh##A0nK##$1)$A#A1>cA#$1TFA#A1k*A#$2%^`#A2;A`#$2Pv##A2gY##$2}2A#A37qA#$3MTA#A3d8A#$3yl`#A44O`#$4J)##A4`h##$4v@A#A51$A#$' },
  { '#####A$1Q7#$' },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,9Lj#;,O&-#A,eYK#;,|#K#A-L0U#$-bdt#A/[.-#;/u$-#A0,:A#;0E0A#A0WG##;0q=##A1(S`#;1B:A#A1SaA#;1nG##A2$n##;2>S`#A2PkA#;2jaA#A2|x##;3:n##A3M)`#;3gkA#A3y6A#;47x##A4IC##;4d)`#A4uO`#;546A#A5FM##;5`C##A5rY`#;60O`#A6BgA#;6]M##A6nt##;7-Y`#A7?%`#;7XgA#A7l###;8)t##A8</`#;8U%`#A8h<A#;9&2A#A' },
  { '#####:' },
  { '#####:(GoU#8(^R-#:(t+t#8).jK#:)DC7#8)Z&j#:)pf7#8*+?K#:*@sj#8*VL-#:*m%K#8+\'Xj#:+=2-#8+RfK#:+i>j#8,#s-#:,9KK#8,O$j#:,eX-#8,{}-#:-L/7#=-YGt#:-bc-#8-x;K#:.2oj#8.HH-#:.^|K#8.tTj#://.-#8/6Vj#:/Dbt#=/[+t#:/t|t#=0,8U#:0E.U#=0WE7#:0q;7#=1(Qt#:1B8U#=1S_U#:1nE7#=2$l7#:2>Qt#=2PiU#:2j_U#=2|v7#:3:l7#=3M\'t#:3giU#=3y4U#:47v7#=4IA7#:4d\'t#=4uMt#:544U#=5FK7#:5`A7#=5rWt#:60Mt#=6BeU#:6]K7#=6nr7#:8U#K#=98G7#:' },
  { '#####&$4$-#$$?|##&$Y,j#$$l8A#&%*D-#$%<O`#&%U[K#$%hh##&&\'#K#$&9/##&&R:j#$&eFA#&\'#GK#$\'5S##&)t?K#$*-7##&*DVj#$*XNA#&*po-#$+)f`#&+A+K#$+U###&+q0-#$,&E##&,>kj#$,Q]A#&,i}-#$,}t`#&-:9K#$-N1##&-f[K#$-y-##&.2q-#$.HI##&.^}j#$.tU`#&///K#$/DcA#&/[,j#$/q``#&0,9K#$0AmA#&0WF-#$0mz##&1(Rj#$1B9##&1S`K#$1nE`#&2$m-#$2>RA#&2PjK#$2j`##&2|w-#$3:l`#&3M(j#$3gj##&3y5K#$47v`#&4IB-#$4d(A#&4uNj#$545##&5FL-#$5`A`#&5rXj#$60NA#&6BfK#$6]K`#&6ns-#$7-XA#&7?$j#$7Xf##&7k}-#$8)r`#&8<.j#$8U$A#&8h;K#$9&1##&98H-#$9R.A#&9dTj#$:#;##&:4bK#$:NG`#&:a_j#$:zTA#&;1lK#$;Jb##&;]y-#$;w_A#&<.*j#$<Gl##&<Y7K#$<sx`#&=+4j#$=D*A#&=VAK#$=p7##&>\'N-#$>@C`#&>RZj#$>mA##&?#hK#$?=M`#&?Nu-#$?iZA#&?{rK#$@9h##&@L$-#$@et`#&@x0j#$A6r##&AH=K#$Ac#`#&AtJ-#$B30A#&BDVj#$B_=##&BqT-#$C/I`#&CAaj#$CZVA#&CmnK#$D,S`#&D={-#$DWaA#&Dj,j#$E(n##&E;*-#$ESz`#&Eg6j#$F%,A#&F7CK#$FP9##&FcP-#$F}6A#&G3]j#$GMC##&G_jK#$GyO`#&H0gj#$HI]A#&H[tK#$Huj##&I-&-#$IFgA#&IX2j#$Irt##&J)?K#$JC%`#&JU<j#$Jo2A#&K&IK#$K??##&KQV-#$KkK`#&K}cj#$L<I##&LMpK#$LhU`#&Ly}-#$M8cA#&MJzK#$Mdp##&Mw,-#$N4|`#&NG8j#$Naz##&NsEK#$O2+`#&OCR-#$O^8A#&Oo_j#$P.E##&P@]-#$PYQ`#&Plij#$Q*_A#&Q<vK#$QV[`#&Qi(-#$R\'iA#&R94j#$RRv##&Rf2-#$S$\'`#&S6>j#$SO4A#&SbKK#$S{A##&T2X-#$TL>A#&T^ej#$TxK##&U.rK#$UHW`#&UZoj#$UteA#&V+|K#$VDr##&VW.-#$VqoA#&W(:j#$WA|##&WSGK#$Wn-`#&X%Dj#$X>:A#&XPQK#$XjG##&X|_-#$Y:S`#&YLkj#$YgQ##&YxxK#$Z7^`#&ZI*-#$ZckA#&Zv\'K#$[3x##&[F4-#$[`)`#&[r@j#$]1\'##&]BMK#$]]3`#&]nZ-#$^-@A#&^>gj#$^XM##&^ke-#$_)Y`#&_;qj#$_TgA#&_h#K#$`&d`#&`80-#$`QqA#&`d<j#$a####&a5:-#$aN/`#&aaFj#$az<A#&b1SK#$bJI##&' },
  { '#####=(Gp##:(^RU#=(t,A#:).jt#=)DC`#:)Z\'7#=)pf`#:*+?t#=*@t7#:*VLU#=*m%t#:+\'Y7#=+=2U#:+Rft#=+i?7#:,#sU#=,9Kt#:,O%7#=,eXU#:,{}U#=-Hbt#;-dCK#=-x;##;.4P-#=.HG`#;.`]j#=.tTA#;/0jK#=/Db##;/[w-#=/q_A#;0,97#=0E.j#;0WEt#=0q;K#;1(RU#=1B8j#;1S`7#=1nEK#;2$lt#=2>R-#;2Pj7#=2j_j#;2|vt#=3:lK#;3M(U#=3gij#;3y57#=' },
  { '#####8' },
  { '#####B' },
  { '#####C(Gn`#<(^Q7#C(t+##<).iU#C)DBA#<)Z%t#C)peA#<*+>U#C*@rt#<*VK7#C*m$U#<+\'Wt#C+=17#<+ReU#C+i=t#<,#r7#C,9JU#<,O#t#C,eW7#<,{|7#C-L.A#8-YG##C-bb7#<-x:U#C.2nt#<.HG7#C.^{U#<.tSt#C//-7#</DaU#C/[*U#</t{U#C0,77#<0E-7#C0WCt#<0q9t#C1(PU#<1B77#C1S^7#<1nCt#C2$jt#<2>PU#C2Ph7#<2j^7#C2|tt#<3:jt#C3M&U#<3gh7#C3y37#<47tt#C4I?t#<4d&U#C4uLU#<5437#C5FIt#<5`?t#C5rVU#<60LU#C6Bd7#<6]It#C6npt#<8T}-#898FA#C' },
  { '#####:&p;t#8)DBj#C)Z&A#8)pej#C*+=`#8*@rK#C*VJA#8*m$-#C+\'W##8+=0j#C+Rd`#8+i=K#C,#qA#8,9J-#C,O###8,eVj#C,{{A#8-6T-#C-L-##8-baj#C-x9`#8.2nK#C.HFA#8.^{-#C.tS##8//,j#C/D``#8/[*-#C/q^##80,6j#C0Aj`#80WCK#C0mwA#82(n##C2;)7#82P^##C2g5t#82|j`#C37BU#83LwA#C3cO7#83y)##C43[t#84I5`#C4`Y7#88h/##C8}b##898;`#C9Mn`#8' },
  { '#####8*q2A#C+%wU#8+>n##C+Q)7#8+kkA#C+}5t#8,;x##C,N37#8,h)`#C,z?t#8-86A#C-JLU#8' },
  { '#####B/bYt#D/tqA#=4Kbt#B' },
  { '#####=5|Gt#:68Qt#=' },
  { '#####&#17##$#CBU#&#]NA#$#oYt#&$-qA#$$?|t#&$Y-`#$$l97#&%*E##$%<PU#&%U]A#$%hht#&&\'$A#$&9/t#&&R;`#$&ap7#&\'#S##$\'2,U#&)EA`#$)Z)t#&)qd`#$*+Kt#&*h)`#$+(vt#&+9r`#$+Vjt#&+gv##$,(1t#&,:)##$,Or7#&,fK##$,|#t#&-6bK#$-LE##&-cu-#$-xh##&.2Zj#$.H>A#&._X-#$.u;`#&//pK#$/ES##&/[7K#$/qv##&0,D-#$0B2A#&0WPj#$0nI`#&1)#K#$1>b##&1TEK#$1k)##&2%]j#$2;@A#&2Pu-#$2gW`#&2}1K#$37p##&3MSK#$3d7##&3ykj#$44NA#&4J(-#$4_``#&4v*-#$54kA#&5G\'K#$5a\'`#&5rCK#$61)`#&6C@j#$6]6A#&6oMK#$7-C##&7?Z-#$7XO`#&7kgj#$8)]A#&8;tK#$8UY`#&8h&-#$9&gA#&982j#$9Qt##&9e0-#$:#%`#&:5<j#$:N2A#&:aIK#$:z?##&;1V-#$;K<A#&;]cj#$;wI##&<-pK#$' },
  { '#####C&\'5`#81iEK#C' },
  { '#####A' },
  { '#####=(Gp##:(^RU#=(t,A#:).jt#=)DC`#:)Z\'7#=)pf`#:*+?t#=*@t7#:*VLU#=*m%t#:+\'Y7#=+=2U#:+Rft#=+i?7#:,#sU#=,9Kt#:,O%7#=,eXU#:,{}U#=-IiA#;' },
  { '#####&%SOK#$%j(A#&&(_j#$&:?`#&&Ny-#$&daA#&&{*j#$\'5iA#&\'K7K#$\'akA#&\'x4j#$(1x##&(GPj#$(^)`#&(s^K#$).6A#&)Ck-#$)YC##&)owj#$*+@A#&*@u-#$*VM##&*m&j#$+\'Y`#&+=3K#$+RgA#&+i@-#$,#t##&,9Lj#$,O%`#&,eYK#$,|###&-6Vj#$-L/`#&-bdK#$-x<A#&.2q-#$.HI##&.^}j#$.tU`#&///K#$/DcA#&/[,j#$/q``#&0,9K#$0AmA#&0WF-#$0q=K#&1(T-#$1B:j#&1Saj#$1nGK#&2$nK#$2>T-#&2Pkj#$2jaj#&2|xK#$3:nK#&3M*-#$3gkj#&3y6j#$47xK#&4ICK#$4d*-#&4uP-#$546j#&5FMK#$5`CK#&5rZ-#$60P-#&6Bgj#$6]MK#&6ntK#$7-Z-#&7?&-#$7Xgj#&7l#K#$8)tK#&8<0-#$8U&-#&8h<j#$9&2j#&98IK#$:#<j#&:4cj#$:NIK#&:aa-#$:zV-#&;1mj#$;Jcj#&;]zK#$;wa-#&<.,-#$<Gmj#&<Y8j#$<szK#&=+6-#$=D,-#&=VBj#$=p8j#&>\'OK#$>@EK#&>R]-#$>mBj#&?#ij#$?=OK#&?NvK#$?i]-#&?{sj#$@9ij#&@L%K#$@evK#&@x2-#$A6sj#&AH>j#$Ac%K#&AtKK#$B32-#&BDX-#$B_>j#&BqUK#$C/KK#&CAc-#$CZX-#&Cmoj#$D,UK#&D=|K#$DWc-#&Dj.-#$E(oj#&E;+K#$ES|K#&Eg8-#$F%.-#&F7Dj#$FP:j#&FcQK#$F}8-#&G3_-#$GMDj#&G_kj#$GyQK#&H0i-#$HI_-#&H[uj#$Hukj#&I-\'K#$IFi-#&IX4-#$Iruj#&J)@j#$JC\'K#&JU>-#$Jo4-#&K&Jj#$K?@j#&KQWK#$KkMK#&K}e-#$L<Jj#&LMqj#$LhWK#&Lz#K#$M8e-#&MJ{j#$Mdqj#&Mw-K#$N5#K#&NG:-#$Na{j#&NsFj#$O2-K#&OCSK#$O^:-#&Ooa-#$P.Fj#&P@^K#$PYSK#&Plk-#$Q*a-#&Q<wj#$QV^K#&Qi)K#$R\'k-#&R96-#$RRwj#&Rf3K#$S$)K#&S6@-#$SO6-#&SbLj#$S{Bj#&T2YK#$TL@-#&T^g-#$TxLj#&U.sj#$UHYK#&UZq-#$Utg-#&V+}j#$VDsj#&VW/K#$Vqq-#&W(<-#$WA}j#&WSHj#$Wn/K#&X%F-#$X><-#&XPRj#$XjHj#&X|`K#$Y:UK#&YLm-#$YgRj#&Yxyj#$Z7`K#&ZI+K#$Zcm-#&Zv(j#$[3yj#&[F5K#$[`+K#&[rB-#$]1(j#&]BNj#$]]5K#&]n[K#$^-B-#&^>i-#$^XNj#&^kfK#$_)[K#&_;s-#$_Ti-#&_h$j#$`&fK#&`81K#$`Qs-#&`d>-#$a#$j#&a5;K#$aN1K#&aaH-#$az>-#&b1Tj#$bJJj#&' },
  { '#####&%2>j#$%=v`#&%T@-#$%e*A#&(+>-#$(0<-#&)tuj#$*\'3K#&*BUK#$*S0A#&*rpK#$+%-`#&+?4j#$+Q+##&+j|K#$+|G##&,=Z-#$,LS`#&,eYK#$,wp`#&-5g-#$-Hn##&-bdK#$-ukA#&.3KK#$.Ex##&._X-#$.q9##&//ej#$/B6A#&/[c-#$/pZ-#&0,oj#$0@gj#&0W|K#$0ltK#&1*jK#$1@BA#&1Vgj#$1m?`#&2\'tK#$2=LA#&2S&-#$2iY##&3$2j#$39f`#&3O?K#$3d7K#&3{L-#$44p7#&4J(-#$4_``#&4v?K#$5.rt#&5F6j#$5XM##&5rCK#$6*Jj#&6BZj`$6Rp`#&6oMK`$6}wA#&7?Z-#$7TBj#&7kgj#$8&?`#&8;tK#$8Tj##&8h0j#$9%w-#&98=t#$9R$-#&9dJU#$:#0j#&:4W7#$:N=K#&:aIK#$:zI`#&;1aj#$;JVj#&;]nK#$;wIK#&<.*j#$<Gb7#&<^;##$<snt#&=-W##$=C{U#&=Wt##$=p-7#&>\'DA#$>@9t#&>RQ##$>m77#&?#^`#$?=Ct#&?NkA#$?iPU#&?{h`#$@9^7#&@KuA#$@ejt#&@x\'##$A6h7#&AH3`#$Abtt#&At@A#$B3&U#&BDM##$B_37#&BqJA#$C.O7#&CAW##$CXl7#&Cmd`#$D(<U#&D=qA#$DRXU#&Dj###$D})t#&E\'t##$E(d7#&E:{A#$ELEt#&EQDA#$ESpt#&Eg-##$Ewbt#&E|aA#$F$}U#&F79`#$FF37#&FK}A#$FP/7#&FcFA#$FqO7#&FvM`#$F},U#&G3S##$G@l7#&GEj`#$GM97#&G_``#$Gk<U#&Gq+`#$GyEt#&H0^##$H:XU#&H?W##$HIRU#&H[j`#$He)t#&Hjt##$Hu`7#&I,wA#$I4Et#&I9DA#$IF]U#&IX)##$I_bt#&IdaA#$Irj7#&J)5`#$J.37#&J3}A#$JBvt#&JU3##$JXO7#&J^M`#$Jo(U#&K&?`#$K\'{U#&K-j`#$K?57#&KQLA#$KR<U#&KX+`#$KkAt#&L\'W##$L<?7#&LQt##$LhKt#&L|DA#$M8XU#&MKaA#$Mdf7#&Mv}A#$N4rt#&NG/##$Nap7#&Ns;`#$O1|t#&OCHA#$O^.U#&OoU##$P.;7#&P@RA#$PYGt#&Pl`##$Q*TU#&Q<l`#$QVQt#&QhyA#$R\'_U#&R9+##$RQ{U#&Rf(A#$R}<U#&S65##$SLXU#&SbA`#$Sw)t#&T2NA#$TFEt#&TKDA#$TL4U#&T^[##$Tqbt#&TvaA#$TxA7#&U.h`#$U@37#&UE}A#$UHMt#&UZf##$UkO7#&UpM`#$UtZU#&V+r`#$V9{U#&V?j`#$VDh7#&VW$A#$Ve<U#&Vk+`#$VqeU#&W(1##$W4XU#&W9W##$WAr7#&WS=`#$W_)t#&Wdt##$Wn#t#&X%;##$X.Et#&X3DA#$X>0U#&XPG`#$XXbt#&X^aA#$Xj=7#&X|TA#$Y(37#&Y-}A#$Y:It#&YLb##$YRO7#&YWM`#$YgG7#&Yxn`#$Y|{U#&Z\'j`#$Z7St#&ZH{A#$ZL<U#&ZR+`#$ZcaU#&Zux`#$ZwXU#&Z|W##$[3n7#&[F*A#$[_zt#&[r7##$]0x7#&]BC`#$]])t#&]nPA#$^-6U#&^>^##$^XC7#&^kZA#$_)Ot#&_;h##$_T]U#&_gt`#$`&Yt#&`8&A#$`QgU#&`d3##$`}t7#&a50A#$aN%t#&aa=##$az2U#&b1I`#$bJ?7#&' },
  { '#####&%2>j#$%=v`#&%T@-#$%e*A#&(+>-#$(0<-#&)tuj#$*\'3K#&*BUK#$*S0A#&*rpK#$+%-`#&+?4j#$+Q+##&+j|K#$+|G##&,=Z-#$,LS`#&,eYK#$,wp`#&-5g-#$-Hn##&-bdK#$-ukA#&.3KK#$.Ex##&._X-#$.q9##&//ej#$/B6A#&/[c-#$/pZ-#&0,oj#$0@gj#&0W|K#$0ltK#&1*jK#$1@BA#&1Vgj#$1m?`#&2\'tK#$2=LA#&2S&-#$2iY##&3$2j#$39f`#&3O?K#$3d7K#&3{L-#$44p7#&4J(-#$4_``#&4v?K#$5.rt#&5F6j#$5Xn##&5rCK#$6*Jj#&6BP-#$6Rp`#&6oMK`$6}wA#&7&D-#$7*&A#&', 176, 64 },
  { '#####8%ZbK#:' },
  { '#####8#/j##C#EAt#8#Zv`#C#qNU#8$,(A#C$BKt#8$X%`#C$nXU#8$vt`#C%>f7#8%T?##C%jrt#8&%K`#C&;$U#8\'P4A#C\'d;7#8' },
  { '#####=&p<A#:)DC7#8)Z&j#:)pf7#8*+>-#:*@rt#8*VJj#:*m$U#8+\'WK#:+=17#8+Re-#:+i=t#8,#qj#:,9JU#8,O#K#:,eW7#8,{{j#:-6TU#8-L-K#:-bb7#8-x:-#:.2nt#8.HFj#:.^{U#8.tSK#://-7#8/Da-#:/[*U#8/q^K#:0,77#80Ak-#:0WCt#80mwj#:2(nK#82;)`#:2P^K#82g6A#:2|k-#837C##:3Lwj#83cO`#:3y)K#843]A#:4I6-#84`Y`#:8h/K#88}bK#:98<-#89Mo-#:' },
  { '#####8(Go-#C(^Q`#8(t+K#C).j##8)DBj#C)Z&A#8)pej#C*+?##8*@sA#C*VK`#8*m%##C+\'XA#8+=1`#C+Rf##8+i>A#C,#r`#8,9K##C,O$A#8,eW`#C,{|`#8-L.j#:-YGK#8-bb`#C-x;##8.2oA#C.HG`#8.^|##C.tTA#8//-`#C/Db##8/[+##C/t|##80,7`#C0E-`#80WDA#C0q:A#81(Q##C1B7`#81S^`#C1nDA#82$kA#C2>Q##82Ph`#C2j^`#82|uA#C3:kA#83M\'##C3gh`#83y3`#C47uA#84I@A#C4d\'##84uM##C543`#85FJA#C5`@A#85rW##C60M##86Bd`#C6]JA#86nqA#C8T}U#8' },
  { '#####&$^%7#$$p;t#&%&cA#$%@HU#&%Pt`#$%lU7#&%}1##$&<bt#&&Nz##$&g37#&&{+`#$)ReU#A)Z4-#$*/.U#&*C;t#$*VC7#&*m\'7#$+\'ZU#&+=3t#$+Rh7#&+i@U#$,#tt#&,9M7#$,O&U#&,eYt#$,|#t#&-6W7#$-L0U#&-bdt#$-x=7#&.2qU#$.HIt#&.^2U#$.tVU#&///t#$/Dd7#&/[-7#$/u#7#&0,9t#$0E/t#&0WFU#$0q<U#&1(S7#$1B9t#&1S`t#$1nFU#&2$mU#$2>S7#&2Pjt#$2j`t#&2|wU#$3:mU#&3M)7#$3gjt#&3y5t#$47wU#&4IBU#$4d)7#&4uP-#$546j#&5FMK#$5`CK#&5rZ-#$60P-#&6Bgj#$6]MK#&6o$-#$7-Z-#&7?&-#$7Xgj#&7l#K#$8)tK#&8<:j#$8U&-#&8h<j#$9\'o-#&98IK#$' },
  { '#####C' },
  { '#####&%2>j#$%=v`#&%T@-#$%e*A#&(+>-#$(0<-#&)tuj#$*\'3K#&*BUK#$*S0A#&*rpK#$+%-`#&+?4j#$+Q+##&+j|K#$+|G##&,=Z-#$,LS`#&,eYK#$,wp`#&-5g-#$-Hn##&-bdK#$-ukA#&.3KK#$.Ex##&._X-#$.q9##&//ej#$/B6A#&/Y6-#$/p/##&0+3K#$0@1##&0V@-#$0kM##&1)/##$1;E7#&1Ux##$1k_j#&2&XU#$2:P-#&2PTU#$2h>-#&2|b7#$38*j#&3N9t#$3c1K#&3yl`#$45JU#&4IyA#$4`gU#&4v+##$5/7t#&5F7`#$5]qU#&5rDA#$6-2U#&6BQ##$6V^t#&6oNA#$7*<U#&7?[##$7TXU#&7kh`#$8)sU#&8;uA#$8U%7#&8h\'##$9&1t#&983`#$9R/7#&9d@A#$:#;t#&:4M##$:NHU#&:aJA#$:zU7#&;1W##$;Jbt#&;]d`#$;w`7#&<-qA#$<Glt#&<Y###$<syU#&=*{A#$=D+7#&=V-##$=p7t#&>\'9`#$>@DU#&>RFA#$>mAt#&?#S##$?=NU#&?N``#$?i[7#&?{^##$@9ht#&@Kj`#$@euU#&@wwA#$A6rt#&AH)##$Ac$U#&At5`#$B317#&BDBA#$B_=t#&Bq?`#$C/JU#&CALA#$CZW7#&CmY##$D,TU#&D=f`#$DWb7#&DisA#$E(nt#&E:p`#$ES{U#&Ef}A#$F%-7#&F7/##$FP9t#&Fc;`#$F}77#&G3HA#$GMCt#&G_U##$GyPU#&H0RA#$HI^7#&H[`##$Hujt#&I,l`#$IFh7#&IWyA#$Irtt#&J)+##$JC&U#&JU(A#$Jo37#&K&5##$K??t#&KQA`#$KkLU#&K}NA#$L<It#&LM[##$LhVU#&Lyh`#$M8d7#&MJf##$Mdpt#&Mvr`#$N4}U#&NG$A#$Nazt#&Ns1##$O2,U#&OC=`#$O^97#&OoJA#$P.Et#&P@G`#$PYRU#&PlTA#$Q*`7#&Q<b##$QV]U#&Qhn`#$R\'j7#&R8{A#$RRvt#&Rex`#$S$(U#&S6*A#$SO57#&Sb7##$S{At#&T2C`#$TL?7#&T^PA#$TxKt#&U.^##$UHXU#&UZZA#$Utf7#&V+h##$VDrt#&VVt`#$Vqp7#&W(&A#$WA|t#&WS3##$Wn.U#&X%0A#$X>;7#&XP=##$XjGt#&X|I`#$Y:TU#&YLVA#$YgQt#&Yxd##$Z7_U#&ZHp`#$Zcl7#&Zun##$[3xt#&[Ez`#$[`*U#&[r,A#$]1\'t#&]B9##$]]4U#&]nE`#$^-A7#&^>RA#$^XMt#&^kO`#$_)ZU#&_;]A#$_Th7#&_gj##$`&eU#&`7v`#$`Qr7#&`d(A#$a##t#&a5%`#$aN0U#&aa2A#$az=7#&b1?##$bJIt#&' },
  { '#####E' },
  { '#####>(GmA#?(^Ot#>(t)`#?', 152, 4 },
  { '#####;2QXj#=2h1`#;5Muj#=5a&A#;5tXj#=61=`#;' },
  { '#####=' },
  { '#####B*bXU#F' },
  { '#####C(Gn`#<(^Q7#C(t+##<).iU#C)DBA#<)Z%t#C)peA#<*+>U#C*@rt#<*VK7#C*m$U#<+\'Wt#C+=17#<+ReU#C+i=t#<,#r7#C,9JU#<,O#t#C,eW7#<,{|7#C-L.A#8-YG##C-bb7#<-x:U#C.2nt#<.HG7#C.^{U#<.tSt#C//-7#</DaU#C/[*U#</t{U#C0,77#<0E-7#C0WCt#<0q9t#C1(PU#<1B77#C1S^7#<1nCt#C2$jt#<2>PU#C2Ph7#<2j^7#C2|tt#<3:jt#C3Bd`#<3M&-#93ggj#<3y2j#947tK#<4I?K#94d&-#<4uL-#9542j#<5FIK#95`?K#<5rV-#960L-#<6Bcj#96]IK#<6npK#97\'|K#<8T}-#C' },
  { '#####:(GoU#8(^R-#:(t+t#8).jK#:)DC7#8)Z&j#:)pf7#8*+?K#:*@sj#8*VL-#:*m%K#8+\'Xj#:+=2-#8+RfK#:+i>j#8,#s-#:,9KK#8,O$j#:,eX-#8,{}-#:-L/7#=-YGt#:-bc-#8-x;K#:.2oj#8.HH-#:.^|K#8.tTj#://.-#8/DbK#:/[+K#8/t|K#:0,8-#80E.-#:0WDj#80q:j#:1(QK#81B8-#:1S_-#81nDj#:2$kj#82>QK#:2Pi-#82j_-#:2|uj#83:kj#:3M\'K#83gi-#:3y4-#847uj#:4I@j#84d\'K#:4uMK#8544-#:5FJj#85`@j#:5rWK#860MK#:6Be-#86]Jj#:6nqj#88U###:' },
  { '#####G(iIK#8' },
  { '#####9(Gmj#>(^PA#9(t*-#>).h`#9)DAK#>)Z%##9)pdK#>*+=`#9*@r##>*VJA#9*m#`#>+\'W##9+=0A#>+Rd`#9+i=##>,#qA#9,9I`#>,O###9,eVA#>,{{A#9-L-K#<-YF-#9-baA#>-x9`#9.2n##>.HFA#9.^z`#>.tS##9//,A#>/D``#9/[)`#>/tz`#90,6A#>0E,A#90WC##>0q9##91(O`#>1B6A#91S]A#>1nC##92$j##>2>O`#92PgA#>2j]A#92|t##>3:j##93M%`#>3ggA#93y2A#>47t##94I?##>4d%`#94uK`#>542A#95FI##>5`?##95rU`#>60K`#96BcA#>6]I##96np##>8T|7#<9;c-#9' },
  { '#####8&N5K#C&d=`#8,l@j#C,tPA#8' },
  { '#####&%SOK#$%j(A#&&(_j#$&:?`#&&Ny-#$&daA#&&{*j#$\'5iA#&\'K7K#$\'akA#&\'x4j#$(1x##&(GPj#$(^)`#&(s^K#$).6A#&)Ck-#$)YC##&)owj#$*+@A#&*@u-#$*VM##&*m&j#$+\'Y`#&+=3K#$+RgA#&+i@-#$,#t##&,9Lj#$,O%`#&,eYK#$,|###&-6Vj#$-L/`#&-bdK#$-x<A#&.2q-#$.HI##&.^}j#$.tU`#&///K#$/DcA#&/[,j#$/q``#&0,9K#$0AmA#&0WF-#$0q=K#&1(T-#$1B:j#&1Saj#$1nGK#&2$nK#$2>T-#&2Pkj#$2jaj#&2|xK#$3:nK#&3M*-#$3gkj#&3y6j#$47xK#&4ICK#$4d*-#&4uP-#$546j#&5FMK#$5`CK#&5rZ-#$60P-#&6Bgj#$6]MK#&6ntK#$7-Z-#&7?&-#$7Xgj#&7l#K#$8)tK#&8<0-#$8U&-#&8h<j#$9&2j#&98IK#$9R0-#&9dV-#$', 175, 85 },
  { '#####:(GoU#8(^R-#:(t+t#8).jK#:)DC7#8)Z&j#:)pf7#8*+?K#:*@sj#8*VL-#:*m%K#8+\'Xj#:+=2-#8+RfK#:+i>j#8,#s-#:,9KK#8,O$j#:,eX-#8,{}-#:-L/7#=-YGt#:-bc-#8-x;K#:.2oj#8.HH-#:.^|K#8.tTj#://.-#8/DbK#:/[+K#8/t|K#:0,8-#80E.-#:0WDj#80q:j#:1(QK#81B8-#:1S_-#81nDj#:2$kj#82>QK#:2Pi-#82j_-#:2|uj#83:kj#:3M\'K#83gi-#:3y4-#847uj#:4I@j#84d\'K#:4uMK#8544-#:5FJj#85`@j#:5rWK#860MK#:6]K7#=6nr7#:' },
  { '#####:(GoU#8(^R-#:(t+t#8).jK#:)DC7#8)Z&j#:)pf7#8*+?K#:*@sj#8*VL-#:*m%K#8+\'Xj#:+=2-#8+RfK#:+i>j#8,#s-#:,9KK#8,O$j#:,eX-#8,{}-#:-L/7#=-YGt#:-bc-#8-x;K#:.2oj#8.9Lj#:.HHU#=.^|t#:.tU7#=//.U#:/Dbt#=/[+t#:/t|t#=0,8U#:0E.U#=0WE7#:0q;7#=1(Qt#:1B8U#=1S_U#:1nE7#=2$l7#:2>Qt#=2PiU#:2j_U#=2|v7#:3:l7#=3M\'t#:3giU#=3y4U#:47v7#=4IA7#:4d\'t#=4uMt#:544U#=5FK7#:5`A7#=5rWt#:60Mt#=6BeU#:6]K7#=6nr7#:8U#K#=9FPU#:' },
  { '#####=(Gp##:(^RU#=(t,A#:).jt#=)DC`#:)Z\'7#=)pf`#:*+?t#=*@t7#:*VLU#=*m%t#:+\'Y7#=+=2U#:+Rft#=+i?7#:,#sU#=,9Kt#:,O%7#=,eXU#:,{}U#=-L/`#;-YHA#=-bcU#:-x;t#=.2p7#:.HHU#=.^|t#:.tU7#=//.U#:/Dbt#=/[+t#:/t|t#=0,8U#:0E.U#=0WE7#:0q;7#=1(Qt#:1B8U#=1S_U#:1nE7#=2$l7#:2>Qt#=2PiU#:2j_U#=2|v7#:3:l7#=3M\'t#:3giU#=3y4U#:47v7#=4IA7#:4d\'t#=4uMt#:544U#=5FK7#:5`A7#=5rWt#:60Mt#=6BeU#:6]K7#=6nr7#:8U#K#=' },
  { '#####;(GpK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,O&-#A,eYK#;,|#K#A-6Vj#;-L0-#A-YHj#;-x<j#A.2q-#;.HIK#A.^}j#;.tV-#A', 153, 28 },
  { '#####8+_,-#:' },
  { '#####C8xd##H:9Q`#C' },
  { '#####;(GpK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;-bd##=-x<A#;.2p`#=.HI##;.^}A#=.tU`#;///##=/DcA#;/[,A#=/t}A#;0,9##=0E/##;0WE`#=0q;`#;1(RA#=1B9##;1S`##=1nE`#;2$l`#=2>RA#;2Pj##=2j`##;2|v`#=3:l`#;3M(A#==\'[##;' },
  { '#####;(GpK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-YHA#=-x<A#;.2p`#=.HI##;.^}A#=.tU`#;///##=/DcA#;/[,A#=/t}A#;0,9##=0E/##;0WE`#=0q;`#;1(RA#=1B9##;1S`##=1nE`#;2$l`#=2>RA#;2Pj##=2j`##;2|v`#=3:l`#;3M(A#=:TkA#;' },
  { '#####D' },
  { '#####9(Gmj#>(^PA#9(t*-#>).h`#9)DAK#>)Z%##9)pdK#>*+=`#9*@r##>*VJA#9*m#`#>+\'W##9+=0A#>+Rd`#9+i=##>,#qA#9,9I`#>,O###9,eVA#>,{{A#9-L-K#<-YF-#9-baA#>-x9`#9.2n##>.HFA#9.^z`#>.tS##9//,A#>/D``#9/[)`#>/tz`#90E,j#<0WCK#90q9K#<1(P-#91B6j#<1S]j#91nCK#<2$jK#92>P-#<2Pgj#92j]j#<2|tK#93:jK#<3M&-#93ggj#<3y2j#947tK#<4I?K#94d&-#<4uL-#9542j#<5FIK#95`?K#<5rV-#960L-#<6Bcj#96]IK#<6npK#98T|`#<98EK#9' },
  { '#####;(GpK#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-6VA#=-L/`#;' },
  { '#####C+B/7#<+TEt#C+n;t#<,%RU#C' },
  { '#####9(Gmj#>(^PA#9(t*-#>).h`#9)DAK#>)Z%##9)pdK#>*+=`#9*@r##>*VJA#9*m#`#>+\'W##9+=0A#>+Rd`#9+i=##>,#qA#9,9I`#>,O###9,eVA#>,{{A#9-L-K#<-YF-#9-baA#>-x9`#9.2n##>.HFA#9.^z`#>.tS##9//,A#>/D``#9/[)`#>/tz`#90,6A#>0E,A#90WC##>0q9##91(O`#>1B6A#91S]A#>1nC##92$j##>2>O`#92PgA#>2j]A#92|t##>3:j##93M%`#>3ggA#93y2A#>47t##94I?##>4d%`#94uK`#>542A#95FI##>5`?##95rU`#>60K`#96BcA#>6]I##96np##>8T|7#9' },
  { '#####8%&jK#C%<M##8%R&j#C%heA#8\'U|K#C\'asA#8' },
  { '#####=(Gp##:(^RU#=(t,A#:).jt#=)DC`#:)Z\'7#=)pf`#:*+?t#=*@t7#:*VLU#=*m%t#:+\'Y7#=+=2U#:+Rft#=+i?7#:,#sU#=,9Kt#:,O%7#=,eXU#:,{}U#=-L/`#;' },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,9Lj#;,O&-#A,eYK#;,|#K#A-L0U#$-bd##A-x;t#$.2p`#A.HHU#$.^}A#A//.U#;/DbK#A/[+t#;0E.-#A0WE7#;0q:j#A1(Qt#;1B8-#A1S_U#;1nDj#A2$l7#;2>QK#A2PiU#;2j_-#A2|v7#;3:kj#A3M\'t#;3Wo-#A3gjt#$3y5t#A' },
  { '#####I&MQ##E&gh##A&z.U#;\'.t7#A\':PU#I\'Qq-#E\'`NA#I\'v=K#E(1A##I-:N-#E-K>A#I-as-#E-waA#I.2/K#E.Gx`#I.^Fj#E.t5##I/._-#E/DLA#I/YvK#E/pd`#I0+=K#E0A+`#I0VTj#E0mC##I1\'m-#E1=ZA#I1S)K#E1ir`#I2$KK#E2:9`#I2Ocj#E2fQ##I2{{-#E36iA#I3L7K#E3c%`#I3xYK#E43G`#I5EEK#E5[3`#I5qhK#E6,U`#I6B$j#E6Wn##I6n<-#E7)*A#I7>SK#E7TA`#I7jvK#E8%d`#I8;2j#E8P|##I8gJ-#E8}8A#I97bK#E9MO`#I9d)K#E9yr`#I:4@j#E:J/##I:`X-#E:vFA#I;0pK#E;F^`#I;]7K#E;s%`#I<-Nj#E<C=##I' },
  { '#####B+S5t#=' },
  { '#####:(GoU#8(^R-#:(t+t#8).jK#:)DC7#8)Z&j#:)pf7#8*+?K#:*@sj#8*VL-#:*m%K#8+\'Xj#:+=2-#8+RfK#:+i>j#8,#s-#:,9KK#8,O$j#:,eX-#8,{}-#:-L/7#=-YGt#:-bc-#8-x;K#:.2oj#8.HH-#:.^|K#8.tTj#://.-#8/DbK#:/[+K#8/t|K#:0,8-#80E.-#:0WDj#80q:j#:1(QK#81B8-#:1S_-#81nDj#:2$kj#82>QK#:2Pi-#82TJj#:2j_U#=2|v7#:3:l7#=3M\'t#:3giU#=3y4U#:47v7#=4IA7#:4d\'t#=4uMt#:544U#=5FK7#:5`A7#=5rWt#:60Mt#=6BeU#:6]K7#=6nr7#:8U#K#=9?r7#:' },
  { '#####C(Gn`#>(^PA#9(t*-#>).h`#9)DAK#>)Z%##9)pdK#>*+=`#9*@r##>*VJA#9*m#`#>+\'W##9+=0A#>+Rd`#9+i=##>,#qA#9,9I`#>,O###9,eVA#>,{{A#9-L-K#<-YF-#9-baA#>-x9`#9.2n##>.HFA#9.^z`#>.tS##9//,A#>/D``#9/[)`#>/tz`#90,6A#>0E,A#90WC##>0q9##91(O`#>1B6A#91S]A#>1nC##92$j##>2>O`#92PgA#>2j]A#92|t##>3:j##93M%`#>3ggA#93y2A#>47t##94I?##>4d%`#94uK`#>542A#95FI##>5`?##95rU`#>60K`#96BcA#>6]I##96np##>7\'|##98T|`#<' },
  { '#####<(Gn7#9(^Pj#<(t*U#9).i-#<)DAt#9)Z%K#<)pdt#9*+>-#<*@rK#9*VJj#<*m$-#9+\'WK#<+=0j#9+Re-#<+i=K#9,#qj#<,9J-#9,O#K#<,eVj#9,{{j#<-L-t#C-YFU#<-baj#9-x:-#<.2nK#9.HFj#<.^{-#9.tSK#<//,j#9/Da-#</[*-#9/t{-#<0,6j#90E,j#<0WCK#90q9K#<1(P-#91B6j#<1S]j#91nCK#<2$jK#92>P-#<2Pgj#92j]j#<2|tK#93:jK#<3M&-#93ggj#<3y2j#947tK#<4I?K#94d&-#<4uL-#9542j#<5FIK#95`?K#<5rV-#960L-#<6Bcj#96]IK#<6npK#98T|`#<' },
  { '#####C(Gn`#<(^Q7#C(t+##<).iU#C)DBA#<)Z%t#C)peA#<*+>U#C*@rt#<*VK7#C*m$U#<+\'Wt#C+=17#<+ReU#C+i=t#<,#r7#C,9JU#<,O#t#C,eW7#<,{|7#C-L.A#8-YG##C-bb7#<-x:U#C.2nt#<.HG7#C.^{U#<.tSt#C//-7#</DaU#C/[*U#</t{U#C0,77#<0E-7#C0WCt#<0q9t#C1(PU#<1B77#C1S^7#<1nCt#C2$jt#<2>PU#C2Ph7#<2j^7#C2|tt#<3:jt#C3M&U#<3gh7#C3y37#<47tt#C4I?t#<4d&U#C4uLU#<5437#C5FIt#<5`?t#C5rVU#<60LU#C6Bd7#<6]It#C6npt#<8T}-#C' },
  { '#####;(GpK#=(^S##;(t,j#=).kA#;)DD-#=)Z\'`#;)pg-#=*+@A#;*@t`#=*VM##;*m&A#=+\'Y`#;+=3##=+RgA#;+i?`#=,#t##;,9LA#=,O%`#;,eY##=,|###;-L0-#A-YHj#;-bd##=-x<A#;.2p`#=.HI##;.^}A#=.tU`#;///##=/DcA#;/[,A#=/t}A#;0,9##=0E/##;0WE`#=0q;`#;1(RA#=1B9##;1S`##=1nE`#;2$l`#=2>RA#;2Pj##=2j`##;2|v`#=3:l`#;3M(A#=3gj##;3y5##=47v`#;4IA`#=4d(A#;4uNA#=545##;5FK`#=5`A`#;5rXA#=60NA#;6Bf##=6]K`#;6nr`#=8U#t#;' },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,9Lj#;,O&-#A,eYK#;,|#K#A-L0U#$-bdt#A-x=7#$.2qU#A.HIt#$._#7#A.tVU#$///t#A0,9K#;0E/K#A0WF-#;0q<-#A1(Rj#;1B9K#A1S`K#;1nF-#A2$m-#;2>Rj#A2PjK#;2j`K#A2|w-#;3:m-#A3M(j#;3gjK#A3y5K#;47w-#A4IB-#;4d(j#A4uNj#;545K#A5FL-#;5`B-#A5rXj#;60Nj#A6BfK#;6]L-#A6ns-#;7-Xj#A' },
  { '#####\'(s_j##).8-#\')ClK##)YDj#\')oy-##*+B-#\'*@vK##*VNj#\'*m(-##+\'[K#\'+=4j##+Ri-#\'+iAK##,#uj#\',9N-##,O\'K#\',eZj##,|$j#\'-6X-##-L1K#\'-bej##-x>-#\'.(+7##.2rK#%.<MK##.HJj#\'._$-##.tWK#\'//0j##/De-#\'/[.-##/u$-#\'0,:j##0E0j#\'0WGK##0q=K#\'1(T-##1B:j#\'1Saj##1nGK#\'2$nK##2>T-#\'2Pkj##2jaj#\'2|xK##3:nK#\'3M*-##3gkj#\'3y6j##47xK#\'4ICK##4d*-#\'4uP-##546j#\'5FMK##5`CK#\'5rZ-##60P-#\'6Bgj##6]MK#\'6ntK##7-Z-#\'7?&-##7Xgj#\'7l#K##8)tK#\'8<0-##8U&-#\'8h<j##9&2j#\'98IK##9R0-#\'9dV-##:#<j#\':4cj##:NIK#\':aa-##:zV-#\';1mj##;Jcj#\';]zK##;wa-#\'<.,-##<Gmj#\'<Y8j##<szK#\'=+6-##=D,-#\'=VBj##=p8j#\'>\'OK##>@EK#\'>R]-##>mBj#\'?#ij##?=OK#\'?NvK##?i]-#\'?{sj##@9ij#\'@L%K##@evK#\'@x2-##A6sj#\'AH>j##Ac%K#\'AtKK##B32-#\'BDX-##B_>j#\'BqUK##C/KK#\'CAc-##CZX-#\'Cmoj##D,UK#\'D=|K##DWc-#\'Dj.-##E(oj#\'E;+K##ES|K#\'Eg8-##F%.-#\'F7Dj##FP:j#\'FcQK##F}8-#\'G3_-##GMDj#\'G_kj##GyQK#\'H0i-##HI_-#\'H[uj##Hukj#\'I-\'K##IFi-#\'IX4-##Iruj#\'J)@j##JC\'K#\'JU>-##Jo4-#\'K&Jj##K?@j#\'KQWK##KkMK#\'K}e-##L<Jj#\'LMqj##LhWK#\'Lz#K##M8e-#\'MJ{j##Mdqj#\'Mw-K##N5#K#\'NG:-##Na{j#\'NsFj##O2-K#\'OCSK##O^:-#\'Ooa-##P.Fj#\'P@^K##PYSK#\'Plk-##Q*a-#\'Q<wj##QV^K#\'Qi)K##R\'k-#\'R96-##RRwj#\'Rf3K##S$)K#\'S6@-##SO6-#\'SbLj##S{Bj#\'T2YK##TL@-#\'T^g-##TxLj#\'U.sj##UHYK#\'UZq-##Utg-#\'V+}j##VDsj#\'VW/K##Vqq-#\'W(<-##WA}j#\'WSHj##Wn/K#\'X%F-##X><-#\'XPRj##XjHj#\'X|`K##Y:UK#\'YLm-##YgRj#\'Yxyj##Z7`K#\'ZI+K##Zcm-#\'Zv(j##[3yj#\'[F5K##[`+K#\'[rB-##]1(j#\']BNj##]]5K#\']n[K##^-B-#\'^>i-##^XNj#\'^kfK##_)[K#\'_;s-##_Ti-#\'_h$j##`&fK#\'`81K##`Qs-#\'`d>-##a#$j#\'a5;K##aN1K#\'aaH-##az>-#\'b1Tj##bJJj#\'' },
  { '#####-', 69, 6 },
  { '######\'x5`#%(1yj##(GR-#%(^+K##(s_j#%).8-##)ClK#%)YDj##)oy-#%*+B-##*@vK#%*VNj##*m(-#%+\'[K##+=4j#%+Ri-##+iAK#%,#uj##,9N-#%,O\'K##,eZj#%,|$j##-6X-#%-L1K##-bej#%-x>-##.2rK#%.HJj##._$-#%.tWK##//0j#%/De-##/[.-#%/u$-##0,:j#%0E0j##0WGK#%0q=K##1(T-#%1B:j##1Saj#%1nGK##2$nK#%2>T-##2Pkj#%2jaj##2|xK#%3:nK##3M*-#%3gkj##3y6j#%47xK##4ICK#%4d*-##4uP-#%546j##5FMK#%5`CK##5rZ-#%60P-##6Bgj#%6]MK##6ntK#%7-Z-##7?&-#%7Xgj##7l#K#%8)tK##8<0-#%8U&-##8h<j#%9&2j##98IK#%9R0-##9dV-#%:#<j##:4cj#%:NIK##:aa-#%:zV-##;1mj#%;Jcj##;]zK#%;wa-##<.,-#%<Gmj##<Y8j#%<szK##=+6-#%=D,-##=VBj#%=p8j##>\'OK#%>@EK##>R]-#%>mBj##?#ij#%?=OK##?NvK#%?i]-##?{sj#%@9ij##@L%K#%@evK##@x2-#%A6sj##AH>j#%Ac%K##AtKK#%B32-##BDX-#%B_>j##BqUK#%C/KK##CAc-#%CZX-##Cmoj#%D,UK##D=|K#%DWc-##Dj.-#%E(oj##E;+K#%ES|K##Eg8-#%F%.-##F7Dj#%FP:j##FcQK#%F}8-##G3_-#%GMDj##G_kj#%GyQK##H0i-#%HI_-##H[uj#%Hukj##I-\'K#%IFi-##IX4-#%Iruj##J)@j#%JC\'K##JU>-#%Jo4-##K&Jj#%K?@j##KQWK#%KkMK##K}e-#%L<Jj##LMqj#%LhWK##Lz#K#%M8e-##MJ{j#%Mdqj##Mw-K#%N5#K##NG:-#%Na{j##NsFj#%O2-K##OCSK#%O^:-##Ooa-#%P.Fj##P@^K#%PYSK##Plk-#%Q*a-##Q<wj#%QV^K##Qi)K#%R\'k-##R96-#%RRwj##Rf3K#%S$)K##S6@-#%SO6-##SbLj#%S{Bj##T2YK#%TL@-##T^g-#%TxLj##U.sj#%UHYK##UZq-#%Utg-##V+}j#%VDsj##VW/K#%Vqq-##W(<-#%WA}j##WSHj#%Wn/K##X%F-#%X><-##XPRj#%XjHj##X|`K#%Y:UK##YLm-#%YgRj##Yxyj#%Z7`K##ZI+K#%Zcm-##Zv(j#%[3yj##[F5K#%[`+K##[rB-#%]1(j##]BNj#%]]5K##]n[K#%^-B-##^>i-#%^XNj##^kfK#%_)[K##_;s-#%_Ti-##_h$j#%`&fK##`81K#%`Qs-##`d>-#%a#$j##a5;K#%aN1K##aaH-#%az>-##b1Tj#%bJJj##' },
  { '#####/%o>j#\'' },
  { '######', 222, 4 },
  { '######(tO##%).7`##)Cl##%)YDA##)ox`#%*+A`##*@v##%*VNA##*m\'`#%', 222, 15 },
  { '#####/' },
  { '#####-)G{-#.)YE`#/)t+t#.*)b`#/*D8U#.*oU##-+%|K#.+?b`#-+Q.-#.+koA#-+}:j#.,;|##-,MGK#.,hyA#-,yT-#.-9+##--JQK#.-e7`#--v_-#..5DA#-.Fkj#..aQ##-.rxK#./1^`#-/C*-#./^[##-/p\'K#.0.h`#-0@4-#.0YuA#-0l@j#.1+\'##-1<MK#.1V3`#-1hZ-#.2\'A7#-27x##.2S>U#-2d)`#.3$K7#-35\'##.3OWt#-3a3`#.3{eU#-41@A#.4Kr7#-4]M##.4x#t#-5-Y`#.5H|7#-5YW##.5u-t#-6*d`#.6E:U#-6UqA#.' },
  { '#####<#s.j#9$&8-#<$C;K#9$R5K#<$oH-#9%#B-#<%?Tj#9%NNj#<%kbK#9%{L-#<&<_j#9&KXj#<&hlK#9&wfK#<\'8y-#9\'Gs-#<\'e*j#9\'t$j#<(57K#9(D1K#<(aD-#9(tKK#<)2AK#9)A;K#<)^N-#9)mH-#<*.Zj#9*=Tj#<*YhK#9*kBj#<+*)K#9+;OK#<+V&j#9+hLj#<,($-#9,8YK#<,S0j#9,c*j#<-$=K#9-37K#<-OJ-#9-_D-#<-{Vj#9.0AK#<.LT-#9.[N-#<.xaj#9/,Zj#</HnK#9/[*-#</t{-#90,6j#<0E,j#90WCK#<0q9K#91(P-#<1B6j#91S]j#<1ftK#92$jK#<2>P-#92Pgj#<2j]j#92|tK#<3:jK#93M&-#<3ggj#93y2j#<47tK#94J0-#<4d&-#94uL-#<542j#95G:-#<5]nK#95sFj#<6-{-#96CSK#<6Y,j#9', 142, 82 },
  { '#####J#s/##K$&8A#J$C;`#K$R5`#J$oHA#K%#BA#J%?U##K%NO##J%kb`#K%{LA#J&<`##K&KY##J&hl`#K&wf`#J\'8yA#K\'GsA#J\'e+##K\'t%##J(57`#K(D1`#J(aDA#K(q/##J)2A`#K)A;`#J)^NA#K)mHA#J*.[##K*=U##J*Yh`#K*kC##J+*)`#K+;O`#J+V\'##K+hM##J,($A#K,8Y`#J,S1##K,dgA#J-$=`#K-37`#J-OJA#K-aqA#J-{W##K.0A`#J.LTA#K.^/`#J.xb##K//-##J/Hn`#K/[*A#J/t{A#K0,7##J0E-##K0WC`#J0q9`#K1(PA#J1B7##K1S^##J1nC`#K2$j`#J2>PA#K2Ph##J2j^##K2|t`#J3:j`#K3M&A#J3gh##K3y3##J47t`#K4J0A#J4d&A#K4uLA#J543##K5G:A#J5]n`#K5sG##J6-{A#K6CS`#J6Y-##K6oaA#J7*9`#K7?n##J7V7##K7lkA#J8\'C`#K8<x##J8RPA#K8i)`#J9#^##K996A#J9Nj`#K9eC##J9zwA#K:5O`#J:Kt`#K:bM##J:x&A#K;2Y`#J;H3##K;^gA#J;t?`#K<.t##J<DLA#K<Z%`#J<pY##K=,###J=AVA#K=W/`#J=md##K>(<A#J>=p`#K>SI##J>i}A#K?$U`#J?:/##K?OcA#J?g,A#K?|``#J@79##K@LmA#J@cE`#K@xz##JA3RA#KAI+`#JA_`##KAu8A#JB/l`#KBEE##JB[j##KBrBA#JC,v`#KCBO##JCX(A#KCn[`#JD)5##KD>iA#JDTA`#KDjv##JE&?##KE;sA#JEQK`#KEh%##JE}XA#KF81`#JFMf##KFd>A#JFyr`#KG4K##JGJ$A#KG`W`#JGv|`#KH1U##JHG.A#KH]b`#JHs;##KI-oA#JICG`#KIX|##JIoTA#KJ*-`#JJ?b##KJV+##JJl_A#KK\'7`#JK<l##KKRDA#JKhx`#KL#Q##JL9*A#KLN^`#JLe7##KLzkA#JM64A#KMKh`#JMbA##KMwuA#JN2M`#KNH\'##JN^ZA#KNt3`#JO.h##KOD@A#JOYt`#KOpM##JP+r##KPAJA#JPW#`#KPmW##JQ(0A#KQ=d`#JQS=##KQiqA#JR$I`#KR:###JRPG##KRf{A#JR|S`#KS7-##JSLaA#KSc9`#JSxn##KT3FA#JTHz`#KT_S##JTu,A#KU/``#JUF)`#KU[^##JUr6A#KV,j`#JVBC##KVWwA#JVnO`#KW))##JW>]A#KWT5`#JWjj##KX&3##JX;gA#KXQ?`#JXgt##KX}LA#JY8%`#KYMY##JYd2A#KYyf`#JZ4?##KZIsA#JZa<A#KZvp`#J[1I##K[F}A#J[]U`#K[s/##J]-cA#K]C;`#J]Xp##K]oHA#J^)|`#K^?U##J^Uz##K^lRA#J_\'+`#K_<`##J_R8A#K_hl`#J`#E##K`8yA#J`NQ`#K`e+##J`{O##Ka6(A#JaK[`#Kab5##JawiA#Kb2A`#JbGv##K' },
  { '#####<#s.j#9$&8-#<,S0j#9,c*j#<-$=K#9-37K#<-OJ-#9-_D-#<' },
  { '#####J#s/##K$&8A#J$C;`#K$R5`#J$oHA#K%#BA#J%?U##K%NO##J%kb`#K%{LA#J&<`##K&KY##J&hl`#K&wf`#J\'8yA#K\'GsA#J\'e+##K\'t%##J(57`#K(D1`#J(aDA#K(tK`#J)2A`#K)A;`#J)^NA#K)mHA#J*.[##K*=U##J*Yh`#K*kC##J+*)`#K+;O`#J+V\'##K+hM##J,($A#K,8Y`#J,S1##K,c+##J-$=`#K-37`#J-OJA#K-_DA#J-{W##K.0A`#J.LTA#K.[NA#J.xb##K/,[##J', 229, 50 },
  { '#####9#*jK#<#F1K#9#Vgj#<#s.j#9$&8-#<$C;K#9$R5K#<$oH-#9%#B-#<%?Tj#9%NNj#<%kbK#9%{L-#<&<_j#9&KXj#<&hlK#9&wfK#<\'8y-#9\'Gs-#<\'e*j#9\'t$j#<(57K#9(D1K#<(aD-#9(sZj#<)2AK#9)ChK#<)^N-#9)mH-#<*.Zj#9*=Tj#<*YhK#9*ibK#<+*)K#9+;OK#<+V&j#9+hLj#<,($-#9,8YK#<,S0j#9,dg-#<-$=K#9-6T-#<-Ly-#9-baj#<-y*j#9.2nK#<.I7K#9.^{-#<.uD-#9//,j#</EPj#9/[*-#</rN-#90,6j#<0BZj#90WCK#<0nhK#91(P-#<1>u-#91S]j#<1ftK#92$jK#<2<$-#92Pgj#<2h0j#92|tK#<38=K#93M&-#<3dJ-#93y2j#<44Vj#94J0-#<4`dK#94uL-#<51aj#9', 228, 75 },
  { '#####J' },
  { '#####L%?UA#M%NOA#L)^N`#M)mH`#L-Qw`#M-_D`#L4h4##M4uL`#L543A#M5FJ##L5`@##M5rV`#L' },
  { '#####<(D0U#K(aCt#N(q.-#K)2A7#N)A:j#K)^Mt#N)mGK#K*.ZU#N*=T-#K*Yh7#9*kBA#K+*)7#9+;O##K+V&U#9+hLA#K,(#t#9,8Y##K,S0U#9,c*A#K-$=7#9-37##K-OIt#9-_C`#K-{VU#9.0A##K.LSt#9.[M`#K.xaU#9/,ZA#K/Hn7#9/[)`#K/tzt#90,6A#K0E,U#90WC##K0q97#91(O`#K1B6U#91S]A#K1ft7#92$j##K2>Ot#92PgA#K2j]U#92|t##K3:j7#93M%`#K3ggU#93y2A#K47t7#94J/`#K4d%t#94uK`#K542U#95G9`#K5]n7#95sFA#K6-zt#96CS##K6Y,U#96o``#K7*97#97?mA#K7V6U#97lj`#K8\'C7#98<wA#K8ROt#98i)##K9#]U#9995`#K9Nj7#99eBA#K9zvt#9:5O##K:Kt7#9:bLA#K:x%t#9;2Y##K;H2U#9;^f`#K;t?7#9<.sA#K<DKt#9<Z%##K<pXU#9=+}A#K=AUt#9=W/##K=mcU#9>(;`#K>=p7#9>SHA#K>i|t#9?$U##K?:.U#9?Ob`#K?g+t#9?|`##K@78U#9@Ll`#K@cE7#9@xyA#KA3Qt#9AI+##KA__U#9Au7`#KB/l7#9BEDA#KB[iU#9BrA`#KC,v7#9CBNA#KCX\'t#9Cn[##KD)4U#9D>h`#KDTA7#9DjuA#KE&>U#9E;r`#KEQK7#9Eh$A#KE}Wt#9F81##KFMeU#9Fd=`#KFyr7#9G4JA#KGJ#t#9G`W##KGv|7#9H1TA#KHG-t#9H]b##KHs:U#9I-n`#KICG7#9IX{A#KIoSt#9J*-##KJ?aU#9JV*A#KJl^t#9K\'7##KK<kU#9KRC`#KKhx7#9L#PA#KL9)t#9LN^##KLe6U#9Lzj`#KM63t#9MKh##KMb@U#9Mwt`#KN2M7#9NH&A#KN^Yt#9Nt3##KO.gU#9OD?`#KOYt7#9OpLA#KP+qU#9PAI`#KPW#7#9PmVA#KQ(/t#9Q=d##KQS<U#9Qip`#KR$I7#9R9}A#KRPFU#9Rfz`#KR|S7#9S7,A#KSL`t#9Sc9##KSxmU#9T3E`#KTHz7#9T_RA#KTu+t#9U/`##KUF)7#9U[]A#KUr5t#9V,j##KVBBU#9VWv`#KVnO7#9W)(A#KW>[t#9WT5##KWjiU#9X&2A#KX;ft#9XQ?##KXgsU#9X}K`#KY8%7#9YMXA#KYd1t#9Yyf##KZ4>U#9ZIr`#KZa;t#9Zvp##K[1HU#9[F|`#K[]U7#9[s.A#K]-bt#9]C;##K]XoU#9]oG`#K^)|7#9^?TA#K^UyU#9^lQ`#K_\'+7#9_<_A#K_R7t#9_hl##K`#DU#9`8x`#K`NQ7#9`e*A#K`{NU#9a6\'`#KaK[7#9ab4A#Kawht#9b2A##KbGuU#9' },
  { '#####<#s.j#9$&8-#<,S0j#9,c*j#<-$=K#9-37K#<-OJ-#9-_D-#<-{Vj#9.0AK#<.LT-#9.[N-#<' },
  { '#####<#s.j#9$&8-#<$C;K#9$R5K#<$oH-#9%#B-#<%?Tj#9%NNj#<%kbK#9%{L-#<&<_j#9&KXj#<&hlK#9&wfK#<\'8y-#9\'Gs-#<\'e*j#9\'t$j#<(57K#9(D1K#<(aD-#9(q.j#<)2AK#9)A;K#<)^N-#9)mH-#<*.Zj#9*=Tj#<*YhK#9*kBj#<+*)K#9+;OK#<+U6-#9+hLj#<,($-#9,8YK#<,S0j#9,dg-#<-$=K#9-37K#<-OJ-#9-_D-#<-{Vj#9.0AK#<.LT-#9.[N-#<.xaj#9//,j#<', 228, 50 },
  { '#####8%?U`#C%NO`#8)^O##C)mI##8-Qx##C-_E##84h4A#C4uM##8543`#C5FJA#85`@A#C5rW##8' },
  { '#####%&NzK#&&dc-#%&{,-#&\'5`K#%\'K8j#&\'am-#%', 149, 2 },
  { '#####2#-@A#1#DUK#2#Vl`#1#pc-#2$\'yA#1$A`K#2$S+##1$l0j#2%$7`#1%=yj#2%ODA#1%j+K#2%|A`#1&:8-#2&LNA#1&fDj#2&x[##1\'7B-#2\'Hh`#1\'cNj#2\'tuA#1(3[K#2(Er`#1(_i-#2)/uj#0)B1##2)[\'K#0)n=`#2*-$j#0*>JA#2*X1K#0*jW##2+)>-#0+>r##2+TJj#0+gb##2,%WK#0,7n`#2,QTj#0,c{A#2,zDj#0-4-##2-Mo-#0-a*A#2-y{j#0.17##2.J-K#0.]C`#2.v:-#0/-PA#2/G7K#0/X^##2/sD-#00,;`#20CPj#00Uh##20m}-#01)E`#21?k-#01R&A#21lhK#02#3##22<u-#02N?`#22i&j#02zLA#2393K#03KI`#23e@-#03wVA#245Lj#04Gd##24bJ-#04sp`#252Vj#05FNA#25^dK#05pz`#26.q-#06CXA#26Y}j#06ssA#27%@j#07C4A#27R.j#07oA##28$,-#08?M`#28O8j#09>9##29I&-#09jE`#29u2j#0::RA#2:E?K#0:bQ`#2:tij#0;2_A#2;DvK#0;^l##2;q(-#0<.x`#2<B%K#0<Z*A#2<mAK#0=,\'`#2=>>j#0=W4A#2=jKK#0>(A##2>:X-#0>SM`#2>fej#0?$ZA#2?6rK#0?PW`#2?c$-#0?|eA#2@3|K#0@Lr##2@`.-#0@y#`#2A0:j#0AI0A#2A[GK#0Au=##2B,T-#0BF:A#2BWaj#0BrG##2C)_-#0CBS`#2CTkj#0CnaA#2D%xK#0D>n##2DQ*-#0DkkA#2D}6j#0E;x##2EN4-#0Eh)`#2Ez@j#0F86A#2FJMK#0FdC##2FvZ-#0G4O`#2GFgj#0GaM##2GrtK#0H1Y`#2HCqj#0H]gA#2Hp#K#0I-t##2I@0-#0IY%`#2Il<j#0J*2A#2J<IK#0JV/`#2JiFj#0K\'<A#2K9SK#0KRI##2Kea-#0L#U`#2L5mj#0LNcA#2LazK#0L{``#2M2,-#0MKmA#2M_)K#0Mwz##2N/6-#0NH+`#2NZBj#0Nt8A#2O+OK#0ODE##2OV]-#0OqBA#2P\'ij#0PAO##2PSg-#0Pm[`#2Q$sj#0Q=iA#2QP%K#0Qiv##2Q|2-#0R:sA#2RL>j#0Rg%##2Ry<-#0S71`#2SIHj#0Sc>A#2SuUK#0T3K##2TEc-#0T_W`#2Tqoj#0U0U##2UA|K#0U[b`#2Unyj#0V,oA#2V?+K#0VW|##2Vk8-#0W)-`#2W;Dj#0WT:A#2WgQK#0X&7`#2X8Nj#0XQDA#2Xd[K#0X}Q##2Y4i-#0YM^`#2Y`uj#0YykA#2Z1\'K#0ZJh`#2Z]4-#0ZvuA#2[.1K#0[G\'##2[Y>-#0[s3`#2]*Jj#0]C@A#2]UWK#0]oM##2^&e-#0^@JA#2^Qqj#0^lW##2_#o-#0_<d`#2_N{j#0_hqA#2_{-K#0`9###2`K:-#0`e{A#2`wFj#0a6-##2aHD-#0ab9`#2atPj#0b2FA#2bD^K#0' },
  { '#####&%SDj#$%oFj#&&$^##$&:6A#&&Nz##$&dmA#&&{+`#$\'4oj#&\'K;K#$\'aaU#&\'wYK#$(1x##&(GR-#$(^+K#&(s_j#$).8-#&)ClK#$)YDj#&)oy-#$*+B-#&*@vK#$*VNj#&*m(-#$+\'[K#&+=4j#$+Ri-#&+iAK#$,#uj#&,9N-#$,O\'K#&,eZj#$,|$j#&-6X-#$-L1K#&-bej#$-x>-#&.2rK#$.HJj#&._$-#$.tWK#&//0j#$/De-#&/[.-#$/u$-#&0,:j#$0E0j#&0WGK#$', 195, 49 },
  { '#####%#s37##$(iU#%$C?t##$Sv7#%$oLU##%%\'t#%%?Y7##%P4U#%%kft##%}1t#%&;sU##&M>U#%&h%7##&yK7#%\'8}U##\'IWt#%\'e/7##\'ueU#%(5;t##(GR-#%(aH-##(s_j#%)1Tj##)ClK#%)]bK##)oy-#%*._j##*@vK#%*YlK##*m(-#%+*y-##+=4j#%+V*j##+iAK#%,\'7K##,9N-#%,S4j##,eZj#%-$AK##-6X-#%-ON-##-bej#%-{Zj##.2rK#%.KhK##._$-#%.wu-##//0j#%/H&j##', 222, 34 },
  { '#####\'' },
  { '#####*' },
  { '#####)' },
  { '#####O' },
  { '#####,' },
  { '#####+' },
  { '#####9' },
  { '#####>' },
  { '#####?' },
  { '#####@' },
  { '#####;' },
  { '#####%', 149, 12 },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,O&U#$,eYt#A,|#t#$-6W7#A-x=7#$.2qU#A.HIt#$._#7#A.tVU#$///t#A/Dd7#$/[-7#A/u#7#$0,9t#A0E/t#$0WFU#A0q<U#$1(S7#A1B9t#$1S`t#A1nFU#$2$mU#A2>S7#$2Pjt#A2j`t#$2|wU#A3:mU#$3M)7#A3gjt#$3y5t#A47wU#$4IBU#A4d)7#$4uO7#A545t#$5FLU#A5`BU#$5rY7#A60O7#$6Bft#A6]LU#$6nsU#A8U$j#$98HU#A' },
  { '#####%', 149, 8 },
  { '#####%', 239, 6 },
  { '#####&\'Qqj#$\'akA#&\'x4A#$(1xK#&(GQ`#$(^+##&(s_A#$).7`#&)Cl##$)YDA#&)ox`#$*+A`#&*@v##$*VNA#&*m\'`#$+\'[##&+=4A#$+Rh`#&+iA##$,#uA#&,9M`#$,O\'##&,eZA#$,|$A#&-6Vj#$-L0-#&-bdK#$-x<j#&.2q-#$.HIK#&.^}j#$.tU`#&///K#$/DcA#&/[,j#$/t}A#&', 241, 46 },
  { '#####%\'x57#&(1xt#%(GQ7#&(^*U#%(s^t#&).77#%)CkU#&)YCt#%', 149, 10 },
  { '#####%', 149, 4 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,9M7#A,O&U#$,eYt#A,jWK#$,|$A#&-6W`#$-L1##&-bdK#$-x<A#&.2q-#$.HI##&.^}j#$.tU`#&///K#$/DcA#&/[,j#$/t}A#&0,:A#$0E0A#&0WG##$0q=##&1(S`#$1B:A#&1SaA#$1nG##&2$n##$2>S`#&2PkA#$2jaA#&2|x##$3:n##&3M)`#$3gkA#&3y6A#$47x##&4IC##$4d)`#&4uO`#$546A#&5FM##$5`C##&5rY`#$60O`#&6BgA#$6]M##&6nt##$7-Y`#&7?%`#$7XgA#&7l###$8)t##&8</`#$8U%`#&8h<A#$9&2A#&98I##$9R/`#&9dU`#$:#<A#&:4cA#$:NI##&:a``#$:zU`#&;1mA#$;JcA#&;]z##$;w``#&<.+`#$<GmA#&<Y8A#$<sz##&=+5`#$=D+`#&=VBA#$=p8A#&>\'O##$>@E##&>R[`#$>mBA#&?#iA#$?=O##&?Nv##$?i[`#&?{sA#$@9iA#&@L%##$@ev##&@x1`#$A6sA#&AH>A#$Ac%##&AtK##$B31`#&BDW`#$B_>A#&BqU##$C/K##&CAb`#$CZW`#&CmoA#$D,U##&D=|##$DWb`#&Dj-`#$E(oA#&E;+##$ES|##&Eg7`#$F%-`#&F7DA#$FP:A#&FcQ##$F}7`#&G3^`#$GMDA#&G_kA#$GyQ##&H0h`#$HI^`#&H[uA#$HukA#&I-\'##$IFh`#&IX3`#$IruA#&J)@A#$JC\'##&JU=`#$Jo3`#&K&JA#$K?@A#&KQW##$KkM##&K}d`#$L<JA#&LMqA#$LhW##&Lz###$M8d`#&MJ{A#$MdqA#&Mw-##$N5###&NG9`#$Na{A#&NsFA#$O2-##&OCS##$O^9`#&Oo``#$P.FA#&P@^##$PYS##&Plj`#$Q*``#&Q<wA#$QV^##&Qi)##$R\'j`#&R95`#$RRwA#&Rf3##$S$)##&S6?`#$SO5`#&SbLA#$S{BA#&T2Y##$TL?`#&T^f`#$TxLA#&U.sA#$UHY##&UZp`#$Utf`#&V+}A#$VDsA#&VW/##$Vqp`#&W(;`#$WA}A#&WSHA#$Wn/##&X%E`#$X>;`#&XPRA#$XjHA#&X|`##$Y:U##&YLl`#$YgRA#&YxyA#$Z7`##&ZI+##$Zcl`#&Zv(A#$[3yA#&[F5##$[`+##&[rA`#$]1(A#&]BNA#$]]5##&]n[##$^-A`#&^>h`#$^XNA#&^kf##$_)[##&_;r`#$_Th`#&_h$A#$`&f##&`81##$`Qr`#&`d=`#$a#$A#&a5;##$aN1##&aaG`#$az=`#&b1TA#$bJJA#&' },
  { '#####%', 149, 6 },
  { '#####&(GQ`#$(^+##&(s_A#$).7`#&', 241, 18 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,O\'##&,eZA#$,|$A#&-6W`#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$/u#`#&0,:A#$0E0A#&0WG##$0q=##&1(S`#$1B:A#&1SaA#$1nG##&2$n##$2>S`#&2PkA#$2jaA#&2|x##$3:n##&3M)`#$3gkA#&3y6A#$47x##&4IC##$4d)`#&4uO`#$546A#&5FM##$5`C##&5rY`#$60O`#&6BgA#$6]M##&6nt##$8U%7#&' },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,9M7#A,O&U#$,eYt#A,q6j#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$', 241, 45 },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,O&U#$,eYt#A,|#t#$-6W7#A-x=7#$.2qU#A.HIt#$._#7#A.tVU#$///t#A/Dd7#$/[-7#A/u#7#$0,9t#A0E/t#$0WFU#A0q<U#$1(S7#A1B9t#$1S`t#A1nFU#$2$mU#A2>S7#$2Pjt#A2j`t#$2|wU#A3:mU#$3M)7#A3gjt#$3y5t#A47wU#$4IBU#A4d)7#$4uO7#A545t#$5FLU#A5`BU#$5rY7#A60O7#$6Bft#A6]LU#$6nsU#A8U$j#$' },
  { '#####%&8U###&N.A#%&db`##&{,-#%\'5`K##\'K8j#%\'am-##\'x6-#%(1yj##(GQ`#%(^+###(s_A#%).7`##)Cl##%)YDA##)ox`#%*+A`##*@v##%*VNA##*m(-#%+\'[K##+=4j#%+Ri-##+iAK#%,#uj##,9N-#%,O\'K##,eZj#%,|$j##-6X-#%-L1K##-bej#%.2rK#&.HJj#%._$-#&.tWK#%//0j#&/De-#%', 222, 35 },
  { '#####%%(Bj#&%=+t#%%SOK#&%i8U#%%}{j#&&8TU#%&Ny-#&&db7#%', 239, 4 },
  { '#####%#4iU#&#Brt#%#`*U#&#o$U#%$1\'t#&$?|t#%$UJU#&$l#t#%%)3t#&%:eU#%%TAK#&%gW`#%&%N-#&&7eA#%&PZj#&&cr##%&|hK#&\'4#`#%\'Lu-#&\'`0A#%\'wP-#&(1-`#%', 149, 4 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,9M7#A,O&U#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$/u#`#&0,:A#$0E0A#&0WG##$0q=##&1(S`#$1B:A#&1SaA#$1nG##&2$n##$2>S`#&2PkA#$2jaA#&2|x##$3:n##&3M)`#$3gkA#&3y6A#$47x##&4IC##$4d)`#&4uO`#$546A#&5FM##$5`C##&5rY`#$60O`#&6BgA#$6]M##&6nt##$' },
  { '#####%%}|`#&&8TU#%', 239, 2 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,9M7#A,O&U#$,eYt#A,|#t#$-L1##&-YI`#$-bdt#A', 266, 22 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,O\'##&,eZA#$,|$A#&-6W`#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$/qb##&0,:j#$0E0j#&0WGK#$0q=K#&1(T-#$1B:j#&', 195, 54 },
  { '#####%#4iU#&#Brt#%#`*U#&#o$U#%$1\'t#&$?|t#%$^%7#&$l.U#%%-A7#&%<;7#%%Y>U#&%hGt#%&*K7#&&8TU#%&Th7#&&db7#%\'&eU#&\'5_U#%\'Qr7#&\'al7#%', 149, 2 },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,O&U#$,eYt#A,|#t#$-N^##A-bdK#;-x<j#A.2q-#;.HIK#A.^}j#;.tV-#A///K#;/Dcj#A/[,j#;/t}j#A0,9K#;0E/K#A0WF-#;0q<-#A1(Rj#;1B9K#A1S`K#;1nF-#A2$m-#;2>Rj#A2PjK#;2j`K#A2|w-#;3:m-#A3M(j#;3gjK#A3y5K#;47w-#A4IB-#;4d(j#A4uNj#;545K#A5FL-#;5`B-#A5rXj#;60Nj#A6]LU#$6nsU#A' },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A,#tt#$,9M7#A,O&U#$,eYt#A,|#t#$-6W7#A-x=7#$.2qU#A.HIt#$._#7#A.tVU#$///t#A/Dd7#$/[-7#A/u#7#$0,9t#A0E/t#$0WFU#A0q<U#$1(S7#A1B9t#$1S`t#A1nFU#$2$mU#A2>S7#$2Pjt#A2j`t#$2|wU#A3:mU#$3M)7#A3gjt#$3y5t#A47wU#$4IBU#A4d)7#$4uO7#A545t#$5FLU#A5`BU#$5rY7#A60O7#$6Bft#A6]LU#$6nsU#A8U$j#$9V<U#A' },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,9M7#A,O&U#$,q77#&-beA#$-x=`#&.2r##$.HJA#&._#`#$.c/`#A.tVU#$///t#A/Dd7#$/[,A#A/u#`#$0E0j#&0WGK#$0q=K#&1(T-#$1B:j#&1Saj#$1nGK#&2$nK#$2>T-#&2Pkj#$2jaj#&2|xK#$3:nK#&3M*-#$3gkj#&3y6j#$47xK#&4ICK#$4d*-#&4uP-#$546j#&5FMK#$5`CK#&5rZ-#$60P-#&6Bgj#$6]MK#&6ntK#$7-Z-#&7?&-#$7Xgj#&7l#K#$8)tK#&8</`#A8U$j#$' },
  { '#####&\'K7##$\'avK#&\'x4A#$(2(-#&(HA##$(^*U#&(tM`#$).7`#&)Cl##$)YDA#&)ox`#$*+A`#&*@v##$*VNA#&*m\'`#$+\'[##&+=4A#$+Rh`#&+iA##$,#uA#&,9M`#$,O\'##&,eZA#$,|$A#&-6Vj#$-L/`#&-bdK#$-x<A#&.2q-#$.HI##&', 258, 32 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,O\'##&,eZA#$,|$A#&-6W`#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$/u#`#&0,:A#$0E0A#&0WG##$0q=K#&1(T-#$1B:j#&', 195, 56 },
  { '#####%%*eU#&%<Zj#%%U[t#&%hs-#%&\'.U#&&9Dj#%&S+t#&&eQK#%\'$-t#&\'5_-#%\'O:U#&\'akj#%\'{G7#&(2^K#%(Jnt#&(^*-#%(wl7#&)/\'K#%)FG7#&)Z)K#%)pht#&', 149, 11 },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A+i@-#;,#tK#A,O&U#$,eYt#A,|#t#$-L1##&-YI`#$-bdt#A', 255, 22 },
  { '#####%\'x57#&(1xK#%', 149, 4 },
  { '#####$(GqA#A(^St#$(t-`#A).l7#$)DE##A)Z(U#$)ph##A*+A7#$*@uU#A*VMt#$*m\'7#A+\'ZU#$+=3t#A+Rh7#$+i@U#A,#tt#$,O\'##&,eZA#$,|$A#&-6W`#$-L1##&-beA#$-x=`#&.2r##$.HJA#&._#`#$.tW##&//0A#$/Dd`#&/[-`#$/u#`#&0,:A#$0E0A#&0q=K#%1(T-#&', 195, 58 },
  { '#####A(Gpt#;(^SK#A(t-7#;).kj#A)DDU#;)Z(-#A)pgU#;*+@j#A*@u-#;*VMK#A*m&j#;+\'Z-#A+=3K#;+Rgj#A,#tt#$,9M7#A,O&U#$,eYt#A,|#t#$-6W7#A-x=7#$.2qU#A.HIt#$._#7#A.tVU#$///t#A/Dd7#$/[-7#A/u#7#$0,9t#A0E/t#$0WFU#A0q<U#$1(S7#A1B9t#$1S`t#A1nFU#$2$mU#A2>S7#$2Pjt#A2j`t#$2|wU#A3:mU#$3M)7#A3gjt#$3y5t#A47wU#$4IBU#A4d)7#$4uO7#A545t#$5FLU#A5`BU#$5rY7#A60O7#$6Bft#A6]LU#$6nsU#A8U$j#$:NHU#A;R1K#$' },
  { '#####%&Nz##&&db`#%&{+`#&\'5`##%\'K8A#&\'al`#%\'x5`#&(1yA#%(GQ`#&(^+##%(s_A#&).7`#%)Cl##&)YDA#%)ox`#&*+A`#%*@v##&*VNA#%*m\'`#&+\'[##%+=4A#&+Rh`#%', 9, 15 },
  { '#####;/PIK#=' },
  { '#####A)/r7#;)C(j#A5`B-#;5rXA#A' },
  { '#####O.D7`#>' },
  { '#####P%@DU#Q%M^7#P%kaU#Q%{K7#P&<^t#Q&KWt#P&hkU#Q&weU#P\'8x7#Q\'Gr7#P\'e)t#Q\'t#t#P(56U#Q(D0U#P(aC7#Q(q-t#P)2@U#Q)A:U#P)^M7#Q)mG7#P*.Yt#Q*=St#P*YgU#Q*iaU#P+*t7#Q+9n7#P+V%t#Q+fkU#P,(#7#Q,6x7#P,P^t#Q,df7#P,|kU#Q-4rt#P-Lx7#Q-a$U#P-y)t#Q.1|t#P.I6U#Q.^.U#P.uC7#Q/.;7#P/EOt#Q/YGt#P/rM7#Q0*TU#P0BYt#Q0Ub7#P0ngU#Q1\'_U#P1>t7#Q1Rl7#P1k%t#Q2#xt#P2<#7#Q2O*U#P2h/t#Q2{77#P38<U#Q3L4U#P3dI7#Q3xA7#P44Ut#Q4HMt#P4`cU#Q4tZU#P50p7#Q5G97#P5[|t#Q5sEt#P6-.U#Q6CRU#P6X;7#Q6o`7#P7)Gt#Q7?lt#P7UE7#Q7lj7#P8&Qt#Q8<vt#P8Q_U#Q8i(U#P8}l7#Q9957#P9Mxt#Q9eAt#P9z*U#Q:5NU#P:K\'t#Q:bKt#P:w4U#Q;2XU#P;GA7#Q;^f7#P;sMt#Q<.rt#P<CZU#Q<Z$U#P<oh7#Q=+|t#P=@eU#Q=W.U#P=lr7#Q>(;7#P>=#t#Q>SGt#P>i0U#Q?$TU#P?9=7#Q?Ob7#P?f:U#Q?|_U#P@6G7#Q@Ll7#P@bSt#Q@xxt#PA2aU#QAI*U#PA^n7#QAu77#PB.zt#QBECt#PBZx7#QBrA7#PC,)t#QCBMt#PCW6U#QCnZU#PD(C7#QD>h7#PDSOt#QDjtt#PE%M7#QE;r7#PEPYt#QEh#t#PE|gU#QF80U#PFLt7#QFd=7#PFy%t#QG4It#PGI2U#QG`VU#PGv/t#QH1St#PHF<U#QH]aU#PHrI7#QI-n7#PIBUt#QIXzt#PIncU#QJ*,U#PJ>p7#QJV)t#PJkmU#QK\'6U#PK;z7#QKRC7#PKh+t#QL#Ot#PL88U#QLN]U#PLdE7#QLzj7#PM5BU#QMKgU#PMaO7#QMwt7#PN1[t#QNH%t#PN]iU#QNt2U#PO-v7#QOD?7#POY\'t#QOpKt#PP+%7#QPAI7#PPV1t#QPmUt#PQ\'>U#QQ=cU#PQRK7#QQip7#PR#Wt#QR9|t#PROU7#QRfz7#PR{bt#QS7+t#PSKoU#QSc8U#PSw|7#QT3E7#PTH-t#QT_Qt#PTt:U#QU/_U#PUE7t#QU[[t#PUqDU#QV,iU#PVAQ7#QVWv7#PVm^t#QW)\'t#PW=kU#QWT4U#PWix7#QX&1t#PX:uU#QXQ>U#PXg\'7#QX}K7#PY73t#QYMWt#PYc@U#QYyeU#PZ3M7#QZIr7#PZ`JU#QZvoU#P[0W7#Q[F|7#P[[dt#Q[s-t#P],qU#Q]C:U#P]X#7#Q]oG7#P^)/t#Q^?St#P^U-7#Q^lQ7#P_&9t#Q_<^t#P_QFU#Q_hkU#P_}S7#Q`8x7#P`M`t#Q`e)t#P`z^7#Qa6\'7#PaJjt#Qab3t#PavwU#Qb2@U#PbG)7#Q' },
  { '#####)6XDU#*6o`7#)7)Gt#*74sj#@7?lt#?7UE7#@7lj7#?8&Qt#@8<vt#?8Q_U#@8i(U#?8}l7#@9957#?9Mxt#@9eAt#?9z*U#@:5NU#?:K\'t#@:bKt#?:w4U#@;2XU#?;GA7#@;^f7#?' },
  { '#####<8]L-#9' },
  { '#####9$v%`#>%&^##9)Y?K#>)osA#9**L-#>*@%##9*VIK#>*l1`#9+\'V-#>+=/##9+Rcj#>+i;`#9,#pK#>,9HA#9,N}-#>,eU##9,{.j#>-5b`#9-L,-#>-Z5##9-{UK#>.+A`#9' },
  { '#####O\'a|`#)/%.U#?' },
  { '#####)74t7#?' },
  { '#####>0r)7#?1%2U#>1C&U#?1P?7#>64XU#?6Bbt#>6[Wt#?6lBU#>7,eU#?77Q7#>7Wr7#?7c^t#>8)oU#?83k-#>8Ult#?8_x7#>9&yU#?90)t#>9Rvt#?9[6U#>:$(U#?:,C7#>:O57#?:WOt#>:|2U#?;(]U#>;Q=7#?;TYt#>' },
  { '#####0*b^7#2.$``#0.,p7#2' },
  { '#####<#0X-#9#@BA#<#[ej#9#lO##<$u6j#9$}Q##<&)xK#9&4C``<&QGK#9&aA##<' },
  { '#####R\'a|)`*/%.-#@' },
  { '#####>0y=##9' },
  { '#####S' },
  { '#####N\'E:j#>' },
  { '#####N%?T-#T%NN-#N9#]-#9:x%`#>;2Y##9;H2A#>;^f`#9;t?##><.sA#9<DK`#><Z%##9<pXA#>=+}A#9=AU`#>=W/##9=mcA#>>(;`#9>=p##>>SHA#9>i|`#>?$U##9?:.A#>?Ob`#9?g+`#>?|`##9@78A#>@Ll`#9@cE##>@xyA#9A3Q`#>AI+##9A__A#>Au7`#9B/l##>BEDA#9B[iA#>BrA`#9C,v##>CBNA#9CX\'`#>Cn[##9D)4A#>D>h`#9DTA##>DjuA#9E&>A#>E;r`#9EQK##>Eh$A#9E}W`#>F81##9FMeA#>Fd=`#9Fyr##>G4JA#9GJ#`#>G`W##9Gv|##>H1TA#9HG-`#>H]b##9Hs:A#>I-n`#9ICG##>IX{A#9IoS`#>J*-##9J?aA#>JV*A#9Jl^`#>K\'7##9K<kA#>KRC`#9Khx##>L#PA#9L9)`#>LN^##9Le6A#>Lzj`#9M63`#>MKh##9Mb@A#>Mwt`#9N2M##>NH&A#9N^Y`#>Nt3##9O.gA#>OD?`#9OYt##>OpLA#9P+qA#>PAI`#9PW###>PmVA#9Q(/`#>Q=d##9QS<A#>Qip`#9R$I##>R9}A#9RPFA#>Rfz`#9R|S##>S7,A#9SL``#>Sc9##9SxmA#>T3E`#9THz##>T_RA#9Tu+`#>U/`##9UF)##>U[]A#9Ur5`#>V,j##9VBBA#>VWv`#9VnO##>W)(A#9W>[`#>WT5##9WjiA#>X&2A#9X;f`#>XQ?##9XgsA#>X}K`#9Y8%##>YMXA#9Yd1`#>Yyf##9Z4>A#>ZIr`#9Za;`#>Zvp##9[1HA#>[F|`#9[]U##>[s.A#9]-b`#>]C;##9]XoA#>]oG`#9^)|##>^?TA#9^UyA#>^lQ`#9_\'+##>_<_A#9_R7`#>_hl##9`#DA#>`8x`#9`NQ##>`e*A#9`{NA#>a6\'`#9aK[##>ab4A#9awh`#>b2A##9bGuA#>' },
  { '#####9&lxK#>&w#`#9\'=*-#>\'G;##9/y-##>0(t`#9' },
  { '#####U0Zs-#,' },
  { '#####V\':b`#S\'Gzt#*\'e2j#S\'t,U#*(5?K#S(D97#*(aL-#S(q6U#*)2IK#S)AC7#*)^V-#S)mOt#**.cj#S*=]U#**YpK#S*ij7#*+*}-#S+9vt#*+V.j#S+ft7#*,(,-#S,7%t#*,S8j#S,c2U#*-$EK#S-3?7#*' },
  { '#####?1?CK#@1Rkj#?1o2j#@1y.A#?2??K#@2I;##?9RvK#@9[6-#?' },
}
local ZONE_OFFSETS = { 0, 10800, 3600, 7200, -3600, -2670, -39600, -36000, -32400, -28800, -14400, -10800, -7200, -18000, -25200, -21600, -16200, -13500, -5400, -9000, -12600, 28800, 39600, 25200, 18000, 36000, 21600, 43200, 46800, 50400, 14400, 19800, 32400, 23400, 16200, 20700, 27000, 30600, 12600, 34200, 37800, 31500, 35100, 41400, -43200, 45900, 49500, -38400, -34200, 45000, -30600, -37800 }
local ZONE_DIGITS = '#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}'

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

-- A member's rank after a write: shared (ZCOUNT of higher totals), dense
-- (ZCOUNT of higher totals in the index) or by ZREVRANK (ZRANK with ASC).
local RANK_AFTER = { 'ZREVRANK', on = 'key', unless = { 'ranks', 'asc' }, later = true }
local ASC_RANK_AFTER = { 'ZRANK', on = 'key', when = 'asc', unless = 'ranks', later = true }
local SHARED_RANK_AFTER = { 'ZCOUNT', on = 'key', when = 'shared', later = true }

-- A dense board's index of totals: the new total looked up before the
-- write, entered after it, the old one's holders counted on the board and
-- the total removed when none is left; the index expires with the board.
local DENSE_LOOKUP = { 'ZSCORE', on = 'totals-key' }
local DENSE_KEEP = { 'ZADD ZREM ZCOUNT', on = 'totals-key', later = true }
local DENSE_HELD = { 'ZCOUNT', on = 'key', when = 'totals-key', later = true }
local DENSE_EXPIRE = { 'PEXPIREAT', on = 'totals-key', when = 'seconds', later = true }

-- A board's member data: the hash's type checked before the write, the
-- member's field set after it; the hash expires with the board.
local DATA_LOOKUP = { 'HLEN', on = 'data-key' }
local DATA_SET = { 'HSET', on = 'data-key', later = true }
local DATA_EXPIRE = { 'PEXPIREAT', on = 'data-key', when = 'seconds', later = true }

-- A board's columns (rank_columns.rs), read before anything else.
local COLUMNS_READ = { 'HGETALL', on = 'columns-key' }

natives['rank.gift'] = {
  { 'TIME' },
  { 'ZSCORE ZINCRBY ZADD', on = 'key' },
  DENSE_LOOKUP,
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  DATA_LOOKUP,
  DATA_SET,
  DATA_EXPIRE,
  COLUMNS_READ,
  RANK_AFTER,
  ASC_RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

natives['rank.set'] = {
  { 'TIME' },
  { 'ZSCORE ZADD', on = 'key' },
  DENSE_LOOKUP,
  { 'PEXPIREAT', on = 'key', when = 'seconds', later = true },
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  DATA_LOOKUP,
  DATA_SET,
  DATA_EXPIRE,
  COLUMNS_READ,
  RANK_AFTER,
  ASC_RANK_AFTER,
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
  DENSE_LOOKUP,
  DENSE_HELD,
  DENSE_KEEP,
  DENSE_EXPIRE,
  RANK_AFTER,
  ASC_RANK_AFTER,
  SHARED_RANK_AFTER,
  IDMP_LOOKUP,
  IDMP_RECORD,
  IDMP_EVICT,
}

-- The reads write nothing: their natives are all run and refused as they go.
local RANK = { 'ZREVRANK', on = 'key', unless = { 'ranks', 'asc' } }
local ASC_RANK = { 'ZRANK', on = 'key', when = 'asc', unless = 'ranks' }
-- A first-come rank that every call reads, whatever its ranks.
local ANY_RANK = { 'ZREVRANK', on = 'key', unless = 'asc' }
local ANY_ASC_RANK = { 'ZRANK', on = 'key', when = 'asc' }
local SHARED_RANK = { 'ZCOUNT', on = 'key', when = 'shared' }
local DENSE_RANK = { 'ZCOUNT', on = 'totals-key' }
-- Each entry's data (HLEN checks the hash's type when no entry is read).
local DATA_READ = { 'HLEN HMGET', on = 'data-key' }

natives['rank.get'] = {
  { 'ZCARD ZSCORE', on = 'key' },
  RANK,
  ASC_RANK,
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.mget'] = natives['rank.get']

natives['rank.top'] = {
  { 'ZCARD ZRANGE', on = 'key' },
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.around'] = {
  { 'ZRANGE', on = 'key' },
  ANY_RANK,
  ANY_ASC_RANK,
  SHARED_RANK,
  DENSE_RANK,
  DATA_READ,
  COLUMNS_READ,
}

natives['rank.stats'] = {
  { 'ZCARD ZRANGE MEMORY', on = 'key' },
}

natives['rank.percentile'] = {
  { 'ZSCORE ZCARD', on = 'key' },
  ANY_RANK,
  ANY_ASC_RANK,
}

natives['rank.quantile'] = {
  { 'ZCARD ZRANGE', on = 'key' },
}

natives['rank.count'] = {
  { 'ZCARD ZCOUNT', on = 'key' },
}

-- A season's keys are computed, not read: no native command runs.
natives['rank.season'] = {}

-- The band's page is RANK.TOP's, with its ranks.
natives['rank.range'] = {
  { 'ZCARD ZCOUNT ZRANGE', on = 'key' },
  DENSE_RANK,
  DATA_READ,
}

natives['rank.among'] = {
  { 'ZSCORE', on = 'key' },
  DATA_READ,
  COLUMNS_READ,
}

-- The columns are read, then written only when the key holds none.
natives['rank.columns'] = {
  { 'HGETALL HSET', on = 'columns-key' },
}

-- The removal is the first write; with DENSE, the scores and the index's
-- type are read before it, and the index is kept after it; with DATA, the
-- hash's type is read before it and the members' data removed after it.
natives['rank.remove'] = {
  { 'ZREM', on = 'key' },
  { 'ZSCORE', on = 'key', when = 'totals-key' },
  { 'ZCARD', on = 'totals-key' },
  { 'ZCOUNT', on = 'key', when = 'totals-key', later = true },
  { 'ZREM', on = 'totals-key', later = true },
  { 'HLEN', on = 'data-key' },
  { 'HDEL', on = 'data-key', later = true },
}

-- The index is replaced after the board is read: UNLINK is the first write.
natives['rank.reindex'] = {
  { 'ZRANGE', on = 'key' },
  { 'ZCARD UNLINK', on = 'totals-key' },
  { 'ZADD', on = 'totals-key', later = true },
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
  { 'HMGET', on = 'data' },
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
  { 'HGETALL HMGET', on = 'data' },
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
  { 'ZRANGE ZSCORE', on = 'queue' },
  { 'ZRANGE ZSCORE ZADD', on = 'queue', later = true },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZSCORE', on = 'inflight', later = true },
  { 'HLEN', on = 'data' },
  { 'HSET HDEL', on = 'data', later = true },
}

natives['delay.job'] = {
  { 'ZSCORE', on = 'queue' },
  { 'ZCARD ZSCORE', on = 'inflight' },
  { 'ZCARD ZSCORE', on = 'dead' },
  { 'ZCARD ZSCORE', on = 'deliveries' },
  { 'HLEN HGET', on = 'data' },
}

natives['delay.retry'] = {
  { 'TIME' },
  { 'ZSCORE', on = 'dead' },
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
    score = tonumber(rt.call('ZINCRBY', scores, delta, item))
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
end

-- rank.lua -----------------------------------------------------------------
do
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
end

-- jobs.lua -----------------------------------------------------------------
do
-- Jobs: DELAY tasks that carry their data in a hash beside the queue (its
-- DATA key; src/commands/jobs.rs, src/logic/jobs.rs). DELAY.ADD, DELAY.JOB,
-- DELAY.RETRY, DELAY.PAUSE and DELAY.RESUME; the DATA options of POLL, ACK,
-- NACK and STATS are in delay.lua, which reads the helpers put on `rt.job`.

local call, int_text = rt.call, rt.int_text

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

-- The names of every field a task may have, appended to `fields`.
function job.data_fields(task, fields)
  for _, tag in ipairs(ALL_FIELDS) do
    fields[#fields + 1] = tag .. task
  end
  return fields
end

-- Every field of the task goes: it is done, or forgotten. One HDEL: each
-- call costs the script more than the fields it names.
function job.delete_data(data, task)
  call('HDEL', data, unpack(job.data_fields(task, {})))
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
  rt.check_delay_queue_key(queue)
  -- A due time in the past is due now: scored now, so tasks added to run at
  -- once come out in the order they were added.
  local now = rt.now_ms()
  local replies = {}
  for i, t in ipairs(tasks) do
    local task = t.task
    local added = 0
    if not (inflight ~= false and rt.zscore(inflight, task) ~= nil) then
      local due = t.due < now and now or t.due
      local score = job.arrival_at(queue, due)
      if rule == KEEP then
        -- A queued task stays as it is: ZADD NX adds only a new one, and
        -- says which it was, without a lookup first.
        added = call('ZADD', queue, 'NX', score, task)
      else
        local queued = rt.zscore(queue, task)
        if queued == nil then
          added = 1
        elseif rule == REPLACE then
          added = 2
        elseif math.floor(queued) < math.floor(score) then
          -- EXTEND: out, never in.
          added = 2
        end
        if added ~= 0 then
          call('ZADD', queue, score, task)
        end
      end
      if added ~= 0 then
        if data ~= false then
          -- The fields set, in one HSET, and the ones that go, in one HDEL.
          local set, gone = {}, {}
          if t.payload then
            set[#set + 1], set[#set + 2] = job.PAYLOAD .. task, t.payload
          end
          -- WITHIN counts from when the task is due: now, for a time past.
          local deadline = within_ms and rt.deadline(due, within_ms)
          if deadline then
            set[#set + 1], set[#set + 2] = job.DEADLINE .. task, int_text(deadline)
          else
            gone[#gone + 1] = job.DEADLINE .. task
          end
          if group ~= false then
            set[#set + 1], set[#set + 2] = job.GROUP .. task, group
          else
            gone[#gone + 1] = job.GROUP .. task
          end
          if #set > 0 then
            call('HSET', data, unpack(set))
          end
          if #gone > 0 then
            call('HDEL', data, unpack(gone))
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
  local state, score
  local sets = { { 'queued', queue }, { 'inflight', inflight }, { 'dead', dead } }
  local looked_up = 0
  for i, named in ipairs(sets) do
    looked_up = i
    if named[2] ~= false then
      score = rt.zscore(named[2], task)
      if score ~= nil then
        state = named[1]
        break
      end
    end
  end
  -- A key of another type refuses the call wherever the task is (nothing
  -- between raises another error, and every WRONGTYPE reads the same): a
  -- set looked up is checked by its lookup, the others here.
  for i = looked_up + 1, #sets do
    if sets[i][2] ~= false then
      rt.zcard(sets[i][2])
    end
  end
  if deliveries ~= false then
    rt.zcard(deliveries)
  end
  if data ~= false then
    call('HLEN', data)
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
  -- The first lookup is the dead set's type check.
  local any_dead = false
  for _, task in ipairs(tasks) do
    if rt.zscore(dead, task) ~= nil then
      any_dead = true
      break
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
    call('ZADD', queue, job.arrival_at(queue, now), task)
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
-- The library serves EVERY rules, and cron rules in any of the module's
-- time zones, with the module's offsets (ZONES, from its tz database) and
-- its rules for the hour a clock skips or repeats. A cron rule with the
-- cron parser's day extensions (`L`, `W`, `#`) is refused before anything
-- is read or written, and a cron schedule of that kind the module wrote
-- does not move on when the library claims its occurrence
-- (docs/functions.md).

local call, int_text = rt.call, rt.int_text
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

-- One field's matching values (a set), and whether it names one time as
-- the parser tells a fixed time: one value, no `*`, and a step of 1 in its
-- last stepped part (or none); or nil and an error.
local function read_field(text, bounds)
  local min, max = bounds[1], bounds[2]
  local set = {}
  if text == '*' then
    for value = min, max do
      set[value] = true
    end
    return set, false
  end
  local values, last_step, wildcard = 0, 1, false
  for part in (text .. ','):gmatch('([^,]*),') do
    if part ~= '' then
      local first, last, step = read_part(part, min, max)
      if not first then
        return nil, last
      end
      if part:find('/', 1, true) then
        last_step, wildcard = step, wildcard or part:sub(1, 2) == '*/'
      end
      for value = first, last, step do
        values = values + (set[value] and 0 or 1)
        set[value] = true
      end
    end
  end
  return set, values == 1 and last_step == 1 and not wildcard
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
-- dom_and_dow, fixed }` (fixed: one hour and one minute, a time of day),
-- or an error (a text of the parser's, UNSUPPORTED or NOT_ASCII).
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
  local sets, fixed = {}, {}
  for i, part in ipairs(parts) do
    local set, why = read_field(part, FIELDS[i])
    if not set then
      return nil, why
    end
    sets[i], fixed[i] = set, why
  end
  sets[5][0] = sets[5][0] or sets[5][7]
  return {
    sets = sets, star_dom = parts[3] == '*', star_dow = parts[5] == '*', dom_and_dow = dom_and_dow,
    fixed = fixed[1] and fixed[2],
  }
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
-- years away; one that needs a date and a weekday (`+`), such as a 29
-- February that is a Monday, forty, and the calendar repeats itself every
-- 400 years.
local MAX_DAYS, BOTH_DAYS_MAX_DAYS = 8 * 366 + 2, 146097 + 1

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

-- The first matching minute later than `after_ms`, on a clock that reads
-- unix time (UTC, or a zone's wall clock at one offset), or nil; with
-- `before_ms`, nil past the day that holds it (a caller checks the rest).
local function cron_after(cron, after_ms, before_ms)
  local from = (math.floor(after_ms / MINUTE_MS) + 1) * MINUTE_MS
  local day = math.floor(from / DAY_MS)
  local start_minute = (from - day * DAY_MS) / MINUTE_MS
  local hour0, minute0 = math.floor(start_minute / 60), start_minute % 60
  local minutes, hours, months = cron.sets[1], cron.sets[2], cron.sets[4]
  local last_day = day + (cron.dom_and_dow and BOTH_DAYS_MAX_DAYS or MAX_DAYS)
  if before_ms and math.floor(before_ms / DAY_MS) < last_day then
    last_day = math.floor(before_ms / DAY_MS)
  end
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

-- ---------------------------------------------------------------------------
-- Time zones: a zone's offsets from 1970 on, decoded from ZONE_TABLES the
-- first time a call needs the zone, and kept (functions/zones.json says how
-- they are written).

local DIGIT, BASE = {}, #ZONE_DIGITS
for i = 1, BASE do
  DIGIT[ZONE_DIGITS:byte(i)] = i - 1
end
local decoded_zones = {}

-- Table `index`'s offsets: `{ starts, offsets }`, the unix second each
-- offset starts at (the first at 0) and its seconds east of UTC.
local function zone_table(index)
  local found = decoded_zones[index]
  if found then
    return found
  end
  local table_of = ZONE_TABLES[index]
  local records, starts, offsets = table_of[1], {}, {}
  for at = 1, #records, 6 do
    local a, b, c, d, e, offset = records:byte(at, at + 5)
    starts[#starts + 1] = (((DIGIT[a] * BASE + DIGIT[b]) * BASE + DIGIT[c]) * BASE + DIGIT[d]) * BASE + DIGIT[e]
    offsets[#offsets + 1] = ZONE_OFFSETS[DIGIT[offset] + 1]
  end
  if table_of[2] then
    local rest = zone_table(table_of[2])
    for i = table_of[3], #rest.starts do
      starts[#starts + 1], offsets[#offsets + 1] = rest.starts[i], rest.offsets[i]
    end
  end
  found = { starts = starts, offsets = offsets }
  decoded_zones[index] = found
  return found
end

-- What seasons.lua reads of a zone and of the calendar.
rt.zones = {
  offsets_of = function(name)
    return zone_table(ZONES[name])
  end,
  civil = civil,
}

-- How far past a skipped fixed time the parser looks for the clock's next
-- reading (two hours); a gap wider than that ends the schedule, as there.
local GAP_SEARCH_MS = 7200000

-- Whether the day a wall clock time falls on matches the rule's month and
-- days.
local function wall_day_matches(cron, wall_ms)
  local day = math.floor(wall_ms / DAY_MS)
  local _, month, date = civil(day)
  return cron.sets[4][month] and day_matches(cron, date, (day + 4) % 7)
end

-- The first time later than `after_ms` that a cron rule matches in a zone,
-- or nil: the parser's answer for the module's zones. Each offset's span
-- is searched on its own wall clock. When a clock is set back, a fixed
-- time of day (one hour, one minute) runs at the first of the two instants
-- that read it, any other rule at both; when a clock skips ahead, a fixed
-- time it skips runs at the first instant after the gap (if that day
-- matches), any other rule's skipped minutes do not run.
local function zone_cron_after(cron, zone, after_ms)
  local rules = zone_table(ZONES[zone])
  local starts, offsets = rules.starts, rules.offsets
  -- The parser counts from the second after `after_ms`.
  local from_s = math.floor(after_ms / 1000) + 1
  local k, high = 1, #starts
  while k < high do
    local middle = math.floor((k + high + 1) / 2)
    if starts[middle] <= from_s then
      k = middle
    else
      high = middle - 1
    end
  end
  while true do
    local offset, ends = offsets[k], starts[k + 1]
    if cron.fixed and k > 1 and offset > offsets[k - 1] and starts[k] >= from_s then
      -- The clock skipped ahead at starts[k]: a fixed time in the gap runs
      -- at its first instant.
      local gap_from, gap_ends = (starts[k] + offsets[k - 1]) * 1000, (starts[k] + offset) * 1000
      local skipped = cron_after(cron, gap_from - 1, gap_ends)
      if skipped and skipped < gap_ends then
        if gap_ends - skipped > GAP_SEARCH_MS then
          return nil
        elseif wall_day_matches(cron, gap_ends) then
          return starts[k] * 1000
        end
      end
    end
    local wall_from = (starts[k] > from_s and starts[k] or from_s) + offset
    if cron.fixed and k > 1 and offsets[k - 1] > offset and starts[k] + offsets[k - 1] > wall_from then
      -- The clock was set back: a fixed time already read before it runs
      -- no second time.
      wall_from = starts[k] + offsets[k - 1]
    end
    local wall_ends = ends and (ends + offset) * 1000
    local found = cron_after(cron, wall_from * 1000 - 1, wall_ends)
    if found and (not ends or found < wall_ends) then
      return found - offset * 1000
    elseif not ends then
      return nil
    end
    k = k + 1
  end
end

local RULE, NEXT, PAYLOAD = 's:', 'n:', 't:'

-- The fields up to which a hash is a listpack on a default server
-- (hash-max-listpack-entries).
local SMALL_HASH_FIELDS = 512

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
-- time has passed), with the schedule's payload (read from `data` when
-- nil; false: none), and makes it the pending one.
local function enqueue(queue, data, id, at_ms, now_ms, payload)
  local task = occurrence_task(id, at_ms)
  if rt.zscore(queue, task) == nil then
    call('ZADD', queue, job.arrival_at(queue, at_ms > now_ms and at_ms or now_ms), task)
  end
  if payload == nil then
    payload = call('HGET', data, PAYLOAD .. id)
  end
  if payload then
    call('HSET', data, job.PAYLOAD .. task, payload, NEXT .. id, int_text(at_ms))
  else
    call('HSET', data, NEXT .. id, int_text(at_ms))
  end
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
    if not ZONES[zone] or why == UNSUPPORTED or why == NOT_ASCII then
      -- A cron rule the module wrote, that only the module can follow.
      return
    end
    next = cron and zone_cron_after(cron, zone, at_ms > now_ms and at_ms or now_ms)
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
    first = zone_cron_after(cron, zone, start - 1)
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
  rt.check_delay_queue_key(queue)
  -- A change replaces the pending occurrence: the new rule's first one
  -- takes its place.
  remove_pending(queue, data, id)
  if payload ~= false then
    call('HSET', data, RULE .. id, rule_text, PAYLOAD .. id, payload)
  else
    call('HSET', data, RULE .. id, rule_text)
    call('HDEL', data, PAYLOAD .. id)
  end
  enqueue(queue, data, id, first, now, payload)
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
  -- The pending occurrence leaves with its data, and the schedule's
  -- fields with it, in one HDEL.
  local fields = { RULE .. id, NEXT .. id, PAYLOAD .. id }
  local at_ms = job.int_field(data, NEXT .. id)
  if at_ms ~= nil then
    local task = occurrence_task(id, at_ms)
    if call('ZREM', queue, task) == 1 then
      job.data_fields(task, fields)
    end
  end
  call('HDEL', data, unpack(fields))
  return 1
end

-- -> `[[id, every-ms, cron, tz, next-ms, payload], ...]`, by id.
handlers['delay.schedules'] = function(v)
  local queue, data = v[1], v[2]
  rt.zcard(queue)
  local fields = call('HGETALL', data)
  -- The listed schedules' pending times and payloads: in a small hash (a
  -- listpack on a default server, up to 512 fields) every field looked up
  -- is a scan of the whole hash, so they are taken from this read; in a
  -- larger one a lookup is cheap and comparing every job's field is not,
  -- so one HMGET reads them after.
  local small = #fields <= 2 * SMALL_HASH_FIELDS
  local rules, read = {}, {}
  for i = 1, #fields, 2 do
    local part = fields[i]:sub(1, 2)
    if part == RULE then
      rules[#rules + 1] = { fields[i]:sub(3), fields[i + 1] }
    elseif small and (part == NEXT or part == PAYLOAD) then
      read[fields[i]] = fields[i + 1]
    end
  end
  table.sort(rules, function(a, b)
    return rt.compare_bytes(a[1], b[1]) < 0
  end)
  local rows, pending = {}, {}
  for _, found in ipairs(rules) do
    local id, rule = found[1], found[2]
    local ms = every_ms(rule)
    local zone, expression = cron_rule(rule)
    if zone then
      local cron, why = read_cron(expression)
      if not ZONES[zone] or not cron and why ~= UNSUPPORTED and why ~= NOT_ASCII then
        -- The module does not list a rule it cannot read.
        zone = nil
      end
    end
    if ms or zone then
      rows[#rows + 1] = { id, ms or rt.NULL, expression or rt.NULL, zone or rt.NULL }
      pending[#pending + 1] = NEXT .. id
      pending[#pending + 1] = PAYLOAD .. id
    end
  end
  if #rows > 0 then
    local found
    if small then
      found = {}
      for i, field in ipairs(pending) do
        found[i] = read[field]
      end
    else
      found = rt.hmget(data, pending)
    end
    for i, row in ipairs(rows) do
      row[5] = job.int_of(found[2 * i - 1]) or rt.NULL
      row[6] = found[2 * i] or rt.NULL
    end
  end
  return rows
end
end

-- seasons.lua --------------------------------------------------------------
do
-- RANK.SEASON: a day's, an ISO week's or a month's board key in a time
-- zone, and the one before (src/commands/rank_season.rs,
-- src/logic/season.rs). A season starts at the first instant the zone's
-- clock reads its first day and ends where the next one starts; the zone's
-- offsets are the module's (schedules.lua's tables).

local DAY_MS = 86400000
local civil = rt.zones.civil

-- The day count from 1970-01-01 of a civil date (H. Hinnant's algorithm).
local function days_from_civil(year, month, date)
  if month <= 2 then
    year = year - 1
  end
  local era = math.floor(year / 400)
  local yoe = year - era * 400
  local doy = math.floor((153 * ((month + 9) % 12) + 2) / 5) + date - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end

-- The index of the offset in force at `ms` (the first one also before 0).
local function span_at(zone, ms)
  local starts = zone.starts
  local low, high = 1, #starts
  while low < high do
    local middle = math.floor((low + high + 1) / 2)
    if starts[middle] * 1000 <= ms then
      low = middle
    else
      high = middle - 1
    end
  end
  return low
end

-- The first instant the zone's clock reads `day` (a day count) or later:
-- in each offset's span the clock runs on, so the first span whose clock
-- reaches the day's midnight holds it.
local function day_start(zone, day)
  local wall = day * DAY_MS
  local starts, offsets = zone.starts, zone.offsets
  for k = span_at(zone, wall - DAY_MS), #starts do
    local at = wall - offsets[k] * 1000
    if k > 1 and at < starts[k] * 1000 then
      at = starts[k] * 1000
    end
    if k == #starts or at < starts[k + 1] * 1000 then
      return at
    end
  end
end

local PERIODS = {
  -- first(day): the season's first day; after(first): the next season's.
  {
    first = function(day)
      return day
    end,
    after = function(first)
      return first + 1
    end,
    label = function(first)
      return string.format('%04d-%02d-%02d', civil(first))
    end,
  },
  {
    first = function(day)
      return day - (day + 3) % 7
    end,
    after = function(first)
      return first + 7
    end,
    -- ISO: the week is numbered in the year that holds its Thursday.
    label = function(first)
      local year = civil(first + 3)
      return string.format('%04d-W%02d', year, math.floor((first + 3 - days_from_civil(year, 1, 1)) / 7) + 1)
    end,
  },
  {
    first = function(day)
      local year, month = civil(day)
      return days_from_civil(year, month, 1)
    end,
    after = function(first)
      local year, month = civil(first)
      return month == 12 and days_from_civil(year + 1, 1, 1) or days_from_civil(year, month + 1, 1)
    end,
    label = function(first)
      local year, month = civil(first)
      return string.format('%04d-%02d', year, month)
    end,
  },
}

-- -> `{ label, start, ends }` of the season holding `at_ms`.
local function season_at(period, zone, at_ms)
  local offset = zone.offsets[span_at(zone, at_ms)]
  local first = period.first(math.floor((at_ms + offset * 1000) / DAY_MS))
  local ends = day_start(zone, period.after(first))
  -- A clock set back across midnight reads the old day again after the
  -- new season started: that time is the new season's.
  if ends <= at_ms then
    first = period.after(first)
    ends = day_start(zone, period.after(first))
  end
  return { label = period.label(first), start = day_start(zone, first), ends = ends }
end

-- -> `[[key, starts-at-ms, ends-at-ms(, ttl)], ...]`: the season holding AT
-- (or now), then the season before it.
handlers['rank.season'] = function(v)
  local base, period, name, at, keep = v[1], PERIODS[v[2].choice], v[3], v[4], v[5]
  name = name or 'UTC'
  if not ZONES[name] then
    rt.fail(rt.say(ERRORS.schedule_unknown_zone, { zone = rt.utf8_lossy(name) }))
  end
  local now = rt.now_ms()
  at = at and tonumber(at) or now
  if not (at >= 0 and at <= LIMITS.SEASON_AT_LIMIT_MS) then
    rt.out_of_range('AT', rt.bound.SEASON_AT)
  end
  if keep then
    keep = tonumber(keep)
    if not (keep >= 1 and keep * 1000 <= rt.MAX_DURATION_MS) then
      rt.out_of_range('KEEP', rt.bound.DURATION_S)
    end
  end
  local zone = rt.zones.offsets_of(name)
  local current = season_at(period, zone, at)
  local before = season_at(period, zone, current.start - 1)
  local function row(season)
    local out = { base .. ':' .. season.label, season.start, season.ends }
    if keep then
      local left = season.ends + keep * 1000 - now
      out[4] = left > 0 and math.floor((left + 999) / 1000) or rt.NULL
    end
    return out
  end
  return { row(current), row(before) }
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
  local limits = { cap = cap, rate = rate }
  -- The group's fields in one read (the first of the hash: it checks its
  -- type); each field named costs a scan of a small hash, so the count of
  -- capped groups is read only when it changes, and a field that may be
  -- absent is deleted without a look.
  local found = call('HMGET', data, IN_FLIGHT_TAG .. group, LIMITS_TAG .. group)
  local in_flight = math.max(job.int_of(found[1]) or 0, 0)
  local was_capped = is_at_cap(in_flight, parse_limits(found[2]).cap)
  local capped = is_at_cap(in_flight, cap)
  local has_limits = cap > 0 or rate ~= nil
  if has_limits then
    call('HSET', data, LIMITS_TAG .. group, limits_text(limits))
    if not rate then
      call('HDEL', data, LOG_TAG .. group)
    end
  else
    call('HDEL', data, LIMITS_TAG .. group, LOG_TAG .. group)
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
    rt.call('ZADD', self.lease.inflight, until_ms, tasks[1][1])
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
      local died = died_with and job.count_text(died_with[i]) or '0'
      if expired then
        rt.call('HSET', data, job.DIED_WITH .. name, died, job.REASON .. name, EXPIRED_REASON)
      else
        rt.call('HSET', data, job.DIED_WITH .. name, died)
      end
      rt.call('HDEL', data, job.DEADLINE .. name, job.WORKER .. name)
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
    rt.check_delay_queue_key(lanes[i])
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
  else
    rt.check_delay_queue_key(key)
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
COMMANDS['rank.columns'] = rt.declare('rank.columns', {
  { name = 'columns-key', kind = 'key' },
  { name = 'column', kind = 'block', multiple = true, args = {
    { name = 'name', kind = 'string' },
    { name = 'best', kind = 'integer' },
    { name = 'worst', kind = 'integer' },
  } },
}, -5, natives['rank.columns'])
COMMANDS['rank.gift'] = rt.declare('rank.gift', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'amount', kind = 'integer' },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'data', kind = 'block', token = 'DATA', optional = true, args = {
    { name = 'data-key', kind = 'key' },
    { name = 'data', kind = 'string' },
  } },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
  { name = 'value', kind = 'integer', token = 'THEN', optional = true, multiple = true },
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
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'data', kind = 'block', token = 'DATA', optional = true, args = {
    { name = 'data-key', kind = 'key' },
    { name = 'data', kind = 'string' },
  } },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
  { name = 'value', kind = 'integer', token = 'THEN', optional = true, multiple = true },
}, -4, natives['rank.set'])
COMMANDS['rank.get'] = rt.declare('rank.get', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
}, -3, natives['rank.get'])
COMMANDS['rank.top'] = rt.declare('rank.top', {
  { name = 'key', kind = 'key' },
  { name = 'count', kind = 'integer' },
  { name = 'offset', kind = 'integer', token = 'OFFSET', optional = true },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
}, -3, natives['rank.top'])
COMMANDS['rank.around'] = rt.declare('rank.around', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'radius', kind = 'integer' },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
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
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -4, natives['rank.merge'])
COMMANDS['rank.mgift'] = rt.declare('rank.mgift', {
  { name = 'numkeys', kind = 'integer' },
  { name = 'key', kind = 'key', multiple = true, counted_by = 'numkeys' },
  { name = 'member', kind = 'string' },
  { name = 'amount', kind = 'integer' },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE', multiple = true, counted_by = 'numkeys' },
  } },
  { name = 'seconds', kind = 'integer', token = 'TTL', optional = true },
  { name = 'idmp', kind = 'block', token = 'IDMP', optional = true, args = {
    { name = 'seen-key', kind = 'key' },
    { name = 'event-id', kind = 'string' },
  } },
  { name = 'ms', kind = 'integer', token = 'RETAIN', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -5, natives['rank.mgift'])
COMMANDS['rank.mget'] = rt.declare('rank.mget', {
  { name = 'key', kind = 'key' },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
  { name = 'member', kind = 'string', token = 'MEMBERS', multiple = true },
}, -3, natives['rank.mget'])
COMMANDS['rank.stats'] = rt.declare('rank.stats', {
  { name = 'key', kind = 'key' },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -2, natives['rank.stats'])
COMMANDS['rank.percentile'] = rt.declare('rank.percentile', {
  { name = 'key', kind = 'key' },
  { name = 'member', kind = 'string' },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -3, natives['rank.percentile'])
COMMANDS['rank.quantile'] = rt.declare('rank.quantile', {
  { name = 'key', kind = 'key' },
  { name = 'percentile', kind = 'double' },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -3, natives['rank.quantile'])
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
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'totals-key', kind = 'key', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
}, -4, natives['rank.range'])
COMMANDS['rank.among'] = rt.declare('rank.among', {
  { name = 'key', kind = 'key' },
  { name = 'ranks', kind = 'oneof', optional = true, args = {
    { name = 'shared', kind = 'pure-token', token = 'SHARED' },
    { name = 'dense', kind = 'pure-token', token = 'DENSE' },
  } },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'asc', kind = 'pure-token', token = 'ASC', optional = true },
  { name = 'columns-key', kind = 'key', token = 'COLUMNS', optional = true },
  { name = 'member', kind = 'string', token = 'MEMBERS', multiple = true },
}, -3, natives['rank.among'])
COMMANDS['rank.remove'] = rt.declare('rank.remove', {
  { name = 'key', kind = 'key' },
  { name = 'totals-key', kind = 'key', token = 'DENSE', optional = true },
  { name = 'data-key', kind = 'key', token = 'DATA', optional = true },
  { name = 'member', kind = 'string', token = 'MEMBERS', multiple = true },
}, -3, natives['rank.remove'])
COMMANDS['rank.reindex'] = rt.declare('rank.reindex', {
  { name = 'key', kind = 'key' },
  { name = 'totals-key', kind = 'key' },
}, 3, natives['rank.reindex'])
COMMANDS['rank.season'] = rt.declare('rank.season', {
  { name = 'base', kind = 'string' },
  { name = 'period', kind = 'oneof', args = {
    { name = 'day', kind = 'pure-token', token = 'DAY' },
    { name = 'week', kind = 'pure-token', token = 'WEEK' },
    { name = 'month', kind = 'pure-token', token = 'MONTH' },
  } },
  { name = 'zone', kind = 'string', token = 'TZ', optional = true },
  { name = 'unix-ms', kind = 'unix-time', token = 'AT', optional = true },
  { name = 'seconds', kind = 'integer', token = 'KEEP', optional = true },
}, -3, natives['rank.season'])
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
  ['ASC'] = 'ASC',
  ['asc'] = 'ASC',
  ['AT'] = 'AT',
  ['at'] = 'AT',
  ['CAP'] = 'CAP',
  ['cap'] = 'CAP',
  ['CLEAR'] = 'CLEAR',
  ['clear'] = 'CLEAR',
  ['COLUMNS'] = 'COLUMNS',
  ['columns'] = 'COLUMNS',
  ['COST'] = 'COST',
  ['cost'] = 'COST',
  ['COUNT'] = 'COUNT',
  ['count'] = 'COUNT',
  ['CRON'] = 'CRON',
  ['cron'] = 'CRON',
  ['DATA'] = 'DATA',
  ['data'] = 'DATA',
  ['DAY'] = 'DAY',
  ['day'] = 'DAY',
  ['DEAD'] = 'DEAD',
  ['dead'] = 'DEAD',
  ['DEADLETTER'] = 'DEADLETTER',
  ['deadletter'] = 'DEADLETTER',
  ['DELIVERIES'] = 'DELIVERIES',
  ['deliveries'] = 'DELIVERIES',
  ['DENSE'] = 'DENSE',
  ['dense'] = 'DENSE',
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
  ['MONTH'] = 'MONTH',
  ['month'] = 'MONTH',
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
  ['THEN'] = 'THEN',
  ['then'] = 'THEN',
  ['TOKEN'] = 'TOKEN',
  ['token'] = 'TOKEN',
  ['TTL'] = 'TTL',
  ['ttl'] = 'TTL',
  ['TZ'] = 'TZ',
  ['tz'] = 'TZ',
  ['UP'] = 'UP',
  ['up'] = 'UP',
  ['WEEK'] = 'WEEK',
  ['week'] = 'WEEK',
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
PARSES['rank.columns'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
    local v1, v2
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    nk = nk + 1
    if keys[nk] ~= w then return nil end
    v1 = w
    local l1 = {}
    local n3 = argc - i + 1
    if n3 < 1 or n3 % 3 ~= 0 then return nil end
    n3 = n3 / 3
    for k2 = 1, n3 do
      local b4 = {}
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      b4[1] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b4[2] = w
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      if not plain_integer(w) then return nil end
      b4[3] = w
      l1[k2] = b4
    end
    v2 = l1
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['rank.gift'] = (function()
  local values, chosen_v5 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
    local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12
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
    v10 = false
    v11 = false
    v12 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'AT' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v4 = w
      elseif u == 'SHARED' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        local c1
        c1 = true
        chosen_v5.choice, chosen_v5.value = 1, c1
        v5 = chosen_v5
      elseif u == 'DENSE' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c2 = w
        chosen_v5.choice, chosen_v5.value = 2, c2
        v5 = chosen_v5
      elseif u == 'TTL' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v6 = w
      elseif u == 'DATA' then
        if v7 ~= false then return nil end
        shape = shape + 64
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
        v7 = b3
      elseif u == 'IDMP' then
        if v8 ~= false then return nil end
        shape = shape + 128
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
        shape = shape + 256
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v9 = w
      elseif u == 'ASC' then
        if v10 ~= false then return nil end
        shape = shape + 512
        i = i + 1
        v10 = true
      elseif u == 'COLUMNS' then
        if v11 ~= false then return nil end
        shape = shape + 1024
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v11 = w
      elseif u == 'THEN' then
        if v12 ~= false then return nil end
        shape = shape + 2048
        i = i + 1
        local l5 = {}
        local n7 = argc - i + 1
        if n7 < 1 or n7 % 1 ~= 0 then return nil end
        for k6 = 1, n7 do
          w = argv[i]
          if w == nil then return nil end
          i = i + 1
          if not plain_integer(w) then return nil end
          l5[k6] = w
        end
        v12 = l5
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    values[8] = v8
    values[9] = v9
    values[10] = v10
    values[11] = v11
    values[12] = v12
    return values, shape
  end
end)()
PARSES['rank.set'] = (function()
  local values, chosen_v5, chosen_v6 = {}, {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
    local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13
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
    v10 = false
    v11 = false
    v12 = false
    v13 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'AT' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v4 = w
      elseif u == 'GT' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        local c1
        c1 = true
        chosen_v5.choice, chosen_v5.value = 1, c1
        v5 = chosen_v5
      elseif u == 'LT' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        local c2
        c2 = true
        chosen_v5.choice, chosen_v5.value = 2, c2
        v5 = chosen_v5
      elseif u == 'SHARED' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        local c3
        c3 = true
        chosen_v6.choice, chosen_v6.value = 1, c3
        v6 = chosen_v6
      elseif u == 'DENSE' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        local c4
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c4 = w
        chosen_v6.choice, chosen_v6.value = 2, c4
        v6 = chosen_v6
      elseif u == 'TTL' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v7 = w
      elseif u == 'DATA' then
        if v8 ~= false then return nil end
        shape = shape + 128
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
        b5[2] = w
        v8 = b5
      elseif u == 'IDMP' then
        if v9 ~= false then return nil end
        shape = shape + 256
        i = i + 1
        local b6 = {}
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        b6[1] = w
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        b6[2] = w
        v9 = b6
      elseif u == 'RETAIN' then
        if v10 ~= false then return nil end
        shape = shape + 512
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v10 = w
      elseif u == 'ASC' then
        if v11 ~= false then return nil end
        shape = shape + 1024
        i = i + 1
        v11 = true
      elseif u == 'COLUMNS' then
        if v12 ~= false then return nil end
        shape = shape + 2048
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v12 = w
      elseif u == 'THEN' then
        if v13 ~= false then return nil end
        shape = shape + 4096
        i = i + 1
        local l7 = {}
        local n9 = argc - i + 1
        if n9 < 1 or n9 % 1 ~= 0 then return nil end
        for k8 = 1, n9 do
          w = argv[i]
          if w == nil then return nil end
          i = i + 1
          if not plain_integer(w) then return nil end
          l7[k8] = w
        end
        v13 = l7
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    values[8] = v8
    values[9] = v9
    values[10] = v10
    values[11] = v11
    values[12] = v12
    values[13] = v13
    return values, shape
  end
end)()
PARSES['rank.get'] = (function()
  local values, chosen_v3 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'SHARED' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        local c1
        c1 = true
        chosen_v3.choice, chosen_v3.value = 1, c1
        v3 = chosen_v3
      elseif u == 'DENSE' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c2 = w
        chosen_v3.choice, chosen_v3.value = 2, c2
        v3 = chosen_v3
      elseif u == 'DATA' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v4 = w
      elseif u == 'ASC' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        v5 = true
      elseif u == 'COLUMNS' then
        if v6 ~= false then return nil end
        shape = shape + 32
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    return values, shape
  end
end)()
PARSES['rank.top'] = (function()
  local values, chosen_v4 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    if not plain_integer(w) then return nil end
    v2 = w
    v3 = false
    v4 = false
    v5 = false
    v6 = false
    v7 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'OFFSET' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v3 = w
      elseif u == 'SHARED' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c1
        c1 = true
        chosen_v4.choice, chosen_v4.value = 1, c1
        v4 = chosen_v4
      elseif u == 'DENSE' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c2 = w
        chosen_v4.choice, chosen_v4.value = 2, c2
        v4 = chosen_v4
      elseif u == 'DATA' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v5 = w
      elseif u == 'ASC' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        v6 = true
      elseif u == 'COLUMNS' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v7 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['rank.around'] = (function()
  local values, chosen_v4 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'SHARED' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c1
        c1 = true
        chosen_v4.choice, chosen_v4.value = 1, c1
        v4 = chosen_v4
      elseif u == 'DENSE' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c2 = w
        chosen_v4.choice, chosen_v4.value = 2, c2
        v4 = chosen_v4
      elseif u == 'DATA' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v5 = w
      elseif u == 'ASC' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        v6 = true
      elseif u == 'COLUMNS' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v7 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['rank.merge'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
    local count_numkeys
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
    v6 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 3 or #w == 4 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'WEIGHTS' then
        if v4 ~= false then return nil end
        shape = shape + 8
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
        shape = shape + 16
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
      elseif u == 'ASC' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        v6 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    return values, shape
  end
end)()
PARSES['rank.mgift'] = (function()
  local values, chosen_v6 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 15
    local count_numkeys
    local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10
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
    v10 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 2 or #w == 3 or #w == 4 or #w == 5 or #w == 6) then u = KEYWORDS[upper(w)] end
      if u == 'AT' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v5 = w
      elseif u == 'SHARED' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        local c4
        c4 = true
        chosen_v6.choice, chosen_v6.value = 1, c4
        v6 = chosen_v6
      elseif u == 'DENSE' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        local c5
        local l6 = {}
        local n8 = count_numkeys
        if n8 == nil or n8 * 1 > argc - i + 1 - 0 then return nil end
        for k7 = 1, n8 do
          w = argv[i]
          if w == nil then return nil end
          i = i + 1
          nk = nk + 1
          if keys[nk] ~= w then return nil end
          l6[k7] = w
        end
        c5 = l6
        chosen_v6.choice, chosen_v6.value = 2, c5
        v6 = chosen_v6
      elseif u == 'TTL' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v7 = w
      elseif u == 'IDMP' then
        if v8 ~= false then return nil end
        shape = shape + 128
        i = i + 1
        local b9 = {}
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        b9[1] = w
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        b9[2] = w
        v8 = b9
      elseif u == 'RETAIN' then
        if v9 ~= false then return nil end
        shape = shape + 256
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v9 = w
      elseif u == 'ASC' then
        if v10 ~= false then return nil end
        shape = shape + 512
        i = i + 1
        v10 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    values[8] = v8
    values[9] = v9
    values[10] = v10
    return values, shape
  end
end)()
PARSES['rank.mget'] = (function()
  local values, chosen_v2 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 33
    local v1, v2, v3, v4, v5, v6
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
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'SHARED' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        local c1
        c1 = true
        chosen_v2.choice, chosen_v2.value = 1, c1
        v2 = chosen_v2
      elseif u == 'DENSE' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c2 = w
        chosen_v2.choice, chosen_v2.value = 2, c2
        v2 = chosen_v2
      elseif u == 'DATA' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v3 = w
      elseif u == 'ASC' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        v4 = true
      elseif u == 'COLUMNS' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v5 = w
      else break end
    end
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    u = KEYWORDS[w]
    if u == nil and (#w == 7) then u = KEYWORDS[upper(w)] end
    if u ~= 'MEMBERS' then return nil end
    local l3 = {}
    local n5 = argc - i + 1
    if n5 < 1 or n5 % 1 ~= 0 then return nil end
    for k4 = 1, n5 do
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      l3[k4] = w
    end
    v6 = l3
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    return values, shape
  end
end)()
PARSES['rank.stats'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 1
    local v1, v2
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
      if u == 'ASC' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        v2 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['rank.percentile'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
      if u == nil and (#w == 3) then u = KEYWORDS[upper(w)] end
      if u == 'ASC' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        v3 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['rank.quantile'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    x = plain_double(w)
    if x == nil then return nil end
    v2 = x
    v3 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 3) then u = KEYWORDS[upper(w)] end
      if u == 'ASC' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        v3 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['rank.count'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['rank.range'] = (function()
  local values, chosen_v5 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
    v2 = w
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    v3 = w
    v4 = false
    v5 = false
    v6 = false
    v7 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6) then u = KEYWORDS[upper(w)] end
      if u == 'LIMIT' then
        if v4 ~= false then return nil end
        shape = shape + 8
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
        shape = shape + 16
        i = i + 1
        local c2
        c2 = true
        chosen_v5.choice, chosen_v5.value = 1, c2
        v5 = chosen_v5
      elseif u == 'DENSE' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        local c3
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        c3 = w
        chosen_v5.choice, chosen_v5.value = 2, c3
        v5 = chosen_v5
      elseif u == 'DATA' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v6 = w
      elseif u == 'ASC' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        v7 = true
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['rank.among'] = (function()
  local values, chosen_v2 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 33
    local v1, v2, v3, v4, v5, v6
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
      if u == nil and (#w == 3 or #w == 4 or #w == 5 or #w == 6 or #w == 7) then u = KEYWORDS[upper(w)] end
      if u == 'SHARED' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        local c1
        c1 = true
        chosen_v2.choice, chosen_v2.value = 1, c1
        v2 = chosen_v2
      elseif u == 'DENSE' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        local c2
        c2 = true
        chosen_v2.choice, chosen_v2.value = 2, c2
        v2 = chosen_v2
      elseif u == 'DATA' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v3 = w
      elseif u == 'ASC' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        v4 = true
      elseif u == 'COLUMNS' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v5 = w
      else break end
    end
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    u = KEYWORDS[w]
    if u == nil and (#w == 7) then u = KEYWORDS[upper(w)] end
    if u ~= 'MEMBERS' then return nil end
    local l3 = {}
    local n5 = argc - i + 1
    if n5 < 1 or n5 % 1 ~= 0 then return nil end
    for k4 = 1, n5 do
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      l3[k4] = w
    end
    v6 = l3
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    return values, shape
  end
end)()
PARSES['rank.remove'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 9
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
      if u == nil and (#w == 4 or #w == 5) then u = KEYWORDS[upper(w)] end
      if u == 'DENSE' then
        if v2 ~= false then return nil end
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v2 = w
      elseif u == 'DATA' then
        if v3 ~= false then return nil end
        shape = shape + 4
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
    v4 = l1
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['rank.reindex'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['rank.season'] = (function()
  local values, chosen_v2 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
    local v1, v2, v3, v4, v5
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    v1 = w
    w = argv[i]
    if w == nil then return nil end
    i = i + 1
    u = KEYWORDS[w]
    if u == nil and (#w == 3 or #w == 4 or #w == 5) then u = KEYWORDS[upper(w)] end
    if u == 'DAY' then
      local c1
      c1 = true
      chosen_v2.choice, chosen_v2.value = 1, c1
      v2 = chosen_v2
    elseif u == 'WEEK' then
      local c2
      c2 = true
      chosen_v2.choice, chosen_v2.value = 2, c2
      v2 = chosen_v2
    elseif u == 'MONTH' then
      local c3
      c3 = true
      chosen_v2.choice, chosen_v2.value = 3, c3
      v2 = chosen_v2
    else return nil end
    v3 = false
    v4 = false
    v5 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 2 or #w == 4) then u = KEYWORDS[upper(w)] end
      if u == 'TZ' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        v3 = w
      elseif u == 'AT' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v4 = w
      elseif u == 'KEEP' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v5 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    return values, shape
  end
end)()
PARSES['feed.add'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 5
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
        shape = shape + 2
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['feed.page'] = (function()
  local values, chosen_v3 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 1
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v2 = w
      elseif u == 'NEWER' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        local c1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        c1 = w
        chosen_v3.choice, chosen_v3.value = 1, c1
        v3 = chosen_v3
      elseif u == 'OLDER' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        local c2
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        c2 = w
        chosen_v3.choice, chosen_v3.value = 2, c2
        v3 = chosen_v3
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['delay.poll'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 1
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v2 = w
      elseif u == 'LEASE' then
        if v3 ~= false then return nil end
        shape = shape + 4
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
        shape = shape + 8
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
        shape = shape + 16
        i = i + 1
        v5 = true
      elseif u == 'DATA' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v6 = w
      elseif u == 'WITHDATA' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        v7 = true
      elseif u == 'WORKER' then
        if v8 ~= false then return nil end
        shape = shape + 128
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        v8 = w
      elseif u == 'RATE' then
        if v9 ~= false then return nil end
        shape = shape + 256
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
        shape = shape + 512
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    values[8] = v8
    values[9] = v9
    values[10] = v10
    return values, shape
  end
end)()
PARSES['delay.ack'] = (function()
  local values, chosen_v4 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 9
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v2 = w
      elseif u == 'DATA' then
        if v3 ~= false then return nil end
        shape = shape + 4
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
      chosen_v4.choice, chosen_v4.value = 1, c1
      v4 = chosen_v4
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
      chosen_v4.choice, chosen_v4.value = 2, c5
      v4 = chosen_v4
    else return nil end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['delay.nack'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 15
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
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v5 = w
      elseif u == 'DATA' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v6 = w
      elseif u == 'REASON' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        v7 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['delay.touch'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v4 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['delay.stats'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 1
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v2 = w
      elseif u == 'DEAD' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v3 = w
      elseif u == 'DELIVERIES' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v4 = w
      elseif u == 'DATA' then
        if v5 ~= false then return nil end
        shape = shape + 16
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    return values, shape
  end
end)()
PARSES['delay.add'] = (function()
  local values, chosen_v4, chosen_v7 = {}, {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 65
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v2 = w
      elseif u == 'INFLIGHT' then
        if v3 ~= false then return nil end
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v3 = w
      elseif u == 'KEEP' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c1
        c1 = true
        chosen_v4.choice, chosen_v4.value = 1, c1
        v4 = chosen_v4
      elseif u == 'REPLACE' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c2
        c2 = true
        chosen_v4.choice, chosen_v4.value = 2, c2
        v4 = chosen_v4
      elseif u == 'EXTEND' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        local c3
        c3 = true
        chosen_v4.choice, chosen_v4.value = 3, c3
        v4 = chosen_v4
      elseif u == 'WITHIN' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v5 = w
      elseif u == 'GROUP' then
        if v6 ~= false then return nil end
        shape = shape + 32
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
      chosen_v7.choice, chosen_v7.value = 1, c4
      v7 = chosen_v7
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
      chosen_v7.choice, chosen_v7.value = 2, c9
      v7 = chosen_v7
    else return nil end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['delay.job'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v3 = w
      elseif u == 'DEAD' then
        if v4 ~= false then return nil end
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v4 = w
      elseif u == 'DELIVERIES' then
        if v5 ~= false then return nil end
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        nk = nk + 1
        if keys[nk] ~= w then return nil end
        v5 = w
      elseif u == 'DATA' then
        if v6 ~= false then return nil end
        shape = shape + 32
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    return values, shape
  end
end)()
PARSES['delay.retry'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 11
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
        shape = shape + 4
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['delay.pause'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['delay.resume'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['delay.schedule'] = (function()
  local values, chosen_v4 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 15
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
      chosen_v4.choice, chosen_v4.value = 1, c1
      v4 = chosen_v4
    elseif u == 'CRON' then
      local c2
      w = argv[i]
      if w == nil then return nil end
      i = i + 1
      c2 = w
      chosen_v4.choice, chosen_v4.value = 2, c2
      v4 = chosen_v4
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
        shape = shape + 16
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        v5 = w
      elseif u == 'START' then
        if v6 ~= false then return nil end
        shape = shape + 32
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v6 = w
      elseif u == 'PAYLOAD' then
        if v7 ~= false then return nil end
        shape = shape + 64
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        v7 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    return values, shape
  end
end)()
PARSES['delay.unschedule'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['delay.schedules'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['delay.group'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
        shape = shape + 8
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v4 = w
      elseif u == 'RATE' then
        if v5 ~= false then return nil end
        shape = shape + 16
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    return values, shape
  end
end)()
PARSES['delay.groups'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['rate.hit'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 17
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v2 = w
      elseif u == 'IDMP' then
        if v3 ~= false then return nil end
        shape = shape + 4
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
        shape = shape + 8
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    return values, shape
  end
end)()
PARSES['rate.peek'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 5
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
        shape = shape + 2
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['rate.acquire'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 15
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['rate.release'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
        shape = shape + 4
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v3 = w
      else break end
    end
    if i <= argc or nk ~= #keys then return nil end
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()
PARSES['rate.stats'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 3
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
    values[1] = v1
    values[2] = v2
    return values, shape
  end
end)()
PARSES['recent.add'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 9
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
        shape = shape + 2
        i = i + 1
        w = argv[i]
        if w == nil then return nil end
        i = i + 1
        if not plain_integer(w) then return nil end
        v2 = w
      elseif u == 'TTL' then
        if v3 ~= false then return nil end
        shape = shape + 4
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    return values, shape
  end
end)()
PARSES['vote.cast'] = (function()
  local values, chosen_v6 = {}, {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 63
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
      chosen_v6.choice, chosen_v6.value = 1, c1
      v6 = chosen_v6
    elseif u == 'DOWN' then
      local c2
      c2 = true
      chosen_v6.choice, chosen_v6.value = 2, c2
      v6 = chosen_v6
    elseif u == 'CLEAR' then
      local c3
      c3 = true
      chosen_v6.choice, chosen_v6.value = 3, c3
      v6 = chosen_v6
    else return nil end
    v7 = false
    v8 = false
    while i <= argc do
      w = argv[i]
      u = KEYWORDS[w]
      if u == nil and (#w == 6) then u = KEYWORDS[upper(w)] end
      if u == 'WEIGHT' then
        if v7 ~= false then return nil end
        shape = shape + 64
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
        shape = shape + 128
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    values[4] = v4
    values[5] = v5
    values[6] = v6
    values[7] = v7
    values[8] = v8
    return values, shape
  end
end)()
PARSES['vote.state'] = (function()
  local values = {}
  return function(argv, keys)
    local argc = #argv
    local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, 7
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
    values[1] = v1
    values[2] = v2
    values[3] = v3
    return values, shape
  end
end)()


-- The functions -----------------------------------------------------------
redis.register_function({
  function_name = 'zkit_rank_columns',
  callback = rt.entry(COMMANDS['rank.columns'], handlers['rank.columns'], PARSES['rank.columns']),
  flags = {  },
  description = 'RANK.COLUMNS: Declares a board\'s columns, most significant first, each by its name and the values that rank best and worst (best above worst: more wins; below: less wins), in a hash that the RANK commands name with COLUMNS. Declaring the same columns again changes nothing; other columns at the key are refused. Returns how many ms one tie-break slot lasts at the highest total (equal columns reached within it rank by member name).',
})
redis.register_function({
  function_name = 'zkit_rank_gift',
  callback = rt.entry(COMMANDS['rank.gift'], handlers['rank.gift'], PARSES['rank.gift']),
  flags = {  },
  description = 'RANK.GIFT: Adds an amount to a member\'s total and returns the new total and rank; equal totals rank first-come (with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower); with DATA, sets the member\'s data too.',
})
redis.register_function({
  function_name = 'zkit_rank_set',
  callback = rt.entry(COMMANDS['rank.set'], handlers['rank.set'], PARSES['rank.set']),
  flags = {  },
  description = 'RANK.SET: Sets a member\'s total (with GT only a higher one, with LT only a lower one) and returns the total that stands with the member\'s rank; equal totals rank first-come (with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower); with DATA, sets the member\'s data too.',
})
redis.register_function({
  function_name = 'zkit_rank_get',
  callback = rt.entry(COMMANDS['rank.get'], handlers['rank.get'], PARSES['rank.get']),
  flags = { 'no-writes' },
  description = 'RANK.GET: Returns a member\'s total, rank and the time it reached its total (with DATA, and its member data), or nil.',
})
redis.register_function({
  function_name = 'zkit_rank_top',
  callback = rt.entry(COMMANDS['rank.top'], handlers['rank.top'], PARSES['rank.top']),
  flags = { 'no-writes' },
  description = 'RANK.TOP: Returns a page of the board from the highest total down (with ASC, from the lowest up): rank, member, total (with DATA, and the member\'s data).',
})
redis.register_function({
  function_name = 'zkit_rank_around',
  callback = rt.entry(COMMANDS['rank.around'], handlers['rank.around'], PARSES['rank.around']),
  flags = { 'no-writes' },
  description = 'RANK.AROUND: Returns the member and up to radius entries above and below it: rank, member, total (with DATA, and the member\'s data).',
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
  description = 'RANK.MGIFT: Adds an amount to a member\'s total on several boards at once (each first-come on its own) and returns [total, rank] per board, in key order; with DENSE, each board\'s dense rank, counted in its own totals index (one per board, in key order), which the write keeps.',
})
redis.register_function({
  function_name = 'zkit_rank_mget',
  callback = rt.entry(COMMANDS['rank.mget'], handlers['rank.mget'], PARSES['rank.mget']),
  flags = { 'no-writes' },
  description = 'RANK.MGET: Returns what RANK.GET returns for each member, in order: [total, rank, reached-at-ms] (with DATA, and the member\'s data) or nil.',
})
redis.register_function({
  function_name = 'zkit_rank_stats',
  callback = rt.entry(COMMANDS['rank.stats'], handlers['rank.stats'], PARSES['rank.stats']),
  flags = { 'no-writes' },
  description = 'RANK.STATS: Returns a board\'s size and the spread of its totals, read by name: members, top-total, p99-total, p90-total, p50-total, bottom-total (nil on an empty board) and memory-bytes (MEMORY USAGE\'s estimate); the top is the highest total (with ASC, the lowest), a pNN-total the total that ranks ahead of NN% of the board.',
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
  description = 'RANK.QUANTILE: Returns the total at a percentile of the board (0 to 100, decimals allowed: the total that ranks ahead of that share of the board), interpolated linearly between the two totals around it; nil on an empty board.',
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
  description = 'RANK.RANGE: Returns the members whose total lies between max and min, inclusive (bounds as RANK.COUNT reads them), highest first (with ASC, lowest first), as a page of the board: rank, member, total (with DATA, and the member\'s data), each rank the member\'s rank on the whole board.',
})
redis.register_function({
  function_name = 'zkit_rank_among',
  callback = rt.entry(COMMANDS['rank.among'], handlers['rank.among'], PARSES['rank.among']),
  flags = { 'no-writes' },
  description = 'RANK.AMONG: Returns the given members that are on the board, ordered as the board orders them, each with its rank among them (1-based; with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower): rank, member, total (with DATA, and the member\'s data).',
})
redis.register_function({
  function_name = 'zkit_rank_remove',
  callback = rt.entry(COMMANDS['rank.remove'], handlers['rank.remove'], PARSES['rank.remove']),
  flags = { 'allow-oom' },
  description = 'RANK.REMOVE: Removes members from a board, as ZREM does, and returns how many were on it; with DENSE, each removed member\'s total leaves the totals index when no member holds it any more; with DATA, each given member\'s data is removed from the data hash.',
})
redis.register_function({
  function_name = 'zkit_rank_reindex',
  callback = rt.entry(COMMANDS['rank.reindex'], handlers['rank.reindex'], PARSES['rank.reindex']),
  flags = {  },
  description = 'RANK.REINDEX: Builds a board\'s totals index (what DENSE reads) from the board, replacing the index: each total a member has, once. Returns the number of distinct totals.',
})
redis.register_function({
  function_name = 'zkit_rank_season',
  callback = rt.entry(COMMANDS['rank.season'], handlers['rank.season'], PARSES['rank.season']),
  flags = { 'no-writes' },
  description = 'RANK.SEASON: Returns the current season\'s board and the one before for a day, an ISO week or a month in time zone TZ (default UTC), at the server\'s clock or AT unix-ms: each as its key (base:2026-12-04, base:2026-W49, base:2026-12), the unix ms it starts at and ends before, and with KEEP the TTL in seconds a write gives the board so it goes KEEP seconds after the season ends. Reads no key.',
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
