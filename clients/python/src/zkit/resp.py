"""Generic readers of RESP2 and RESP3 values that the generated reply
parsers (``zkit.replies``, from docs/commands.json's reply schemas) compose:
what every reply shape needs, whatever the command."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeVar, Union

#: A member, task id, voter or cursor as the client returns it.
Text = Union[str, bytes]

#: The redis-py command option that tells a parser the tokens of the
#: options the call gave, for the replies they change: IDMP ends the reply
#: with the "already applied" flag, DELAY.TOUCH's TOKEN makes it a token.
SENT_OPTION = "zkit_sent"

T = TypeVar("T")


def text(reply: Any) -> Any:
    """A bulk string as the client returns it."""
    return reply


def int_or_zero(reply: Any) -> int:
    """An integer, or nil read as 0."""
    return 0 if reply is None else int(reply)


def or_none(read: Callable[[Any], T]) -> Callable[[Any], Optional[T]]:
    return lambda reply: None if reply is None else read(reply)


def list_of(read: Callable[[Any], T]) -> Callable[[Any], List[T]]:
    return lambda reply: [read(item) for item in reply]


def flat_list_of(width: int, read: Callable[[Any], T]) -> Callable[[Any], List[T]]:
    """Tuples of ``width`` elements laid out one after another in one array."""
    return lambda reply: [read(reply[i : i + width]) for i in range(0, len(reply), width)]


def tuple_of(*reads: Callable[[Any], Any]) -> Callable[[Any], Tuple[Any, ...]]:
    return lambda reply: tuple(read(item) for read, item in zip(reads, reply))


def field_values(reply: Any) -> Dict[str, Any]:
    """A field list ``[name, value, ...]`` (or a RESP3 map) by name, names
    in snake_case; the caller ignores names a later version adds."""
    pairs = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2])
    return {(name.decode() if isinstance(name, bytes) else name).replace("-", "_"): value for name, value in pairs}


def sent(options: Mapping[str, Any], token: str) -> bool:
    """Whether the call a parser reads the reply of gave the option ``token``."""
    return token in options.get(SENT_OPTION, ())


def idmp_flag(reply: Any, options: Mapping[str, Any]) -> Tuple[Any, Optional[bool]]:
    """A reply without its IDMP flag, and the flag (None without ``idmp``)."""
    if sent(options, "IDMP"):
        return reply[:-1], bool(reply[-1])
    return reply, None


def applied_flag(reply: Any) -> Optional[bool]:
    return getattr(reply, "_already_applied", None)


def mark_applied(value: Any, applied: Optional[bool], once: Mapping[type, type]) -> Any:
    """``value`` (a reply tuple, or a list of them) as the type ``once``
    gives for its type, carrying the IDMP flag; as it is without IDMP."""
    if applied is None:
        return value
    if isinstance(value, list):
        return [mark_applied(item, applied, once) for item in value]
    marked = once[type(value)](*value)
    marked._already_applied = applied
    return marked
