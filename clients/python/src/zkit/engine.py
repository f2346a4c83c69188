"""Which zkit a server has: the module's commands, or zkit's Functions
library (``FUNCTION LOAD``) on servers that refuse modules, such as managed
Redis and Valkey services.

``Zkit`` asks the server on its first call (one wrong-arity call of a module
command, then ``FCALL_RO zkit_version``) and then sends every call to the
one it found: ``RANK.GIFT board alice 10`` to the module, ``FCALL
zkit_rank_gift 1 board board alice 10`` to the library, with the same
replies either way. ``Zkit(client).load_functions()`` loads the library this
package ships (on every primary of a cluster) when a server lacks it or has
an older one.
"""

from __future__ import annotations

import pkgutil
import re
from typing import Any, Awaitable, Callable, Generator, List, Optional, Sequence, Tuple

import redis.exceptions

#: The engines: zkit's module, or its Functions library.
MODULE = "module"
FUNCTIONS = "functions"

#: The redis-py command option naming the zkit command an FCALL runs, so
#: the FCALL response callback parses its reply as that command's.
ZKIT_COMMAND = "zkit_command"

#: A client-side DELAY.BPOLL on the library (scripts cannot block) polls
#: again after this many ms, doubling up to the second value while nothing
#: is due.
BPOLL_BACKOFF_MS = (2, 250)

NOT_LOADED = (
    "zkit is not loaded on this server: it knows neither the zkit module's commands nor zkit's "
    "Functions library. On a server that refuses modules (a managed service), load the library: "
    "Zkit(client).load_functions(), or redis-cli -x FUNCTION LOAD REPLACE < zkit.lua; else load the "
    "module (loadmodule /path/to/libzkit.so)."
)


NO_LUA = (
    "zkit cannot run on this server: it has neither the zkit module nor Lua, which zkit's Functions library "
    "runs on (the server answered: {answer}). Load the module (loadmodule /path/to/libzkit.so), or use a server "
    "with Lua scripting (on Valkey 9+, where Lua is a module of its own, one that loads it)."
)


class ZkitNotLoaded(redis.exceptions.RedisError):
    """The server has neither the zkit module nor its Functions library (or
    no Lua to load the library on)."""


def without_lua(error: Exception) -> Optional[ZkitNotLoaded]:
    """The ZkitNotLoaded to raise for a server's error when the error says it
    has no Lua engine (Valkey 9+ without its Lua module), else None."""
    if _is(error, "engine 'lua' not found", "could not find scripting engine"):
        return ZkitNotLoaded(NO_LUA.format(answer=error))
    return None


def library() -> str:
    """The Functions library this package ships (zkit.lua, in the repository
    a link to functions/zkit.lua, which `make functions` builds)."""
    data = pkgutil.get_data("zkit", "zkit.lua")
    assert data is not None
    return data.decode()


def library_version(text: str) -> str:
    """The version a library text declares (``0.4.0+<digest>``)."""
    found = re.search(r"^local VERSION = '([^']+)'", text, re.M)
    assert found, "the library declares its VERSION"
    return found.group(1)


def release(version: str) -> Tuple[int, ...]:
    """The release part of a library version, comparable: ``(0, 3, 0)``."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0]))


def function_name(command: str) -> str:
    """``RANK.GIFT`` -> ``zkit_rank_gift``."""
    return "zkit_" + command.lower().replace(".", "_")


def fcall_argv(argv: Sequence[Any], keys: Sequence[Any]) -> List[Any]:
    """A module call's arguments as the library's FCALL: the keys declared,
    then the command's own arguments."""
    return ["FCALL", function_name(argv[0]), len(keys), *keys, *argv[1:]]


def _is(error: Exception, *texts: str) -> bool:
    message = str(error).lower()
    return any(text in message for text in texts)


# The questions asked of a server are generators of the commands they send
# (each ``yield`` sends one and receives its reply, or its error raised), so
# Zkit and AsyncZkit ask them the same way (``ask`` and ``ask_async``).
Steps = Generator[Tuple[Any, ...], Any, Any]


def detect() -> Steps:
    """The engine a server has."""
    try:
        yield ("RANK.GET",)
    except redis.exceptions.ResponseError as e:
        if _is(e, "wrong number of arguments"):
            return MODULE
        # An ACL user may be refused the probe (NOPERM) yet call FCALL.
        if not _is(e, "unknown command", "no permissions"):
            raise
    else:
        return MODULE
    version = yield from library_version_on()
    if version is None:
        raise ZkitNotLoaded(NOT_LOADED)
    return FUNCTIONS


def library_version_on() -> Steps:
    """The version of the library a server holds, or None."""
    try:
        version = yield ("FCALL_RO", "zkit_version", 0)
    except redis.exceptions.ResponseError as e:
        if _is(e, "function not found"):
            return None
        raise
    return version.decode() if isinstance(version, bytes) else str(version)


def load(force: bool) -> Steps:
    """Loads the shipped library unless the server holds it or (without
    ``force``) a newer release; the version it holds after."""
    text = library()
    shipped = library_version(text)
    current = yield from library_version_on()
    if not should_load(current, shipped, force):
        return current
    try:
        yield ("FUNCTION", "LOAD", "REPLACE", text)
    except redis.exceptions.ResponseError as e:
        no_lua = without_lua(e)
        if no_lua is None:
            raise
        raise no_lua from e
    return shipped


def ask(steps: Steps, execute: Callable[..., Any]) -> Any:
    """Runs ``steps`` with ``execute(*argv)``; what they return."""
    try:
        argv = next(steps)
        while True:
            try:
                reply = execute(*argv)
            except redis.exceptions.ResponseError as e:
                argv = steps.throw(e)
            else:
                argv = steps.send(reply)
    except StopIteration as done:
        return done.value


async def ask_async(steps: Steps, execute: Callable[..., Awaitable[Any]]) -> Any:
    """``ask`` with an awaitable ``execute``."""
    try:
        argv = next(steps)
        while True:
            try:
                reply = await execute(*argv)
            except redis.exceptions.ResponseError as e:
                argv = steps.throw(e)
            else:
                argv = steps.send(reply)
    except StopIteration as done:
        return done.value


def should_load(current: Optional[str], shipped: str, force: bool) -> bool:
    """Whether to load the shipped library over what a server holds: when it
    has none, an older release, or another build of the same release; a
    newer release stays unless ``force``."""
    if current == shipped:
        return False
    if current is None or force:
        return True
    return release(current) <= release(shipped)


def bpoll_timeout_error(timeout_ms: int) -> Optional[str]:
    """DELAY.BPOLL's refusal of a timeout, as the module words it."""
    if timeout_ms < 0:
        return "timeout is negative"
    if timeout_ms > 3155760000000:
        return "timeout is out of range"
    return None


def fcall_parser(previous: Optional[Callable[..., Any]], parsers: Callable[[str], Callable[..., Any]]) -> Callable[..., Any]:
    """A response callback for FCALL: a zkit call's reply parsed as its
    command's, any other FCALL's as before."""

    def parse(response: Any, **options: Any) -> Any:
        command = options.get(ZKIT_COMMAND)
        if command is not None:
            return parsers(command)(response, **options)
        return previous(response, **options) if previous else response

    parse.zkit = True  # type: ignore[attr-defined]
    return parse
