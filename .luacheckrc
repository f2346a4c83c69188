-- luacheck's policy for the hand-written Lua (make lint runs it:
-- scripts/check/lint.sh says which files): functions/lua/*.lua, which
-- functions/gen.py joins into functions/zkit.lua, and observe/zkit-exporter.lua
-- outside its copy of that library (the file turns luacheck off around it).

-- Lua 5.1 as Redis and Valkey embed it, with the globals a script or a
-- function is given.
std = "lua51"
read_globals = { "redis", "KEYS", "ARGV", "cjson", "cmsgpack", "bit", "struct" }
-- Lines are as long as the code they hold reads best (ruff.toml says the
-- same of Python).
max_line_length = false
-- The ports write `not (x > y)` on purpose: unlike `x <= y` it holds for NaN,
-- which `tonumber` reads from "nan": a NaN is refused like any value out of range.
ignore = { "581" }

-- gen.py puts runtime.lua first, at the top of the library, after the values
-- it writes from docs/constants.json and functions/zones.json (VERSION,
-- CONFIG, ERRORS, BOUNDS, LIMITS, ZONES, ZONE_TABLES, ZONE_OFFSETS,
-- ZONE_DIGITS) and before `local handlers, natives`; then each family's file
-- inside a `do ... end` of its own, which sees those locals and fills in
-- handlers and natives.
files["functions/lua/runtime.lua"] = {
  read_globals = { "VERSION", "CONFIG", "ERRORS", "BOUNDS", "LIMITS", "ZONES", "ZONE_TABLES", "ZONE_OFFSETS", "ZONE_DIGITS" },
  -- The parses gen.py writes from the declarations call these.
  ignore = { "211/plain_integer", "211/plain_double" },
}
files["functions/lua/*.lua"] = {
  read_globals = { "VERSION", "CONFIG", "ERRORS", "BOUNDS", "LIMITS", "ZONES", "ZONE_TABLES", "ZONE_OFFSETS", "ZONE_DIGITS" },
  globals = { "handlers", "natives", "rt" },
}
