#!/usr/bin/env python3
"""Generates the Python, Node and Rust clients' command tables from docs/commands.json.

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
as they were. The Rust client's methods themselves are generated (Rust has
no keyword arguments to lay out at run time): one per command, with an
options struct per command that has options, and one more for an option
that changes the reply's shape (RUST_REPLY_OPTIONS: `rank_gift_idmp`,
`rank_merge_step`), so each method has one reply type.

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
RUST_TABLE = ROOT / "clients" / "rust" / "src" / "commands.rs"

# --- Written by hand: what commands.json cannot express -------------------

#: Reply shapes, each with its parser in zkit/replies.py and src/replies.ts,
#: and its Rust type (clients/rust/src/replies.rs parses it).
REPLY_SHAPES: Dict[str, Tuple[str, str, str]] = {
    "integer": ("parse_int", "parseNumber", "i64"),
    # RANK.MERGE: the member count, or [cursor, staged] for a STEP call.
    "merge": ("parse_merge", "parseMerge", "i64"),
    "boolean": ("parse_bool", "parseBoolean", "bool"),
    "total-rank": ("parse_total_rank", "parseTotalRank", "TotalRank"),
    "total-ranks": ("parse_total_ranks", "parseTotalRanks", "Vec<TotalRank>"),
    "rank-info-or-nil": ("parse_rank_info", "parseRankInfo", "Option<RankInfo>"),
    "rank-infos": ("parse_rank_infos", "parseRankInfos", "Vec<Option<RankInfo>>"),
    "rank-entries": ("parse_rank_entries", "parseRankEntries", "Vec<RankEntry>"),
    "feed-page": ("parse_feed_page", "parseFeedPage", "FeedPage"),
    "tasks-or-nil": ("parse_tasks", "parseTasks", "Option<Vec<Task>>"),
    "rate": ("parse_rate", "parseRate", "RateResult"),
    "vote": ("parse_vote", "parseVote", "VoteResult"),
    # The stats commands: a field list, read by name.
    "delay-stats": ("parse_delay_stats", "parseDelayStats", "DelayStats"),
    "board-stats": ("parse_board_stats", "parseBoardStats", "BoardStats"),
    "rate-stats": ("parse_rate_stats", "parseRateStats", "RateStats"),
}

#: Rust reply types narrower than their shape: DELAY.POLL never answers nil
#: (only DELAY.BPOLL does, on timeout).
RUST_REPLY_TYPES: Dict[str, str] = {"DELAY.POLL": "Vec<Task>"}


@dataclass(frozen=True)
class RustReplyOption:
    """An option that changes the shape of its command's reply. A Rust
    method has one reply type, so the option gets a method of its own,
    named with ``suffix`` (``rank_gift_idmp``): it takes the option as a
    required argument of type ``struct`` (the option's fields, and those
    of the ``companions``, options that are only valid with it) and
    returns ``reply`` (``{}`` is the command's usual reply type). The
    method without the suffix sends neither."""

    suffix: str
    struct: str
    reply: str
    #: The method's doc, after a link to the method without the option.
    doc: str
    #: The argument struct's doc.
    about: str
    companions: Tuple[str, ...] = ()


#: By token. IDMP adds the "already applied" flag as the reply's last
#: element (`Applied` in replies.rs); RETAIN only goes with it. STEP replies
#: [cursor, staged] in place of the member count (`MergeStep`).
RUST_REPLY_OPTIONS: Dict[str, RustReplyOption] = {
    "IDMP": RustReplyOption(
        "idmp",
        "Idmp",
        "Applied<{}>",
        "applied once per event id ([`Idmp`]): the reply says whether the id was already applied ([`Applied`]).",
        "A write applies once per event id: sent again with the same id and arguments, it changes nothing "
        "and says so. The seen-key shares the hash slot of the command's keys.",
        ("RETAIN",),
    ),
    "STEP": RustReplyOption(
        "step",
        "Step",
        "MergeStep",
        "one step of a merge in steps ([`Step`]): the cursor to send next and the members staged ([`MergeStep`]).",
        "Each step merges the next `count` entries into `staging` (a key of its own, in the hash slot of "
        'the others); start with cursor `"0"`, then send the cursor each reply returns, until it is `"0"`.',
    ),
}

#: The reply shape of every command of commands.json (docs/commands.md, "Reply").
COMMAND_REPLIES: Dict[str, str] = {
    "RANK.GIFT": "total-rank",
    "RANK.SET": "total-rank",
    "RANK.GET": "rank-info-or-nil",
    "RANK.TOP": "rank-entries",
    "RANK.AROUND": "rank-entries",
    "RANK.MERGE": "merge",
    "RANK.MGIFT": "total-ranks",
    "RANK.MGET": "rank-infos",
    "RANK.STATS": "board-stats",
    "FEED.ADD": "integer",
    "FEED.PAGE": "feed-page",
    "DELAY.POLL": "tasks-or-nil",
    "DELAY.BPOLL": "tasks-or-nil",
    "DELAY.ACK": "integer",
    "DELAY.NACK": "boolean",
    "DELAY.TOUCH": "boolean",
    "DELAY.STATS": "delay-stats",
    "RATE.HIT": "rate",
    "RATE.STATS": "rate-stats",
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
    type: str = "string"


@dataclass(frozen=True)
class Part:
    """One part of a layout; ``kind`` is key, arg, keys, values, blocks, option or flag."""

    kind: str
    name: str = ""
    token: str = ""
    fields: Tuple[Field, ...] = ()
    variadic: bool = False
    #: The argument's type in commands.json (key and arg parts, lists of
    #: values); for a choice of pure tokens, "oneof" and its ``tokens``.
    type: str = ""
    tokens: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    command: str
    readonly: bool
    layout: Tuple[Part, ...]
    reply: str
    summary: str = ""


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
            fields.append(Field(child["name"], child["type"] == "key", child["type"]))
        return Part("option", token.lower(), token, tuple(fields))
    if arg["type"] == "key" or arg["type"] in SCALARS:
        return Part("option", token.lower(), token, (Field(arg["name"], arg["type"] == "key", arg["type"]),), bool(arg.get("multiple")))
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
            parts.append(Part("arg", arg["name"], type="oneof", tokens=tuple(a["token"] for a in arg["arguments"])))
        elif kind == "key" and not (token or multiple):
            parts.append(Part("key", arg["name"], type="key"))
        elif kind in SCALARS and not (token or multiple):
            parts.append(Part("arg", arg["name"], type=kind))
        elif kind in SCALARS and token and multiple:
            parts.append(Part("values", arg["name"], token, type=kind))
        elif kind == "block" and multiple and not token:
            fields = tuple(Field(child["name"], False, child["type"]) for child in arg["arguments"])
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
        specs.append(Spec(name, readonly, layout_of(name, doc["arguments"]), COMMAND_REPLIES[name], doc.get("summary", "")))
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


# --- Rust -----------------------------------------------------------------

RUST_HEADER = """\
// Generated by scripts/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen-clients.py`; `make lint` checks it.
//! The zkit commands as methods of [`Zkit`], one per command, generated from
//! the command declarations (docs/commands.json): arguments in the command's
//! order, options in a struct per command (`Default` sends none), which
//! arguments are keys (they route the call on a cluster) and the typed reply.

use redis::RedisResult;

use crate::replies::{{
    Applied, BoardStats, DelayStats, FeedPage, MergeStep, RankEntry, RankInfo, RateResult,
    RateStats, Task, TotalRank, VoteResult,
}};
use crate::{{Call, Transport, Zkit}};

/// Every command of the table, for checking it against the server's list.
pub const COMMANDS: &[&str] = &[{names}];
"""

RUST_SCALARS = {"key": "&'a str", "string": "&'a str", "integer": "i64", "unix-time": "i64", "double": "f64"}


def snake(name: str) -> str:
    return name.replace("-", "_")


def pascal(name: str) -> str:
    return "".join(word.capitalize() for word in re.split(r"[.\-_]", name.lower()))


def plural(name: str) -> str:
    return name if name.endswith("s") else name + "s"


def rust_type(kind: str, lifetime: str = "'a") -> str:
    return RUST_SCALARS[kind].replace("'a", lifetime).replace("& ", "&")


def rust_positional(part: Part) -> Tuple[str, str, str]:
    """(parameter, type, statement) of a positional part."""
    name = snake(part.name)
    if part.kind == "key":
        return name, "&str", f"call.key({name});"
    if part.kind == "arg" and part.type == "oneof":
        return name, pascal(part.name), f"call.arg({name}.token());"
    if part.kind == "arg":
        return name, rust_type(part.type, ""), f"call.arg({name});"
    if part.kind == "keys":
        return plural(name), "&[&str]", f'call.counted_keys("{plural(name)}", {plural(name)})?;'
    if part.kind == "values":
        return plural(name), f"&[{rust_type(part.type, '')}]", f'call.values("{part.token}", "{plural(name)}", {plural(name)})?;'
    fields = ", ".join(rust_type(field.type, "") for field in part.fields)
    sent = "\n            ".join(f"call.arg(block.{i});" for i in range(len(part.fields)))
    return name, f"&[({fields})]", f'call.non_empty("{name}", {name})?;\n        for block in {name} {{\n            {sent}\n        }}'


def rust_option_type(part: Part) -> str:
    if part.variadic:
        return f"Option<&'a [{rust_type(part.fields[0].type, '')}]>"
    types = [rust_type(field.type) for field in part.fields]
    return f"Option<{types[0]}>" if len(types) == 1 else f"Option<({', '.join(types)})>"


def rust_option_statement(part: Part, source: str) -> str:
    """How a method sends an optional part, read from ``source`` (``options.at``)."""
    if part.kind == "flag":
        return f'if {source} {{\n            call.arg("{part.token}");\n        }}'
    if part.variadic:
        return f'if let Some(values) = {source} {{\n            call.values("{part.token}", "{snake(part.name)}", values)?;\n        }}'
    fields = [snake(field.name) for field in part.fields]
    pattern = fields[0] if len(fields) == 1 else f"({', '.join(fields)})"
    sent = [f'call.arg("{part.token}");'] + [f"call.{'key' if field.is_key else 'arg'}({snake(field.name)});" for field in part.fields]
    body = "\n            ".join(sent)
    return f"if let Some({pattern}) = {source} {{\n            {body}\n        }}"


def rust_part_syntax(part: Part, required: bool = False) -> str:
    """A part's syntax; a flag or an option ``required`` without brackets."""
    if part.kind == "arg" and part.type == "oneof":
        return "|".join(part.tokens)
    if part.kind in ("key", "arg"):
        return part.name
    if part.kind == "keys":
        return f"numkeys {part.name} [{part.name} ...]"
    if part.kind == "values":
        return f"{part.token} {part.name} [{part.name} ...]"
    if part.kind == "blocks":
        block = " ".join(field.name for field in part.fields)
        return f"{block} [{block} ...]"
    if part.kind == "flag":
        words = part.token
    elif part.variadic:
        words = f"{part.token} {part.fields[0].name} [{part.fields[0].name} ...]"
    else:
        words = " ".join([part.token] + [field.name for field in part.fields])
    return words if required else f"[{words}]"


def rust_syntax(spec: Spec, parts: Tuple[Part, ...], required: str = "") -> str:
    """The syntax of a call made of ``parts``; the option ``required`` (a
    token) without its brackets."""
    return " ".join([spec.command] + [rust_part_syntax(part, part.token == required != "") for part in parts])


#: The tokens of options that only go with a reply option (RETAIN).
RUST_COMPANIONS = {token for option in RUST_REPLY_OPTIONS.values() for token in option.companions}


def rust_reply_option(spec: Spec) -> Optional[Tuple[Part, RustReplyOption]]:
    """The command's option that changes its reply, if it has one."""
    found = [(part, RUST_REPLY_OPTIONS[part.token]) for part in spec.layout if part.kind == "option" and part.token in RUST_REPLY_OPTIONS]
    if len(found) > 1:
        raise GrammarError(f"{spec.command}: options {[part.token for part, _ in found]} all change the reply; the Rust client has a method for one")
    for part in spec.layout:
        if part.token in RUST_COMPANIONS and not any(part.token in option.companions for _, option in found):
            raise GrammarError(f"{spec.command}: {part.token} without the option it goes with")
    return found[0] if found else None


def rust_reply_struct(spec: Spec, part: Part, option: RustReplyOption) -> str:
    """The argument struct of a reply option: its fields, then its
    companions' (each optional), with `new` taking the fields."""
    fields = [(snake(field.name), rust_type(field.type), f"`{field.name}`") for field in part.fields]
    companions = tuple(other for other in spec.layout if other.token in option.companions)
    for companion in companions:
        if companion.kind != "option" or companion.variadic or len(companion.fields) != 1:
            raise GrammarError(f"{spec.command} {companion.token}: a companion of {part.token} must be an option with one value")
        fields.append((snake(companion.name), rust_option_type(companion), f"`{rust_part_syntax(companion, True)}`: optional, `None` sends none"))
    lifetime = "<'a>" if any("'a" in kind for _, kind, _ in fields) else ""
    name = option.struct
    required = [(field, kind) for field, kind, _ in fields[: len(part.fields)]]
    shown = " ".join([rust_part_syntax(part, True)] + [rust_part_syntax(companion) for companion in companions])
    lines = [f"/// `{shown}`, the argument of the `*_{option.suffix}` methods.\n///\n"]
    lines.append(f"/// {option.about}\n")
    lines.append("#[derive(Debug, Clone, Copy, PartialEq)]\n")
    lines.append(f"pub struct {name}{lifetime} {{\n")
    for field, kind, doc in fields:
        lines.append(f"    /// {doc}\n    pub {field}: {kind},\n")
    lines.append("}\n\n")
    lines.append(f"impl{lifetime} {name}{lifetime} {{\n")
    lines.append(f"    /// `{part.token}` with these fields{', without ' + ', '.join(f'`{token}`' for token in option.companions) if option.companions else ''}.\n")
    lines.append(f"    pub fn new({', '.join(f'{field}: {kind}' for field, kind in required)}) -> Self {{\n")
    values = [field for field, _ in required] + [f"{field}: None" for field, _, _ in fields[len(part.fields) :]]
    lines.append(f"        {name} {{ {', '.join(values)} }}\n    }}\n}}\n\n")
    return "".join(lines)


def rust_method(spec: Spec, options_param: str, variant: Optional[Tuple[Part, RustReplyOption, str]], methods: List[str]) -> str:
    """One method of a command: without its reply option (``variant`` None,
    then ``methods`` are the other methods to name) or with it (the option,
    and the type of its argument)."""
    method = snake(spec.command.lower().replace(".", "_"))
    reply = RUST_REPLY_TYPES.get(spec.command, REPLY_SHAPES[spec.reply][2])
    params, statements, sent = ["&mut self"], [], []
    required = ""
    given: List[str] = []
    if variant:
        part, option, argument = variant
        method, required, reply = f"{method}_{option.suffix}", part.token, option.reply.format(reply)
        given.append(f"{snake(part.name)}: {argument}")
    for part in spec.layout:
        if part.kind in ("flag", "option"):
            if variant and part.token == required:
                name = snake(part.name)
                statements.append("\n        ".join([f'call.arg("{part.token}");'] + [f"call.{'key' if field.is_key else 'arg'}({name}.{snake(field.name)});" for field in part.fields]))
            elif variant and part.token in variant[1].companions:
                statements.append(rust_option_statement(part, f"{snake(variant[0].name)}.{snake(part.name)}"))
            elif part.token in RUST_REPLY_OPTIONS or part.token in RUST_COMPANIONS:
                continue
            else:
                statements.append(rust_option_statement(part, f"options.{snake(part.name)}"))
            sent.append(part)
            continue
        name, kind, statement = rust_positional(part)
        params.append(f"{name}: {kind}")
        statements.append(statement)
        sent.append(part)
    params += given + ([options_param] if options_param else [])
    lines = []
    if variant:
        lines.append(f"    /// [`Zkit::{method[: -len(variant[1].suffix) - 1]}`], {variant[1].doc}\n    ///\n")
    elif spec.summary:
        # Brackets escaped: rustdoc would read `[total, rank]` as a link.
        summary = spec.summary.replace("[", "\\[").replace("]", "\\]")
        lines.append(f"    /// {summary}\n    ///\n")
    lines.append(f"    /// `{rust_syntax(spec, tuple(sent), required)}`\n")
    for other in methods:
        lines.append(f"    ///\n    /// {other}\n")
    if len(params) > 7:
        lines.append("    #[allow(clippy::too_many_arguments)]\n")
    lines.append(f"    pub fn {method}({', '.join(params)}) -> RedisResult<{reply}> {{\n")
    lines.append(f'        let mut call = Call::new("{spec.command}");\n')
    lines.extend(f"        {statement}\n" for statement in statements)
    lines.append("        self.send(call)\n    }\n")
    return "".join(lines)


def rust_command(spec: Spec, enums: Dict[str, Tuple[str, ...]], structs: Dict[str, str]) -> Tuple[str, List[str]]:
    """The options struct (or "") and the methods of one command; the
    argument struct of its reply option goes into ``structs``."""
    method = snake(spec.command.lower().replace(".", "_"))
    variant = rust_reply_option(spec)
    names = [method]
    if variant:
        part, option = variant
        names.append(f"{method}_{option.suffix}")
        struct = rust_reply_struct(spec, part, option)
        if structs.setdefault(option.struct, struct) != struct:
            raise GrammarError(f"{spec.command}: {part.token} differs from the other commands' {part.token}; the Rust client has one {option.struct}")
    options = [part for part in spec.layout if part.kind in ("flag", "option") and part.token not in RUST_REPLY_OPTIONS and part.token not in RUST_COMPANIONS]
    for part in spec.layout:
        if part.type == "oneof":
            enums[pascal(part.name)] = part.tokens
    struct, options_param = "", ""
    if options:
        fields = [(snake(part.name), "bool" if part.kind == "flag" else rust_option_type(part), part) for part in options]
        lifetime = "<'a>" if any("'a" in kind for _, kind, _ in fields) else ""
        struct_name = f"{pascal(spec.command)}Options"
        of = " and ".join(f"[`Zkit::{name}`]" for name in names)
        lines = [f"/// The options of {of}; `Default` sends none.\n", "#[derive(Debug, Clone, Copy, Default, PartialEq)]\n"]
        lines.append(f"pub struct {struct_name}{lifetime} {{\n")
        for name, kind, part in fields:
            lines.append(f"    /// `{rust_part_syntax(part, True)}`\n")
            lines.append(f"    pub {name}: {kind},\n")
        lines.append("}\n\n")
        struct = "".join(lines)
        options_param = f"options: {struct_name}{'<' + chr(39) + '_>' if lifetime else ''}"
    methods = [rust_method(spec, options_param, None, [f"`{variant[0].token}`: [`Zkit::{names[1]}`]."] if variant else [])]
    if variant:
        part, option = variant
        argument = option.struct + ("<'_>" if "<'a>" in structs[option.struct] else "")
        methods.append(rust_method(spec, options_param, (part, option, argument), []))
    return struct, methods


def rust_table(specs: List[Spec]) -> str:
    enums: Dict[str, Tuple[str, ...]] = {}
    reply_structs: Dict[str, str] = {}
    structs, methods = [], []
    for spec in specs:
        struct, command_methods = rust_command(spec, enums, reply_structs)
        structs.append(struct)
        methods.extend(command_methods)
    names = ", ".join(f'"{spec.command}"' for spec in specs)
    out = [RUST_HEADER.format(names=names), "\n"]
    for name, tokens in enums.items():
        out.append(f"/// The `{'|'.join(tokens)}` argument.\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum {name} {{\n")
        out.extend(f"    {token.capitalize()},\n" for token in tokens)
        out.append(f"}}\n\nimpl {name} {{\n    /// The token sent.\n    pub fn token(self) -> &'static str {{\n        match self {{\n")
        out.extend(f'            {name}::{token.capitalize()} => "{token}",\n' for token in tokens)
        out.append("        }\n    }\n}\n\n")
    out.extend(reply_structs.values())
    out.extend(structs)
    out.append("impl<C: Transport> Zkit<C> {\n")
    out.append("\n".join(methods))
    out.append("}\n")
    return "".join(out)


# --- Main -----------------------------------------------------------------


def generated() -> Dict[pathlib.Path, str]:
    specs = specs_of(json.loads(COMMANDS_JSON.read_text()))
    return {PYTHON_TABLE: python_table(specs), NODE_TABLE: node_table(specs), RUST_TABLE: rust_table(specs)}


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
