#!/usr/bin/env python3
"""Generates the Python, Node and Rust clients' command tables and reply types from docs/commands.json.

    python3 scripts/gen/gen-clients.py          writes the tables
    python3 scripts/gen/gen-clients.py --check  fails (exit 1, with a diff) when a
                                                committed table differs from what
                                                docs/commands.json gives; `make lint`
                                                and scripts/suites/test-clients.sh run it

docs/commands.json is itself generated from the command declarations
(`ZKIT_REGENERATE=1 cargo test --lib reference`), so the declaration is the
one source of every call the clients send: argument order, tokens, which
arguments are keys (routing, keyPrefix, the same-slot check), which
commands only read, and what each command replies (its reply_schema): the
clients' reply types and parsers (zkit/replies.py, src/replies.ts,
src/replies.rs) are generated from it, over hand-written generic readers
(zkit/resp.py, src/resp.ts, src/resp.rs). Written here by hand is only what
commands.json cannot say: how a client takes a few arguments
(NODE_OPTION_NAMES, NODE_FIELD_NAMES, PYTHON_MAPPINGS, NODE_INLINE_BLOCKS,
BOUNDS), which keeps the methods' signatures as they were, and a few
names (PYTHON_LONGER_TUPLES, PARAMETER_NAMES, RUST_REPLY_OPTIONS).
The Python methods are generated (zkit/methods.py), but for the few whose
reply type an option changes or that take one limit inline
(PYTHON_HAND_METHODS, written in zkit/client.py). The Rust client's methods
are generated (Rust has
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
    oneof of TOKEN lists, required    a choice: exactly one of its lists, each
                                      `TOKEN value...` or `TOKEN block...`
                                      (DELAY.ACK's TASKS or LEASES), or of
                                      single values, `TOKEN value`
                                      (DELAY.SCHEDULE's EVERY or CRON)

Anything else stops the generator with an error naming the argument: a new
kind of grammar needs a new kind of part in both clients, not a guess.
"""

from __future__ import annotations

import difflib
import json
import pathlib
import re
import sys
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMANDS_JSON = ROOT / "docs" / "commands.json"
PYTHON_TABLE = ROOT / "clients" / "python" / "src" / "zkit" / "commands.py"
NODE_TABLE = ROOT / "clients" / "node" / "src" / "table.ts"
RUST_TABLE = ROOT / "clients" / "rust" / "src" / "commands.rs"
PYTHON_REPLIES = ROOT / "clients" / "python" / "src" / "zkit" / "replies.py"
PYTHON_METHODS = ROOT / "clients" / "python" / "src" / "zkit" / "methods.py"
NODE_REPLIES = ROOT / "clients" / "node" / "src" / "replies.ts"
NODE_METHODS = ROOT / "clients" / "node" / "src" / "methods.ts"
RUST_REPLIES = ROOT / "clients" / "rust" / "src" / "replies.rs"
RUST_EXAMPLES = ROOT / "clients" / "rust" / "tests" / "commands" / "examples.rs"

# --- Written by hand: what commands.json cannot express -------------------

@dataclass(frozen=True)
class RustReplyOption:
    """An option that changes the shape of its command's reply. A Rust
    method has one reply type, so the option gets a method of its own,
    named with ``suffix`` (``rank_gift_idmp``): it takes the option as a
    required argument of type ``struct`` (the option's fields, and those
    of the ``companions``, options that are only valid with it; without a
    struct, the option's one value) and returns the reply the command's
    reply_schema gives with the option (``idmp_flag``: ``Applied<usual
    reply>``; ``when_sent``: that shape). The method without the suffix
    sends neither."""

    suffix: str
    struct: Optional[str]
    #: The method's doc, after a link to the method without the option.
    doc: str
    #: The argument struct's doc.
    about: str = ""
    companions: Tuple[str, ...] = ()
    #: The commands whose option it is; empty: every command's with its
    #: token (DELAY.GROUP's RATE is another option, with the same token).
    commands: Tuple[str, ...] = ()


#: By token: each option that changes its command's reply_schema must be
#: here; an option here that does not change a command's reply gets its
#: method too, as the commands it goes with (DELAY.NACK's TOKEN, as
#: DELAY.TOUCH's). IDMP adds the "already applied" flag as the reply's last
#: element (`Applied`); RETAIN only goes with it. STEP replies [cursor,
#: staged] in place of the member count. TOKEN names the lease a call acts
#: on (a delivery's, a concurrency slot's); DELAY.TOUCH then replies the
#: delivery's new token.
RUST_REPLY_OPTIONS: Dict[str, RustReplyOption] = {
    "IDMP": RustReplyOption(
        "idmp",
        "Idmp",
        "applied once per event id ([`Idmp`]): the reply says whether the id was already applied ([`Applied`]).",
        "A write applies once per event id: sent again with the same id and arguments, it changes nothing "
        "and says so. The seen-key shares the hash slot of the command's keys.",
        ("RETAIN",),
    ),
    "STEP": RustReplyOption(
        "step",
        "Step",
        "one step of a merge in steps ([`Step`]): the cursor to send next and the members staged ([`MergeStep`]).",
        "Each step merges the next `count` entries into `staging` (a key of its own, in the hash slot of "
        'the others); start with cursor `"0"`, then send the cursor each reply returns, until it is `"0"`.',
    ),
    "TOKEN": RustReplyOption(
        "token",
        None,
        "fenced: it acts only while the lease `token` names is still held (the token a poll with `withtokens` "
        "returned, [`Task::token`], or an acquire's, [`RateAcquired::token`]); a stale holder's call changes nothing.",
    ),
    "WITHDATA": RustReplyOption(
        "withdata",
        None,
        "with each job's data: its payload, its delivery's token and its deliveries ([`Job`]).",
    ),
    "RATE": RustReplyOption(
        "rate",
        "PollRate",
        "claiming only what a RATE window allows: a poll replies the tasks and, when tasks were due but the "
        "window allowed none, the ms until it has room ([`RatedTasks`]).",
        "A RATE window all workers' claims spend together: at most `limit` tasks claimed per `window_ms`, "
        "counted in the RATE log `log` (a key of its own, in the hash slot of the queue).",
        commands=("DELAY.POLL", "DELAY.BPOLL"),
    ),
    "COLUMNS": RustReplyOption(
        "columns",
        None,
        "reading a board ranked by several columns: each entry gives the member's value in each column too "
        "([`ColumnsRankInfo`], [`ColumnsRankEntry`]).",
        commands=("RANK.GET", "RANK.MGET", "RANK.TOP", "RANK.AROUND", "RANK.AMONG"),
    ),
}

#: Node option names that are not the token in lower case.
NODE_OPTION_NAMES: Dict[str, str] = {"DEADLETTER": "deadLetter", "WITHTOKENS": "withTokens", "WITHDATA": "withData"}

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
#: rateHit(key, windowMs, limit) beside rateHit(key, [{ windowMs, limit }, ...]), and ratePeek alike.
NODE_INLINE_BLOCKS = {"RATE.HIT", "RATE.PEEK"}

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
    """One part of a layout; ``kind`` is key, arg, keys, values, blocks,
    option, flag or choice."""

    kind: str
    name: str = ""
    token: str = ""
    fields: Tuple[Field, ...] = ()
    variadic: bool = False
    #: The argument's type in commands.json (key and arg parts, lists of
    #: values); for a choice of pure tokens, "oneof" and its ``tokens``.
    type: str = ""
    tokens: Tuple[str, ...] = ()
    #: A choice's alternatives: values or blocks parts (lists) or value
    #: parts (one value), each after its ``token``.
    alternatives: Tuple["Part", ...] = ()


@dataclass(frozen=True)
class Spec:
    command: str
    readonly: bool
    layout: Tuple[Part, ...]
    #: The reply shape (shape_of), from the command's reply_schema.
    reply: tuple
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


def _keyword_list(command: str, arg: dict) -> Part:
    """A list after its keyword, as one alternative of a choice: ``TOKEN
    value [value ...]`` or ``TOKEN block [block ...]``; or one value after
    its keyword, ``TOKEN value``."""
    where = f"{command} {arg['name']}"
    if arg.get("token") and not (arg.get("multiple") or arg.get("optional")) and arg["type"] in SCALARS:
        return Part("value", arg["name"], arg["token"], type=arg["type"])
    if not (arg.get("token") and arg.get("multiple")) or arg.get("optional"):
        raise GrammarError(f"{where}: an alternative of a required choice must be a list or a value after its keyword")
    if arg["type"] in SCALARS:
        return Part("values", arg["name"], arg["token"], type=arg["type"])
    if arg["type"] == "block" and all(child["type"] in SCALARS and not (child.get("token") or child.get("optional") or child.get("multiple")) for child in arg["arguments"]):
        return Part("blocks", arg["name"], arg["token"], tuple(Field(child["name"], False, child["type"]) for child in arg["arguments"]))
    raise GrammarError(f"{where}: a list of type {arg['type']} in a choice")


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
        elif kind == "oneof" and not (token or multiple):
            parts.append(Part("choice", arg["name"], alternatives=tuple(_keyword_list(command, a) for a in arg["arguments"])))
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
    specs = []
    for name, doc in commands.items():
        # Every key spec is found from an argument: the clients route by the
        # key arguments, and the server by the key specs.
        if sorted(set(key_arguments(doc["arguments"]))) != list(range(len(doc["key_specs"]))):
            raise GrammarError(f"{name}: the key arguments do not cover the key specs one to one")
        readonly = "READONLY" in doc["command_flags"]
        if "reply_schema" not in doc:
            raise GrammarError(f"{name}: no reply_schema (declare the command's reply)")
        reply = shape_of(name, doc["reply_schema"])
        specs.append(Spec(name, readonly, layout_of(name, doc["arguments"]), reply, doc.get("summary", "")))
    return specs


# --- Reply shapes, from commands.json's reply_schema ----------------------


@dataclass(frozen=True)
class Element:
    name: str
    shape: tuple
    #: ("option", token) or ("several", argument): the element is there
    #: when any holds; empty: always.
    present_when: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Tup:
    """A tuple (``fields`` False) or a field list read by name (True); a
    tuple without a ``name`` stays a plain pair in every client."""

    name: str
    about: str
    elements: Tuple[Element, ...]
    fields: bool = False

    @property
    def required(self) -> int:
        return sum(1 for element in self.elements if not element.present_when)


def _element(where: str, item: dict) -> Element:
    rest = {k: v for k, v in item.items() if k not in ("title", "present_when")}
    when = tuple((kind, value) for condition in item.get("present_when", []) for kind, value in condition.items())
    return Element(item["title"], shape_of(f"{where} {item['title']}", rest), when)


def _tuple(where: str, schema: dict) -> Tup:
    elements = tuple(_element(where, item) for item in schema["items"])
    optional = [i for i, element in enumerate(elements) if element.present_when]
    if optional and optional != list(range(len(elements) - len(optional), len(elements))):
        raise GrammarError(f"{where}: optional elements must come last (the reply's length says which are there)")
    return Tup(schema.get("title", ""), schema.get("description", ""), elements)


def shape_of(where: str, schema: dict) -> tuple:
    """A reply_schema as a shape: ("int",), ("bool",), ("bulk",), ("double",),
    ("int0",) (nil reads as 0), ("status",), ("ornil", S), ("array", S),
    ("flat", Tup), ("tuple", Tup), ("fields", Tup), ("byoption", token,
    with, without), ("idmp", S)."""
    if "idmp_flag" in schema:
        return ("idmp", shape_of(where, {k: v for k, v in schema.items() if k != "idmp_flag"}))
    if schema.get("const") == "OK":
        return ("status",)
    kind = schema.get("type")
    if kind == "integer":
        return ("bool",) if schema.get("enum") == [0, 1] else ("int",)
    if kind == "string":
        return ("bulk",)
    if kind == "number":
        return ("double",)
    if kind == "object":
        elements = tuple(Element(name, shape_of(f"{where} {name}", value)) for name, value in schema["properties"].items())
        return ("fields", Tup(schema["title"], schema.get("description", ""), elements, True))
    if kind == "array" and "flat_items" in schema:
        return ("flat", _tuple(where, schema["flat_items"]))
    if kind == "array" and isinstance(schema.get("items"), list):
        return ("tuple", _tuple(where, schema))
    if kind == "array":
        return ("array", shape_of(where, schema["items"]))
    if "oneOf" in schema:
        first, second = schema["oneOf"]
        if second == {"type": "null"}:
            return ("int0",) if schema.get("nil_reads_as") == 0 else ("ornil", shape_of(where, first))
        if "when_sent" in second:
            token = second["when_sent"]
            return ("byoption", token, shape_of(where, {k: v for k, v in second.items() if k != "when_sent"}), shape_of(where, first))
    raise GrammarError(f"{where}: a reply_schema the clients cannot read: {json.dumps(schema)[:200]}")


def reply_tuples(shape: tuple) -> List[Tup]:
    """The named tuples and field lists of a shape, each after those it holds."""
    found: List[Tup] = []
    kind = shape[0]
    if kind in ("ornil", "array", "idmp"):
        found += reply_tuples(shape[1])
    elif kind == "byoption":
        found += reply_tuples(shape[3]) + reply_tuples(shape[2])
    elif kind in ("flat", "tuple", "fields"):
        for element in shape[1].elements:
            found += reply_tuples(element.shape)
        if shape[1].name:
            found.append(shape[1])
    return found


def all_tuples(specs: List["Spec"]) -> List[Tup]:
    """Every named tuple of the replies, in order, once; one name, one tuple."""
    seen: Dict[str, Tup] = {}
    for spec in specs:
        for tup in reply_tuples(spec.reply):
            if seen.setdefault(tup.name, tup) != tup:
                raise GrammarError(f"{spec.command}: two different reply types are named {tup.name}")
    return list(seen.values())


def idmp_tuples(specs: List["Spec"]) -> List[str]:
    """The names of the tuples an IDMP reply carries its flag on."""
    names: List[str] = []
    for spec in specs:
        if spec.reply[0] == "idmp":
            inner = spec.reply[1]
            if inner[0] == "array":
                inner = inner[1]
            if inner[0] != "tuple" or not inner[1].name:
                raise GrammarError(f"{spec.command}: IDMP's flag goes on a named tuple or a list of them")
            if inner[1].name not in names:
                names.append(inner[1].name)
    return names


def by_shape(shape: tuple) -> bool:
    """Whether a reply an option changes (a ("byoption", ...) shape) tells
    by itself which it is: an array with the option, a value without.
    Else the parser asks what the call sent (DELAY.TOUCH TOKEN: an
    integer, else 1 or 0; DELAY.POLL WITHDATA: jobs, else tasks, both
    arrays)."""
    _, _, with_, without = shape
    arrays = ("tuple", "array", "flat", "fields")
    return with_[0] in ("tuple", "array") and without[0] not in arrays


def shape_name(shape: tuple) -> str:
    """A shape's name in snake_case, for its parser's name."""
    kind = shape[0]
    if kind in ("int", "bool", "double", "status"):
        return {"int": "integer", "bool": "boolean", "double": "float", "status": "status"}[kind]
    if kind in ("tuple", "fields", "flat"):
        return snake(re.sub(r"(?<!^)([A-Z])", r"_\1", shape[1].name).lower())
    if kind == "ornil":
        return shape_name(shape[1]) + "_or_none"
    if kind == "array":
        return shape_name(shape[1]) + "_list"
    if kind == "idmp":
        return shape_name(shape[1])
    if kind == "byoption":
        return f"{shape_name(shape[3])}_or_{shape_name(shape[2])}"
    raise GrammarError(f"no parser name for a reply of kind {kind}")


def parsed_shapes(specs: List["Spec"]) -> List[tuple]:
    """The reply shape each parser reads, one per parser name, in the order
    commands first reply them. A reply that is an IDMP reply without its
    flag (RATE.PEEK's, RATE.HIT's without IDMP) shares the IDMP reply's
    parser, which reads a reply without the flag too."""
    shapes: Dict[str, tuple] = {}
    for spec in specs:
        name = shape_name(spec.reply)
        known = shapes.setdefault(name, spec.reply)
        if known == ("idmp", spec.reply):
            continue
        if spec.reply == ("idmp", known):
            shapes[name] = spec.reply
        elif known != spec.reply:
            raise GrammarError(f"{spec.command}: two replies would share the parser name {name}")
    return list(shapes.values())


# --- Python ---------------------------------------------------------------

#: What zkit.layout offers the table.
LAYOUT_NAMES = ("KEY", "VALUE", "Arg", "Args", "Choice", "Flag", "Key", "Keys", "Option", "Blocks", "ScoredMembers")

PYTHON_HEADER = '''\
# Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
# Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
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


def python_blocks(name: str, token: str, width: int) -> str:
    """A list of tuples: two values each unless the declaration has more."""
    token_text = f', "{token}"' if token or width != 2 else ""
    width_text = f", width={width}" if width != 2 else ""
    return f'Blocks("{name}"{token_text}{width_text})'


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
        if spec.command in PYTHON_MAPPINGS:
            return f'ScoredMembers("{name}")'
        return python_blocks(name, "", len(part.fields))

    if part.kind == "flag":
        return f'Flag("{part.name}", "{part.token}")'
    if part.kind == "choice":
        # Each list is a keyword argument named after its token (tasks=, leases=).
        alternatives = []
        for alternative in part.alternatives:
            if alternative.kind == "value":
                alternatives.append(f'Option("{alternative.token.lower()}", "{alternative.token}")')
            elif alternative.kind == "values":
                alternatives.append(f'Args("{alternative.token.lower()}", "{alternative.token}")')
            else:
                alternatives.append(python_blocks(alternative.token.lower(), alternative.token, len(alternative.fields)))
        return f'Choice("{name}", ({", ".join(alternatives)}))'
    roles = ", ".join("KEY" if field.is_key else "VALUE" for field in part.fields)
    if part.variadic and part.fields[0].is_key:
        return f'Option("{part.name}", "{part.token}", (KEY,), variadic=True)'
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
        lines.append(f"        replies.parse_{shape_name(spec.reply)},\n")
        lines.append("    ),\n")
    lines.append(")\n")
    body = "".join(lines)
    # Import what the table uses, in isort's order (constants, classes, functions).
    used = {name for name in LAYOUT_NAMES if re.search(rf"\b{name}\(|\b{name}\b(?=[,)])", body)} | {"Command", "table"}
    names = sorted(used, key=lambda name: (not name.isupper(), not name[0].isupper(), name))
    return PYTHON_HEADER.format(names=", ".join(names)) + body


# --- Python replies -------------------------------------------------------

#: Python's NamedTuple for a tuple with its optional elements, by the tuple's
#: name: a NamedTuple unpacks to a fixed length, so RATE.HIT with several
#: limits (or IDMP) gets a type one field longer.
PYTHON_LONGER_TUPLES: Dict[str, str] = {
    "RateResult": "RateLimitsResult",
    "Task": "FencedTask",
    "RankInfo": "RankInfoWithData",
    "RankEntry": "RankEntryWithData",
    "TotalRank": "TotalRankWithColumns",
    "ColumnsRankInfo": "ColumnsRankInfoWithData",
    "ColumnsRankEntry": "ColumnsRankEntryWithData",
    "Season": "SeasonWithTtl",
}

#: Field names a Python tuple already has as methods (mypy flags them).
PYTHON_TUPLE_METHODS = {"count", "index"}

PYTHON_REPLIES_HEADER = '''\
# Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
# Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
"""Typed replies of zkit commands, and the parsers that build them, from
each command's reply_schema (its declaration's reply shape).

Each reply type is a NamedTuple whose fields follow the order of the
command's reply, so it unpacks like the raw reply:
``total, rank = z.rank_gift("board", "alice", 10)``.

Members, tasks and cursors stay what the client returns (``str`` with
``decode_responses=True``, else ``bytes``). Scores are floats: RESP2 sends
them as bulk strings, RESP3 as doubles, and ``float()`` reads both exactly.
Parsers take the raw reply (RESP2 or RESP3) and ``**options`` because
redis-py calls response callbacks that way.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Tuple, Union

from .resp import Text, applied_flag, field_values, flat_list_of, idmp_flag, int_or_zero, list_of, mark_applied, or_none, sent, text, tuple_of
'''


def py_field(name: str) -> str:
    return snake(name)


def py_type(shape: tuple, longer: Optional[bool] = None) -> str:
    """The Python type of a reply of the shape. A tuple with an optional
    last element is its NamedTuple (``longer`` False), the longer one
    (True), or either (None: a Union)."""
    kind = shape[0]
    if kind in ("int", "int0"):
        return "int"
    if kind == "bool":
        return "bool"
    if kind in ("bulk", "status"):
        return "Text"
    if kind == "double":
        return "float"
    if kind == "ornil":
        return f"Optional[{py_type(shape[1], longer)}]"
    if kind == "array":
        return f"List[{py_type(shape[1], longer)}]"
    if kind == "flat":
        return f"List[{shape[1].name}]"
    if kind in ("tuple", "fields"):
        tup = shape[1]
        if not tup.name:
            return f"Tuple[{', '.join(py_type(e.shape) for e in tup.elements)}]"
        if tup.name in PYTHON_LONGER_TUPLES and longer is not None:
            return PYTHON_LONGER_TUPLES[tup.name] if longer else tup.name
        if tup.name in PYTHON_LONGER_TUPLES:
            return f"Union[{tup.name}, {PYTHON_LONGER_TUPLES[tup.name]}]"
        return tup.name
    if kind == "idmp":
        return py_type(shape[1], longer)
    if kind == "byoption":
        return f"Union[{py_type(shape[3])}, {py_type(shape[2])}]"
    raise GrammarError(f"no Python type for a reply of kind {kind}")


def py_reader(shape: tuple) -> str:
    """A callable that reads one value of the shape."""
    kind = shape[0]
    simple = {"int": "int", "int0": "int_or_zero", "bool": "bool", "bulk": "text", "status": "text", "double": "float"}
    if kind in simple:
        return simple[kind]
    if kind == "ornil":
        return f"or_none({py_reader(shape[1])})"
    if kind == "array":
        return f"list_of({py_reader(shape[1])})"
    if kind == "flat":
        return f"flat_list_of({len(shape[1].elements)}, _read_{shape_name(shape)})"
    if kind in ("tuple", "fields"):
        if not shape[1].name:
            return f"tuple_of({', '.join(py_reader(e.shape) for e in shape[1].elements)})"
        return f"_read_{shape_name(shape)}"
    raise GrammarError(f"a {kind} reply inside another: the Python client reads it at the top only")


def py_doc(text_: str, indent: str) -> str:
    import textwrap

    lines = textwrap.wrap(text_, 76 - len(indent))
    return f'{indent}"""' + f"\n{indent}".join(lines) + ('"""' if len(lines) == 1 else f"\n{indent}" + '"""') + "\n"


def py_class(tup: Tup, elements: Tuple[Element, ...], name: str, idmp: bool, about: str) -> str:
    out = [f"\n\nclass {name}(NamedTuple):\n", py_doc(about, "    "), "\n"]
    for element in elements:
        field = py_field(element.name)
        note = "  # type: ignore[assignment]  # the docs' name; shadows tuple." + field + "()" if field in PYTHON_TUPLE_METHODS else ""
        out.append(f"    {field}: {py_type(element.shape)}{note}\n")
    if idmp:
        out.append(
            "\n    @property\n    def already_applied(self) -> Optional[bool]:\n"
            + py_doc(
                "With ``idmp``: True when the event id was already applied (the call changed nothing; the reply is "
                "the state now), False when this call applied it; None without ``idmp``. Not a field: the reply "
                "unpacks as without ``idmp``.",
                "        ",
            )
            + "        return applied_flag(self)\n"
        )
        out.append(f"\n\nclass _{name}Once({name}):\n    _already_applied: bool\n")
    return "".join(out)


def py_tuple_reader(tup: Tup) -> str:
    name = shape_name(("tuple", tup))
    out = [f"\n\ndef _read_{name}(v: Any) -> {py_type(('tuple', tup))}:\n"]
    if tup.fields:
        out.append("    f = field_values(v)\n")
        values = []
        for element in tup.elements:
            field = py_field(element.name)
            got = f'f.get("{field}")' if element.shape[0] == "ornil" else f'f["{field}"]'
            values.append(f"{py_reader(element.shape)}({got})")
        out.append(f"    return {tup.name}({', '.join(values)})\n")
        return "".join(out)
    values = [f"{py_reader(element.shape)}(v[{i}])" for i, element in enumerate(tup.elements)]
    if tup.required < len(tup.elements):
        if len(tup.elements) - tup.required != 1 or tup.name not in PYTHON_LONGER_TUPLES:
            raise GrammarError(f"{tup.name}: the Python client takes one optional element, with a longer type in PYTHON_LONGER_TUPLES")
        out.append(f"    if len(v) > {tup.required}:\n        return {PYTHON_LONGER_TUPLES[tup.name]}({', '.join(values)})\n")
        values = values[: tup.required]
    out.append(f"    return {tup.name}({', '.join(values)})\n")
    return "".join(out)


def py_parser(shape: tuple) -> str:
    name = shape_name(shape)
    out = [f"\n\ndef parse_{name}(reply: Any, **options: Any) -> {py_type(shape)}:\n"]
    kind = shape[0]
    if kind == "idmp":
        out.append("    reply, applied = idmp_flag(reply, options)\n")
        out.append(f"    return mark_applied({py_reader(shape[1])}(reply), applied, _ONCE)\n")
    elif kind == "byoption":
        out.append(py_by_option(shape, "    "))
    else:
        out.append(f"    return {py_reader(shape)}(reply)\n")
    return "".join(out)


def py_by_option(shape: tuple, indent: str) -> str:
    """The body of a parser of a reply an option changes; a branch an
    option changes again (DELAY.POLL's RATE, then WITHDATA) asks again."""
    if shape[0] != "byoption":
        return f"{indent}return {py_reader(shape)}(reply)\n"
    _, token, with_, without = shape
    if by_shape(shape):
        out = [f"{indent}# An array when the call sent {token}.\n", f"{indent}if isinstance(reply, list):\n"]
    else:
        out = [f"{indent}# The replies with and without {token} have one shape: the call says which it is.\n",
               f'{indent}if sent(options, "{token}"):\n']
    out.append(py_by_option(with_, indent + "    "))
    out.append(py_by_option(without, indent))
    return "".join(out)


def python_replies(specs: List[Spec]) -> str:
    idmp = idmp_tuples(specs)
    out = [PYTHON_REPLIES_HEADER]
    for tup in all_tuples(specs):
        optional = tup.required < len(tup.elements)
        out.append(py_class(tup, tup.elements[: tup.required] if optional else tup.elements, tup.name, tup.name in idmp, tup.about))
        if optional:
            longer = PYTHON_LONGER_TUPLES[tup.name]
            out.append(py_class(tup, tup.elements, longer, tup.name in idmp, f"{tup.name} with its optional last element, {snake(tup.elements[-1].name)}. {tup.about}"))
    names = sorted(name for tup in all_tuples(specs) for name in (tup.name, PYTHON_LONGER_TUPLES.get(tup.name) if tup.required < len(tup.elements) else None) if name)
    out.append("\n\n#: The reply types, which the package exports (zkit/__init__.py).\n__all__ = [\n" + "".join(f'    "{name}",\n' for name in names) + "]\n")
    once = [f"{name}: _{name}Once" for name in idmp] + [f"{PYTHON_LONGER_TUPLES[name]}: _{PYTHON_LONGER_TUPLES[name]}Once" for name in idmp if name in PYTHON_LONGER_TUPLES]
    out.append(f"\n\n#: The type of an IDMP reply, by its type without: it carries the flag.\n_ONCE = {{{', '.join(once)}}}\n")
    for tup in all_tuples(specs):
        out.append(py_tuple_reader(tup))
    out.extend(py_parser(shape) for shape in parsed_shapes(specs))
    return "".join(out)


# --- Python methods -------------------------------------------------------

#: Commands whose Python methods are written by hand in zkit/client.py, the
#: generator leaving them out: a reply type that an option changes, which
#: overloads carry (DELAY.POLL, DELAY.BPOLL, DELAY.TOUCH), and one limit
#: taken inline beside a method for a list of them (RATE.HIT and RATE.PEEK:
#: rate_hit and rate_hit_limits).
PYTHON_HAND_METHODS = {"DELAY.POLL", "DELAY.BPOLL", "DELAY.TOUCH", "RATE.HIT", "RATE.PEEK"}

#: The clients' parameter names that are not commands.json's (a list's in
#: the plural), by (command, argument name), in snake_case (Node's in
#: camelCase): the methods keep the names they have always had, which a
#: Python call may pass by keyword.
PARAMETER_NAMES: Dict[Tuple[str, str], str] = {
    ("RANK.MERGE", "key"): "sources",
    ("FEED.ADD", "data"): "items",
    ("DELAY.NACK", "member"): "task",
    ("DELAY.SCHEDULE", "id"): "schedule_id",
    ("DELAY.UNSCHEDULE", "id"): "schedule_id",
    ("RATE.STATS", "window-ms"): "windows_ms",
    ("RANK.COLUMNS", "column"): "columns",
}

#: Values commands.json types as strings that the clients take as numbers
#: too: score bounds, which may also be "(100" or "+inf".
BOUNDS = {("RANK.COUNT", "min"), ("RANK.COUNT", "max"), ("RANK.RANGE", "max"), ("RANK.RANGE", "min")}

#: An option's type by token where it has a name of its own (zkit.params).
PYTHON_OPTION_TYPES = {"IDMP": "Idmp"}

PYTHON_SCALARS = {"key": "KeyT", "string": "Text", "integer": "int", "unix-time": "int", "double": "Number", "oneof": "str"}

PYTHON_METHODS_HEADER = """\
# Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
# Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
\"\"\"The command methods of ``Zkit`` and ``AsyncZkit``, one per command,
generated from the command declarations (docs/commands.json): positional
parameters in the command's order, options as keyword arguments named
after their tokens, the reply typed by the declaration's reply shape.
``zkit.client._Methods`` adds the few written by hand (gen-clients.py's
PYTHON_HAND_METHODS) and each client's ``_call``, which sends the call
``zkit.layout`` builds.
\"\"\"

from __future__ import annotations

from typing import {typing}

from .commands import COMMANDS
from .layout import Command
from .params import {params}
from .replies import {replies}


class GeneratedMethods:
    \"\"\"The generated command methods; a subclass defines ``_call``.\"\"\"

    def _call(self, command: Command, *positional: Any, **options: Any) -> Any:
        raise NotImplementedError
"""


def py_scalar(spec: Spec, name: str, kind: str) -> str:
    if (spec.command, name) in BOUNDS:
        return "Number"
    return PYTHON_SCALARS[kind]


def py_fields(spec: Spec, fields: Tuple[Field, ...]) -> str:
    types = [py_scalar(spec, field.name, "key" if field.is_key else field.type) for field in fields]
    return types[0] if len(types) == 1 else f"Tuple[{', '.join(types)}]"


def py_list_type(spec: Spec, part: Part) -> str:
    """The type of one element of a list part."""
    if part.kind in ("values", "keys"):
        return py_scalar(spec, part.name, part.type or "key")
    return f"Tuple[{', '.join(py_scalar(spec, field.name, field.type) for field in part.fields)}]"


@dataclass(frozen=True)
class PyParameter:
    name: str
    type: str
    #: "positional", "star" (*name) or "keyword" (with its default).
    kind: str
    default: str = ""
    #: How the call passes it on to _call.
    sent: str = ""


def py_parameters(spec: Spec) -> List[PyParameter]:
    params: List[PyParameter] = []
    positional = [part for part in spec.layout if part.kind not in ("flag", "option")]
    last = positional[-1] if positional else None
    for part in spec.layout:
        name = PARAMETER_NAMES.get((spec.command, part.name), snake(part.name))
        if part.kind in ("key", "arg"):
            params.append(PyParameter(name, py_scalar(spec, part.name, part.type), "positional", sent=name))
        elif part.kind == "keys" or (part.kind == "values" and part is not last):
            name = PARAMETER_NAMES.get((spec.command, part.name), plural(snake(part.name)))
            params.append(PyParameter(name, f"Sequence[{py_list_type(spec, part)}]", "positional", sent=name))
        elif part.kind == "values":
            name = PARAMETER_NAMES.get((spec.command, part.name), plural(snake(part.name)))
            params.append(PyParameter(name, py_list_type(spec, part), "star", sent=name))
        elif part.kind == "blocks" and spec.command in PYTHON_MAPPINGS:
            params.append(PyParameter(name, "Mapping[Text, Number]", "positional", sent=name))
        elif part.kind == "blocks":
            params.append(PyParameter(name, f"Sequence[{py_list_type(spec, part)}]", "positional", sent=name))
        elif part.kind == "flag":
            params.append(PyParameter(part.name, "bool", "keyword", "False", part.name))
        elif part.kind == "option":
            if part.variadic:
                kind = "key" if part.fields[0].is_key else part.fields[0].type
                of = f"Sequence[{py_scalar(spec, part.fields[0].name, kind)}]"
            else:
                of = PYTHON_OPTION_TYPES.get(part.token) or py_fields(spec, part.fields)
            params.append(PyParameter(part.name, f"Optional[{of}]", "keyword", "None", part.name))
        elif part.kind == "choice":
            # Each list a keyword argument named after its token; the first,
            # a list of values that ends the positional ones, as *name.
            for i, alternative in enumerate(part.alternatives):
                name = alternative.token.lower()
                if alternative.kind == "value":
                    of = py_scalar(spec, alternative.name, alternative.type)
                    params.append(PyParameter(name, f"Optional[{of}]", "keyword", "None", name))
                elif i == 0 and alternative.kind == "values" and part is last:
                    params.append(PyParameter(name, py_list_type(spec, alternative), "star", sent=f"{name} or None"))
                else:
                    of = f"Sequence[{py_list_type(spec, alternative)}]"
                    params.append(PyParameter(name, f"Optional[{of}]", "keyword", "None", name))
        else:
            raise GrammarError(f"{spec.command}: no Python parameter for a {part.kind} part")
    # A star parameter goes after the other positional ones, keywords last.
    order = {"positional": 0, "star": 1, "keyword": 2}
    return sorted(params, key=lambda param: order[param.kind])


def py_length_option(spec: Spec) -> Optional[PyParameter]:
    """The keyword parameter whose option alone gives the reply's tuples
    their optional last element (RANK.TOP's ``data``): the method gets an
    overload per case, so a call without the option keeps the shorter
    type, which unpacks as before."""
    tokens = {when for tup in reply_tuples(spec.reply) for element in tup.elements for when in element.present_when}
    if len(tokens) != 1:
        return None
    ((kind, token),) = tokens
    part = next((part for part in spec.layout if part.kind == "option" and part.token == token), None)
    if kind != "option" or part is None:
        return None
    return next(param for param in py_parameters(spec) if param.sent == part.name)


def py_signature(name: str, listed: List[str], reply: str, ending: str, indent: str = "    ", prefix: str = "") -> str:
    """A method's def line(s), on one line when it fits."""
    one_line = f"{indent}{prefix}def {name}({', '.join(listed)}) -> {reply}:{ending}\n"
    if len(one_line) <= 121:
        return one_line
    inner = indent + "    "
    return f"{indent}{prefix}def {name}(\n" + "".join(f"{inner}{item},\n" for item in listed) + f"{indent}) -> {reply}:{ending}\n"


def py_listed(params: List[PyParameter], overload: Optional[Dict[str, str]] = None) -> List[str]:
    """A method's parameters as its def lists them; ``overload``: keyword
    parameters' names and the types an overload gives them instead."""
    listed = ["self"]
    overload = overload or {}
    for param in params:
        if param.kind == "keyword" and not any(p.kind == "star" for p in params) and "*" not in listed:
            listed.append("*")
        if param.kind == "star":
            listed.append(f"*{param.name}: {param.type}")
        elif param.name in overload:
            listed.append(f"{param.name}: {overload[param.name]}")
        elif param.kind == "keyword":
            listed.append(f"{param.name}: {param.type} = {param.default}")
        else:
            listed.append(f"{param.name}: {param.type}")
    return listed


def py_overloads(spec: Spec, indent: str, prefix: str, overrides: bool = False) -> str:
    """The two overloads of a method whose reply's length an option sets
    (py_length_option): without it, the shorter type; with it, the longer.
    ``overrides``: they override a base class's other form (the first one
    says so to the type checker)."""
    params = py_parameters(spec)
    name = spec.command.lower().replace(".", "_")
    length = py_length_option(spec)
    assert length is not None
    given = length.type.removeprefix("Optional[").removesuffix("]")
    # A reply another option (a key's) changes too (RANK.TOP's COLUMNS):
    # an overload per case of both.
    by = py_by_option_parameter(spec)
    branches = [({}, spec.reply)]
    if by is not None:
        _, _, with_, without = spec.reply
        by_given = by.type.removeprefix("Optional[").removesuffix("]")
        branches = [({by.name: "None = None"}, without), ({by.name: by_given}, with_)]
    out = ""
    first = True
    for by_typed, reply in branches:
        for typed, longer in (("None = None", False), (given, True)):
            listed = py_listed(params, {**by_typed, length.name: typed})
            mark = "  # type: ignore[override]" if overrides and first else ""
            first = False
            out += f"\n{indent}@overload{mark}\n" + py_signature(name, listed, py_type(reply, longer), " ...", indent, prefix)
    return out


def py_by_option_parameter(spec: Spec) -> Optional[PyParameter]:
    """The keyword parameter of an option that gives a key and changes the
    reply's type (a ("byoption", ...) reply at the top: RANK.GET's
    COLUMNS), or None."""
    if spec.reply[0] != "byoption":
        return None
    token = spec.reply[1]
    part = next((part for part in spec.layout if part.kind == "option" and part.token == token), None)
    if part is None:
        return None
    return next((param for param in py_parameters(spec) if param.sent == part.name and param.kind == "keyword"), None)


def py_method(spec: Spec) -> str:
    params = py_parameters(spec)
    name = spec.command.lower().replace(".", "_")
    if py_length_option(spec) is None:
        overloads, decorator = "", "    @command_method\n"
        signature = py_signature(name, py_listed(params), py_type(spec.reply), "")
    else:
        # Overloads type a call (command_method's typing cannot carry
        # them: GeneratedAsyncOverloads gives AsyncZkit's awaitable forms);
        # the implementation's reply is either.
        overloads, decorator = py_overloads(spec, "    ", ""), ""
        signature = py_signature(name, py_listed(params), "Any", "")
    positional = [p.sent for p in params if p.kind != "keyword"]
    keywords = [f"{p.name}={p.sent}" if p.kind == "keyword" else f"{p.name}={p.sent}" for p in params if p.kind == "keyword"]
    keywords += [f"{p.name}={p.sent}" for p in params if p.kind == "star" and p.sent != p.name]
    positional = [p.sent for p in params if p.kind == "positional" or (p.kind == "star" and p.sent == p.name)]
    arguments = ", ".join([f'COMMANDS["{spec.command}"]'] + positional + keywords)
    call = f"        return self._call({arguments})\n"
    if len(call) > 121:
        call = "        return self._call(\n" + "".join(f"            {a},\n" for a in [f'COMMANDS["{spec.command}"]'] + positional + keywords) + "        )\n"
    doc = py_docstring([f"{spec.command}: {spec.summary}", f"``{call_syntax(spec, spec.layout)}``"], "        ")
    return f"{overloads}\n{decorator}{signature}{doc}{call}"


def py_docstring(paragraphs: List[str], indent: str) -> str:
    """A docstring of several paragraphs, each wrapped."""
    import textwrap

    lines: List[str] = []
    for paragraph in paragraphs:
        lines += ([""] if lines else []) + textwrap.wrap(paragraph, 76 - len(indent), break_long_words=False, break_on_hyphens=False)
    body = "".join(f"{indent}{line}\n" if line else "\n" for line in lines[1:])
    return f'{indent}"""{lines[0]}\n{body}{indent}"""\n'


PYTHON_ASYNC_OVERLOADS = """

class GeneratedAsyncOverloads(GeneratedMethods):
    \"\"\"For type checkers: AsyncZkit's awaitable forms of the overloaded
    generated methods (a reply type that an option changes); empty at run
    time, where GeneratedMethods' serve both clients.\"\"\"

    if TYPE_CHECKING:
"""


def python_methods(specs: List[Spec]) -> str:
    generated = [spec for spec in specs if spec.command not in PYTHON_HAND_METHODS]
    body = "".join(py_method(spec) for spec in generated)
    overloaded = [spec for spec in generated if py_length_option(spec) is not None]
    if overloaded:
        forms = ""
        for spec in overloaded:
            name = spec.command.lower().replace(".", "_")
            implementation = py_signature(name, py_listed(py_parameters(spec)), "Any", " ...", "        ", "async ")
            forms += py_overloads(spec, "        ", "async ", overrides=True) + implementation
        body += PYTHON_ASYNC_OVERLOADS + forms.lstrip("\n")

    def used(names: Tuple[str, ...]) -> str:
        return ", ".join(name for name in names if re.search(rf"\b{name}\b", body))

    replies = tuple(sorted({name for tup in all_tuples(specs) for name in (tup.name, PYTHON_LONGER_TUPLES.get(tup.name, ""))} - {""})) + ("Text",)
    return PYTHON_METHODS_HEADER.format(
        typing=used(("TYPE_CHECKING",)) + (", " if overloaded else "") + "Any, "
        + used(("List", "Mapping", "Optional", "Sequence", "Tuple", "Union", "overload")),
        params=used(("Idmp", "KeyT", "Number")) + ", command_method",
        replies=used(tuple(sorted(replies))),
    ) + body


# --- Node -----------------------------------------------------------------

NODE_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
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
    if part.kind == "choice":
        alternatives = []
        for alternative in part.alternatives:
            fields = ""
            if alternative.kind == "blocks":
                fields = f", fields: [{', '.join(repr(camel(field.name)) for field in alternative.fields)}]"
            elif alternative.kind == "value":
                fields = ", single: true"
            alternatives.append(f"{{ name: '{camel(alternative.token.lower())}', token: '{alternative.token}'{fields} }}")
        return f"{{ kind: 'choice', alternatives: [{', '.join(alternatives)}] }}"
    name = NODE_OPTION_NAMES.get(part.token, part.name)
    if part.kind == "flag":
        return f"{{ kind: 'flag', name: '{name}', token: '{part.token}' }}"
    if part.variadic:
        fields = "'variadic-keys'" if part.fields[0].is_key else "'variadic'"
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
        lines.append(f"    parse: replies.{node_parser_name(spec.reply)},\n")
        lines.append("  },\n")
    lines.append("} satisfies Record<string, CommandSpec>;\n")
    return "".join(lines)


# --- Node replies ---------------------------------------------------------

NODE_REPLIES_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
// Typed replies of zkit commands and the parsers that build them, from each
// command's reply_schema (its declaration's reply shape), fields in the
// reply's order. Scores arrive as strings in RESP2 and as numbers in RESP3;
// Number() reads both exactly. Members, tasks and cursors stay what the
// client returns (strings, or Buffers in a buffer mode).

import type { Raw, Text } from './resp';
import { appliedFlag, fieldValues, flatListOf, intOrZero, listOf, markApplied, orNull, text, withoutFlag } from './resp';

export type { Text };
"""


def node_type(shape: tuple) -> str:
    kind = shape[0]
    if kind in ("int", "int0", "double"):
        return "number"
    if kind == "bool":
        return "boolean"
    if kind in ("bulk", "status"):
        return "Text"
    if kind == "ornil":
        return f"{node_type(shape[1])} | null"
    if kind == "array":
        inner = node_type(shape[1])
        return f"Array<{inner}>" if " " in inner else f"{inner}[]"
    if kind == "flat":
        return f"{shape[1].name}[]"
    if kind in ("tuple", "fields"):
        tup = shape[1]
        if not tup.name:
            return "{ " + "; ".join(f"{camel(e.name)}: {node_type(e.shape)}" for e in tup.elements) + " }"
        return tup.name
    if kind == "idmp":
        return node_type(shape[1])
    if kind == "byoption":
        return f"{node_type(shape[3])} | {node_type(shape[2])}"
    raise GrammarError(f"no TypeScript type for a reply of kind {kind}")


def node_reader(shape: tuple) -> str:
    kind = shape[0]
    simple = {"int": "Number", "double": "Number", "int0": "intOrZero", "bulk": "text", "status": "text", "bool": "(v: Raw) => Number(v) === 1"}
    if kind in simple:
        return simple[kind]
    if kind == "ornil":
        return f"orNull({node_reader(shape[1])})"
    if kind == "array":
        return f"listOf({node_reader(shape[1])})"
    if kind == "flat":
        return f"flatListOf({len(shape[1].elements)}, read{shape[1].name})"
    if kind in ("tuple", "fields"):
        tup = shape[1]
        if not tup.name:
            fields = ", ".join(f"{camel(e.name)}: {node_call(e.shape, f'v[{i}]')}" for i, e in enumerate(tup.elements))
            return f"(v: Raw) => ({{ {fields} }})"
        return f"read{tup.name}"
    raise GrammarError(f"a {kind} reply inside another: the Node client reads it at the top only")


def node_call(shape: tuple, value: str) -> str:
    if shape[0] == "bool":
        return f"Number({value}) === 1"
    return f"{node_reader(shape)}({value})"


def node_doc(text_: str, indent: str = "") -> str:
    return f"{indent}/** {text_} */\n"


def node_tuple(tup: Tup, idmp: bool) -> str:
    out = ["\n", node_doc(tup.about), f"export interface {tup.name} {{\n"]
    for element in tup.elements:
        optional = "?" if element.present_when else ""
        if element.present_when:
            out.append(node_doc("Only " + " or ".join(f"with {value}" if kind == "option" else f"with several {value}" for kind, value in element.present_when) + ".", "  "))
        out.append(f"  {camel(element.name)}{optional}: {node_type(element.shape)};\n")
    if idmp:
        out.append(node_doc("Only with `idmp`: true when the event id was already applied (the call changed nothing; the reply is the state now).", "  "))
        out.append("  alreadyApplied?: boolean;\n")
    out.append("}\n")
    # The reader.
    out.append(f"\nconst read{tup.name} = (v: Raw): {tup.name} => {{\n")
    if tup.fields:
        out.append("  const f = fieldValues(v);\n  return {\n")
        for element in tup.elements:
            out.append(f"    {camel(element.name)}: {node_call(element.shape, 'f.' + camel(element.name))},\n")
        out.append("  };\n};\n")
        return "".join(out)
    out.append("  return {\n")
    for i, element in enumerate(tup.elements):
        if element.present_when:
            out.append(f"    ...(v.length > {i} ? {{ {camel(element.name)}: {node_call(element.shape, f'v[{i}]')} }} : {{}}),\n")
        else:
            out.append(f"    {camel(element.name)}: {node_call(element.shape, f'v[{i}]')},\n")
    out.append("  };\n};\n")
    return "".join(out)


def node_parser_name(shape: tuple) -> str:
    """A parser's name in Node, where nil is null."""
    return "parse" + pascal(shape_name(shape).replace("_or_none", "_or_null"))


def node_parser(shape: tuple) -> str:
    name = node_parser_name(shape)
    kind = shape[0]
    if kind == "idmp":
        return (
            f"\nexport const {name} = (reply: Raw, sent?: readonly string[]): {node_type(shape)} =>\n"
            f"  markApplied({node_reader(shape[1])}(withoutFlag(reply, sent)), appliedFlag(reply, sent));\n"
        )
    if kind == "byoption" and by_shape(shape):
        _, token, with_, without = shape
        return (
            f"\n/** An array when the call sent {token}. */\n"
            f"export const {name} = (reply: Raw): {node_type(shape)} =>\n"
            f"  Array.isArray(reply) ? {node_call(with_, 'reply')} : {node_call(without, 'reply')};\n"
        )
    if kind == "byoption":
        tokens = " and ".join(reply_options(shape))
        return (
            f"\n/** The replies with and without {tokens} have one shape: the call says which it is. */\n"
            f"export const {name} = (reply: Raw, sent?: readonly string[]): {node_type(shape)} =>\n"
            f"  {node_by_sent(shape)};\n"
        )
    return f"\nexport const {name} = (reply: Raw): {node_type(shape)} => {node_call(shape, 'reply')};\n"


def node_by_sent(shape: tuple) -> str:
    """Reads `reply` as the options the call sent say; a branch an option
    changes again asks again."""
    if shape[0] != "byoption":
        return node_call(shape, "reply")
    _, token, with_, without = shape
    return f"sent?.includes('{token}') ? {node_by_sent(with_)} : {node_by_sent(without)}"


def node_replies(specs: List[Spec]) -> str:
    idmp = idmp_tuples(specs)
    out = [NODE_REPLIES_HEADER]
    for tup in all_tuples(specs):
        out.append(node_tuple(tup, tup.name in idmp))
    out.extend(node_parser(shape) for shape in parsed_shapes(specs))
    return "".join(out)


# --- Node methods ---------------------------------------------------------

#: Commands whose Node signatures are written by hand in clients/node/src/commands.ts
#: (HandWrittenCommands), the generator leaving them out: a reply type an
#: option changes (RANK.MERGE's STEP, DELAY.POLL, DELAY.BPOLL, DELAY.TOUCH),
#: a choice of lists or options that go only together, which rest tuples and
#: unions carry (DELAY.ACK, DELAY.ADD, DELAY.SCHEDULE, DELAY.NACK's REASON,
#: RANK.SET's GT or LT), and one limit inline (RATE.HIT, RATE.PEEK).
NODE_HAND_METHODS = {
    "RANK.SET", "RANK.MERGE", "DELAY.POLL", "DELAY.BPOLL", "DELAY.ACK", "DELAY.NACK", "DELAY.TOUCH",
    "DELAY.ADD", "DELAY.SCHEDULE", "RATE.HIT", "RATE.PEEK",
}

#: Options Node types with a named type of commands.ts, by token (its doc
#: says what they do once for every command).
NODE_OPTION_TYPES = {"SHARED": "SharedOption", "IDMP": "IdmpOption", "RETAIN": "IdmpOption"}

NODE_SCALARS = {"key": "Key", "string": "Text", "integer": "number", "unix-time": "number", "double": "number | string"}

NODE_METHODS_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
// The typed signatures of the zkit commands' methods, one per command,
// from the command declarations: positional parameters in the command's
// order, then an options object named after the tokens, and the reply's
// type. The few a generated signature cannot give are written by hand in
// commands.ts (HandWrittenCommands; gen-clients.py's NODE_HAND_METHODS).

import type {{ {commands} }} from './commands';
import type {{ {replies} }} from './replies';

/** The zkit commands, one method each; every method returns a promise of the parsed reply. */
export interface ZkitCommands extends HandWrittenCommands {{
"""


def ts_scalar(spec: Spec, name: str, kind: str) -> str:
    if (spec.command, name) in BOUNDS:
        return "number | string"
    return NODE_SCALARS[kind]


def ts_parameter(spec: Spec, part: Part) -> str:
    named = PARAMETER_NAMES.get((spec.command, part.name))
    if named:
        return ts_parameter(spec, replace(part, name=named))
    if part.kind == "key":
        return f"{camel(part.name)}: Key"
    if part.kind == "arg" and part.type == "oneof":
        return f"{camel(part.name)}: {' | '.join(repr(token) for token in part.tokens)}"
    if part.kind == "arg":
        return f"{camel(part.name)}: {ts_scalar(spec, part.name, part.type)}"
    if part.kind == "keys":
        return f"{plural(camel(part.name))}: Key[]"
    if part.kind == "values":
        of = ts_scalar(spec, part.name, part.type)
        of = f"({of})" if " " in of else of
        return f"{plural(camel(part.name))}: {of} | {of}[]"
    if part.kind == "blocks" and part.token == "" and spec.command not in NODE_INLINE_BLOCKS:
        block = "; ".join(f"{camel(field.name)}: {ts_scalar(spec, field.name, field.type)}" for field in part.fields)
        return f"{camel(part.name)}: Array<{{ {block} }}>"
    raise GrammarError(f"{spec.command}: no generated Node parameter for a {part.kind} part (write it in NODE_HAND_METHODS)")


def ts_option(spec: Spec, part: Part) -> str:
    name = NODE_OPTION_NAMES.get(part.token, part.name)
    if part.kind == "flag":
        return f"{name}?: boolean"
    if part.variadic:
        return f"{name}?: {'Key' if part.fields[0].is_key else ts_scalar(spec, part.fields[0].name, part.fields[0].type)}[]"
    if len(part.fields) == 1:
        field = part.fields[0]
        return f"{name}?: {'Key' if field.is_key else ts_scalar(spec, field.name, field.type)}"
    names = [NODE_FIELD_NAMES.get((part.token, field.name), camel(field.name)) for field in part.fields]
    types = ["Key" if field.is_key else ts_scalar(spec, field.name, field.type) for field in part.fields]
    if part.token in NODE_TUPLE_OPTIONS:
        return f"{name}?: [{', '.join(f'{n}: {t}' for n, t in zip(names, types))}]"
    return f"{name}?: {{ {'; '.join(f'{n}: {t}' for n, t in zip(names, types))} }}"


def ts_method(spec: Spec) -> str:
    params = [ts_parameter(spec, part) for part in spec.layout if part.kind not in ("flag", "option")]
    options = [part for part in spec.layout if part.kind in ("flag", "option")]
    inline = [ts_option(spec, part) for part in options if part.token not in NODE_OPTION_TYPES]
    named = list(dict.fromkeys(NODE_OPTION_TYPES[part.token] for part in options if part.token in NODE_OPTION_TYPES))
    types = ([f"{{ {'; '.join(inline)} }}"] if inline else []) + named
    if types:
        params.append(f"options?: {' & '.join(types)}")
    name = camel(spec.command.lower().replace(".", "-"))
    doc = f"  /**\n   * {spec.command}: {spec.summary}\n   *\n   * `{call_syntax(spec, spec.layout)}`\n   */\n"
    return f"{doc}  {name}({', '.join(params)}): Promise<{node_type(spec.reply)}>;\n"


def node_methods(specs: List[Spec]) -> str:
    body = "".join(ts_method(spec) for spec in specs if spec.command not in NODE_HAND_METHODS) + "}\n"

    def used(names: List[str]) -> str:
        return ", ".join(name for name in names if re.search(rf"\b{name}\b", body))

    replies = sorted({tup.name for tup in all_tuples(specs)} | {"Text"})
    return NODE_METHODS_HEADER.format(
        commands=", ".join(["HandWrittenCommands"] + [n for n in used(sorted(set(NODE_OPTION_TYPES.values()) | {"Key"})).split(", ") if n]),
        replies=used(replies),
    ) + body


# --- Rust -----------------------------------------------------------------

RUST_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
//! The zkit commands as methods of [`Zkit`], one per command, generated from
//! the command declarations (docs/commands.json): arguments in the command's
//! order, options in a struct per command (`Default` sends none), which
//! arguments are keys (they route the call on a cluster) and the typed reply.

use redis::RedisResult;

use crate::replies::{{{replies}}};
use crate::{{Applied, Call, Transport, Zkit}};

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
    if part.kind == "value":
        return name, rust_type(part.type, ""), f'call.arg("{part.token}");\n        call.arg({name});'
    if part.token:  # a list after its keyword (LEASES), named as the lists of values are
        name = plural(name)
    fields = ", ".join(rust_type(field.type, "") for field in part.fields)
    sent = "\n            ".join(f"call.arg(block.{i});" for i in range(len(part.fields)))
    token = f'\n        call.arg("{part.token}");' if part.token else ""
    return name, f"&[({fields})]", f'call.non_empty("{name}", {name})?;{token}\n        for block in {name} {{\n            {sent}\n        }}'


def rust_option_type(part: Part) -> str:
    if part.variadic and part.fields[0].is_key:
        return "Option<&'a [&'a str]>"
    if part.variadic:
        return f"Option<&'a [{rust_type(part.fields[0].type, '')}]>"
    types = [rust_type(field.type) for field in part.fields]
    return f"Option<{types[0]}>" if len(types) == 1 else f"Option<({', '.join(types)})>"


def rust_option_statement(part: Part, source: str) -> str:
    """How a method sends an optional part, read from ``source`` (``options.at``)."""
    if part.kind == "flag":
        return f'if {source} {{\n            call.arg("{part.token}");\n        }}'
    if part.variadic and part.fields[0].is_key:
        return f'if let Some(keys) = {source} {{\n            call.keys_after("{part.token}", "{snake(part.name)}", keys)?;\n        }}'
    if part.variadic:
        return f'if let Some(values) = {source} {{\n            call.values("{part.token}", "{snake(part.name)}", values)?;\n        }}'
    fields = [snake(field.name) for field in part.fields]
    pattern = fields[0] if len(fields) == 1 else f"({', '.join(fields)})"
    sent = [f'call.arg("{part.token}");'] + [f"call.{'key' if field.is_key else 'arg'}({snake(field.name)});" for field in part.fields]
    body = "\n            ".join(sent)
    return f"if let Some({pattern}) = {source} {{\n            {body}\n        }}"


def part_syntax(part: Part, required: bool = False) -> str:
    """A part's syntax; a flag or an option ``required`` without brackets."""
    if part.kind == "arg" and part.type == "oneof":
        return "|".join(part.tokens)
    if part.kind in ("key", "arg"):
        return part.name
    if part.kind == "keys":
        return f"numkeys {part.name} [{part.name} ...]"
    if part.kind == "values":
        return f"{part.token} {part.name} [{part.name} ...]"
    if part.kind == "value":
        return f"{part.token} {part.name}"
    if part.kind == "blocks":
        block = " ".join(field.name for field in part.fields)
        return " ".join(([part.token] if part.token else []) + [f"{block} [{block} ...]"])
    if part.kind == "choice":
        return "<" + " | ".join(part_syntax(alternative, True) for alternative in part.alternatives) + ">"
    if part.kind == "flag":
        words = part.token
    elif part.variadic:
        words = f"{part.token} {part.fields[0].name} [{part.fields[0].name} ...]"
    else:
        words = " ".join([part.token] + [field.name for field in part.fields])
    return words if required else f"[{words}]"


def call_syntax(spec: Spec, parts: Tuple[Part, ...], required: frozenset = frozenset()) -> str:
    """The syntax of a call made of ``parts``; the options ``required`` (by
    token) without their brackets."""
    return " ".join([spec.command] + [part_syntax(part, part.token in required) for part in parts])


#: The tokens of options that only go with a reply option (RETAIN).
RUST_COMPANIONS = {token for option in RUST_REPLY_OPTIONS.values() for token in option.companions}


def is_reply_option(spec: Spec, part: Part) -> bool:
    """Whether a part is one of the command's RUST_REPLY_OPTIONS."""
    option = RUST_REPLY_OPTIONS.get(part.token)
    return part.kind in ("option", "flag") and option is not None and (not option.commands or spec.command in option.commands)


def rust_reply_options(spec: Spec) -> List[Tuple[Part, RustReplyOption]]:
    """The command's options that change its reply, each with a method of
    its own (one that sends several of them at once is not generated)."""
    found = [(part, RUST_REPLY_OPTIONS[part.token]) for part in spec.layout if is_reply_option(spec, part)]
    changing = reply_options(spec.reply)
    if set(changing) - {part.token for part, _ in found}:
        raise GrammarError(f"{spec.command}: options {changing} change the reply, RUST_REPLY_OPTIONS names {[part.token for part, _ in found]}")
    for part in spec.layout:
        if part.token in RUST_COMPANIONS and not any(part.token in option.companions for _, option in found):
            raise GrammarError(f"{spec.command}: {part.token} without the option it goes with")
    return found


def reply_options(shape: tuple) -> List[str]:
    """The options that change a reply's shape, by token."""
    if shape[0] == "idmp":
        return ["IDMP"]
    if shape[0] == "byoption":
        # A branch an option changes again (DELAY.POLL's RATE, then WITHDATA).
        nested = [token for branch in shape[2:] for token in reply_options(branch)]
        return [shape[1]] + [token for i, token in enumerate(nested) if token != shape[1] and token not in nested[:i]]
    return []


def rust_option_reply(spec: Spec, tokens: set) -> str:
    """The Rust reply type of a call that sent the reply options ``tokens``."""
    if spec.reply[0] == "idmp" and "IDMP" in tokens:
        return f"Applied<{rust_reply_type(spec.reply)}>"
    shape = spec.reply
    # Each option this call does not send leaves its reply as without it.
    while shape[0] == "byoption":
        shape = shape[2] if shape[1] in tokens else shape[3]
    return rust_reply_type(shape)


def rust_reply_struct(spec: Spec, part: Part, option: RustReplyOption) -> str:
    """The argument struct of a reply option: its fields, then its
    companions' (each optional), with `new` taking the fields."""
    fields = [(snake(field.name), rust_type(field.type), f"`{field.name}`") for field in part.fields]
    companions = tuple(other for other in spec.layout if other.token in option.companions)
    for companion in companions:
        if companion.kind != "option" or companion.variadic or len(companion.fields) != 1:
            raise GrammarError(f"{spec.command} {companion.token}: a companion of {part.token} must be an option with one value")
        fields.append((snake(companion.name), rust_option_type(companion), f"`{part_syntax(companion, True)}`: optional, `None` sends none"))
    lifetime = "<'a>" if any("'a" in kind for _, kind, _ in fields) else ""
    name = option.struct
    required = [(field, kind) for field, kind, _ in fields[: len(part.fields)]]
    shown = " ".join([part_syntax(part, True)] + [part_syntax(companion) for companion in companions])
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


def rust_method(spec: Spec, options_param: str, variants: Tuple[Tuple[Part, RustReplyOption, Optional[str]], ...], methods: List[str], choice: int = 0) -> str:
    """One method of a command: without its reply options (``variants``
    empty, then ``methods`` are the other methods to name) or with some of
    them (each option, and the type of its argument); sending the
    ``choice``-th list of its choice, if it has one (a method of its own
    past the first, named after the list's token). A flag's method takes
    no argument for it."""
    plain = snake(spec.command.lower().replace(".", "_"))
    method = "_".join([plain] + [option.suffix for _, option, _ in variants])
    required = {part.token for part, _, _ in variants}
    reply = rust_option_reply(spec, required)
    params, statements, sent = ["&mut self"], [], []
    given: List[str] = [f"{snake(part.name)}: {argument}" for part, _, argument in variants if argument is not None]
    by_token = {part.token: (part, option) for part, option, _ in variants}
    companions = {token: part for part, option, _ in variants for token in option.companions}
    if choice:
        alternatives = next(part for part in spec.layout if part.kind == "choice").alternatives
        alternative = alternatives[choice]
        method = f"{method}_{alternative.token.lower()}"
    for part in spec.layout:
        if part.kind in ("flag", "option"):
            if part.token in by_token:
                name = snake(part.name)
                values = [name] if by_token[part.token][1].struct is None else [f"{name}.{snake(field.name)}" for field in part.fields]
                statements.append("\n        ".join([f'call.arg("{part.token}");'] + [f"call.{'key' if field.is_key else 'arg'}({value});" for field, value in zip(part.fields, values)]))
            elif part.token in companions:
                statements.append(rust_option_statement(part, f"{snake(companions[part.token].name)}.{snake(part.name)}"))
            elif is_reply_option(spec, part) or part.token in RUST_COMPANIONS:
                continue
            else:
                statements.append(rust_option_statement(part, f"options.{snake(part.name)}"))
            sent.append(part)
            continue
        if part.kind == "choice":
            part = part.alternatives[choice]
        name, kind, statement = rust_positional(part)
        params.append(f"{name}: {kind}")
        statements.append(statement)
        sent.append(part)
    params += given + ([options_param] if options_param else [])
    lines = []
    if variants:
        docs = "; ".join(option.doc for _, option, _ in variants)
        lines.append(f"    /// [`Zkit::{plain}`], {docs}\n    ///\n")
    elif choice:
        lines.append(f"    /// [`Zkit::{plain}`] with `{alternative.token}` in place of `{alternatives[0].token}`.\n    ///\n")
    elif spec.summary:
        # Brackets escaped: rustdoc would read `[total, rank]` as a link.
        summary = spec.summary.replace("[", "\\[").replace("]", "\\]")
        lines.append(f"    /// {summary}\n    ///\n")
    lines.append(f"    /// `{call_syntax(spec, tuple(sent), required)}`\n")
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
    variants = rust_reply_options(spec)
    names = [method]
    choices = next((part.alternatives for part in spec.layout if part.kind == "choice"), ())
    if variants and choices:
        raise GrammarError(f"{spec.command}: a choice and {variants[0][0].token}; the Rust client has methods for one")
    for part, option in variants:
        names.append(f"{method}_{option.suffix}")
        if part.kind == "flag":
            pass
        elif option.struct is not None:
            struct = rust_reply_struct(spec, part, option)
            if structs.setdefault(option.struct, struct) != struct:
                raise GrammarError(f"{spec.command}: {part.token} differs from the other commands' {part.token}; the Rust client has one {option.struct}")
        elif len(part.fields) != 1:
            raise GrammarError(f"{spec.command}: {part.token} has several values; give it a struct in RUST_REPLY_OPTIONS")
    names += [f"{method}_{alternative.token.lower()}" for alternative in choices[1:]]
    options = [part for part in spec.layout if part.kind in ("flag", "option") and not is_reply_option(spec, part) and part.token not in RUST_COMPANIONS]
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
            lines.append(f"    /// `{part_syntax(part, True)}`\n")
            lines.append(f"    pub {name}: {kind},\n")
        lines.append("}\n\n")
        struct = "".join(lines)
        options_param = f"options: {struct_name}{'<' + chr(39) + '_>' if lifetime else ''}"
    others = [part.token for part, _ in variants] if variants else [alternative.token for alternative in choices[1:]]
    methods = [rust_method(spec, options_param, (), [f"`{token}`: [`Zkit::{name}`]." for token, name in zip(others, names[1:])])]
    arguments = []
    for part, option in variants:
        argument: Optional[str]
        if part.kind == "flag":
            argument = None
        elif option.struct is None:
            argument = rust_type(part.fields[0].type, "")
        else:
            argument = option.struct + ("<'_>" if "<'a>" in structs[option.struct] else "")
        arguments.append((part, option, argument))
        methods.append(rust_method(spec, options_param, ((part, option, argument),), []))
    # The options that each change the reply, together: one more method
    # (DELAY.POLL's WITHDATA and RATE: `delay_poll_withdata_rate`).
    changing = [variant for variant in arguments if variant[0].token in reply_options(spec.reply)]
    if len(changing) > 1:
        methods.append(rust_method(spec, options_param, tuple(changing), []))
    methods += [rust_method(spec, options_param, (), [], choice) for choice in range(1, len(choices))]
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
    used = [tup.name for tup in all_tuples(specs) if re.search(rf"\b{tup.name}\b", "".join(methods))]
    out = [RUST_HEADER.format(names=names, replies=", ".join(used)), "\n"]
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


# --- Rust examples --------------------------------------------------------

RUST_EXAMPLES_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
//! Every command declaration's examples (docs/commands.json, each command's
//! `examples`), each called through its typed method with the example's
//! values: a command gets this test by being declared. Run by
//! tests/commands.rs on the plain server and on the cluster, keys under the
//! test's prefix (`k`); tests/commands.rs checks replies, scenario by
//! scenario.

use redis::{ConnectionLike, ErrorKind, RedisError, RedisResult};
use zkit::*;

/// An example's error, naming the example.
fn failed(example: &str) -> impl FnOnce(RedisError) -> RedisError + '_ {
    move |error| {
        RedisError::from((
            ErrorKind::Client,
            "an example failed",
            format!("{example}: {error}"),
        ))
    }
}

/// Runs every example in order; a line of another command sets up the next.
#[rustfmt::skip]
pub fn every_declared_example<C: Transport + ConnectionLike>(z: &mut Zkit<C>, k: impl Fn(&str) -> String) -> RedisResult<()> {
"""


def example_parts(spec: Spec, words: List[str]) -> Tuple[List[Tuple[Part, List[str]]], Dict[str, List[str]], int]:
    """The words after the command's name, by part: the positional parts with
    their words, the options' and flags' words by token, and which list of
    the command's choice the call gives (its index)."""
    tokens: Dict[str, Part] = {part.token: part for part in spec.layout if part.kind in ("flag", "option")}
    choice = next((part for part in spec.layout if part.kind == "choice"), None)
    alternatives = {alternative.token: (i, alternative) for i, alternative in enumerate(choice.alternatives)} if choice else {}
    positional = [part for part in spec.layout if part.kind not in ("flag", "option", "choice")]
    found: List[Tuple[Part, List[str]]] = []
    options: Dict[str, List[str]] = {}
    chosen = 0
    i = 1

    def until_token(start: int) -> int:
        while start < len(words) and words[start].upper() not in tokens and words[start].upper() not in alternatives:
            start += 1
        return start

    while i < len(words):
        word = words[i].upper()
        if word in tokens:
            part = tokens[word]
            width = 0 if part.kind == "flag" else until_token(i + 1) - i - 1 if part.variadic else len(part.fields)
            options[word] = words[i + 1 : i + 1 + width]
            i += 1 + width
        elif word in alternatives:
            chosen, alternative = alternatives[word]
            rest = words[i + 1 : i + 2] if alternative.kind == "value" else words[i + 1 :]
            found.append((alternative, rest))
            i += 1 + len(rest)
        else:
            part = positional.pop(0)
            if part.kind == "keys":
                count = int(words[i])
                found.append((part, words[i + 1 : i + 1 + count]))
                i += 1 + count
            elif part.kind == "values":
                found.append((part, words[i + 1 :]))
                i = len(words)
            elif part.kind == "blocks":
                found.append((part, words[i:]))
                i = len(words)
            else:
                found.append((part, [words[i]]))
                i += 1
    return found, options, chosen


def rust_string(text_: str) -> str:
    """A Rust string literal (JSON's escapes but \\u, which is Rust's
    \\u{...}: any other character goes as it is)."""
    return json.dumps(text_, ensure_ascii=False)


def rust_literal(kind: str, word: str) -> str:
    """A word as a Rust value of a scalar type (keys under the test's prefix)."""
    if "{t}" in word:
        return f'k("{word}").as_str()'
    if kind in ("integer", "unix-time"):
        return str(int(word))
    if kind == "double":
        return repr(float(word))
    return rust_string(word)


def rust_example(spec: Spec, words: List[str]) -> str:
    """One example as a call of the Rust method that sends it."""
    found, options, chosen = example_parts(spec, words)
    plain = snake(spec.command.lower().replace(".", "_"))
    variants = rust_reply_options(spec)
    given = [(part, option) for part, option in variants if part.token in options]
    changing = [(part, option) for part, option in variants if part.token in reply_options(spec.reply)]
    if len(given) > 1 and [part.token for part, _ in given] != [part.token for part, _ in changing]:
        raise GrammarError(f"{spec.command}: the example {' '.join(words)} gives reply options no one Rust method takes")
    method = "_".join([plain] + [option.suffix for _, option in given])
    if chosen:
        method = f"{plain}_{found[-1][0].token.lower()}"
    arguments = []
    for part, values in found:
        if part.kind == "arg" and part.type == "oneof":
            arguments.append(f"{pascal(part.name)}::{pascal(values[0])}")
        elif part.kind in ("key", "arg"):
            arguments.append(rust_literal(part.type or "key", values[0]))
        elif part.kind == "value":
            arguments.append(rust_literal(part.type, values[0]))
        elif part.kind in ("keys", "values"):
            arguments.append("&[" + ", ".join(rust_literal(part.type or "key", value) for value in values) + "]")
        else:
            width = len(part.fields)
            blocks = [values[j : j + width] for j in range(0, len(values), width)]
            arguments.append("&[" + ", ".join("(" + ", ".join(rust_literal(field.type, value) for field, value in zip(part.fields, block)) + ")" for block in blocks) + "]")
    companions = {token for _, option in given for token in option.companions}
    for part, option in given:
        if part.kind == "flag":
            continue
        if option.struct is None:
            arguments.append(rust_literal(part.fields[0].type, options[part.token][0]))
            continue
        fields = [f"{snake(field.name)}: {rust_literal('key' if field.is_key else field.type, value)}" for field, value in zip(part.fields, options[part.token])]
        for companion in (other for other in spec.layout if other.token in option.companions):
            value = options.get(companion.token)
            fields.append(f"{snake(companion.name)}: " + (f"Some({rust_literal(companion.fields[0].type, value[0])})" if value else "None"))
        arguments.append(f"{option.struct} {{ {', '.join(fields)} }}")
    struct_fields = [part for part in spec.layout if part.kind in ("flag", "option") and not is_reply_option(spec, part) and part.token not in RUST_COMPANIONS]
    if struct_fields:
        set_fields = []
        for part in struct_fields:
            if part.token not in options or part.token in companions:
                continue
            values = options[part.token]
            if part.kind == "flag":
                set_fields.append(f"{snake(part.name)}: true")
            elif part.variadic:
                kind = "key" if part.fields[0].is_key else part.fields[0].type
                set_fields.append(f"{snake(part.name)}: Some(&[{', '.join(rust_literal(kind, value) for value in values)}])")
            else:
                literals = [rust_literal("key" if field.is_key else field.type, value) for field, value in zip(part.fields, values)]
                set_fields.append(f"{snake(part.name)}: Some({literals[0] if len(literals) == 1 else '(' + ', '.join(literals) + ')'})")
        rest = ", ..Default::default()" if len(set_fields) < len(struct_fields) else ""
        name = f"{pascal(spec.command)}Options"
        arguments.append(f"{name} {{ {', '.join(set_fields)}{rest} }}" if set_fields else f"{name}::default()")
    return f"    z.{method}({', '.join(arguments)}).map_err(failed({rust_string(' '.join(words))}))?;\n"


def rust_examples(specs: List[Spec], examples: Dict[str, List[List[str]]]) -> str:
    lines = [RUST_EXAMPLES_HEADER]
    by_name = {spec.command: spec for spec in specs}
    for name, calls in examples.items():
        for words in calls:
            if words[0] != name:  # a native command that sets up the next example
                sent = "".join(f".arg({f'k({rust_string(w)})' if '{t}' in w else rust_string(w)})" for w in words[1:])
                lines.append(f"    redis::cmd({rust_string(words[0])}){sent}.query::<redis::Value>(z.connection())?;\n")
                continue
            lines.append(rust_example(by_name[name], words))
    lines.append("    Ok(())\n}\n")
    return "".join(lines)


# --- Rust replies ---------------------------------------------------------

RUST_REPLIES_HEADER = """\
// Generated by scripts/gen/gen-clients.py from docs/commands.json: do not edit.
// Regenerate with `python3 scripts/gen/gen-clients.py`; `make lint` checks it.
//! Typed replies of zkit commands, generated from each command's
//! reply_schema (its declaration's reply shape), fields in the reply's
//! order. Scores are `f64` whether the server sent them as RESP2 strings or
//! RESP3 doubles; members, tasks and cursors are `String`.

use redis::{FromRedisValue, ParsingError, Value};

use crate::resp::{Fields, Items};
"""


def rust_reply_type(shape: tuple) -> str:
    kind = shape[0]
    if kind in ("int", "int0"):
        return "i64"
    if kind == "bool":
        return "bool"
    if kind in ("bulk", "status"):
        return "String"
    if kind == "double":
        return "f64"
    if kind == "ornil":
        return f"Option<{rust_reply_type(shape[1])}>"
    if kind == "array":
        return f"Vec<{rust_reply_type(shape[1])}>"
    if kind == "flat":
        return f"Vec<{shape[1].name}>"
    if kind in ("tuple", "fields"):
        tup = shape[1]
        if not tup.name:
            return f"({', '.join(rust_reply_type(e.shape) for e in tup.elements)})"
        return tup.name
    if kind == "idmp":
        return rust_reply_type(shape[1])
    if kind == "byoption":
        return rust_reply_type(shape[3])
    raise GrammarError(f"no Rust type for a reply of kind {kind}")


def rust_traits(shape: tuple) -> Tuple[bool, bool]:
    """(Copy, Eq) of a shape's Rust type."""
    kind = shape[0]
    if kind in ("int", "int0", "bool"):
        return True, True
    if kind == "double":
        return True, False
    if kind in ("bulk", "status", "array", "flat"):
        copy, eq = (True, True) if kind in ("bulk", "status") else rust_traits(shape[1] if kind == "array" else ("tuple", shape[1]))
        return False, eq
    if kind == "ornil":
        return rust_traits(shape[1])
    if kind in ("tuple", "fields"):
        traits = [rust_traits(e.shape) for e in shape[1].elements]
        return all(c for c, _ in traits), all(e for _, e in traits)
    raise GrammarError(f"no Rust traits for a reply of kind {kind}")


def rust_doc(text_: str, indent: str = "") -> str:
    import textwrap

    return "".join(f"{indent}/// {line}\n" for line in textwrap.wrap(text_.replace("[", "\\[").replace("]", "\\]"), 76 - len(indent)))


def rust_tuple(tup: Tup) -> str:
    copy, eq = rust_traits(("tuple", tup))
    derives = ["Debug", "Clone"] + (["Copy"] if copy else []) + ["PartialEq"] + (["Eq"] if eq else [])
    out = ["\n", rust_doc(tup.about), f"#[derive({', '.join(derives)})]\npub struct {tup.name} {{\n"]
    for element in tup.elements:
        kind = rust_reply_type(element.shape)
        if element.present_when:
            out.append(rust_doc("`None` unless " + " or ".join(f"the call sent {value}" if k == "option" else f"the call gave several {value}" for k, value in element.present_when) + ".", "    "))
            kind = f"Option<{kind}>"
        out.append(f"    pub {snake(element.name)}: {kind},\n")
    out.append("}\n\n")
    out.append(f"impl FromRedisValue for {tup.name} {{\n    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {{\n")
    if tup.fields:
        out.append("        let mut f = Fields::read(v)?;\n")
        out.append(f"        Ok({tup.name} {{\n")
        for element in tup.elements:
            reader = "get" if element.shape[0] == "ornil" else "need"
            out.append(f'            {snake(element.name)}: f.{reader}("{element.name}")?,\n')
    else:
        out.append(f'        let mut items = Items::read(v, "{tup.name}", {tup.required}, {len(tup.elements)})?;\n')
        out.append(f"        Ok({tup.name} {{\n")
        for element in tup.elements:
            if element.present_when:
                reader = "optional()"
            elif element.shape[0] == "int0":
                reader = "integer_or_zero()"
            elif element.shape[0] == "flat":
                reader = f"flat({len(element.shape[1].elements)})"
            else:
                reader = "next()"
            out.append(f"            {snake(element.name)}: items.{reader}?,\n")
    out.append("        })\n    }\n}\n")
    return "".join(out)


def rust_replies(specs: List[Spec]) -> str:
    out = [RUST_REPLIES_HEADER]
    for tup in all_tuples(specs):
        out.append(rust_tuple(tup))
    return "".join(out)


# --- Main -----------------------------------------------------------------


def generated() -> Dict[pathlib.Path, str]:
    commands = json.loads(COMMANDS_JSON.read_text())
    specs = specs_of(commands)
    return {
        PYTHON_TABLE: python_table(specs),
        PYTHON_REPLIES: python_replies(specs),
        PYTHON_METHODS: python_methods(specs),
        NODE_TABLE: node_table(specs),
        NODE_REPLIES: node_replies(specs),
        NODE_METHODS: node_methods(specs),
        RUST_TABLE: rust_table(specs),
        RUST_REPLIES: rust_replies(specs),
        RUST_EXAMPLES: rust_examples(specs, {name: doc['examples'] for name, doc in commands.items()}),
    }


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
        print(f"gen-clients: {stale} generated file(s) differ from docs/commands.json; run python3 scripts/gen/gen-clients.py and commit", file=sys.stderr)
        return 1
    if argv == ["--check"]:
        print(f"gen-clients: {len(files)} generated tables match docs/commands.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
