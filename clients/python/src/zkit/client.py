"""``Zkit`` and ``AsyncZkit``: one method per zkit command over a redis-py
client, cluster client or pipeline.

Replies are parsed by response callbacks registered on the wrapped client
(``set_response_callback``, as redis-py's own RedisJSON and RedisBloom
wrappers do), so a pipeline's ``execute()`` returns the same typed values
as direct calls. A side effect: the client's own ``execute_command("RANK.GIFT",
...)`` then returns them too.

The same methods work with zkit's module and with its Functions library on
servers that refuse modules (``zkit.engine``): the first call asks the
server which it has.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union, cast, overload

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

from . import engine as engines
from .commands import COMMANDS
from .engine import FUNCTIONS, ZKIT_COMMAND
from .layout import Call, Command, build_call
from .methods import GeneratedAsyncOverloads, GeneratedMethods
from .params import DeadLetter, Idmp, KeyT, Lease, PollRate, command_method
from .replies import FencedTask, Job, RatedJobs, RatedTasks, RateLimitsResult, RateResult, Task, Text
from .resp import SENT_OPTION
from .routing import slot_of


class _Methods(GeneratedMethods):
    """The command methods, shared by Zkit and AsyncZkit: the generated ones
    (``zkit.methods``) and those written here, whose layout a generated
    method cannot give (gen-clients.py's PYTHON_HAND_METHODS). Each subclass
    defines ``_call``, which sends and returns (or awaits) the reply. In a
    pipeline a call queues the command and returns the pipeline, whose
    ``execute()`` returns the typed replies."""

    # The DELAY methods whose reply type depends on an option (WITHTOKENS,
    # WITHDATA, TOKEN) are overloaded, which command_method's typing cannot
    # carry: AsyncZkit declares their awaitable forms for type checkers.

    @overload
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: Literal[False] = False,
        data: Optional[KeyT] = None,
        withdata: Literal[False] = False,
        worker: Optional[Text] = None,
        rate: None = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> List[Task]: ...
    @overload
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Lease,
        deadletter: Optional[DeadLetter] = None,
        withtokens: Literal[True],
        data: Optional[KeyT] = None,
        withdata: Literal[False] = False,
        worker: Optional[Text] = None,
        rate: None = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> List[FencedTask]: ...
    @overload
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: KeyT,
        withdata: Literal[True],
        worker: Optional[Text] = None,
        rate: None = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> List[Job]: ...
    @overload
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: Optional[KeyT] = None,
        withdata: Literal[False] = False,
        worker: Optional[Text] = None,
        rate: PollRate,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> RatedTasks: ...
    @overload
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: KeyT,
        withdata: Literal[True],
        worker: Optional[Text] = None,
        rate: PollRate,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> RatedJobs: ...
    def delay_poll(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: Optional[KeyT] = None,
        withdata: bool = False,
        worker: Optional[Text] = None,
        rate: Optional[PollRate] = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> Any:
        """DELAY.POLL: claim up to ``count`` (default 1) due tasks, earliest
        first. Without ``lease`` they are removed (at-most-once); with
        ``lease=(inflight, ms)`` they move into ``inflight`` scored by the
        lease's end (at-least-once; ack with ``delay_ack``). With
        ``deadletter=(dead, deliveries, max_deliveries)`` (needs ``lease``)
        each delivery is counted in the sorted set ``deliveries`` and a task
        already delivered ``max_deliveries`` times moves to ``dead`` instead.
        Returns ``[(task, due_ms), ...]``, empty when nothing is due; with
        ``withtokens`` (needs ``lease``) ``[(task, due_ms, token), ...]``
        (``FencedTask``): give the token to ``delay_ack(leases=...)``,
        ``delay_nack`` and ``delay_touch`` so that they act on this delivery
        only, and change nothing once another worker holds the task.

        ``data``: the queue's job data (the hash ``delay_add(jobs=...)``
        writes, in the queue's slot): a paused queue delivers nothing, a task
        past its ``within`` deadline is dead-lettered as ``expired`` (dropped
        without ``deadletter``), and a task polled without ``lease`` takes
        its data with it. ``worker`` (needs ``lease``) records the holder,
        which ``delay_job`` shows. ``withdata`` (needs ``data``) returns
        ``Job`` tuples ``(task, due_ms, token, payload, deliveries)``: token
        None without ``lease``, deliveries None without ``deadletter``.

        ``lanes``: more queues, polled after ``key`` in the order given (a
        due task in an earlier one is always claimed first; the claim takes
        up to ``count`` across them). ``rate=(log, window_ms, limit)``: the
        claims of every worker spend one RATE window (the RATE log ``log``):
        at most ``limit`` tasks per ``window_ms``, nothing spent while
        nothing is due; the reply is then ``RatedTasks(tasks,
        retry_after_ms)`` (``RatedJobs(jobs, ...)`` with ``withdata``), with
        ``retry_after_ms`` the wait when tasks were due but the window
        allowed none (-1 otherwise)."""
        return self._call(
            COMMANDS["DELAY.POLL"],
            key,
            count=count,
            lease=lease,
            deadletter=deadletter,
            withtokens=withtokens,
            data=data,
            withdata=withdata,
            worker=worker,
            rate=rate,
            lanes=lanes,
        )

    @overload
    def delay_bpoll(
        self,
        key: KeyT,
        timeout_ms: int,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: Literal[False] = False,
        data: Optional[KeyT] = None,
        withdata: Literal[False] = False,
        worker: Optional[Text] = None,
        rate: Optional[PollRate] = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> Optional[List[Task]]: ...
    @overload
    def delay_bpoll(
        self,
        key: KeyT,
        timeout_ms: int,
        *,
        count: Optional[int] = None,
        lease: Lease,
        deadletter: Optional[DeadLetter] = None,
        withtokens: Literal[True],
        data: Optional[KeyT] = None,
        withdata: Literal[False] = False,
        worker: Optional[Text] = None,
        rate: Optional[PollRate] = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> Optional[List[FencedTask]]: ...
    @overload
    def delay_bpoll(
        self,
        key: KeyT,
        timeout_ms: int,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: KeyT,
        withdata: Literal[True],
        worker: Optional[Text] = None,
        rate: Optional[PollRate] = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> Optional[List[Job]]: ...
    def delay_bpoll(
        self,
        key: KeyT,
        timeout_ms: int,
        *,
        count: Optional[int] = None,
        lease: Optional[Lease] = None,
        deadletter: Optional[DeadLetter] = None,
        withtokens: bool = False,
        data: Optional[KeyT] = None,
        withdata: bool = False,
        worker: Optional[Text] = None,
        rate: Optional[PollRate] = None,
        lanes: Optional[Sequence[KeyT]] = None,
    ) -> Any:
        """DELAY.BPOLL: ``delay_poll`` that blocks until a task is due or
        ``timeout_ms`` passes (0: forever); None on timeout. With ``data``,
        a paused queue keeps it blocked until ``delay_resume``. The client's
        ``socket_timeout``, if set, must exceed ``timeout_ms``. ``lanes``
        as ``delay_poll``'s; with ``rate`` it also waits for room in the
        window, and replies as without it."""
        return self._call(
            COMMANDS["DELAY.BPOLL"],
            key,
            timeout_ms,
            count=count,
            lease=lease,
            deadletter=deadletter,
            withtokens=withtokens,
            data=data,
            withdata=withdata,
            worker=worker,
            rate=rate,
            lanes=lanes,
        )

    @overload
    def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: None = None) -> bool: ...
    @overload
    def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: int) -> int: ...
    def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: Optional[int] = None) -> Any:
        """DELAY.TOUCH: the task's lease now ends ``lease_ms`` from now.
        False when it was no longer in flight (its lease had ended): the
        worker must stop, the task is due for delivery again. With
        ``token`` (from a poll with ``withtokens``) it returns the
        delivery's new token, to send from then on, and 0 when the lease
        had ended or another delivery holds the task."""
        return self._call(COMMANDS["DELAY.TOUCH"], inflight, task, lease_ms, token=token)

    # RATE.HIT and RATE.PEEK take one limit inline (rate_hit) or a list of
    # them (rate_hit_limits).

    @command_method
    def rate_hit(
        self,
        key: KeyT,
        window_ms: int,
        limit: int,
        *,
        cost: Optional[int] = None,
        idmp: Optional[Idmp] = None,
        retain: Optional[int] = None,
    ) -> Union[RateResult, RateLimitsResult]:
        """RATE.HIT: count a hit (``cost`` units, default 1) against "at
        most ``limit`` units in any ``window_ms``". Returns ``(allowed,
        count, remaining, retry_after_ms)``; a refused hit logs nothing. A
        cost above the limit is refused with ``retry_after_ms`` -1 (no wait
        lets it pass); a negative cost gives that many of the newest units
        back (a refund, always allowed). ``idmp=(seen_key, event_id)``: an allowed hit is counted once per
        event id, so a retried call spends no quota; the reply's
        ``already_applied`` says whether it was counted before (a refused
        hit is not remembered), and the reply is a ``RateLimitsResult``
        with ``binding`` 1, as the server replies the binding position
        with IDMP. ``retain``: as ``rank_gift``."""
        return self._call(COMMANDS["RATE.HIT"], key, [(window_ms, limit)], cost=cost, idmp=idmp, retain=retain)

    @command_method
    def rate_hit_limits(
        self,
        key: KeyT,
        limits: Sequence[Tuple[int, int]],
        *,
        cost: Optional[int] = None,
        idmp: Optional[Idmp] = None,
        retain: Optional[int] = None,
    ) -> RateLimitsResult:
        """RATE.HIT with several ``(window_ms, limit)`` pairs (at least two;
        ``rate_hit`` takes one): the hit is allowed only if every limit
        allows it, then logged once. Returns ``(allowed, count, remaining,
        retry_after_ms, binding)``, the first four for the limit that binds,
        ``binding`` its 1-based position in ``limits``. ``idmp`` and
        ``retain``: as ``rate_hit``."""
        if isinstance(limits, (str, bytes)) or len(limits) < 2:
            raise TypeError("RATE.HIT: limits must list at least two (window_ms, limit) pairs; rate_hit takes one")
        return self._call(COMMANDS["RATE.HIT"], key, limits, cost=cost, idmp=idmp, retain=retain)

    @command_method
    def rate_peek(self, key: KeyT, window_ms: int, limit: int, *, cost: Optional[int] = None) -> RateResult:
        """RATE.PEEK: what ``rate_hit`` with the same ``cost`` (at least 1)
        and limit would answer now, without counting the hit or writing
        anything: ask before expensive work. A forecast: another client's
        hit may come before yours."""
        return self._call(COMMANDS["RATE.PEEK"], key, [(window_ms, limit)], cost=cost)

    @command_method
    def rate_peek_limits(
        self, key: KeyT, limits: Sequence[Tuple[int, int]], *, cost: Optional[int] = None
    ) -> RateLimitsResult:
        """RATE.PEEK with several ``(window_ms, limit)`` pairs (at least
        two; ``rate_peek`` takes one): what ``rate_hit_limits`` would answer
        now, ``binding`` included, nothing written."""
        if isinstance(limits, (str, bytes)) or len(limits) < 2:
            raise TypeError("RATE.PEEK: limits must list at least two (window_ms, limit) pairs; rate_peek takes one")
        return self._call(COMMANDS["RATE.PEEK"], key, limits, cost=cost)


SyncClient = Union[redis.Redis, redis.cluster.RedisCluster]
AsyncClient = Union[redis.asyncio.Redis, redis.asyncio.cluster.RedisCluster, redis.asyncio.cluster.ClusterPipeline]


def _parse_options(call: Call) -> Mapping[str, Any]:
    """What a reply parser must know of the call (redis-py hands command
    options to response callbacks): the options it gave, for the replies
    they change (IDMP's flag ends the reply; DELAY.TOUCH TOKEN answers a
    token)."""
    return {SENT_OPTION: call.sent} if call.sent else {}


def _register_parsers(client: Any) -> None:
    for command in COMMANDS.values():
        client.set_response_callback(command.name, command.parse)
    # A call to the library is an FCALL: its reply is parsed as the zkit
    # command's it runs (the option ZKIT_COMMAND names it).
    callbacks = getattr(client, "cluster_response_callbacks", None)
    if callbacks is None:
        callbacks = getattr(client, "response_callbacks", {})
    previous = callbacks.get("FCALL")
    if not getattr(previous, "zkit", False):
        client.set_response_callback("FCALL", engines.fcall_parser(previous, lambda name: COMMANDS[name].parse))


def _library_call(command: Command, call: Call, parse: Dict[str, Any]) -> List[Any]:
    """The FCALL that runs ``call`` in the library; ``parse`` then names
    the command for the reply's parser."""
    parse[ZKIT_COMMAND] = command.name
    return engines.fcall_argv(call.argv, call.keys)


def _polling_bpoll(call: Call) -> Tuple[List[Any], Optional[float]]:
    """DELAY.BPOLL on the library, which cannot block: the DELAY.POLL to
    repeat and the deadline (None: no timeout), or the module's refusal of
    the timeout."""
    timeout_ms = int(call.argv[2])
    refused = engines.bpoll_timeout_error(timeout_ms)
    if refused:
        raise redis.exceptions.ResponseError(refused)
    poll = ["DELAY.POLL", call.argv[1], *call.argv[3:]]
    deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms else None
    return engines.fcall_argv(poll, call.keys), deadline


def _unrated(reply: Any) -> Tuple[Any, int]:
    """A DELAY.POLL reply as DELAY.BPOLL replies it, and the ms until the
    RATE window has room (-1 without RATE): with RATE, DELAY.POLL replies
    what the window allowed and that wait; DELAY.BPOLL the tasks."""
    if isinstance(reply, (RatedTasks, RatedJobs)):
        return reply[0], reply.retry_after_ms
    return reply, -1


def _next_wait(deadline: Optional[float], wait_ms: float) -> Optional[float]:
    """Seconds to wait before polling again, or None once the deadline has
    passed."""
    if deadline is None:
        return wait_ms / 1000
    left = deadline - time.monotonic()
    return None if left <= 0 else min(wait_ms / 1000, left)


#: Where the engine a server was found to have is kept: on what a client
#: shares with its pipelines (the connection pool, a cluster's node map), so
#: it is asked once per client, not once per ``Zkit``.
ENGINE_ATTRIBUTE = "_zkit_engine"


def _engine_holder(client: Any) -> Any:
    return getattr(client, "nodes_manager", None) or getattr(client, "connection_pool", None) or client


def _remember_engine(holder: Any, engine: Optional[str]) -> None:
    try:
        setattr(holder, ENGINE_ATTRIBUTE, engine)
    except AttributeError:
        pass  # an object with __slots__ (asyncio's node map): ask each time


def _unless_removed(error: Exception, holder: Any) -> Exception:
    """An FCALL's error; when the library was removed since (FUNCTION
    DELETE or FLUSH), a ZkitNotLoaded saying how to load it, and the engine
    is asked again next time; when the server has no Lua to run it on, a
    ZkitNotLoaded saying so."""
    no_lua = engines.without_lua(error)
    if no_lua is not None:
        return no_lua
    if "function not found" not in str(error).lower():
        return error
    _remember_engine(holder, None)
    return engines.ZkitNotLoaded(engines.NOT_LOADED)


PIPELINE_BPOLL = (
    "DELAY.BPOLL: zkit's Functions library cannot block, so the client polls; that cannot happen inside "
    "a pipeline: call delay_poll there"
)


class Zkit(_Methods):
    """zkit's commands on a ``redis.Redis``, ``redis.cluster.RedisCluster``
    or a pipeline of either. On a cluster every call goes straight to the
    primary that owns its keys' slot, with no ``COMMAND GETKEYS`` round
    trip; keys of one call in different slots raise CrossSlotError before
    anything is sent.

    ``engine``: ``"module"`` or ``"functions"`` (zkit's Functions library,
    for servers that refuse modules); by default the first call asks the
    server, and a server with neither raises ``ZkitNotLoaded``, which says
    how to load the library (``load_functions()``)."""

    def __init__(self, client: SyncClient, *, engine: Optional[str] = None) -> None:
        self.client = client
        self.engine = engine
        self._cluster = isinstance(client, redis.cluster.RedisCluster)
        self._pipeline = isinstance(client, (redis.client.Pipeline, redis.cluster.ClusterPipeline))
        _register_parsers(client)

    def _call(self, command: Command, *positional: Any, **options: Any) -> Any:
        call = build_call(command, positional, options)
        parse = dict(_parse_options(call))
        target: Dict[str, Any] = {}
        if self._cluster:
            # Passing target_nodes also turns off redis-py's retry of the
            # call on a connection error (MOVED and ASK are still followed).
            cluster = cast(redis.cluster.RedisCluster, self.client)
            slot = slot_of(command.name, call.keys)
            target["target_nodes"] = (cluster.get_random_node() if slot is None
                                      else cluster.nodes_manager.get_node_from_slot(slot))
        if self._engine(target.get("target_nodes")) != FUNCTIONS:
            return self.client.execute_command(*call.argv, **target, **parse)
        try:
            if command.name == "DELAY.BPOLL":
                return self._bpoll_by_polling(call, target)
            return self.client.execute_command(*_library_call(command, call, parse), **target, **parse)
        except redis.exceptions.ResponseError as e:
            raise _unless_removed(e, _engine_holder(self.client)) from None

    def _engine(self, node: Any = None) -> str:
        if self.engine is None:
            holder = _engine_holder(self.client)
            self.engine = getattr(holder, ENGINE_ATTRIBUTE, None)
            if self.engine is None:
                self.engine = engines.ask(engines.detect(), self._executors(node)[0])
                _remember_engine(holder, self.engine)
        return self.engine

    def _executors(self, node: Any = None) -> List[Callable[..., Any]]:
        """Where to ask what a server holds, outside any pipeline: the
        server, or a cluster's primaries (``node`` alone when given)."""
        if self._cluster:
            cluster = cast(redis.cluster.RedisCluster, self.client)
            nodes = [node] if node is not None else cluster.get_primaries()
            return [cluster.get_redis_connection(n).execute_command for n in nodes]
        if self._pipeline:
            pipeline = cast(redis.client.Pipeline, self.client)
            return [redis.Redis(connection_pool=pipeline.connection_pool).execute_command]
        return [self.client.execute_command]

    def load_functions(self, *, force: bool = False) -> str:
        """Loads zkit's Functions library (the copy this package ships) on
        the server, on every primary of a cluster, where it is missing, an
        older release or another build of this one; a newer release stays
        unless ``force``. Returns the version the (first) server holds
        after. Functions live in the server's data: they reach replicas and
        survive restarts with it."""
        versions = [engines.ask(engines.load(force), execute) for execute in self._executors()]
        if self.engine is None:
            _remember_engine(_engine_holder(self.client), None)
            self._engine()
        return versions[0]

    def _bpoll_by_polling(self, call: Call, target: Dict[str, Any]) -> Any:
        if self._pipeline:
            raise TypeError(PIPELINE_BPOLL)
        argv, deadline = _polling_bpoll(call)
        wait_ms: float = engines.BPOLL_BACKOFF_MS[0]
        while True:
            tasks, room_in_ms = _unrated(self.client.execute_command(*argv, **target, **_parse_options(call), **{ZKIT_COMMAND: "DELAY.POLL"}))
            if tasks:
                return tasks
            wait = _next_wait(deadline, room_in_ms if room_in_ms > 0 else wait_ms)
            if wait is None:
                return None
            time.sleep(wait)
            wait_ms = min(wait_ms * 2, engines.BPOLL_BACKOFF_MS[1])


def _async_cluster(client: Any) -> Optional[redis.asyncio.cluster.RedisCluster]:
    """The asyncio RedisCluster behind a cluster client or cluster pipeline
    (redis-py 6+ calls the pipeline's client ``cluster_client``, 5.x
    ``_client``), or None for a single server."""
    if isinstance(client, redis.asyncio.cluster.RedisCluster):
        return client
    if isinstance(client, redis.asyncio.cluster.ClusterPipeline):
        return getattr(client, "cluster_client", None) or getattr(client, "_client")  # noqa: B009 (redis-py 5.x only: not in its types)
    return None


class AsyncZkit(_Methods, GeneratedAsyncOverloads):
    """``Zkit`` for ``redis.asyncio`` clients, cluster clients and
    pipelines: await every call (in a pipeline it queues the command and
    returns the pipeline)."""

    def __init__(self, client: AsyncClient, *, engine: Optional[str] = None) -> None:
        self.client = client
        self.engine = engine
        self._cluster = _async_cluster(client)
        self._pipeline = isinstance(client, (redis.asyncio.client.Pipeline, redis.asyncio.cluster.ClusterPipeline))
        # An asyncio cluster pipeline of redis-py 5 has no callbacks of its
        # own: it parses with its cluster client's.
        _register_parsers(self._cluster or client)

    if TYPE_CHECKING:
        # The awaitable forms of _Methods' overloaded methods.
        @overload  # type: ignore[override]
        async def delay_poll(
            self,
            key: KeyT,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: Literal[False] = False,
            data: Optional[KeyT] = None,
            withdata: Literal[False] = False,
            worker: Optional[Text] = None,
            rate: None = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> List[Task]: ...
        @overload
        async def delay_poll(
            self,
            key: KeyT,
            *,
            count: Optional[int] = None,
            lease: Lease,
            deadletter: Optional[DeadLetter] = None,
            withtokens: Literal[True],
            data: Optional[KeyT] = None,
            withdata: Literal[False] = False,
            worker: Optional[Text] = None,
            rate: None = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> List[FencedTask]: ...
        @overload
        async def delay_poll(
            self,
            key: KeyT,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: bool = False,
            data: KeyT,
            withdata: Literal[True],
            worker: Optional[Text] = None,
            rate: None = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> List[Job]: ...
        @overload
        async def delay_poll(
            self,
            key: KeyT,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: bool = False,
            data: Optional[KeyT] = None,
            withdata: Literal[False] = False,
            worker: Optional[Text] = None,
            rate: PollRate,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> RatedTasks: ...
        @overload
        async def delay_poll(
            self,
            key: KeyT,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: bool = False,
            data: KeyT,
            withdata: Literal[True],
            worker: Optional[Text] = None,
            rate: PollRate,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> RatedJobs: ...
        async def delay_poll(self, key: KeyT, **options: Any) -> Any: ...

        @overload  # type: ignore[override]
        async def delay_bpoll(
            self,
            key: KeyT,
            timeout_ms: int,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: Literal[False] = False,
            data: Optional[KeyT] = None,
            withdata: Literal[False] = False,
            worker: Optional[Text] = None,
            rate: Optional[PollRate] = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> Optional[List[Task]]: ...
        @overload
        async def delay_bpoll(
            self,
            key: KeyT,
            timeout_ms: int,
            *,
            count: Optional[int] = None,
            lease: Lease,
            deadletter: Optional[DeadLetter] = None,
            withtokens: Literal[True],
            data: Optional[KeyT] = None,
            withdata: Literal[False] = False,
            worker: Optional[Text] = None,
            rate: Optional[PollRate] = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> Optional[List[FencedTask]]: ...
        @overload
        async def delay_bpoll(
            self,
            key: KeyT,
            timeout_ms: int,
            *,
            count: Optional[int] = None,
            lease: Optional[Lease] = None,
            deadletter: Optional[DeadLetter] = None,
            withtokens: bool = False,
            data: KeyT,
            withdata: Literal[True],
            worker: Optional[Text] = None,
            rate: Optional[PollRate] = None,
            lanes: Optional[Sequence[KeyT]] = None,
        ) -> Optional[List[Job]]: ...
        async def delay_bpoll(self, key: KeyT, timeout_ms: int, **options: Any) -> Any: ...

        @overload  # type: ignore[override]
        async def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: None = None) -> bool: ...
        @overload
        async def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: int) -> int: ...
        async def delay_touch(self, inflight: KeyT, task: Text, lease_ms: int, *, token: Optional[int] = None) -> Any: ...

    async def _call(self, command: Command, *positional: Any, **options: Any) -> Any:
        call = build_call(command, positional, options)
        parse = dict(_parse_options(call))
        target: Dict[str, Any] = {}
        if self._cluster is not None:
            slot = slot_of(command.name, call.keys)
            if not self._cluster.nodes_manager.slots_cache:
                await self._cluster.initialize()
            target["target_nodes"] = (self._cluster.get_random_node() if slot is None
                                      else self._cluster.nodes_manager.get_node_from_slot(slot))
        if await self._engine(target.get("target_nodes")) != FUNCTIONS:
            return await _reply(self.client.execute_command(*call.argv, **target, **parse))
        try:
            if command.name == "DELAY.BPOLL":
                return await self._bpoll_by_polling(call, target)
            return await _reply(self.client.execute_command(*_library_call(command, call, parse), **target, **parse))
        except redis.exceptions.ResponseError as e:
            raise _unless_removed(e, _engine_holder(self._cluster or self.client)) from None

    async def _engine(self, node: Any = None) -> str:
        if self.engine is None:
            holder = _engine_holder(self._cluster or self.client)
            self.engine = getattr(holder, ENGINE_ATTRIBUTE, None)
            if self.engine is None:
                executors = await self._executors(node)
                self.engine = await engines.ask_async(engines.detect(), executors[0])
                _remember_engine(holder, self.engine)
        return self.engine

    async def _executors(self, node: Any = None) -> List[Callable[..., Awaitable[Any]]]:
        """``Zkit._executors`` for asyncio clients."""
        cluster = self._cluster
        if cluster is not None:
            if not cluster.nodes_manager.slots_cache:
                await cluster.initialize()
            nodes = [node] if node is not None else cluster.get_primaries()

            def on(n: Any) -> Callable[..., Awaitable[Any]]:
                return lambda *argv: cluster.execute_command(*argv, target_nodes=n)

            return [on(n) for n in nodes]
        if self._pipeline:
            pipeline = cast(redis.asyncio.client.Pipeline, self.client)
            return [redis.asyncio.Redis(connection_pool=pipeline.connection_pool).execute_command]
        client = cast(redis.asyncio.Redis, self.client)
        return [client.execute_command]

    async def load_functions(self, *, force: bool = False) -> str:
        """``Zkit.load_functions`` for asyncio clients."""
        versions = [await engines.ask_async(engines.load(force), execute) for execute in await self._executors()]
        if self.engine is None:
            _remember_engine(_engine_holder(self._cluster or self.client), None)
            await self._engine()
        return versions[0]

    async def _bpoll_by_polling(self, call: Call, target: Dict[str, Any]) -> Any:
        if self._pipeline:
            raise TypeError(PIPELINE_BPOLL)
        argv, deadline = _polling_bpoll(call)
        wait_ms: float = engines.BPOLL_BACKOFF_MS[0]
        while True:
            tasks, room_in_ms = _unrated(await self.client.execute_command(*argv, **target, **_parse_options(call), **{ZKIT_COMMAND: "DELAY.POLL"}))
            if tasks:
                return tasks
            wait = _next_wait(deadline, room_in_ms if room_in_ms > 0 else wait_ms)
            if wait is None:
                return None
            await asyncio.sleep(wait)
            wait_ms = min(wait_ms * 2, engines.BPOLL_BACKOFF_MS[1])


async def _reply(sent: Any) -> Any:
    """A client's execute_command returns a coroutine; a pipeline's queues
    the command and returns the pipeline, which must not be awaited: that
    would (re)initialize it and drop the queued commands."""
    return await sent if inspect.iscoroutine(sent) else sent
