"""A DELAY queue worker: at-least-once delivery with leases.

The loop the job-queue guide (docs/guides/job-queue.md) describes, as
tested code: block on the queue with DELAY.BPOLL (no sleep-and-poll), lease every claimed task into
an in-flight set, run the handler, DELAY.ACK on success. A task whose
handler fails, or whose worker dies, stays in the in-flight set until its
lease ends; polling the in-flight set then delivers it again. With
``retry_delay_ms`` a failed task is handed back at once (DELAY.NACK), due
after that delay; with ``deadletter`` a task delivered too often moves to a
dead-letter set instead of running again; with ``renew_leases`` the worker
extends the leases of the tasks it holds (DELAY.TOUCH) while their handlers
run. Every claim asks for its deliveries' tokens (WITHTOKENS), and every
ack, hand-back and renewal sends the token: once a lease has ended and
another worker has claimed the task, the first worker's late calls change
nothing.

With ``data`` (the queue's job data, docs/commands.md "Jobs"), the worker
runs jobs: it polls with DATA, WITHDATA and WORKER, hands the handler each
job's payload, hands a failed job back with the exception's text as its
reason (DELAY.JOB shows it, a dead job keeps it), and its acks remove the
job's data.

On zkit's Functions library (servers that refuse modules), which cannot
block, ``delay_bpoll`` polls with backoff instead (``zkit.engine``): an
idle worker asks every 250 ms at most, and a task that falls due waits for
the next poll.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Tuple, Union, overload

import redis
import redis.cluster
import redis.exceptions

from .client import KeyT, Zkit
from .replies import Job, Task

log = logging.getLogger("zkit.worker")

#: Errors after which the worker waits and polls again: redis-py opens a
#: new connection on the next command (and a cluster client re-reads the
#: slot table).
RECONNECT_ERRORS = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
)

#: A failed job's reason is the exception's type and text, cut to this many
#: characters: enough for a message and the start of a traceback line,
#: small beside any payload.
REASON_MAX_CHARS = 1000


def failure_reason(error: BaseException) -> str:
    """What DELAY.NACK records as a job's last failure reason: the
    exception's type and text, at most REASON_MAX_CHARS characters."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if len(text) <= REASON_MAX_CHARS:
        return text
    return text[: REASON_MAX_CHARS - 3] + "..."


class _Lease:
    """A delivery the worker holds: its token (a renewal keeps the new one),
    whether a renewal found it gone, and the renewal thread, which stops when
    ``finished`` is set."""

    __slots__ = ("task", "token", "lost", "finished", "renewer")

    def __init__(self, task: Any, token: int) -> None:
        self.task = task
        self.token = token
        self.lost = False
        self.finished = threading.Event()
        self.renewer: Optional[threading.Thread] = None


class DelayWorker:
    """Runs ``handler(task)`` for the tasks of ``queue``, at least once each.

    ``queue`` and ``inflight`` must share a hash slot on a cluster
    (``"{jobs}"`` and ``"{jobs}:inflight"``). ``lease_ms`` should be longer
    than any handler runs (unless ``renew_leases``): a task whose lease ends
    is delivered again when a worker next polls the in-flight set. A worker
    acks with its delivery's token, so a handler that outran its lease is
    still acked while no other worker has claimed the task; once one has,
    the late ack changes nothing, the task is the new worker's, and the
    first logs a warning and drops it. Handlers must be idempotent (and are
    handed the ``Task``, without its token).
    Call ``run()`` (blocks until ``stop()`` or SIGTERM), or ``run_once()``
    to poll once.

    ``retry_delay_ms``: a task whose handler raised is handed back to
    ``queue``, due that many ms later (DELAY.NACK), instead of waiting in
    ``inflight`` until its lease ends. ``deadletter=(dead, deliveries,
    max_deliveries)``: every delivery is counted in the sorted set
    ``deliveries``, and a task already delivered ``max_deliveries`` times
    moves to the sorted set ``dead`` instead of running again (see
    docs/commands.md, "Dead letters"); on a cluster both share the queue's
    hash slot.

    ``concurrency``: how many handlers of a batch run at once, each on a
    thread of its own (default 1: one after the other); a batch is at most
    ``count`` tasks, so give ``count`` at least ``concurrency``. Each task is
    acked or handed back as soon as its own handler returns.

    ``renew_leases``: every third of ``lease_ms``, the lease of every task
    of the batch not yet finished is extended (DELAY.TOUCH with its token),
    each by a thread of its own after its previous renewal, so a handler may
    run longer than ``lease_ms`` while a dead worker's tasks still come back
    within ``lease_ms``. Each renewal keeps the new token; a task whose
    lease is gone (it ended, or another worker claimed the task) is logged
    and dropped: its handler's result is neither acked nor handed back.

    ``data``: the queue's job data hash (``"{jobs}:data"``, in the queue's
    slot; the jobs ``delay_add(jobs=...)`` adds). The handler is then handed
    each ``Job`` (task, due_ms, payload, deliveries; its token is None), a
    paused queue delivers nothing, the holder is recorded as ``name``
    (default host:pid), a failed job is always handed back with the
    exception's text as its reason (``failure_reason``), due
    ``retry_delay_ms`` later (default ``lease_ms``, as when its lease would
    have ended), and an ack removes the job's data.
    """

    @overload
    def __init__(
        self,
        client: Union[redis.Redis, redis.cluster.RedisCluster],
        queue: KeyT,
        inflight: KeyT,
        handler: Callable[[Task], None],
        *,
        lease_ms: int = 60_000,
        count: int = 10,
        concurrency: int = 1,
        block_ms: int = 1_000,
        reconnect_delay_s: float = 0.5,
        retry_delay_ms: Optional[int] = None,
        deadletter: Optional[Tuple[KeyT, KeyT, int]] = None,
        renew_leases: bool = False,
        data: None = None,
        name: Optional[str] = None,
    ) -> None: ...
    @overload
    def __init__(
        self,
        client: Union[redis.Redis, redis.cluster.RedisCluster],
        queue: KeyT,
        inflight: KeyT,
        handler: Callable[[Job], None],
        *,
        lease_ms: int = 60_000,
        count: int = 10,
        concurrency: int = 1,
        block_ms: int = 1_000,
        reconnect_delay_s: float = 0.5,
        retry_delay_ms: Optional[int] = None,
        deadletter: Optional[Tuple[KeyT, KeyT, int]] = None,
        renew_leases: bool = False,
        data: KeyT,
        name: Optional[str] = None,
    ) -> None: ...
    def __init__(
        self,
        client: Union[redis.Redis, redis.cluster.RedisCluster],
        queue: KeyT,
        inflight: KeyT,
        handler: Callable[[Any], None],
        *,
        lease_ms: int = 60_000,
        count: int = 10,
        concurrency: int = 1,
        block_ms: int = 1_000,
        reconnect_delay_s: float = 0.5,
        retry_delay_ms: Optional[int] = None,
        deadletter: Optional[Tuple[KeyT, KeyT, int]] = None,
        renew_leases: bool = False,
        data: Optional[KeyT] = None,
        name: Optional[str] = None,
    ) -> None:
        self.zkit = Zkit(client)
        self.queue = queue
        self.inflight = inflight
        self.handler = handler
        self.lease_ms = lease_ms
        self.count = count
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        self.concurrency = concurrency
        self.block_ms = block_ms
        self.reconnect_delay_s = reconnect_delay_s
        self.retry_delay_ms = retry_delay_ms
        self.deadletter = deadletter
        self.renew_leases = renew_leases
        self.data = data
        self.name = name if name is not None else f"{socket.gethostname()}:{os.getpid()}"
        self._stopping = threading.Event()
        # When the in-flight set was last polled for expired leases.
        self._recovered_at = float("-inf")

    def stop(self) -> None:
        """Ask ``run()`` to return: it finishes the tasks it holds, polls no
        more, and returns within ``block_ms``."""
        self._stopping.set()

    def run(self, *, stop_on_sigterm: bool = True) -> None:
        """Poll and handle tasks until ``stop()``; with ``stop_on_sigterm``
        (when called from the main thread, where Python runs signal
        handlers), SIGTERM stops it the same way (the previous handler is
        back once it returns)."""
        previous = None
        if stop_on_sigterm and threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGTERM, lambda *_: self.stop())
        try:
            while not self._stopping.is_set():
                self.run_once()
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def run_once(self) -> int:
        """Claim one batch (waiting up to ``block_ms``), handle it, and
        return how many tasks were acked."""
        try:
            deliveries = self._claim(time.monotonic())
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: polling %r failed (%s); retrying", self.queue, e)
            self._stopping.wait(self.reconnect_delay_s)
            return 0
        leases = [_Lease(delivery.task, int(delivery.token or 0)) for delivery in deliveries]
        if self.renew_leases:
            for lease in leases:
                lease.renewer = threading.Thread(target=self._renew, args=(lease,), daemon=True)
                lease.renewer.start()
        try:
            if self.concurrency == 1 or len(deliveries) < 2:
                return sum(self._handle(delivery, lease) for delivery, lease in zip(deliveries, leases))
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(deliveries))) as pool:
                return sum(pool.map(self._handle, deliveries, leases))
        finally:
            for lease in leases:
                self._finished(lease)

    def _handle(self, delivery: Any, lease: _Lease) -> int:
        """Runs the handler on one delivery, then acks it (1) or hands it
        back (0); nothing while its lease is lost."""
        failure: Optional[BaseException] = None
        try:
            self.handler(self._handed(delivery))
        except Exception as e:
            failure = e
        self._finished(lease)
        if lease.lost:
            return 0
        if failure is None:
            return self._ack(lease)
        self._failed(lease, failure)
        return 0

    def _handed(self, delivery: Any) -> Any:
        """What the handler gets: the task without its token."""
        if self.data is None:
            return Task(delivery.task, delivery.due_ms)
        return delivery._replace(token=None)

    def _finished(self, lease: _Lease) -> None:
        """Ends the lease's renewals; a TOUCH under way completes first, so
        the token sent next is the latest."""
        lease.finished.set()
        if lease.renewer is not None:
            lease.renewer.join()

    def _renew(self, lease: _Lease) -> None:
        while not lease.finished.wait(self.lease_ms / 3000):
            try:
                renewed = self.zkit.delay_touch(self.inflight, lease.task, self.lease_ms, token=lease.token)
            except RECONNECT_ERRORS as e:
                # Unknown whether the lease moved: the next renewal tells.
                log.warning("zkit worker: renewing the lease of %r failed (%s)", lease.task, e)
                continue
            if not renewed:
                lease.lost = True
                log.warning("zkit worker: task %r lost its lease (it ended, or another worker claimed it); not acked", lease.task)
                return
            lease.token = renewed

    def _claim(self, now: float) -> List[Any]:
        poll: Dict[str, Any] = {"count": self.count, "lease": (self.inflight, self.lease_ms), "deadletter": self.deadletter}
        if self.data is None:
            poll["withtokens"] = True
        else:
            poll.update(data=self.data, withdata=True, worker=self.name)
        # Expired leases first, at most once per block_ms: a busy queue must
        # not starve the tasks of a dead worker.
        if now - self._recovered_at >= self.block_ms / 1000:
            self._recovered_at = now
            tasks = self.zkit.delay_poll(self.inflight, **poll)
            if tasks:
                return tasks
        return self.zkit.delay_bpoll(self.queue, self.block_ms, **poll) or []

    def _ack(self, lease: _Lease) -> int:
        deliveries = self.deadletter[1] if self.deadletter else None
        try:
            acked = self.zkit.delay_ack(self.inflight, leases=[(lease.task, lease.token)], deliveries=deliveries, data=self.data)
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: ack of %r failed (%s); it runs again when its lease ends", lease.task, e)
            return 0
        if not acked:
            log.warning("zkit worker: task %r outran its lease and another worker claimed it; not acked", lease.task)
        return acked

    def _failed(self, lease: _Lease, failure: BaseException) -> None:
        """A handler raised: logged; a job is handed back with its reason, a
        task with ``retry_delay_ms``, else left until its lease ends."""
        if self.data is None and self.retry_delay_ms is None:
            log.error("zkit worker: task %r failed; it runs again when its lease ends", lease.task, exc_info=failure)
            return
        delay_ms = self.retry_delay_ms if self.retry_delay_ms is not None else self.lease_ms
        log.error("zkit worker: task %r failed; retrying in %d ms", lease.task, delay_ms, exc_info=failure)
        reason = failure_reason(failure) if self.data is not None else None
        try:
            handed_back = self.zkit.delay_nack(
                self.inflight, self.queue, lease.task, delay_ms, token=lease.token, data=self.data, reason=reason
            )
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: handing %r back failed (%s); it runs again when its lease ends", lease.task, e)
            return
        if not handed_back:
            log.warning("zkit worker: task %r outran its lease; not handed back, it runs again when delivered again", lease.task)
