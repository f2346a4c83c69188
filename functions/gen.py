#!/usr/bin/env python3
"""Builds zkit's Functions library: functions/zkit.lua, one file that
`FUNCTION LOAD` takes on servers that refuse modules (Redis 7.0+, Valkey).

    python3 functions/gen.py                 writes functions/zkit.lua
    python3 functions/gen.py --check         fails (exit 1) when a written
                                             file differs from what it gives
    python3 functions/gen.py --test-clock OUT
                                             writes a variant for tests to OUT:
                                             its clock can be pinned with
                                             FCALL zkit_debug_clock 0 <unix-ms>

The library is generated from docs/commands.json (itself generated from the
module's command declarations), so the grammar every function parses is the
module's: each command's arguments become a Lua table that the runtime's
grammar walk (functions/lua/runtime.lua, a port of src/host/grammar.rs)
reads. The commands' semantics are written by hand, one file per family in
functions/lua/, each a port of the module's handler. Every command of
commands.json gets a function, `zkit_<family>_<verb>`, except the blocking
ones (DELAY.BPOLL): a script cannot block.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HERE = ROOT / "functions"
COMMANDS_JSON = ROOT / "docs" / "commands.json"
LIBRARY = HERE / "zkit.lua"
# The clients ship this file to load it (`load_functions()`): their package
# builds copy it (clients/python/setup.py, clients/node's prepack) or
# include it (clients/rust/src/engine.rs).
# The families, in the order their files are read (each defines handlers).
SOURCES = ["runtime.lua", "idmp.lua", "feed.lua", "recent.lua", "vote.lua",
           "rate.lua", "rank.lua", "merge.lua", "delay.lua"]

#: The module configs a library cannot read (it has no CONFIG access): their
#: defaults, which a user who changed them on the module edits at the top of
#: zkit.lua before loading it (docs/functions.md).
CONFIGS = [
    ("tiebreak-epoch-ms", 1704067200000),
    ("tiebreak-span-ms", 1 << 41),
    ("idmp-retain-ms", 24 * 60 * 60 * 1000),
    ("idmp-max-ids", 1_000_000),
]


def version() -> str:
    text = (ROOT / "Cargo.toml").read_text()
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def lua_string(text: str) -> str:
    if re.fullmatch(r"[ -~]*", text) is None:
        raise SystemExit(f"gen: non-ASCII text in a declaration: {text!r}")
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lua_arg(arg: dict, indent: str) -> str:
    fields = [f"name = {lua_string(arg['name'])}", f"kind = {lua_string(arg['type'])}"]
    if "token" in arg:
        fields.append(f"token = {lua_string(arg['token'])}")
    if arg.get("optional"):
        fields.append("optional = true")
    if arg.get("multiple"):
        fields.append("multiple = true")
    if "counted_by" in arg:
        fields.append(f"counted_by = {lua_string(arg['counted_by'])}")
    if "arguments" in arg:
        inner = indent + "  "
        parts = ",\n".join(inner + lua_arg(a, inner) for a in arg["arguments"])
        fields.append("args = {\n" + parts + ",\n" + indent + "}")
    return "{ " + ", ".join(fields) + " }"


def function_name(command: str) -> str:
    return "zkit_" + command.lower().replace(".", "_")


def is_scriptable(spec: dict) -> bool:
    """Whether a script can run the command: not one that blocks."""
    return "BLOCKING" not in spec["command_flags"]


def function_flags(spec: dict) -> list[str]:
    flags = spec["command_flags"]
    if "READONLY" in flags:
        return ["no-writes"]
    # Writes the module lets through under maxmemory (draining a queue frees
    # memory) run there as functions too.
    if "DENYOOM" not in flags:
        return ["allow-oom"]
    return []


def library(test_clock: bool = False) -> str:
    commands = json.loads(COMMANDS_JSON.read_text())
    body = []
    for source in SOURCES:
        text = (HERE / "lua" / source).read_text()
        if source == "runtime.lua":
            body.append(text + "\n-- Each family's file adds its commands' handlers here.\nlocal handlers = {}\n")
        else:
            body.append(f"-- {source} " + "-" * (73 - len(source)) + "\ndo\n" + text + "end\n")
    sources = "\n".join(body)

    declarations = []
    registrations = []
    for name, spec in commands.items():
        lower = name.lower()
        args = ",\n".join("  " + lua_arg(a, "  ") for a in spec.get("arguments", []))
        declarations.append(
            f"COMMANDS[{lua_string(lower)}] = rt.declare({lua_string(lower)}, {{\n{args},\n}}, {spec['arity']})"
        )
        if not is_scriptable(spec):
            continue
        if f"handlers[{lua_string(lower)}]" not in sources:
            raise SystemExit(f"gen: no handler for {name} in functions/lua/")
        flags = ", ".join(lua_string(f) for f in function_flags(spec))
        registrations.append(
            "redis.register_function({\n"
            f"  function_name = {lua_string(function_name(name))},\n"
            f"  callback = rt.entry(COMMANDS[{lua_string(lower)}], handlers[{lua_string(lower)}]),\n"
            f"  flags = {{ {flags} }},\n"
            f"  description = {lua_string(name + ': ' + spec['summary'])},\n"
            "})"
        )

    configs = "\n".join(f"  [{lua_string(k)}] = {v}," for k, v in CONFIGS)
    text_version = version()
    test_hook = ""
    if test_clock:
        test_hook = TEST_CLOCK
    core = "\n".join([
        sources,
        "-- The declarations (docs/commands.json) " + "-" * 37,
        "local COMMANDS = {}",
        "\n".join(declarations),
        "",
        test_hook,
        "-- The functions " + "-" * 59,
        "\n".join(registrations),
        "",
    ])
    # The version a client compares before loading: the release, and a
    # digest of this file's code, so that two builds differ when the code does.
    digest = hashlib.sha256((configs + core).encode()).hexdigest()[:12]
    library_version = f"{text_version}+{digest}" + ("-test-clock" if test_clock else "")
    return HEADER.format(version=library_version, configs=configs) + core + VERSION_FUNCTION


HEADER = """#!lua name=zkit
-- zkit {version} as a Functions library, for Redis 7.0+ and Valkey servers
-- that do not load modules. Load it with
--     redis-cli -x FUNCTION LOAD REPLACE < zkit.lua
-- and call a command as FCALL zkit_<family>_<verb> <numkeys> <keys...>
-- <the command's arguments>: `FCALL zkit_rank_gift 1 board board alice 100`.
-- Generated by functions/gen.py from docs/commands.json and
-- functions/lua/*.lua: edit those, not this file (docs/functions.md).

local VERSION = '{version}'

-- The module's configs, which a function cannot read: if your module runs
-- with other values (CONFIG SET zkit.<name>), set the same here.
local CONFIG = {{
{configs}
}}

"""

VERSION_FUNCTION = """
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
"""

TEST_CLOCK = """-- Tests only (functions/gen.py --test-clock): a clock tests pin -----------
do
  local pinned_ms = nil
  rt.now_ms = function()
    return pinned_ms or rt.server_now_ms()
  end
  redis.register_function({
    function_name = 'zkit_debug_clock',
    callback = function(_, args)
      local ms = tonumber(args[1])
      pinned_ms = (ms and ms >= 0) and ms or nil
      return { ok = 'OK' }
    end,
    flags = { 'no-writes' },
  })
end
"""


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--test-clock":
        pathlib.Path(argv[1]).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(argv[1]).write_text(library(test_clock=True))
        return 0
    text = library()
    targets = [LIBRARY]
    if argv == ["--check"]:
        stale = [str(t.relative_to(ROOT)) for t in targets if not t.exists() or t.read_text() != text]
        if stale:
            print("gen: not what functions/lua and docs/commands.json give (run make functions): "
                  + ", ".join(stale), file=sys.stderr)
            return 1
        print("gen: functions/zkit.lua is current")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    for target in targets:
        target.write_text(text)
    print(f"gen: wrote {', '.join(str(t.relative_to(ROOT)) for t in targets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
