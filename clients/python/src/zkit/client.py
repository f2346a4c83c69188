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
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, Generic, List, Literal, Mapping, Optional, Sequence, Tuple, TypeVar, Union, cast, overload

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

from . import engine as engines
from .commands import COMMANDS
from .engine import FUNCTIONS, ZKIT_COMMAND
from .layout import Call, Command, build_call
from .replies import (
    BoardStats,
    DelayStats,
    FeedPage,
    FencedTask,
    GroupState,
    Job,
    JobInfo,
    MergeStep,
    RankEntry,
    RankInfo,
    RateAcquired,
    RateLimitsResult,
    RateResult,
    RateStats,
    RatedJobs,
    RatedTasks,
    Schedule,
    Task,
    Text,
    TotalRank,
    VoteResult,
)
from .resp import SENT_OPTION
from .routing import slot_of

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


class _Methods:
    """The command methods, shared by Zkit and AsyncZkit; each subclass
    defines ``_call``, which sends and returns (or awaits) the reply. In a
    pipeline a call queues the command and returns the pipeline, whose
    ``execute()`` returns the typed replies."""

    def _call(self, command: Command, *positional: Any, **options: Any) -> Any:
        raise NotImplementedError

    # RANK: first-come leaderboards

    @command_method
    def rank_gift(
        self,
        key: KeyT,
        member: Text,
        amount: int,
        *,
        at: Optional[int] = None,
        shared: bool = False,
        ttl: Optional[int] = None,
        idmp: Optional[Idmp] = None,
        retain: Optional[int] = None,
    ) -> TotalRank:
        """RANK.GIFT: add ``amount`` (negative allowed) to the member's total
        (absent members start at 0); equal totals rank first-come. ``at``
        (unix ms) replaces the server clock as the time the total was
        reached. Returns ``(total, rank)``, rank 1-based; with ``shared``,
        the competition rank (1 + the members with a higher total). With
        ``ttl`` (seconds) the board expires that long after this write
        (each write sets it again: a season's board).
        ``idmp=(seen_key, event_id)``: the gift applies once per event id
        (retry a failed call with the same id), remembered ``retain`` ms
        (default zkit.idmp-retain-ms, 24 h); the reply's ``already_applied``
        then says whether the event was applied before (nothing changed).
        On a cluster seen_key shares the board's slot."""
        return self._call(
            COMMANDS["RANK.GIFT"], key, member, amount, at=at, shared=shared, ttl=ttl, idmp=idmp, retain=retain
        )

    @command_method
    def rank_set(
        self,
        key: KeyT,
        member: Text,
        total: int,
        *,
        at: Optional[int] = None,
        gt: bool = False,
        lt: bool = False,
        shared: bool = False,
        ttl: Optional[int] = None,
        idmp: Optional[Idmp] = None,
        retain: Optional[int] = None,
    ) -> TotalRank:
        """RANK.SET: replace the member's total; with ``gt`` only by a
        higher one, with ``lt`` only by a lower one (best-score boards; a
        member not on the board is added either way). Returns ``(total,
        rank)`` of the total that stands after the call; a total that does
        not change keeps its reached-at time. ``shared``, ``ttl``, ``idmp``
        and ``retain``: as ``rank_gift``."""
        return self._call(
            COMMANDS["RANK.SET"],
            key,
            member,
            total,
            at=at,
            gt=gt,
            lt=lt,
            shared=shared,
            ttl=ttl,
            idmp=idmp,
            retain=retain,
        )

    @command_method
    def rank_get(self, key: KeyT, member: Text, *, shared: bool = False) -> Optional[RankInfo]:
        """RANK.GET: ``(total, rank, reached_at_ms)``, or None when the key
        or the member is absent. ``shared``: the competition rank."""
        return self._call(COMMANDS["RANK.GET"], key, member, shared=shared)

    @command_method
    def rank_top(
        self, key: KeyT, count: int, *, offset: Optional[int] = None, shared: bool = False
    ) -> List[RankEntry]:
        """RANK.TOP: up to ``count`` entries from rank ``offset + 1`` down,
        each ``(rank, member, total)``; empty for an absent key. With
        ``shared``, equal totals show one competition rank (``offset``
        still counts positions)."""
        return self._call(COMMANDS["RANK.TOP"], key, count, offset=offset, shared=shared)

    @command_method
    def rank_around(self, key: KeyT, member: Text, radius: int, *, shared: bool = False) -> List[RankEntry]:
        """RANK.AROUND: the member and up to ``radius`` entries above and
        below it, each ``(rank, member, total)``; empty when it is absent.
        ``shared``: competition ranks (``radius`` still counts positions)."""
        return self._call(COMMANDS["RANK.AROUND"], key, member, radius, shared=shared)

    @command_method
    def rank_merge(
        self,
        destkey: KeyT,
        sources: Sequence[KeyT],
        *,
        weights: Optional[Sequence[int]] = None,
        step: Optional[Tuple[int, KeyT, Text]] = None,
    ) -> Union[int, MergeStep]:
        """RANK.MERGE: store the sum of ``sources`` (times integer
        ``weights``, one per source) in ``destkey``, keeping first-come
        order. ``numkeys`` is sent for you. All keys must share a hash slot
        on a cluster. Returns the members in ``destkey``.
        ``step=(count, staging_key, cursor)`` merges ``count`` members per
        call into ``staging_key`` (cursor ``0`` starts) and returns a
        ``MergeStep``: call again with its cursor until it is ``0``."""
        return self._call(COMMANDS["RANK.MERGE"], destkey, sources, weights=weights, step=step)

    @command_method
    def rank_mgift(
        self,
        keys: Sequence[KeyT],
        member: Text,
        amount: int,
        *,
        at: Optional[int] = None,
        shared: bool = False,
        ttl: Optional[int] = None,
        idmp: Optional[Idmp] = None,
        retain: Optional[int] = None,
    ) -> List[TotalRank]:
        """RANK.MGIFT: ``rank_gift`` on every board of ``keys`` in one
        atomic call (an error changes no board). ``numkeys`` is sent for
        you. All keys must share a hash slot on a cluster. Returns one
        ``(total, rank)`` per board, in key order; with ``idmp`` (as
        ``rank_gift``) each has ``already_applied`` set; ``ttl`` sets every
        board's expiry."""
        return self._call(
            COMMANDS["RANK.MGIFT"], keys, member, amount, at=at, shared=shared, ttl=ttl, idmp=idmp, retain=retain
        )

    @command_method
    def rank_mget(self, key: KeyT, *members: Text, shared: bool = False) -> List[Optional[RankInfo]]:
        """RANK.MGET: ``rank_get`` for each member, in order: ``(total,
        rank, reached_at_ms)`` or None. Sent as ``RANK.MGET key [SHARED]
        MEMBERS member...``, so any member id goes, ``SHARED`` too."""
        return self._call(COMMANDS["RANK.MGET"], key, members, shared=shared)

    @command_method
    def rank_stats(self, key: KeyT) -> BoardStats:
        """RANK.STATS: a board's members, top, p99, p90, p50 and bottom
        totals (None on an empty board) and its memory in bytes, in
        O(log N)."""
        return self._call(COMMANDS["RANK.STATS"], key)

    @command_method
    def rank_percentile(self, key: KeyT, member: Text) -> Optional[int]:
        """RANK.PERCENTILE: the share of the board ranked below the member
        (first-come ranks), 0 to 100 rounded up, or None when it is absent."""
        return self._call(COMMANDS["RANK.PERCENTILE"], key, member)

    @command_method
    def rank_quantile(self, key: KeyT, percentile: Number) -> Optional[float]:
        """RANK.QUANTILE: the total at ``percentile`` (0 to 100, decimals
        allowed), interpolated between the totals around it, lowest first;
        None on an empty board."""
        return self._call(COMMANDS["RANK.QUANTILE"], key, percentile)

    @command_method
    def rank_count(self, key: KeyT, min: Number, max: Number) -> int:
        """RANK.COUNT: how many members have a total between ``min`` and
        ``max``, inclusive; bounds as ZCOUNT reads them (``"-inf"``,
        ``"+inf"``, ``"(120"`` for an exclusive bound)."""
        return self._call(COMMANDS["RANK.COUNT"], key, min, max)

    @command_method
    def rank_range(
        self,
        key: KeyT,
        max: Number,
        min: Number,
        *,
        limit: Optional[Tuple[int, int]] = None,
        shared: bool = False,
    ) -> List[RankEntry]:
        """RANK.RANGE: the members whose total lies between ``max`` and
        ``min`` (a score band), highest first, each ``(rank, member,
        total)`` with its rank on the whole board; bounds as RANK.COUNT
        reads them (``"+inf"``, ``"(100"`` for an exclusive bound).
        ``limit=(offset, count)`` pages through the band (a negative count:
        all the rest); ``shared``: competition ranks."""
        return self._call(COMMANDS["RANK.RANGE"], key, max, min, limit=limit, shared=shared)

    @command_method
    def rank_among(self, key: KeyT, *members: Text, shared: bool = False) -> List[RankEntry]:
        """RANK.AMONG: the given members on the board (a friends board), in
        the board's order, each ``(rank, member, total)`` with its rank among
        them; absent ones left out, a member given twice counted once.
        ``shared``: equal totals share a rank. Sent as ``RANK.AMONG key
        [SHARED] MEMBERS member...``, so any member id goes."""
        return self._call(COMMANDS["RANK.AMONG"], key, members, shared=shared)

    # FEED: waterfall feeds with exact cursors

    @command_method
    def feed_add(self, key: KeyT, items: Mapping[Text, Number], *, cap: Optional[int] = None) -> int:
        """FEED.ADD: add or re-score ``{member: score}`` items like ZADD;
        with ``cap``, keep only the ``cap`` newest. Returns how many members
        were new."""
        return self._call(COMMANDS["FEED.ADD"], key, items, cap=cap)

    @command_method
    def feed_page(
        self,
        key: KeyT,
        *,
        count: Optional[int] = None,
        newer: Optional[Text] = None,
        older: Optional[Text] = None,
    ) -> FeedPage:
        """FEED.PAGE: a page newest first (``count`` 1..1000, default 10):
        the newest items, or those strictly ``newer`` or ``older`` than a
        cursor FEED.PAGE returned. Returns ``(items, top, bottom, more)``;
        an empty page returns the cursor given (None without one) as
        ``top`` and ``bottom``."""
        return self._call(COMMANDS["FEED.PAGE"], key, count=count, newer=newer, older=older)

    # DELAY: delayed tasks with leases

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

    @command_method
    def delay_ack(
        self,
        inflight: KeyT,
        *tasks: Text,
        deliveries: Optional[KeyT] = None,
        data: Optional[KeyT] = None,
        leases: Optional[Sequence[Tuple[Text, int]]] = None,
    ) -> int:
        """DELAY.ACK: remove finished tasks from an in-flight set (and with
        ``deliveries``, their delivery counts; with ``data``, their payloads
        and history). Returns how many were removed. Give either ``tasks``
        (removed whatever delivery holds them: a task whose lease ended and
        that was delivered again goes too) or ``leases=[(task, token),
        ...]`` with the tokens a poll with ``withtokens`` returned: each task
        is removed only while the delivery its token names holds it. Sent
        as ``DELAY.ACK inflight [DELIVERIES key] [DATA key] TASKS task...``
        (``LEASES task token...``), so any task id goes, ``DELIVERIES``
        too."""
        return self._call(
            COMMANDS["DELAY.ACK"], inflight, deliveries=deliveries, data=data, tasks=tasks or None, leases=leases
        )

    @command_method
    def delay_nack(
        self,
        inflight: KeyT,
        queue: KeyT,
        task: Text,
        delay_ms: int,
        *,
        token: Optional[int] = None,
        data: Optional[KeyT] = None,
        reason: Optional[Text] = None,
    ) -> bool:
        """DELAY.NACK: hand a held task back, due in ``queue`` ``delay_ms``
        from now (0: now), in one step; it keeps its delivery count. False
        when it was no longer in flight (its lease had ended) or, with
        ``token`` (from a poll with ``withtokens``), another delivery holds
        it: nothing changes. With ``data`` the task keeps its payload and
        its holder is forgotten; ``reason`` (needs ``data``) becomes its
        last failure reason, which ``delay_job`` shows and a dead task
        keeps. ``inflight`` and ``queue`` must share a hash slot on a
        cluster."""
        return self._call(COMMANDS["DELAY.NACK"], inflight, queue, task, delay_ms, token=token, data=data, reason=reason)

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

    @command_method
    def delay_stats(
        self,
        queue: KeyT,
        *,
        inflight: Optional[KeyT] = None,
        dead: Optional[KeyT] = None,
        deliveries: Optional[KeyT] = None,
        data: Optional[KeyT] = None,
    ) -> DelayStats:
        """DELAY.STATS: a queue's depth and lag (tasks, due now, how long
        the oldest due task has waited, when the next falls due) and, for
        the sets named, tasks in flight, leases that ended, dead tasks and
        tasks delivered more than once; with ``data``, ``paused`` (else
        None). O(log N) however large the sets. All keys must share a hash
        slot on a cluster."""
        return self._call(
            COMMANDS["DELAY.STATS"], queue, inflight=inflight, dead=dead, deliveries=deliveries, data=data
        )

    @command_method
    def delay_add(
        self,
        queue: KeyT,
        *,
        tasks: Optional[Sequence[Tuple[int, Text]]] = None,
        jobs: Optional[Sequence[Tuple[int, Text, Text]]] = None,
        data: Optional[KeyT] = None,
        inflight: Optional[KeyT] = None,
        keep: bool = False,
        replace: bool = False,
        extend: bool = False,
        within: Optional[int] = None,
        group: Optional[Text] = None,
    ) -> List[int]:
        """DELAY.ADD: add ``tasks=[(due_ms, task), ...]`` or, with their
        payloads into the ``data`` hash, ``jobs=[(due_ms, task, payload),
        ...]`` (give one of the two), in one call; tasks due in the same ms
        come out in the order given. A task id the queue already holds is
        kept as it is (``keep``, the default), or given the new due time
        and payload (``replace``), or pushed back only (``extend``:
        debounce; the payload is replaced); with ``inflight``, an id a
        worker holds is never touched. ``within`` (ms, needs ``data``): a
        task still waiting that long after its due time is not delivered.
        ``group`` (needs ``data``): the tasks belong to that group (a
        tenant), whose limits ``delay_group`` sets. Returns one integer per task: 1 added, 2 updated, 0 kept. All keys
        must share a hash slot on a cluster."""
        return self._call(
            COMMANDS["DELAY.ADD"],
            queue,
            tasks=tasks,
            jobs=jobs,
            data=data,
            inflight=inflight,
            keep=keep,
            replace=replace,
            extend=extend,
            within=within,
            group=group,
        )

    @command_method
    def delay_job(
        self,
        queue: KeyT,
        task: Text,
        *,
        inflight: Optional[KeyT] = None,
        dead: Optional[KeyT] = None,
        deliveries: Optional[KeyT] = None,
        data: Optional[KeyT] = None,
    ) -> JobInfo:
        """DELAY.JOB: one task's state and history, for a console or an
        operator: ``state`` (``queued``, ``inflight`` or ``dead``, looked up
        in that order among the sets named; None in none), its ``score``
        there (due time, lease end, time of death) and from ``data`` its
        payload, last failure reason, ``within`` deadline and holder;
        ``deliveries`` its count (a dead task's: the count it died with).
        None where there is none or the key was not named."""
        return self._call(
            COMMANDS["DELAY.JOB"], queue, task, inflight=inflight, dead=dead, deliveries=deliveries, data=data
        )

    @command_method
    def delay_retry(self, dead: KeyT, queue: KeyT, *tasks: Text, data: Optional[KeyT] = None) -> int:
        """DELAY.RETRY: send dead tasks back to ``queue``, due now, in the
        order given (a retry after a fix); with ``data`` each keeps its
        payload and last failure reason, and its deliveries count again
        from 0. Returns how many were dead. Sent as ``... TASKS task...``,
        so any task id goes."""
        return self._call(COMMANDS["DELAY.RETRY"], dead, queue, tasks, data=data)

    @command_method
    def delay_pause(self, queue: KeyT, data: KeyT) -> bool:
        """DELAY.PAUSE: polls that name the queue's ``data`` hash deliver
        nothing (blocked ones stay blocked) until ``delay_resume``; tasks
        are still added, and held ones still acked. False when it was
        paused already. ``delay_stats(data=...)`` says ``paused``."""
        return self._call(COMMANDS["DELAY.PAUSE"], queue, data)

    @command_method
    def delay_resume(self, queue: KeyT, data: KeyT) -> bool:
        """DELAY.RESUME: resume a paused queue and wake the polls blocked on
        it. False when it was not paused."""
        return self._call(COMMANDS["DELAY.RESUME"], queue, data)

    @command_method
    def delay_schedule(
        self,
        queue: KeyT,
        data: KeyT,
        schedule_id: Text,
        *,
        every: Optional[int] = None,
        cron: Optional[Text] = None,
        tz: Optional[Text] = None,
        start: Optional[int] = None,
        payload: Optional[Text] = None,
    ) -> int:
        """DELAY.SCHEDULE: add or change the repeating job ``schedule_id``: ``every``
        ms (from ``start``, unix ms, default now) or at the times the
        five-field ``cron`` expression matches in the time zone ``tz``
        (default UTC); give one of the two. Each occurrence is the task
        ``<schedule_id>@<unix-ms>`` of ``queue`` (with ``payload`` in ``data``), and
        the poll that claims it queues the next one, so each runs once
        across workers and failovers. A schedule changed replaces its
        pending occurrence. Returns the first occurrence's time."""
        return self._call(
            COMMANDS["DELAY.SCHEDULE"], queue, data, schedule_id, every=every, cron=cron, tz=tz, start=start, payload=payload
        )

    @command_method
    def delay_unschedule(self, queue: KeyT, data: KeyT, schedule_id: Text) -> bool:
        """DELAY.UNSCHEDULE: cancel the repeating job ``schedule_id`` and its pending
        occurrence (one a worker holds runs to its end). False when there
        was no such schedule."""
        return self._call(COMMANDS["DELAY.UNSCHEDULE"], queue, data, schedule_id)

    @command_method
    def delay_schedules(self, queue: KeyT, data: KeyT) -> List[Schedule]:
        """DELAY.SCHEDULES: the queue's repeating jobs by id, each a
        ``Schedule(id, every_ms, cron, tz, next_ms, payload)``."""
        return self._call(COMMANDS["DELAY.SCHEDULES"], queue, data)

    @command_method
    def delay_group(
        self, queue: KeyT, data: KeyT, group: Text, *, cap: Optional[int] = None, rate: Optional[Tuple[int, int]] = None
    ) -> bool:
        """DELAY.GROUP: a group's limits in the queue: ``cap``, at most that
        many of its tasks in flight at once; ``rate=(window_ms, limit)``, at
        most ``limit`` of its tasks claimed in any ``window_ms``. Neither:
        the group has no limits. Polls that name ``data`` pass over its due
        tasks while it is at a limit and serve the other groups. Returns
        True when the group has limits now."""
        return self._call(COMMANDS["DELAY.GROUP"], queue, data, group, cap=cap, rate=rate)

    @command_method
    def delay_groups(self, queue: KeyT, data: KeyT) -> List[GroupState]:
        """DELAY.GROUPS: the queue's groups with limits, each a
        ``GroupState(group, inflight, cap, rate_limit, window_ms, capped,
        rate_limited)``."""
        return self._call(COMMANDS["DELAY.GROUPS"], queue, data)

    # RATE: exact sliding-window limits

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

    @command_method
    def rate_acquire(self, key: KeyT, holder: Text, lease_ms: int, limit: int) -> RateAcquired:
        """RATE.ACQUIRE: take one of ``limit`` slots of a concurrency limit
        for ``holder`` (your request or worker id) for ``lease_ms`` at most,
        or renew the lease it holds. Returns ``(acquired, held, remaining,
        retry_after_ms, token)``: refused, the ms until a lease ends;
        acquired, the lease's ``token`` for ``rate_release``."""
        return self._call(COMMANDS["RATE.ACQUIRE"], key, holder, lease_ms, limit)

    @command_method
    def rate_release(self, key: KeyT, holder: Text, *, token: Optional[int] = None) -> bool:
        """RATE.RELEASE: give ``holder``'s slot back. With ``token`` (what
        ``rate_acquire`` answered), only that lease: a holder that stalled
        past its lease frees nothing. False when it held no slot."""
        return self._call(COMMANDS["RATE.RELEASE"], key, holder, token=token)

    @command_method
    def rate_stats(self, key: KeyT, *windows_ms: int) -> RateStats:
        """RATE.STATS: the entries of a rate log in each window given (at
        least one; what RATE.HIT would count now), without counting a hit."""
        if not windows_ms:
            raise TypeError("RATE.STATS: give at least one window in ms")
        return self._call(COMMANDS["RATE.STATS"], key, windows_ms)

    # RECENT: recently-viewed lists

    @command_method
    def recent_add(
        self, key: KeyT, *members: Text, cap: Optional[int] = None, ttl: Optional[int] = None
    ) -> int:
        """RECENT.ADD: record views (in argument order, the last newest);
        keep the ``cap`` newest; with ``ttl`` (seconds) the key expires that
        long after this call. Returns the list's size. Read it with
        ``zrevrange(key, 0, 9)``. Sent as ``RECENT.ADD key [CAP n] [TTL
        seconds] ITEMS member...``, so any item id goes, ``CAP`` too."""
        return self._call(COMMANDS["RECENT.ADD"], key, members, cap=cap, ttl=ttl)

    # VOTE: up and down votes with dedup sets

    @command_method
    def vote_cast(
        self,
        scores: KeyT,
        upvoters: KeyT,
        downvoters: KeyT,
        item: Text,
        voter: Text,
        direction: str,
        *,
        weight: Optional[Tuple[Number, Number]] = None,
        window: Optional[Tuple[KeyT, int]] = None,
    ) -> VoteResult:
        """VOTE.CAST: cast, switch or take back (``direction`` "UP", "DOWN"
        or "CLEAR") ``voter``'s vote on ``item``. ``weight=(up, down)``
        (default 1, 1); ``window=(times, seconds)`` refuses votes that many
        seconds after the item's post time in ``times``. All keys must share
        a hash slot on a cluster. Returns ``(score, ups, downs, changed)``."""
        return self._call(
            COMMANDS["VOTE.CAST"],
            scores,
            upvoters,
            downvoters,
            item,
            voter,
            direction,
            weight=weight,
            window=window,
        )

    @command_method
    def vote_state(self, upvoters: KeyT, downvoters: KeyT, voter: Text) -> int:
        """VOTE.STATE: the voter's vote, 1 up, -1 down, 0 none."""
        return self._call(COMMANDS["VOTE.STATE"], upvoters, downvoters, voter)


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
            target["target_nodes"] = cluster.nodes_manager.get_node_from_slot(slot_of(command.name, call.keys))
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
            tasks = self.client.execute_command(*argv, **target, **_parse_options(call), **{ZKIT_COMMAND: "DELAY.POLL"})
            if tasks:
                return tasks
            wait = _next_wait(deadline, wait_ms)
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


class AsyncZkit(_Methods):
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
            target["target_nodes"] = self._cluster.nodes_manager.get_node_from_slot(slot)
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
            tasks = await self.client.execute_command(*argv, **target, **_parse_options(call), **{ZKIT_COMMAND: "DELAY.POLL"})
            if tasks:
                return tasks
            wait = _next_wait(deadline, wait_ms)
            if wait is None:
                return None
            await asyncio.sleep(wait)
            wait_ms = min(wait_ms * 2, engines.BPOLL_BACKOFF_MS[1])


async def _reply(sent: Any) -> Any:
    """A client's execute_command returns a coroutine; a pipeline's queues
    the command and returns the pipeline, which must not be awaited: that
    would (re)initialize it and drop the queued commands."""
    return await sent if inspect.iscoroutine(sent) else sent
