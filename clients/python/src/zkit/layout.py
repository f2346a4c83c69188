"""How a command's arguments are laid out, and ``build_call``, which lays
out one call's. The layouts themselves are in ``zkit.commands``, generated
from docs/commands.json by scripts/gen/gen-clients.py.

How to add a command
--------------------
1. Declare it in the module; ``ZKIT_REGENERATE=1 cargo test --lib
   reference`` writes docs/commands.json, then ``python3
   scripts/gen/gen-clients.py`` writes ``zkit.commands``, ``zkit.replies``
   (its reply type and parser, from the declaration's reply shape) and
   ``zkit.methods`` (its method: positional arguments in the command's
   order, options as keyword arguments named after their tokens). A
   layout a generated method cannot give is written in
   ``zkit.client._Methods`` and named in gen-clients.py's
   PYTHON_HAND_METHODS.
2. Call it in ``tests/test_commands.py`` (the suite checks that every entry
   of ``COMMANDS`` was called).

Routing, key prefixes and the same-slot check read the key positions the
layout yields, so nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

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
    """A non-empty list of values after their keyword, sent as
    ``TOKEN value [value ...]``: the server takes every argument after the
    keyword as a value, so a value may be spelled like any option."""

    name: str
    token: str


@dataclass(frozen=True)
class Blocks:
    """A non-empty list of tuples of ``width`` values (``(due, task)`` pairs,
    ``(due, task, payload)`` jobs), sent flat: ``a b a b ...``, after
    ``token`` when it has one."""

    name: str
    token: str = ""
    width: int = 2


@dataclass(frozen=True)
class ScoredMembers:
    """A non-empty ``{member: score}`` mapping, sent as ``score member ...``
    (the shape redis-py's ``zadd`` takes)."""

    name: str


@dataclass(frozen=True)
class Option:
    """``TOKEN field...``, sent when its keyword argument is not None.

    One field takes a single value; several take a tuple in field order.
    ``variadic`` options take a non-empty list of values (``WEIGHTS``), or
    of keys with ``fields`` ``(KEY,)`` (DELAY.POLL's ``LANES``)."""

    name: str
    token: str
    fields: Tuple[str, ...] = (VALUE,)
    variadic: bool = False


@dataclass(frozen=True)
class Flag:
    """``TOKEN`` alone, sent when its keyword argument is true."""

    name: str
    token: str


@dataclass(frozen=True)
class Choice:
    """Exactly one of several lists after their keywords (DELAY.ACK's
    ``TASKS task...`` or ``LEASES task token...``) or of single values
    after theirs (an Option: DELAY.SCHEDULE's ``EVERY ms`` or ``CRON
    expression``), each given as the keyword argument its ``name`` says;
    the others are None."""

    name: str
    alternatives: Tuple[Union[Args, Blocks, Option], ...]


Part = Union[Key, Arg, Keys, Args, Blocks, ScoredMembers, Option, Flag, Choice]


@dataclass(frozen=True)
class Command:
    name: str
    layout: Tuple[Part, ...]
    parse: Callable[..., Any]


def table(*commands: Command) -> Dict[str, Command]:
    """The commands by name (zkit.commands.COMMANDS is made with it)."""
    return {command.name: command for command in commands}


class Call:
    """One call's arguments, ready to send: ``argv`` starts with the command
    name, ``keys`` are the key arguments in order (``keys[0]`` routes).
    ``sent``: the tokens of the options and flags it gives, which tell its
    reply's parser what they changed (IDMP's flag, DELAY.TOUCH's token)."""

    __slots__ = ("argv", "keys", "sent")

    def __init__(self, argv: List[Any], keys: List[Any], sent: Tuple[str, ...]) -> None:
        self.argv = argv
        self.keys = keys
        self.sent = sent


def _non_empty(command: Command, name: str, values: Sequence[Any]) -> Sequence[Any]:
    if isinstance(values, (str, bytes)) or not values:
        raise TypeError(f"{command.name}: {name} must be a non-empty list")
    return values


def build_call(command: Command, positional: Sequence[Any], options: Mapping[str, Any]) -> Call:
    """Lays out one call's arguments as the command's layout says."""
    argv: List[Any] = [command.name]
    keys: List[Any] = []
    sent: List[str] = []
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
        elif isinstance(part, (Args, Blocks)):
            _append_list(command, part, next(values), argv)
        elif isinstance(part, Choice):
            given = [alternative for alternative in part.alternatives if options.get(alternative.name) is not None]
            if len(given) != 1:
                names = " or ".join(alternative.name for alternative in part.alternatives)
                raise TypeError(f"{command.name}: give either {names}")
            if isinstance(given[0], Option):
                argv.extend((given[0].token, options[given[0].name]))
            else:
                _append_list(command, given[0], options[given[0].name], argv)
        elif isinstance(part, ScoredMembers):
            items: Mapping[Any, Any] = next(values)
            if not items:
                raise TypeError(f"{command.name}: {part.name} must be a non-empty mapping")
            for member, score in items.items():
                argv.extend((score, member))
        elif isinstance(part, Flag):
            if options.get(part.name):
                argv.append(part.token)
                sent.append(part.token)
        else:
            value = options.get(part.name)
            _append_option(command, part, value, argv, keys)
            if value is not None:
                sent.append(part.token)
    return Call(argv, keys, tuple(sent))


def _append_list(command: Command, part: Union[Args, Blocks], values: Sequence[Any], argv: List[Any]) -> None:
    """``TOKEN value...`` of an Args; a Blocks' tuples flat, after its token if any."""
    if part.token:
        argv.append(part.token)
    if isinstance(part, Args):
        argv.extend(_non_empty(command, part.name, values))
        return
    for block in _non_empty(command, part.name, values):
        if isinstance(block, (str, bytes)) or len(block) != part.width:
            raise TypeError(f"{command.name}: each of {part.name} must be a tuple of {part.width} values, not {block!r}")
        argv.extend(block)


def _append_option(
    command: Command, option: Option, value: Optional[Any], argv: List[Any], keys: List[Any]
) -> None:
    if value is None:
        return
    argv.append(option.token)
    if option.variadic:
        values = _non_empty(command, option.name, value)
        argv.extend(values)
        if option.fields == (KEY,):
            keys.extend(values)
        return
    fields = (value,) if len(option.fields) == 1 else tuple(value)
    if len(fields) != len(option.fields):
        raise TypeError(f"{command.name}: {option.name} takes {len(option.fields)} values")
    for role, field in zip(option.fields, fields):
        argv.append(field)
        if role == KEY:
            keys.append(field)
