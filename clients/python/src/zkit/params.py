"""The parameter types of the command methods, and ``command_method``,
which types a method for both clients: its reply on ``Zkit``, an awaitable
of it on ``AsyncZkit``. The generated methods (``zkit.methods``) and the
hand-written ones (``zkit.client``) share them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generic, Tuple, TypeVar, Union, overload

from .replies import Text

KeyT = Union[str, bytes]
Number = Union[int, float, str]
#: ``idmp=(seen_key, event_id)``: an exactly-once write (docs/delivery.md).
Idmp = Tuple[KeyT, Text]
#: ``lease=(inflight, ms)``: claimed tasks move into ``inflight`` until ``ms`` from now.
Lease = Tuple[KeyT, int]
#: ``deadletter=(dead, deliveries, max_deliveries)``.
DeadLetter = Tuple[KeyT, KeyT, int]
#: ``rate=(log, window_ms, limit)``: a poll's claims spend a RATE window.
PollRate = Tuple[KeyT, int, int]

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    from .client import AsyncZkit

    P = ParamSpec("P")
    T = TypeVar("T")

    class _Method(Generic[P, T]):
        """For type checkers: a command method returns its reply on Zkit
        and an awaitable of it on AsyncZkit."""

        @overload
        def __get__(self, obj: "AsyncZkit", owner: Any) -> Callable[P, Awaitable[T]]: ...
        @overload
        def __get__(self, obj: Any, owner: Any) -> Callable[P, T]: ...
        def __get__(self, obj: Any, owner: Any) -> Any: ...

    def command_method(method: Callable[Concatenate[Any, P], T]) -> _Method[P, T]: ...

else:

    def command_method(method):
        return method
