"""The table of zkit commands: argument layout, which arguments are keys, and
the reply parser of each, as docs/commands.md specifies them.

How to add a command
--------------------
1. Add a ``Command`` entry to ``COMMANDS`` below: its name, its layout in
   argument order (``Key``/``Arg``/``Keys``/``Args``/``Pairs``/
   ``ScoredMembers`` for positional arguments, ``Option`` for
   ``TOKEN value...`` options, each field of an option a ``KEY`` or a
   ``VALUE``, ``Flag`` for a ``TOKEN`` alone) and a parser from
   ``zkit.replies`` (add a NamedTuple there for a new reply shape).
2. Add the method to ``zkit.client._Methods`` (named after the command,
   positional arguments in the command's order, options as keyword
   arguments) that calls ``self._call(COMMANDS["NAME"], ...)``.
3. Call it in ``tests/test_commands.py`` (the suite checks that every entry
   of ``COMMANDS`` was called).

Routing, key prefixes and the same-slot check read the key positions this
table yields, so nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import replies

#: The role of one field of an option.
KEY = "key"
VALUE = "value"


@dataclass(frozen=True)
class Key:
    """A positional key."""

    name: str


@dataclass(frozen=True)
class Arg:
    """A positional value."""

    name: str


@dataclass(frozen=True)
class Keys:
    """A non-empty list of keys, sent as ``numkeys key [key ...]``."""

    name: str


@dataclass(frozen=True)
class Args:
    """A non-empty list of values, sent one argument each.

    ``trailing=(TOKEN, n)``: the server reads its options from the end of
    the call, so a value spelled TOKEN (any case) ``n`` places from the end
    of the list (1: last, 2: second-to-last) would be read as the option;
    such a call raises ValueError instead of being misread."""

    name: str
    trailing: Optional[Tuple[str, int]] = None


@dataclass(frozen=True)
class Pairs:
    """A non-empty list of ``(first, second)`` tuples, sent flat:
    ``first second first second ...``."""

    name: str


@dataclass(frozen=True)
class ScoredMembers:
    """A non-empty ``{member: score}`` mapping, sent as ``score member ...``
    (the shape redis-py's ``zadd`` takes)."""

    name: str


@dataclass(frozen=True)
class Option:
    """``TOKEN field...``, sent when its keyword argument is not None.

    One field takes a single value; several take a tuple in field order.
    ``variadic`` options take a non-empty list of values (``WEIGHTS``)."""

    name: str
    token: str
    fields: Tuple[str, ...] = (VALUE,)
    variadic: bool = False


@dataclass(frozen=True)
class Flag:
    """``TOKEN`` alone, sent when its keyword argument is true."""

    name: str
    token: str


Part = Union[Key, Arg, Keys, Args, Pairs, ScoredMembers, Option, Flag]


@dataclass(frozen=True)
class Command:
    name: str
    layout: Tuple[Part, ...]
    parse: Callable[..., Any]


def _table(*commands: Command) -> Dict[str, Command]:
    return {command.name: command for command in commands}


# IDMP seen-key event-id [RETAIN ms]: exactly-once writes (RANK.GIFT,
# RANK.SET, RANK.MGIFT after their options, RATE.HIT before its limits).
_IDMP_OPTIONS: Tuple[Part, ...] = (
    Option("idmp", "IDMP", (KEY, VALUE)),
    Option("retain", "RETAIN"),
)

# DELAY.POLL and DELAY.BPOLL take the same options after their own words.
_POLL_OPTIONS: Tuple[Part, ...] = (
    Option("count", "COUNT"),
    Option("lease", "LEASE", (KEY, VALUE)),
    Option("deadletter", "DEADLETTER", (KEY, KEY, VALUE)),
)

COMMANDS: Dict[str, Command] = _table(
    Command(
        "RANK.GIFT",
        (Key("key"), Arg("member"), Arg("amount"), Option("at", "AT"), Flag("shared", "SHARED"), *_IDMP_OPTIONS),
        replies.parse_total_rank,
    ),
    Command(
        "RANK.SET",
        (
            Key("key"),
            Arg("member"),
            Arg("total"),
            Option("at", "AT"),
            Flag("gt", "GT"),
            Flag("lt", "LT"),
            Flag("shared", "SHARED"),
            *_IDMP_OPTIONS,
        ),
        replies.parse_total_rank,
    ),
    Command("RANK.GET", (Key("key"), Arg("member"), Flag("shared", "SHARED")), replies.parse_rank_info),
    Command(
        "RANK.TOP",
        (Key("key"), Arg("count"), Option("offset", "OFFSET"), Flag("shared", "SHARED")),
        replies.parse_rank_entries,
    ),
    Command(
        "RANK.AROUND",
        (Key("key"), Arg("member"), Arg("radius"), Flag("shared", "SHARED")),
        replies.parse_rank_entries,
    ),
    Command(
        "RANK.MERGE",
        (Key("destkey"), Keys("sources"), Option("weights", "WEIGHTS", variadic=True)),
        replies.parse_int,
    ),
    Command(
        "RANK.MGIFT",
        (Keys("keys"), Arg("member"), Arg("amount"), Option("at", "AT"), Flag("shared", "SHARED"), *_IDMP_OPTIONS),
        replies.parse_total_ranks,
    ),
    Command(
        "RANK.MGET",
        (Key("key"), Args("members", trailing=("SHARED", 1)), Flag("shared", "SHARED")),
        replies.parse_rank_infos,
    ),
    Command(
        "FEED.ADD",
        (Key("key"), Option("cap", "CAP"), ScoredMembers("items")),
        replies.parse_int,
    ),
    Command(
        "FEED.PAGE",
        (
            Key("key"),
            Option("count", "COUNT"),
            Option("newer", "NEWER"),
            Option("older", "OLDER"),
        ),
        replies.parse_feed_page,
    ),
    Command("DELAY.POLL", (Key("key"), *_POLL_OPTIONS), replies.parse_tasks),
    Command(
        "DELAY.BPOLL", (Key("key"), Arg("timeout_ms"), *_POLL_OPTIONS), replies.parse_tasks
    ),
    Command(
        "DELAY.ACK",
        (
            Key("inflight"),
            Args("tasks", trailing=("DELIVERIES", 2)),
            Option("deliveries", "DELIVERIES", (KEY,)),
        ),
        replies.parse_int,
    ),
    Command(
        "DELAY.NACK",
        (Key("inflight"), Key("queue"), Arg("task"), Arg("delay_ms")),
        replies.parse_bool,
    ),
    Command("DELAY.TOUCH", (Key("inflight"), Arg("task"), Arg("lease_ms")), replies.parse_bool),
    Command(
        "RATE.HIT",
        (Key("key"), *_IDMP_OPTIONS, Pairs("limits"), Option("cost", "COST")),
        replies.parse_rate,
    ),
    Command(
        "RECENT.ADD",
        (Key("key"), Args("members"), Option("cap", "CAP"), Option("ttl", "TTL")),
        replies.parse_int,
    ),
    Command(
        "VOTE.CAST",
        (
            Key("scores"),
            Key("upvoters"),
            Key("downvoters"),
            Arg("item"),
            Arg("voter"),
            Arg("direction"),
            Option("weight", "WEIGHT", (VALUE, VALUE)),
            Option("window", "WINDOW", (KEY, VALUE)),
        ),
        replies.parse_vote,
    ),
    Command(
        "VOTE.STATE",
        (Key("upvoters"), Key("downvoters"), Arg("voter")),
        replies.parse_int,
    ),
)


class Call:
    """One call's arguments, ready to send: ``argv`` starts with the command
    name, ``keys`` are the key arguments in order (``keys[0]`` routes)."""

    __slots__ = ("argv", "keys")

    def __init__(self, argv: List[Any], keys: List[Any]) -> None:
        self.argv = argv
        self.keys = keys


def _non_empty(command: Command, name: str, values: Sequence[Any]) -> Sequence[Any]:
    if isinstance(values, (str, bytes)) or not values:
        raise TypeError(f"{command.name}: {name} must be a non-empty list")
    return values


def build_call(command: Command, positional: Sequence[Any], options: Mapping[str, Any]) -> Call:
    """Lays out one call's arguments as the command's layout says."""
    argv: List[Any] = [command.name]
    keys: List[Any] = []
    values = iter(positional)
    for part in command.layout:
        if isinstance(part, Key):
            key = next(values)
            argv.append(key)
            keys.append(key)
        elif isinstance(part, Arg):
            argv.append(next(values))
        elif isinstance(part, Keys):
            sources = _non_empty(command, part.name, next(values))
            argv.append(len(sources))
            argv.extend(sources)
            keys.extend(sources)
        elif isinstance(part, Args):
            listed = _non_empty(command, part.name, next(values))
            if part.trailing is not None:
                _check_trailing(command, part.trailing, listed)
            argv.extend(listed)
        elif isinstance(part, Pairs):
            for pair in _non_empty(command, part.name, next(values)):
                if isinstance(pair, (str, bytes)) or len(pair) != 2:
                    raise TypeError(f"{command.name}: each of {part.name} must be a pair, not {pair!r}")
                argv.extend(pair)
        elif isinstance(part, ScoredMembers):
            items: Mapping[Any, Any] = next(values)
            if not items:
                raise TypeError(f"{command.name}: {part.name} must be a non-empty mapping")
            for member, score in items.items():
                argv.extend((score, member))
        elif isinstance(part, Flag):
            if options.get(part.name):
                argv.append(part.token)
        else:
            _append_option(command, part, options.get(part.name), argv, keys)
    return Call(argv, keys)


def _check_trailing(command: Command, trailing: Tuple[str, int], values: Sequence[Any]) -> None:
    """ValueError when the server would read one of ``values`` as the
    option ``trailing`` names (Redis compares tokens ASCII case-blind)."""
    token, from_end = trailing
    if len(values) < from_end:
        return
    value = values[-from_end]
    spelled = value.encode() if isinstance(value, str) else value
    if isinstance(spelled, bytes) and spelled.upper() == token.encode():
        place, fix = ("last", "anywhere but last") if from_end == 1 else ("second-to-last", "last")
        raise ValueError(f"{command.name} reads {value!r} {place} as its {token} option; give it {fix}")


def _append_option(
    command: Command, option: Option, value: Optional[Any], argv: List[Any], keys: List[Any]
) -> None:
    if value is None:
        return
    argv.append(option.token)
    if option.variadic:
        argv.extend(_non_empty(command, option.name, value))
        return
    fields = (value,) if len(option.fields) == 1 else tuple(value)
    if len(fields) != len(option.fields):
        raise TypeError(f"{command.name}: {option.name} takes {len(option.fields)} values")
    for role, field in zip(option.fields, fields):
        argv.append(field)
        if role == KEY:
            keys.append(field)
