"""A DELAY queue worker: at-least-once delivery with leases.

The loop the job-queue guide (docs/guides/job-queue.md) describes, as
tested code: block on the queue with DELAY.BPOLL (no sleep-and-poll), lease every claimed task into
an in-flight set, run the handler, DELAY.ACK on success. A task whose
handler fails, or whose worker dies, stays in the in-flight set until its
lease ends; polling the in-flight set then delivers it again. With
``retry_delay_ms`` a failed task is handed back at once (DELAY.NACK), due
after that delay; with ``deadletter`` a task delivered too often moves to a
dead-letter set instead of running again.

On zkit's Functions library (servers that refuse modules), which cannot
block, ``delay_bpoll`` polls with backoff instead (``zkit.engine``): an
idle worker asks every 250 ms at most, and a task that falls due waits for
the next poll.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, List, Optional, Tuple

import redis
import redis.cluster
import redis.exceptions

from .client import KeyT, Zkit
from .replies import Task

log = logging.getLogger("zkit.worker")

#: Errors after which the worker waits and polls again: redis-py opens a
#: new connection on the next command (and a cluster client re-reads the
#: slot table).
RECONNECT_ERRORS = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
)


class DelayWorker:
    """Runs ``handler(task)`` for the tasks of ``queue``, at least once each.

    ``queue`` and ``inflight`` must share a hash slot on a cluster
    (``"{jobs}"`` and ``"{jobs}:inflight"``). ``lease_ms`` must be longer
    than any handler runs: a task whose lease ends is delivered again, and
    its first worker then does not ack it. Handlers must be idempotent.
    Call ``run()`` (blocks until ``stop()``), or ``run_once()`` to poll once.

    ``retry_delay_ms``: a task whose handler raised is handed back to
    ``queue``, due that many ms later (DELAY.NACK), instead of waiting in
    ``inflight`` until its lease ends. ``deadletter=(dead, deliveries,
    max_deliveries)``: every delivery is counted in the sorted set
    ``deliveries``, and a task already delivered ``max_deliveries`` times
    moves to the sorted set ``dead`` instead of running again (see
    docs/commands.md, "Dead letters"); on a cluster both share the queue's
    hash slot.
    """

    def __init__(
        self,
        client: redis.Redis | redis.cluster.RedisCluster,
        queue: KeyT,
        inflight: KeyT,
        handler: Callable[[Task], None],
        *,
        lease_ms: int = 60_000,
        count: int = 10,
        block_ms: int = 1_000,
        reconnect_delay_s: float = 0.5,
        retry_delay_ms: Optional[int] = None,
        deadletter: Optional[Tuple[KeyT, KeyT, int]] = None,
    ) -> None:
        self.zkit = Zkit(client)
        self.queue = queue
        self.inflight = inflight
        self.handler = handler
        self.lease_ms = lease_ms
        self.count = count
        self.block_ms = block_ms
        self.reconnect_delay_s = reconnect_delay_s
        self.retry_delay_ms = retry_delay_ms
        self.deadletter = deadletter
        self._stopping = threading.Event()
        # When the in-flight set was last polled for expired leases.
        self._recovered_at = float("-inf")

    def stop(self) -> None:
        """Ask ``run()`` to return: it finishes the tasks it holds, then
        returns within ``block_ms``."""
        self._stopping.set()

    def run(self) -> None:
        """Poll and handle tasks until ``stop()``."""
        while not self._stopping.is_set():
            self.run_once()

    def run_once(self) -> int:
        """Claim one batch (waiting up to ``block_ms``), handle it, and
        return how many tasks were acked."""
        claimed_at = time.monotonic()
        try:
            tasks = self._claim(claimed_at)
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: polling %r failed (%s); retrying", self.queue, e)
            self._stopping.wait(self.reconnect_delay_s)
            return 0
        lease_ends = claimed_at + self.lease_ms / 1000
        acked = 0
        for task in tasks:
            try:
                self.handler(task)
            except Exception:
                if self.retry_delay_ms is None or time.monotonic() >= lease_ends:
                    log.exception("zkit worker: task %r failed; it runs again when its lease ends", task.task)
                else:
                    log.exception("zkit worker: task %r failed; retrying in %d ms", task.task, self.retry_delay_ms)
                    self._nack(task, self.retry_delay_ms)
                continue
            if time.monotonic() >= lease_ends:
                # Another worker may hold the task by now; acking (or
                # handing it back) would end that worker's lease.
                log.warning("zkit worker: task %r outran its lease; not acked", task.task)
                continue
            acked += self._ack(task)
        return acked

    def _claim(self, now: float) -> List[Task]:
        lease = (self.inflight, self.lease_ms)
        # Expired leases first, at most once per block_ms: a busy queue must
        # not starve the tasks of a dead worker.
        if now - self._recovered_at >= self.block_ms / 1000:
            self._recovered_at = now
            tasks = self.zkit.delay_poll(self.inflight, count=self.count, lease=lease, deadletter=self.deadletter)
            if tasks:
                return tasks
        claimed = self.zkit.delay_bpoll(
            self.queue, self.block_ms, count=self.count, lease=lease, deadletter=self.deadletter
        )
        return claimed or []

    def _ack(self, task: Task) -> int:
        deliveries = self.deadletter[1] if self.deadletter else None
        try:
            return self.zkit.delay_ack(self.inflight, task.task, deliveries=deliveries)
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: ack of %r failed (%s); it runs again when its lease ends", task.task, e)
            return 0

    def _nack(self, task: Task, delay_ms: int) -> None:
        try:
            self.zkit.delay_nack(self.inflight, self.queue, task.task, delay_ms)
        except RECONNECT_ERRORS as e:
            log.warning("zkit worker: handing %r back failed (%s); it runs again when its lease ends", task.task, e)
