#!/usr/bin/env python3
"""Builds zkit's Functions library: functions/zkit.lua, one file that
`FUNCTION LOAD` takes on servers that refuse modules (Redis 7.0+, Valkey).

    python3 functions/gen.py                 writes functions/zkit.lua
    python3 functions/gen.py --check         fails (exit 1) when a written
                                             file differs from what it gives
    python3 functions/gen.py --test-clock OUT
                                             writes a variant for tests to OUT:
                                             its clock can be pinned with
                                             FCALL zkit_debug_clock 0 <unix-ms>,
                                             and a native call its command's
                                             natives (lua/natives.lua) do not
                                             name fails the call

The library is generated from docs/commands.json (itself generated from the
module's command declarations), so the grammar every function parses is the
module's: each command's arguments become a Lua table that the runtime's
grammar walk (functions/lua/runtime.lua, a port of src/host/grammar.rs)
reads. The commands' semantics are written by hand, one file per family in
functions/lua/, each a port of the module's handler; functions/lua/natives.lua
names the native commands each may run, which the runtime checks before it
runs (they exist, and the caller's ACL allows them on the call's keys). Every command of
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
#: The redis_exporter script holds a copy of the library between these
#: lines (its stats on servers without the module: a script cannot FCALL).
EXPORTER = ROOT / "observe" / "zkit-exporter.lua"
EXPORTER_LIBRARY_BEGINS, EXPORTER_LIBRARY_ENDS = "-- functions/zkit.lua begins\n", "-- functions/zkit.lua ends\n"
# The clients ship this file to load it (`load_functions()`): the Python
# package's data (clients/python/pyproject.toml) and clients/node's prepack
# copy it, clients/rust/src/engine.rs includes it.
# The families, in the order their files are read (each defines handlers).
SOURCES = ["runtime.lua", "natives.lua", "idmp.lua", "feed.lua", "recent.lua", "vote.lua",
           "rate.lua", "rank.lua", "merge.lua", "jobs.lua", "schedules.lua", "seasons.lua", "groups.lua", "delay.lua"]

#: The module's error texts, bounds, limits and config defaults, as the
#: module's source gives them (src/module/reference.rs writes the file).
CONSTANTS_JSON = ROOT / "docs" / "constants.json"
ZONES_JSON = ROOT / "functions" / "zones.json"

#: The module configs a library cannot read (it has no CONFIG access): their
#: defaults, which a user who changed them on the module edits at the top of
#: zkit.lua before loading it (docs/functions.md).
CONFIGS = ["tiebreak-epoch-ms", "tiebreak-span-ms", "idmp-retain-ms", "idmp-max-ids", "job-payload-max-bytes", "member-data-max-bytes",
           "dead-letters-max", "dead-letters-max-age-ms"]


def lua_value(value) -> str:
    if isinstance(value, str):
        return lua_string(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SystemExit(f"gen: no Lua value for {value!r} in docs/constants.json")
    if isinstance(value, int) and abs(value) > 1 << 53:
        raise SystemExit(f"gen: {value} is not exact in a Lua number")
    return repr(value)


def lua_table(name: str, values: dict) -> str:
    rows = "\n".join(f"  [{lua_string(k)}] = {lua_value(v)}," for k, v in values.items())
    return f"local {name} = {{\n{rows}\n}}"


def zone_tables(zones: dict) -> str:
    """The module's time zones (functions/zones.json, written by the
    module's tests from its tz database): ZONES, each name the index of its
    table in ZONE_TABLES (1-based); each table `{ records, table, record }`,
    the last two where it goes on with another table's records; the
    records' ZONE_DIGITS and ZONE_OFFSETS (schedules.lua reads them)."""
    names = "\n".join(f"  [{lua_string(name)}] = {index + 1}," for name, index in sorted(zones["zones"].items()))

    def table(t: dict) -> str:
        then = "".join(f", {n + 1}" for n in t.get("then", []))
        return f"  {{ {lua_string(t['records'])}{then} }},"
    return "\n".join([
        f"local ZONES = {{\n{names}\n}}",
        "local ZONE_TABLES = {\n" + "\n".join(table(t) for t in zones["tables"]) + "\n}",
        f"local ZONE_OFFSETS = {{ {', '.join(str(o) for o in zones['offsets'])} }}",
        f"local ZONE_DIGITS = {lua_string(zones['digits'])}",
    ])


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


# ---------------------------------------------------------------------------
# The parse of each command, generated from its declaration: required
# arguments read where they stand, each option group in one scan. It takes
# the calls it is sure of, in the values the grammar walk (runtime.lua's
# rt.parse) gives, and answers nil for anything else (an error, an unusual
# number spelling, keys FCALL did not declare), which the walk then parses
# and refuses with the module's error.


def min_width(arg: dict) -> int:
    if arg.get("optional"):
        return 0
    return (1 if "token" in arg else 0) + item_width(arg)


def item_width(arg: dict) -> int:
    kind = arg["type"]
    if kind == "pure-token":
        return 0
    if kind == "block":
        return sum(min_width(a) for a in arg["arguments"])
    if kind == "oneof":
        return min(min_width(a) for a in arg["arguments"])
    return 1


def fixed_width(arg: dict):
    """The words one item of `arg` always takes, or None when it varies."""
    kind = arg["type"]
    if kind == "pure-token":
        return 0
    if kind == "block":
        total = 0
        for part in arg["arguments"]:
            if part.get("optional") or part.get("multiple") or part["type"] == "oneof":
                return None
            width = fixed_width(part)
            if width is None:
                return None
            total += width + (1 if "token" in part else 0)
        return total
    if kind == "oneof":
        return None
    return 1


def shape_bit(target: str) -> int:
    """The bit of the argument a parse reads into `target` (v1, v2, ...) in
    the call's shape."""
    return 2 ** (int(target[1:]) - 1)


def is_option(arg: dict) -> bool:
    return bool(arg.get("optional")) and ("token" in arg or (arg["type"] == "oneof" and all(
        "token" in c for c in arg["arguments"])))


class ParserWriter:
    def __init__(self, name: str, spec: dict):
        self.name = name
        self.args = spec.get("arguments", [])
        self.lines: list[str] = []
        self.depth = 1
        self.temps = 0
        self.counters = {a["counted_by"] for a in walk_args(self.args) if "counted_by" in a}
        # Tables the parse keeps between calls: its values and its one-ofs'.
        self.kept: list[str] = ["values"]

    def fail(self, why: str):
        raise SystemExit(f"gen: {self.name}: no generated parse for {why}")

    def out(self, line: str):
        self.lines.append("  " * self.depth + line)

    def chosen(self, target: str, c: int, value: str):
        """Emits: `target`, the one-of's value `{ choice = c, value = value }`,
        in a table the parse keeps for that one-of and fills again each
        call (a one-of stands only at the top of a command's arguments)."""
        table = f"chosen_{target}"
        if table not in self.kept:
            self.kept.append(table)
        self.out(f"{table}.choice, {table}.value = {c}, {value}")
        self.out(f"{target} = {table}")

    def temp(self, stem: str) -> str:
        self.temps += 1
        return f"{stem}{self.temps}"

    def word(self) -> str:
        """Emits: the next word into `w` (nil: not a call this parse takes)."""
        self.out("w = argv[i]")
        self.out("if w == nil then return nil end")
        self.out("i = i + 1")
        return "w"

    def item(self, arg: dict, target: str):
        kind = arg["type"]
        if kind == "pure-token":
            self.out(f"{target} = true")
        elif kind == "block":
            parts = self.temp("b")
            self.out(f"local {parts} = {{}}")
            for j, part in enumerate(arg["arguments"], 1):
                if part.get("optional") or part.get("multiple") or "token" in part or part["type"] in ("oneof", "block"):
                    self.fail(f"the part {part['name']} of a block")
                self.item(part, f"{parts}[{j}]")
            self.out(f"{target} = {parts}")
        elif kind == "key":
            self.word()
            self.out("nk = nk + 1")
            self.out("if keys[nk] ~= w then return nil end")
            self.out(f"{target} = w")
        elif kind == "string":
            self.word()
            self.out(f"{target} = w")
        elif kind in ("integer", "unix-time"):
            self.word()
            self.out("if not plain_integer(w) then return nil end")
            if arg["name"] in self.counters:
                counter = counter_name(arg["name"])
                self.out(f"{counter} = tonumber(w)")
                self.out(f"if {counter} < 1 then return nil end")
            self.out(f"{target} = w")
        elif kind == "double":
            self.word()
            self.out("x = plain_double(w)")
            self.out("if x == nil then return nil end")
            self.out(f"{target} = x")
        else:
            self.fail(f"a {kind} read without its keyword")

    def items(self, arg: dict, target: str, after: int, last: bool):
        width = fixed_width(arg)
        if width is None or width < 1:
            self.fail(f"the list {arg['name']}")
        out, k, n = self.temp("l"), self.temp("k"), self.temp("n")
        self.out(f"local {out} = {{}}")
        if "counted_by" in arg:
            self.out(f"local {n} = {counter_name(arg['counted_by'])}")
            self.out(f"if {n} == nil or {n} * {width} > argc - i + 1 - {after} then return nil end")
        else:
            if not last:
                self.fail(f"the list {arg['name']} before other arguments")
            self.out(f"local {n} = argc - i + 1")
            self.out(f"if {n} < 1 or {n} % {width} ~= 0 then return nil end")
            if width > 1:
                self.out(f"{n} = {n} / {width}")
        self.out(f"for {k} = 1, {n} do")
        self.depth += 1
        self.item(arg, f"{out}[{k}]")
        self.depth -= 1
        self.out("end")
        self.out(f"{target} = {out}")

    def after_keyword(self, arg: dict, target: str, last: bool):
        if arg.get("multiple"):
            self.items(arg, target, 0, last)
        elif arg["type"] == "pure-token":
            self.out(f"{target} = true")
        else:
            self.item(arg, target)

    def keyword(self, tokens: list) -> str:
        """Emits: the next word as the keyword it spells into `u` (nil: no
        keyword)."""
        self.word()
        self.spelled(tokens)
        return "u"

    def spelled(self, tokens: list):
        """Emits: `u`, the keyword `w` spells in any case, or nil. Upper and
        lower case are looked up (`upper` costs a C call and a new string);
        other spellings as long as one of `tokens` are upper-cased."""
        lengths = " or ".join(f"#w == {n}" for n in sorted({len(token) for token in tokens}))
        self.out("u = KEYWORDS[w]")
        self.out(f"if u == nil and ({lengths}) then u = KEYWORDS[upper(w)] end")

    def required(self, arg: dict, target: str, after: int, last: bool):
        if arg["type"] == "oneof":
            self.keyword([choice.get("token", "") for choice in arg["arguments"]])
            for c, choice in enumerate(arg["arguments"], 1):
                if "token" not in choice:
                    self.fail(f"the choice {choice['name']} without a keyword")
                self.out(("if" if c == 1 else "elseif") + f" u == {lua_string(choice['token'])} then")
                self.depth += 1
                value = self.temp("c")
                self.out(f"local {value}")
                self.after_keyword(choice, value, last)
                self.chosen(target, c, value)
                self.depth -= 1
            self.out("else return nil end")
        elif "token" in arg:
            self.keyword([arg["token"]])
            self.out(f"if u ~= {lua_string(arg['token'])} then return nil end")
            self.after_keyword(arg, target, last)
        elif arg.get("multiple"):
            self.items(arg, target, after, last)
        else:
            self.item(arg, target)

    def options(self, group: list, targets: list, last: bool):
        """One scan over a group of options, in any order, each at most once."""
        for target in targets:
            self.out(f"{target} = false")
        self.out("while i <= argc do")
        self.depth += 1
        self.out("w = argv[i]")
        self.spelled([c["token"] for option in group for c in (
            option["arguments"] if option["type"] == "oneof" and "token" not in option else [option])])
        first = True
        for option, target in zip(group, targets):
            if option["type"] == "oneof" and "token" not in option:
                choices = list(enumerate(option["arguments"], 1))
            else:
                choices = [(None, option)]
            for c, choice in choices:
                self.out(("if" if first else "elseif") + f" u == {lua_string(choice['token'])} then")
                first = False
                self.depth += 1
                self.out(f"if {target} ~= false then return nil end")
                self.out(f"shape = shape + {shape_bit(target)}")
                self.out("i = i + 1")
                if c is None:
                    # The command's last argument, a list, takes every word
                    # after its keyword (DELAY.POLL's LANES), as the module's
                    # grammar does.
                    self.after_keyword(choice, target, last and option is group[-1])
                else:
                    value = self.temp("c")
                    self.out(f"local {value}")
                    self.after_keyword(choice, value, False)
                    self.chosen(target, c, value)
                self.depth -= 1
        self.out("else break end")
        self.depth -= 1
        self.out("end")

    def write(self) -> str:
        args = self.args
        targets = [f"v{i}" for i in range(1, len(args) + 1)]
        # The call's shape (runtime.lua `shape_of`): a bit per argument it
        # gives, the required ones' from the start.
        required = sum(shape_bit(target) for arg, target in zip(args, targets) if not is_option(arg))
        self.out("local argc = #argv")
        self.out(f"local i, nk, w, u, x, shape = 1, 0, nil, nil, nil, {required}")
        if self.counters:
            self.out("local " + ", ".join(counter_name(c) for c in sorted(self.counters)))
        if targets:
            self.out("local " + ", ".join(targets))
        i = 0
        while i < len(args):
            arg = args[i]
            if not is_option(arg):
                if arg.get("optional"):
                    self.fail(f"the optional {arg['name']} without a keyword")
                after = sum(min_width(a) for a in args[i + 1:])
                self.required(arg, targets[i], after, i == len(args) - 1)
                i += 1
                continue
            j = i
            while j < len(args) and is_option(args[j]):
                j += 1
            self.options(args[i:j], targets[i:j], j == len(args))
            i = j
        self.out("if i <= argc or nk ~= #keys then return nil end")
        for n, target in enumerate(targets, 1):
            self.out(f"values[{n}] = {target}")
        self.out("return values, shape")
        body = "\n".join("  " + line for line in self.lines)
        # The values come back in the same tables each call, filled again:
        # a call's garbage is what Lua collects after it, and the collector
        # marks the library's whole heap as it goes (docs/performance.md).
        # A handler reads them during its call only, and calls never nest.
        kept = ", ".join(self.kept)
        empty = ", ".join("{}" for _ in self.kept)
        return (f"(function()\n  local {kept} = {empty}\n  return function(argv, keys)\n{body}\n"
                "  end\nend)()")


def keyword_tables(commands: dict) -> str:
    """The Lua table the generated parses spell keywords with: each
    keyword's upper- and lower-case spelling."""
    keywords = sorted({a["token"] for spec in commands.values() for a in walk_args(spec.get("arguments", []))
                       if "token" in a})
    spellings = []
    for keyword in keywords:
        spellings.append(f"  [{lua_string(keyword)}] = {lua_string(keyword)},")
        if keyword.lower() != keyword:
            spellings.append(f"  [{lua_string(keyword.lower())}] = {lua_string(keyword)},")
    return "local KEYWORDS = {\n" + "\n".join(spellings) + "\n}"


def walk_args(args):
    for arg in args:
        yield arg
        yield from walk_args(arg.get("arguments", []))


def counter_name(name: str) -> str:
    return "count_" + re.sub(r"[^a-z0-9]", "_", name)


def parser(name: str, spec: dict) -> str:
    return ParserWriter(name, spec).write()


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
            body.append(text + "\n-- Each family's file adds its commands' handlers here, natives.lua the\n"
                        "-- native commands each may run.\nlocal handlers = {}\nlocal natives = {}\n")
        else:
            body.append(f"-- {source} " + "-" * (73 - len(source)) + "\ndo\n" + text + "end\n")
    sources = "\n".join(body)

    declarations = []
    parses = []
    registrations = []
    for name, spec in commands.items():
        lower = name.lower()
        args = ",\n".join("  " + lua_arg(a, "  ") for a in spec.get("arguments", []))
        declarations.append(
            f"COMMANDS[{lua_string(lower)}] = rt.declare({lua_string(lower)}, {{\n{args},\n}}, {spec['arity']}, "
            f"natives[{lua_string(lower)}])"
        )
        if not is_scriptable(spec):
            continue
        parses.append(f"PARSES[{lua_string(lower)}] = {parser(name, spec)}")
        if f"handlers[{lua_string(lower)}]" not in sources:
            raise SystemExit(f"gen: no handler for {name} in functions/lua/")
        if f"natives[{lua_string(lower)}] =" not in sources:
            raise SystemExit(f"gen: no natives for {name} in functions/lua/natives.lua")
        flags = ", ".join(lua_string(f) for f in function_flags(spec))
        registrations.append(
            "redis.register_function({\n"
            f"  function_name = {lua_string(function_name(name))},\n"
            f"  callback = rt.entry(COMMANDS[{lua_string(lower)}], handlers[{lua_string(lower)}], "
            f"PARSES[{lua_string(lower)}]),\n"
            f"  flags = {{ {flags} }},\n"
            f"  description = {lua_string(name + ': ' + spec['summary'])},\n"
            "})"
        )

    scriptable = {lua_string(name.lower()) for name, spec in commands.items() if is_scriptable(spec)}
    for named in re.findall(r"^natives\[('[^']*')\] =", sources, re.M):
        if named not in scriptable:
            raise SystemExit(f"gen: natives for {named}, which is no command a function runs")

    constants = json.loads(CONSTANTS_JSON.read_text())
    configs = "\n".join(f"  [{lua_string(k)}] = {lua_value(constants['configs'][k])}," for k in CONFIGS)
    module_values = "\n".join([lua_table(name.upper(), constants[name]) for name in ("errors", "bounds", "limits")]
                              + [zone_tables(json.loads(ZONES_JSON.read_text()))])
    text_version = version()
    test_hook = ""
    if test_clock:
        test_hook = TEST_CLOCK
    core = "\n".join([
        "-- The module's texts, bounds, limits (docs/constants.json) and time zones (functions/zones.json) " + "-" * 4,
        module_values,
        "",
        sources,
        "-- The declarations (docs/commands.json) " + "-" * 37,
        "local COMMANDS = {}",
        "\n".join(declarations),
        "",
        "-- Each command's parse, generated from its declaration " + "-" * 21,
        "local PARSES = {}",
        keyword_tables(commands),
        "\n".join(parses),
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

TEST_CLOCK = """-- Tests only (functions/gen.py --test-clock): a clock tests pin, and every
-- native call audited against its command's natives ----------------------
rt.audit_natives()
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


def exporter_with(library_text: str) -> str:
    """The exporter script holding `library_text` (without its first line,
    `#!lua name=zkit`, which is FUNCTION LOAD's alone)."""
    head, rest = EXPORTER.read_text().split(EXPORTER_LIBRARY_BEGINS, 1)
    tail = rest.split(EXPORTER_LIBRARY_ENDS, 1)[1]
    body = library_text.split("\n", 1)[1]
    return head + EXPORTER_LIBRARY_BEGINS + body + EXPORTER_LIBRARY_ENDS + tail


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--test-clock":
        pathlib.Path(argv[1]).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(argv[1]).write_text(library(test_clock=True))
        return 0
    text = library()
    targets = {LIBRARY: text, EXPORTER: exporter_with(text)}
    if argv == ["--check"]:
        stale = [str(t.relative_to(ROOT)) for t, want in targets.items() if not t.exists() or t.read_text() != want]
        if stale:
            print("gen: not what functions/lua and docs/commands.json give (run make functions): "
                  + ", ".join(stale), file=sys.stderr)
            return 1
        print("gen: functions/zkit.lua and the exporter's copy are current")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    for target, want in targets.items():
        target.write_text(want)
    print(f"gen: wrote {', '.join(str(t.relative_to(ROOT)) for t in targets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
