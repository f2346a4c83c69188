#!/usr/bin/env python3
"""Generates the Python and Node clients' command tables from docs/commands.json.

    python3 scripts/gen-clients.py          writes the tables
    python3 scripts/gen-clients.py --check  fails (exit 1, with a diff) when a
                                            committed table differs from what
                                            docs/commands.json gives; `make lint`
                                            and scripts/test-clients.sh run it

docs/commands.json is itself generated from the command declarations
(`ZKIT_REGENERATE=1 cargo test --lib reference`), so the declaration is the
one source of every call the clients send: argument order, tokens, which
arguments are keys (routing, keyPrefix, the same-slot check), which
commands only read. Written here by hand is only what commands.json cannot
say: the reply shape of each command (REPLY_SHAPES, COMMAND_REPLIES) and
how a client takes a few arguments (NODE_OPTION_NAMES, NODE_FIELD_NAMES,
PYTHON_MAPPINGS, NODE_INLINE_BLOCKS), which keeps the methods' signatures
as they were.

Each argument of commands.json becomes one part of a command's layout:

    key (no token)                    a positional key
    string/integer/double/unix-time   a positional value
    oneof of pure tokens, required    a positional value (VOTE.CAST's UP/DOWN/CLEAR)
    integer, then keys (multiple)     a list of keys sent as `numkeys key...`
    TOKEN value... (multiple)         a list of values after its keyword
    block (multiple, no token)        a list of tuples sent flat
    pure-token, optional              a flag, sent when true
    TOKEN value, TOKEN block          an option, sent when given
    TOKEN value... (optional)         an option taking a list (WEIGHTS)
    oneof, optional                   its alternatives, each a flag or an option

Anything else stops the generator with an error naming the argument: a new
kind of grammar needs a new kind of part in both clients, not a guess.
"""

from __future__ import annotations

import difflib
import json
import pathlib
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMANDS_JSON = ROOT / "docs" / "commands.json"
PYTHON_TABLE = ROOT / "clients" / "python" / "src" / "zkit" / "commands.py"
NODE_TABLE = ROOT / "clients" / "node" / "src" / "table.ts"

# --- Written by hand: what commands.json cannot express -------------------

#: Reply shapes, each with its parser in zkit/replies.py and src/replies.ts.
REPLY_SHAPES: Dict[str, Tuple[str, str]] = {
    "integer": ("parse_int", "parseNumber"),
    "boolean": ("parse_bool", "parseBoolean"),
    "total-rank": ("parse_total_rank", "parseTotalRank"),
    "total-ranks": ("parse_total_ranks", "parseTotalRanks"),
    "rank-info-or-nil": ("parse_rank_info", "parseRankInfo"),
    "rank-infos": ("parse_rank_infos", "parseRankInfos"),
    "rank-entries": ("parse_rank_entries", "parseRankEntries"),
    "feed-page": ("parse_feed_page", "parseFeedPage"),
    "tasks-or-nil": ("parse_tasks", "parseTasks"),
    "rate": ("parse_rate", "parseRate"),
    "vote": ("parse_vote", "parseVote"),
}

#: The reply shape of every command of commands.json (docs/commands.md, "Reply").
COMMAND_REPLIES: Dict[str, str] = {
    "RANK.GIFT": "total-rank",
    "RANK.SET": "total-rank",
    "RANK.GET": "rank-info-or-nil",
    "RANK.TOP": "rank-entries",
    "RANK.AROUND": "rank-entries",
    "RANK.MERGE": "integer",
    "RANK.MGIFT": "total-ranks",
    "RANK.MGET": "rank-infos",
    "FEED.ADD": "integer",
    "FEED.PAGE": "feed-page",
    "DELAY.POLL": "tasks-or-nil",
    "DELAY.BPOLL": "tasks-or-nil",
    "DELAY.ACK": "integer",
    "DELAY.NACK": "boolean",
    "DELAY.TOUCH": "boolean",
    "RATE.HIT": "rate",
    "RECENT.ADD": "integer",
    "VOTE.CAST": "vote",
    "VOTE.STATE": "integer",
}

#: Node option names that are not the token in lower case.
NODE_OPTION_NAMES: Dict[str, str] = {"DEADLETTER": "deadLetter"}

#: Node names of an option's fields that are not commands.json's names in
#: camelCase, by (token, argument name): the lease's and the window's keys
#: have always been `key`.
NODE_FIELD_NAMES: Dict[Tuple[str, str], str] = {("LEASE", "inflight"): "key", ("WINDOW", "times"): "key"}

#: Options with several fields Node takes as a tuple in field order, not an
#: object: `idmp: [seenKey, eventId]`, as Python's `idmp=(seen_key, event_id)`.
NODE_TUPLE_OPTIONS = {"IDMP"}

#: Block lists Python takes as a mapping, by command: FEED.ADD's
#: `score member` pairs as {member: score}, as redis-py's zadd takes them.
PYTHON_MAPPINGS = {"FEED.ADD"}

#: Block lists Node also takes as one block's fields in place of the array:
#: rateHit(key, windowMs, limit) beside rateHit(key, [{ windowMs, limit }, ...]).
NODE_INLINE_BLOCKS = {"RATE.HIT"}

# --- From commands.json ---------------------------------------------------

SCALARS = {"string", "integer", "double", "unix-time"}


class GrammarError(Exception):
    pass


@dataclass(frozen=True)
class Field:
    name: str
    is_key: bool


@dataclass(frozen=True)
class Part:
    """One part of a layout; ``kind`` is key, arg, keys, values, blocks, option or flag."""

    kind: str
    name: str = ""
    token: str = ""
    fields: Tuple[Field, ...] = ()
    variadic: bool = False


@dataclass(frozen=True)
class Spec:
    command: str
    readonly: bool
    layout: Tuple[Part, ...]
    reply: str


def camel(name: str) -> str:
    head, *rest = name.replace("_", "-").split("-")
    return head + "".join(word.capitalize() for word in rest)


def _option(command: str, arg: dict) -> Part:
    where = f"{command} {arg['name']}"
    token = arg["token"]
    if arg["type"] == "block":
        fields = []
        for child in arg["arguments"]:
            if child.get("token") or child.get("optional") or child.get("multiple"):
                raise GrammarError(f"{where}: a field of an option must be a plain key or value")
            if child["type"] not in SCALARS | {"key"}:
                raise GrammarError(f"{where}: field {child['name']} of type {child['type']}")
            fields.append(Field(child["name"], child["type"] == "key"))
        return Part("option", token.lower(), token, tuple(fields))
    if arg["type"] == "key" or arg["type"] in SCALARS:
        return Part("option", token.lower(), token, (Field(arg["name"], arg["type"] == "key"),), bool(arg.get("multiple")))
    raise GrammarError(f"{where}: an option of type {arg['type']}")


def layout_of(command: str, arguments: List[dict]) -> Tuple[Part, ...]:
    parts: List[Part] = []
    i = 0
    while i < len(arguments):
        arg = arguments[i]
        kind, token = arg["type"], arg.get("token")
        optional, multiple = bool(arg.get("optional")), bool(arg.get("multiple"))
        where = f"{command} {arg['name']}"
        following = arguments[i + 1] if i + 1 < len(arguments) else {}
        if kind == "integer" and not (token or optional or multiple) and following.get("type") == "key" and following.get("multiple"):
            parts.append(Part("keys", following["name"]))  # numkeys key [key ...]
            i += 2
            continue
        if optional and kind == "pure-token":
            parts.append(Part("flag", token.lower(), token))
        elif optional and kind == "oneof":
            for alternative in arg["arguments"]:
                if alternative["type"] == "pure-token":
                    parts.append(Part("flag", alternative["token"].lower(), alternative["token"]))
                elif alternative.get("token"):
                    parts.append(_option(command, alternative))
                else:
                    raise GrammarError(f"{where}: an alternative without a token")
        elif optional and token:
            parts.append(_option(command, arg))
        elif optional:
            raise GrammarError(f"{where}: an optional argument without a token")
        elif kind == "oneof" and all(a["type"] == "pure-token" for a in arg["arguments"]) and not (token or multiple):
            parts.append(Part("arg", arg["name"]))
        elif kind == "key" and not (token or multiple):
            parts.append(Part("key", arg["name"]))
        elif kind in SCALARS and not (token or multiple):
            parts.append(Part("arg", arg["name"]))
        elif kind in SCALARS and token and multiple:
            parts.append(Part("values", arg["name"], token))
        elif kind == "block" and multiple and not token:
            fields = tuple(Field(child["name"], False) for child in arg["arguments"])
            if any(child["type"] not in SCALARS or child.get("token") or child.get("optional") for child in arg["arguments"]):
                raise GrammarError(f"{where}: a repeated block may hold plain values only")
            parts.append(Part("blocks", arg["name"], fields=fields))
        else:
            raise GrammarError(f"{where}: no client part for type {kind}, token {token}, multiple {multiple}")
        i += 1
    return tuple(parts)


def key_arguments(arguments: List[dict]) -> List[int]:
    found = []
    for arg in arguments:
        if "key_spec_index" in arg:
            found.append(arg["key_spec_index"])
        found.extend(key_arguments(arg.get("arguments", [])))
    return found


def specs_of(commands: dict) -> List[Spec]:
    if set(commands) != set(COMMAND_REPLIES):
        missing, extra = sorted(set(commands) - set(COMMAND_REPLIES)), sorted(set(COMMAND_REPLIES) - set(commands))
        raise GrammarError(f"COMMAND_REPLIES must name every command of commands.json: missing {missing}, not commands {extra}")
    specs = []
    for name, doc in commands.items():
        # Every key spec is found from an argument: the clients route by the
        # key arguments, and the server by the key specs.
        if sorted(set(key_arguments(doc["arguments"]))) != list(range(len(doc["key_specs"]))):
            raise GrammarError(f"{name}: the key arguments do not cover the key specs one to one")
        readonly = "READONLY" in doc["command_flags"]
        specs.append(Spec(name, readonly, layout_of(name, doc["arguments"]), COMMAND_REPLIES[name]))
    return specs


# --- Python ---------------------------------------------------------------

#: What zkit.layout offers the table.
LAYOUT_NAMES = ("KEY", "VALUE", "Arg", "Args", "Flag", "Key", "Keys", "Option", "Pairs", "ScoredMembers")

PYTHON_HEADER = '''\
# Generated by scripts/gen-clients.py from docs/commands.json: do not edit.
# Regenerate with `python3 scripts/gen-clients.py`; `make lint` checks it.
"""The table of zkit commands: each command's layout in argument order
(which arguments are keys, which are values, the options and their
tokens) and the parser of its reply, generated from the command
declarations (docs/commands.json). ``zkit.layout`` turns a method's
arguments into a call with it.
"""

from . import replies
from .layout import {names}

COMMANDS = table(
'''


def python_part(spec: Spec, part: Part) -> str:
    name = part.name.replace("-", "_")
    if part.kind == "key":
        return f'Key("{name}")'
    if part.kind == "arg":
        return f'Arg("{name}")'
    if part.kind == "keys":
        return f'Keys("{name}")'
    if part.kind == "values":
        return f'Args("{name}", "{part.token}")'
    if part.kind == "blocks":
        if len(part.fields) != 2:
            raise GrammarError(f"{spec.command} {part.name}: the Python client takes blocks of two values only")
        if spec.command in PYTHON_MAPPINGS:
            return f'ScoredMembers("{name}")'
        return f'Pairs("{name}")'
    if part.kind == "flag":
        return f'Flag("{part.name}", "{part.token}")'
    roles = ", ".join("KEY" if field.is_key else "VALUE" for field in part.fields)
    if part.variadic:
        return f'Option("{part.name}", "{part.token}", variadic=True)'
    if roles == "VALUE":
        return f'Option("{part.name}", "{part.token}")'
    return f'Option("{part.name}", "{part.token}", ({roles}{"," if len(part.fields) == 1 else ""}))'


def python_table(specs: List[Spec]) -> str:
    lines = []
    for spec in specs:
        lines.append("    Command(\n")
        lines.append(f'        "{spec.command}",\n')
        lines.append("        (\n")
        lines.extend(f"            {python_part(spec, part)},\n" for part in spec.layout)
        lines.append("        ),\n")
        lines.append(f"        replies.{REPLY_SHAPES[spec.reply][0]},\n")
        lines.append("    ),\n")
    lines.append(")\n")
    body = "".join(lines)
    # Import what the table uses, in isort's order (constants, classes, functions).
    used = {name for name in LAYOUT_NAMES if re.search(rf"\b{name}\(|\b{name}\b(?=[,)])", body)} | {"Command", "table"}
    names = sorted(used, key=lambda name: (not name.isupper(), not name[0].isupper(), name))
    return PYTHON_HEADER.format(names=", ".join(names)) + body


# --- Node -----------------------------------------------------------------

NODE_HEADER = """\
// Generated by scripts/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen-clients.py`; `make lint` checks it.
// The table of zkit commands: each command's layout in argument order
// (which arguments are keys, which are values, the options and their
// tokens), whether it only reads, and the parser of its reply, generated
// from the command declarations. buildCall (commands.ts) turns a method's
// arguments into a call with it.

import type { CommandSpec } from './commands';
import * as replies from './replies';

export const COMMANDS = {
"""


def node_part(spec: Spec, part: Part) -> str:
    if part.kind in ("key", "arg", "keys"):
        return f"{{ kind: '{part.kind}' }}"
    if part.kind == "values":
        return f"{{ kind: 'args', token: '{part.token}' }}"
    if part.kind == "blocks":
        fields = ", ".join(f"'{camel(field.name)}'" for field in part.fields)
        inline = ", inline: true" if spec.command in NODE_INLINE_BLOCKS else ""
        return f"{{ kind: 'blocks', fields: [{fields}]{inline} }}"
    name = NODE_OPTION_NAMES.get(part.token, part.name)
    if part.kind == "flag":
        return f"{{ kind: 'flag', name: '{name}', token: '{part.token}' }}"
    if part.variadic:
        fields = "'variadic'"
    elif len(part.fields) == 1:
        fields = f"[{{ name: '', isKey: {str(part.fields[0].is_key).lower()} }}]"
    else:
        named = (
            f"{{ name: '{NODE_FIELD_NAMES.get((part.token, field.name), camel(field.name))}', isKey: {str(field.is_key).lower()} }}"
            for field in part.fields
        )
        fields = f"[{', '.join(named)}]"
        if part.token in NODE_TUPLE_OPTIONS:
            fields += ", tuple: true"
    return f"{{ kind: 'option', name: '{name}', token: '{part.token}', fields: {fields} }}"


def node_table(specs: List[Spec]) -> str:
    lines = [NODE_HEADER]
    for spec in specs:
        lines.append(f"  {camel(spec.command.lower().replace('.', '-'))}: {{\n")
        lines.append(f"    command: '{spec.command}',\n")
        lines.append(f"    readonly: {str(spec.readonly).lower()},\n")
        lines.append("    layout: [\n")
        lines.extend(f"      {node_part(spec, part)},\n" for part in spec.layout)
        lines.append("    ],\n")
        lines.append(f"    parse: replies.{REPLY_SHAPES[spec.reply][1]},\n")
        lines.append("  },\n")
    lines.append("} satisfies Record<string, CommandSpec>;\n")
    return "".join(lines)


# --- Main -----------------------------------------------------------------


def generated() -> Dict[pathlib.Path, str]:
    specs = specs_of(json.loads(COMMANDS_JSON.read_text()))
    return {PYTHON_TABLE: python_table(specs), NODE_TABLE: node_table(specs)}


def main(argv: List[str]) -> int:
    if argv not in ([], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        files = generated()
    except GrammarError as error:
        print(f"gen-clients: {error}", file=sys.stderr)
        return 1
    stale = 0
    for path, text in files.items():
        shown = path.relative_to(ROOT)
        current: Optional[str] = path.read_text() if path.exists() else None
        if current == text:
            continue
        if argv == ["--check"]:
            stale += 1
            diff = difflib.unified_diff((current or "").splitlines(True), text.splitlines(True), f"{shown} (committed)", f"{shown} (from docs/commands.json)")
            sys.stderr.writelines(diff)
        else:
            path.write_text(text)
            print(f"gen-clients: wrote {shown}")
    if stale:
        print(f"gen-clients: {stale} generated file(s) differ from docs/commands.json; run python3 scripts/gen-clients.py and commit", file=sys.stderr)
        return 1
    if argv == ["--check"]:
        print(f"gen-clients: {len(files)} generated tables match docs/commands.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
