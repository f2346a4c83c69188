"""Every command declaration's examples (docs/commands.json), each called
through its typed method on one server and on the cluster: the method's
arguments are read back from the example's words by the command's layout,
the call the method builds must be the example word for word, and its reply
must parse. A command gets this test by being declared, with no line here;
tests/test_commands.py checks replies, scenario by scenario."""

from __future__ import annotations

import inspect
import json
import pathlib
from typing import Any, Dict, List, Sequence, Tuple

import pytest
import redis

import zkit
from zkit.commands import COMMANDS
from zkit.layout import Arg, Args, Blocks, Choice, Command, Flag, Key, Keys, Option, ScoredMembers, build_call

from conftest import k

COMMANDS_JSON = pathlib.Path(__file__).resolve().parents[3] / "docs" / "commands.json"
EXAMPLES: List[Tuple[str, List[str]]] = [
    (name, words) for name, doc in json.loads(COMMANDS_JSON.read_text()).items() for words in doc["examples"]
]

#: The methods of RATE.HIT and RATE.PEEK for one limit (and for several).
_SEVERAL_LIMITS = {"RATE.HIT": "rate_hit_limits", "RATE.PEEK": "rate_peek_limits"}


def _value(word: str) -> Any:
    """A word as a call would give it: whole numbers as ints."""
    return int(word) if word.lstrip("-").isdigit() else word


def _tokens(command: Command) -> Dict[str, Any]:
    """The layout's option, flag and choice parts by token."""
    found: Dict[str, Any] = {}
    for part in command.layout:
        if isinstance(part, (Option, Flag)):
            found[part.token] = part
        elif isinstance(part, Choice):
            found.update((alternative.token, alternative) for alternative in part.alternatives)
    return found


def arguments_of(command: Command, words: Sequence[str]) -> Tuple[List[Any], Dict[str, Any]]:
    """The positional values and the options that build ``words`` (after the
    command's name): the inverse of ``build_call``."""
    tokens = _tokens(command)
    positional = [part for part in command.layout if isinstance(part, (Key, Arg, Keys, Args, Blocks, ScoredMembers))]
    values: List[Any] = []
    options: Dict[str, Any] = {}
    i = 1

    def until_token(start: int) -> int:
        end = start
        while end < len(words) and words[end].upper() not in tokens:
            end += 1
        return end

    while i < len(words):
        part = tokens.get(words[i].upper())
        if part is None:
            part = positional.pop(0)
            if isinstance(part, (Key, Arg)):
                values.append(_value(words[i]))
                i += 1
            elif isinstance(part, Keys):
                count = int(words[i])
                values.append(list(words[i + 1 : i + 1 + count]))
                i += 1 + count
            elif isinstance(part, Args):  # TOKEN value...: every word after the token
                values.append([_value(w) for w in words[i + 1 :]])
                i = len(words)
            else:  # the blocks run to the end of the call
                flat = [_value(w) for w in words[i:]]
                width = 2 if isinstance(part, ScoredMembers) else part.width
                blocks = [tuple(flat[j : j + width]) for j in range(0, len(flat), width)]
                values.append({member: score for score, member in blocks} if isinstance(part, ScoredMembers) else blocks)
                i = len(words)
        elif isinstance(part, Flag):
            options[part.name] = True
            i += 1
        elif isinstance(part, Args):  # a choice's list of values: to the end
            options[part.name] = [_value(w) for w in words[i + 1 :]]
            i = len(words)
        elif isinstance(part, Blocks):  # a choice's list of blocks: to the end
            flat = [_value(w) for w in words[i + 1 :]]
            options[part.name] = [tuple(flat[j : j + part.width]) for j in range(0, len(flat), part.width)]
            i = len(words)
        elif part.variadic:
            end = until_token(i + 1)
            options[part.name] = [_value(w) for w in words[i + 1 : end]]
            i = end
        else:
            fields = [_value(w) for w in words[i + 1 : i + 1 + len(part.fields)]]
            options[part.name] = fields[0] if len(fields) == 1 else tuple(fields)
            i += 1 + len(fields)
    return values, options


def _with_prefix(words: Sequence[str]) -> List[str]:
    """The example with the test's keys: every word holding the tag {t}."""
    return [k(w) if "{t}" in w else w for w in words]


def _call(z: zkit.Zkit, name: str, words: List[str]) -> Any:
    """Calls the example through its method; checks the call it builds."""
    command = COMMANDS[name]
    values, options = arguments_of(command, words)
    assert [str(w) for w in build_call(command, values, options).argv] == words, (name, values, options)
    method_name = name.lower().replace(".", "_")
    if name in _SEVERAL_LIMITS:  # one limit inline, or a list of them
        [key, limits] = values
        if len(limits) == 1:
            return getattr(z, method_name)(key, *limits[0], **options)
        return getattr(z, _SEVERAL_LIMITS[name])(key, limits, **options)
    method = getattr(z, method_name)
    parameters = list(inspect.signature(method).parameters.values())
    star = next((p.name for p in parameters if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    named = sum(1 for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if star in options:  # a choice's first list, taken as *args
        values.extend(options.pop(star))
    elif star is not None and len(values) > named:  # the last list of values, as *args
        values.extend(values.pop())
    return method(*values, **options)


@pytest.mark.parametrize("topology", ["single", "cluster"])
def test_every_declared_example_through_its_method(topology: str, request: pytest.FixtureRequest) -> None:
    client: redis.Redis = request.getfixturevalue(topology)
    z = zkit.Zkit(client)
    called = set()
    for name, example in EXAMPLES:
        words = _with_prefix(example)
        if words[0] != name:  # a native command that sets up the next example
            client.execute_command(*words)
            continue
        _call(z, name, words)
        called.add(name)
    assert called == set(COMMANDS)
