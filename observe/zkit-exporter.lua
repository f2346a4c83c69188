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
-- seen-keys the lists below name. Every read is O(log N) per key, and the
-- lists are bounded: at most MAX_KEYS keys per entry, SCAN looking at about
-- MAX_SCANNED keys per pattern. It only reads, so redis_exporter may run it
-- with EVAL_RO, from an ACL user limited to reads.
--
-- Per-key stats come from masters: on a replica (whose cluster slots belong
-- to its master) only the counters are exported.

-- ---- What to export: edit these lists --------------------------------------
-- A name may be an exact key or a SCAN pattern; in a queue's pattern the part
-- `*` matched names its other sets. The defaults follow the guides' layouts.

-- Queues: the queue, and its in-flight, dead-letter and deliveries sets
-- (any of the three may be left out).
local QUEUES = {
  { queue = "{*}", inflight = "{*}:inflight", dead = "{*}:dead", deliveries = "{*}:deliveries" },
}
-- Boards (RANK).
local BOARDS = { "gifts:*", "*:board" }
-- Rate logs, with the windows (ms) the limits of their RATE.HIT calls use.
local RATE_LOGS = {
  { log = "user:*:comment", windows = { 60000, 86400000 } },
}
-- IDMP seen-keys, measured against zkit.idmp-max-ids.
local SEEN_KEYS = { "*:seen" }

-- Keys exported per entry of a list, and keys SCAN looks at per pattern.
local MAX_KEYS = 100
local MAX_SCANNED = 20000
local SCAN_COUNT = 1000

-- ---- Nothing to edit below --------------------------------------------------

-- INFO zkit fields that are levels, not counts since the module loaded.
local GAUGES = {
  blocked_clients = true,
  idmp_max_ids = true,
  tiebreak_window_start_ms = true,
  tiebreak_window_end_ms = true,
}

local out = {}
local bounds = { capped = 0, scan_incomplete = 0 }

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
  return string.find(name, "[%*%?%[]") ~= nil
end

-- Keys of type zset that `name` names: itself if it is an exact key, else
-- up to MAX_KEYS keys SCAN finds for the pattern, within MAX_SCANNED.
local function zsets(name)
  if not is_pattern(name) then
    local kind = redis.call("TYPE", name)
    if (kind.ok or kind) == "zset" then
      return { name }
    end
    return {}
  end
  local found, cursor, scanned = {}, "0", 0
  repeat
    local reply = redis.call("SCAN", cursor, "MATCH", name, "COUNT", SCAN_COUNT, "TYPE", "zset")
    cursor = reply[1]
    scanned = scanned + SCAN_COUNT
    for _, key in ipairs(reply[2]) do
      if #found == MAX_KEYS then
        bounds.capped = 1
        return found
      end
      found[#found + 1] = key
    end
  until cursor == "0" or scanned >= MAX_SCANNED
  if cursor ~= "0" then
    bounds.scan_incomplete = 1
  end
  return found
end

-- The part of `key` that the one `*` of `pattern` matched, or nil.
local function wildcard_part(pattern, key)
  local star = string.find(pattern, "*", 1, true)
  if not star then
    return nil
  end
  local prefix, suffix = string.sub(pattern, 1, star - 1), string.sub(pattern, star + 1)
  if #key < #prefix + #suffix or string.sub(key, 1, #prefix) ~= prefix
      or string.sub(key, #key - #suffix + 1) ~= suffix then
    return nil
  end
  return string.sub(key, #prefix + 1, #key - #suffix)
end

-- A queue's other set, named by `template` with `*` as the queue's part.
local function companion(template, part)
  if not template then
    return nil
  end
  local star = string.find(template, "*", 1, true)
  if not star or not part then
    return template
  end
  return string.sub(template, 1, star - 1) .. part .. string.sub(template, star + 1)
end

-- ---- INFO zkit ----
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
if not loaded or role ~= "master" then
  emit("zkit_exporter_keys_exported", nil, 0)
  return out
end

-- ---- Per key ----
local exported = 0

for _, entry in ipairs(QUEUES) do
  for _, queue in ipairs(zsets(entry.queue)) do
    local part = wildcard_part(entry.queue, queue)
    -- A key the pattern matches that is one of its queues' other sets.
    local is_companion = false
    for _, template in ipairs({ entry.inflight, entry.dead, entry.deliveries }) do
      if template and is_pattern(template) and wildcard_part(template, queue) then
        is_companion = true
      end
    end
    if not is_companion then
      local call = { "DELAY.STATS", queue }
      for _, option in ipairs({ { "INFLIGHT", entry.inflight }, { "DEAD", entry.dead }, { "DELIVERIES", entry.deliveries } }) do
        if option[2] then
          call[#call + 1] = option[1]
          call[#call + 1] = companion(option[2], part)
        end
      end
      local reply = redis.pcall(unpack(call))
      if type(reply) == "table" and not reply.err then
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
        exported = exported + 1
      else
        emit("zkit_exporter_key_errors", { "name", queue }, 1)
      end
    end
  end
end

for _, pattern in ipairs(BOARDS) do
  for _, board in ipairs(zsets(pattern)) do
    local reply = redis.pcall("RANK.STATS", board)
    if type(reply) == "table" and not reply.err then
      local s = fields(reply)
      emit("zkit_board_members", { "board", board }, s["members"])
      emit("zkit_board_memory_bytes", { "board", board }, s["memory-bytes"])
      for _, q in ipairs({ { "0", "bottom-total" }, { "0.5", "p50-total" }, { "0.9", "p90-total" },
          { "0.99", "p99-total" }, { "1", "top-total" } }) do
        if s[q[2]] then
          emit("zkit_board_total", { "board", board, "quantile", q[1] }, s[q[2]])
        end
      end
      exported = exported + 1
    else
      emit("zkit_exporter_key_errors", { "name", board }, 1)
    end
  end
end

for _, entry in ipairs(RATE_LOGS) do
  for _, log in ipairs(zsets(entry.log)) do
    local call = { "RATE.STATS", log, "WINDOWS" }
    for _, window in ipairs(entry.windows) do
      call[#call + 1] = window
    end
    local reply = redis.pcall(unpack(call))
    if type(reply) == "table" and not reply.err then
      local s = fields(reply)
      emit("zkit_rate_log_entries", { "log", log }, s["entries"])
      for _, pair in ipairs(s["windows"]) do
        emit("zkit_rate_window_entries", { "log", log, "window_seconds", number_text(pair[1] / 1000) }, pair[2])
      end
      exported = exported + 1
    else
      emit("zkit_exporter_key_errors", { "name", log }, 1)
    end
  end
end

for _, pattern in ipairs(SEEN_KEYS) do
  for _, seen in ipairs(zsets(pattern)) do
    -- Two members an id (the id, and the id with its arguments' digest;
    -- ids zkit 0.3.0 remembered are one): about half the members.
    emit("zkit_idmp_seen_ids", { "seen_key", seen }, math.ceil(redis.call("ZCARD", seen) / 2))
    exported = exported + 1
  end
end

emit("zkit_exporter_keys_exported", nil, exported)
-- 1 when a list named more keys than MAX_KEYS, or SCAN stopped at
-- MAX_SCANNED before the end of the keyspace: some keys went unexported.
emit("zkit_exporter_keys_capped", nil, bounds.capped)
emit("zkit_exporter_scan_incomplete", nil, bounds.scan_incomplete)
return out
