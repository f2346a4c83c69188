"""How a command's arguments are laid out, and ``build_call``, which lays
out one call's. The layouts themselves are in ``zkit.commands``, generated
from docs/commands.json by scripts/gen-clients.py.

How to add a command
--------------------
1. Declare it in the module; ``ZKIT_REGENERATE=1 cargo test --lib
   reference`` writes docs/commands.json, then ``python3
   scripts/gen-clients.py`` writes ``zkit.commands`` and ``zkit.replies``
   (its reply type and parser, from the declaration's reply shape).
2. Add the method to ``zkit.client._Methods`` (named after the command,
   positional arguments in the command's order, options as keyword
   arguments named after their tokens) that calls
   ``self._call(COMMANDS["NAME"], ...)``.
3. Call it in ``tests/test_commands.py`` (the suite checks that every entry
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


def table(*commands: Command) -> Dict[str, Command]:
    """The commands by name (zkit.commands.COMMANDS is made with it)."""
    return {command.name: command for command in commands}


class Call:
    """One call's arguments, ready to send: ``argv`` starts with the command
    name, ``keys`` are the key arguments in order (``keys[0]`` routes).
    ``idmp``: the call gives IDMP, so its reply ends with the
    already-applied flag."""

    __slots__ = ("argv", "keys", "idmp")

    def __init__(self, argv: List[Any], keys: List[Any], idmp: bool) -> None:
        self.argv = argv
        self.keys = keys
        self.idmp = idmp


def _non_empty(command: Command, name: str, values: Sequence[Any]) -> Sequence[Any]:
    if isinstance(values, (str, bytes)) or not values:
        raise TypeError(f"{command.name}: {name} must be a non-empty list")
    return values


def build_call(command: Command, positional: Sequence[Any], options: Mapping[str, Any]) -> Call:
    """Lays out one call's arguments as the command's layout says."""
    argv: List[Any] = [command.name]
    keys: List[Any] = []
    idmp = False
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
            argv.append(part.token)
            argv.extend(_non_empty(command, part.name, next(values)))
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
            value = options.get(part.name)
            _append_option(command, part, value, argv, keys)
            idmp = idmp or (part.token == "IDMP" and value is not None)
    return Call(argv, keys, idmp)


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
