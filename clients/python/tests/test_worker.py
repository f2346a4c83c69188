"""DelayWorker drains 1,000 tasks with 4 worker processes while one is
killed and every worker's connection is dropped: every task runs, none is
lost, and no two workers ever hold the same task at once. And one worker
hands failed tasks back (retry_delay_ms) and dead-letters poison ones; a
job worker hands payloads over and keeps failure reasons; renewed leases
outlive lease_ms; SIGTERM stops a worker once its jobs are done; with
concurrency, a batch's handlers run at once."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from typing import Any, Callable, Dict, List, Tuple

import pytest
import redis
import redis.cluster

import zkit

from conftest import CLUSTER, SERVER, _host_port, current_prefix, k

TASKS = 1_000
WORKERS = 4


def _jobs_server(topology: str) -> redis.Redis:
    """A plain connection to the server that holds {jobs}."""
    address = SERVER
    if topology == "cluster":
        cluster = redis.cluster.RedisCluster(**_host_port(CLUSTER[0]))
        node = cluster.get_node_from_key(k("{jobs}"))
        address = f"{node.host}:{node.port}"
        cluster.close()
    return redis.Redis(**_host_port(address), decode_responses=True)


def _wait(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("topology", ["single", "cluster"])
def test_four_workers_drain_while_one_is_killed(topology: str) -> None:
    r = _jobs_server(topology)
    address = SERVER if topology == "single" else CLUSTER[0]
    workers = [
        subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "drain_worker.py"), topology, address, str(w), current_prefix()])
        for w in range(WORKERS)
    ]
    try:
        # Tasks come once every worker polls the queue: on a loaded machine
        # the first ones up could otherwise drain it alone, and the kill
        # below would find fewer connections than it drops.
        names = {f"drain-worker-{w}" for w in range(WORKERS)}
        _wait(lambda: names <= {c["name"] for c in r.client_list()}, 60, "every worker connected")
        r.zadd(k("{jobs}"), {f"task:{n}": n for n in range(TASKS)})
        _wait(lambda: r.llen(k("{jobs}:log")) >= 200, 60, "200 tasks done")
        workers[0].send_signal(signal.SIGKILL)  # dies holding leased tasks
        assert r.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes") >= 3  # drop the others' connections
        _wait(lambda: r.scard(k("{jobs}:done")) == TASKS and r.zcard(k("{jobs}:inflight")) == 0, 60, "the drain")
    finally:
        for worker in workers[1:]:
            worker.send_signal(signal.SIGTERM)
        exits = [worker.wait(timeout=10) for worker in workers[1:]]
        workers[0].wait(timeout=10)
    assert exits == [0, 0, 0]  # stopped cleanly on request
    assert r.zcard(k("{jobs}")) == 0

    runs: Dict[str, List[Tuple[str, float, float]]] = defaultdict(list)
    for line in r.lrange(k("{jobs}:log"), 0, -1):
        task, worker, start_ms, end_ms = line.split()
        runs[task].append((worker, float(start_ms), float(end_ms)))
    assert set(runs) == {f"task:{n}" for n in range(TASKS)}  # every task ran, none lost
    for task, task_runs in runs.items():
        for i, (worker_a, start_a, end_a) in enumerate(task_runs):
            for worker_b, start_b, end_b in task_runs[i + 1 :]:
                overlap = start_a < end_b and start_b < end_a
                assert not (overlap and worker_a != worker_b), f"{task} held by workers {worker_a} and {worker_b} at once"


def _run_until(worker: zkit.DelayWorker, condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        worker.run_once()


def test_failed_tasks_are_retried_then_dead_lettered(client: redis.Redis) -> None:
    """retry_delay_ms hands a failed task straight back (no waiting for the
    minute-long lease); deadletter stops a poison task after 3 deliveries
    while the others run and leave no counts behind."""
    runs: Dict[str, int] = defaultdict(int)

    def handle(task: zkit.Task) -> None:
        runs[str(task.task)] += 1
        if task.task == "poison" or (task.task == "flaky" and runs["flaky"] == 1):
            raise RuntimeError(f"{task.task} failed")

    client.zadd(k("{jobs}"), {"poison": 1, "flaky": 2, "ok": 3})
    worker = zkit.DelayWorker(
        client,
        k("{jobs}"),
        k("{jobs}:inflight"),
        handle,
        lease_ms=60_000,
        block_ms=50,
        retry_delay_ms=0,
        deadletter=(k("{jobs}:dead"), k("{jobs}:deliveries"), 3),
    )
    _run_until(worker, lambda: client.zcard(k("{jobs}:dead")) == 1, "the poison task to die")
    assert dict(runs) == {"poison": 3, "flaky": 2, "ok": 1}
    assert client.zrange(k("{jobs}:dead"), 0, -1) == ["poison"]
    assert client.exists(k("{jobs}"), k("{jobs}:inflight"), k("{jobs}:deliveries")) == 0
    assert worker.run_once() == 0 and runs["poison"] == 3


def test_concurrency_runs_a_batch_s_handlers_at_once(client: redis.Redis) -> None:
    """concurrency=4: the four tasks of a batch meet at a barrier only four
    threads at once can pass; each is acked (a failed one handed back) on
    its own; without concurrency the barrier would time out."""
    barrier = threading.Barrier(4, timeout=30)
    threads = set()

    def handle(task: zkit.Task) -> None:
        threads.add(threading.get_ident())
        barrier.wait()
        if task.task == "t3":
            raise RuntimeError("t3 failed")

    client.zadd(k("{jobs}"), {f"t{i}": i for i in range(4)})
    worker = zkit.DelayWorker(
        client, k("{jobs}"), k("{jobs}:inflight"), handle, count=4, concurrency=4, block_ms=50, retry_delay_ms=3_600_000
    )
    assert worker.run_once() == 3
    assert len(threads) == 4
    assert client.zrange(k("{jobs}"), 0, -1) == ["t3"]  # handed back, due in an hour
    assert client.exists(k("{jobs}:inflight")) == 0
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        zkit.DelayWorker(client, k("{jobs}"), k("{jobs}:inflight"), handle, concurrency=0)


def test_failed_task_is_due_after_the_retry_delay(client: redis.Redis) -> None:
    runs: List[float] = []

    def handle(task: zkit.Task) -> None:
        runs.append(time.monotonic())
        if len(runs) == 1:
            raise RuntimeError("first try fails")

    client.zadd(k("{jobs}"), {"report": 1})
    worker = zkit.DelayWorker(client, k("{jobs}"), k("{jobs}:inflight"), handle, lease_ms=60_000, block_ms=50, retry_delay_ms=500)
    before_ms = int(time.time() * 1000)  # the server counts whole ms
    assert worker.run_once() == 0
    due = client.zscore(k("{jobs}"), "report")
    assert due is not None and before_ms + 500 <= due <= time.time() * 1000 + 500
    assert client.zcard(k("{jobs}:inflight")) == 0
    _run_until(worker, lambda: len(runs) == 2, "the retry")
    assert runs[1] - runs[0] >= 0.45
    assert client.exists(k("{jobs}"), k("{jobs}:inflight")) == 0


@pytest.mark.parametrize("fails", [False, True], ids=["acks", "hands-back"])
def test_a_worker_whose_task_was_taken_over_leaves_it_to_the_new_holder(client: redis.Redis, fails: bool) -> None:
    """While the handler runs, the lease ends (a stalled worker's, made to
    end at once here) and another worker claims the task: the first one's
    ack, or its hand-back of a failure, carries its own delivery's token
    and leaves the new delivery as it is."""
    queue, inflight = k("{jobs}"), k("{jobs}:inflight")
    z = zkit.Zkit(client)
    taken: List[Tuple[str, float]] = []

    def handle(task: zkit.Task) -> None:
        client.zadd(inflight, {str(task.task): 1})  # the lease ended long ago
        # A lease of another length: claimed in the same ms as the first, a
        # lease as long would end when the first did, under the same token.
        [(claimed, _)] = z.delay_poll(inflight, lease=(inflight, 120_000))
        taken.append((claimed, client.zscore(inflight, claimed)))
        if fails:
            raise RuntimeError("failed after losing its lease")

    client.zadd(queue, {"report": 1})
    worker = zkit.DelayWorker(client, queue, inflight, handle, lease_ms=60_000, block_ms=50, retry_delay_ms=0)
    _run_until(worker, lambda: bool(taken), "the take-over")
    assert client.zrange(inflight, 0, -1, withscores=True) == taken
    assert taken[0][0] == "report" and taken[0][1] > time.time() * 1000 + 60_000
    assert client.exists(queue) == 0


def test_a_handler_that_outran_its_lease_is_acked_while_no_one_claimed_the_task(client: redis.Redis) -> None:
    """The ack names the delivery: a late one still removes the task when
    no other worker claimed it since, so the task does not run twice."""
    queue, inflight = k("{jobs}"), k("{jobs}:inflight")
    z = zkit.Zkit(client)
    runs: List[str] = []

    def handle(task: zkit.Task) -> None:
        runs.append(str(task.task))
        _wait(lambda: z.delay_stats(queue, inflight=inflight).expired == 1, 10, "the lease to end")

    client.zadd(queue, {"report": 1})
    worker = zkit.DelayWorker(client, queue, inflight, handle, lease_ms=100, block_ms=50)
    _run_until(worker, lambda: bool(runs), "the run")
    assert client.exists(queue, inflight) == 0
    assert worker.run_once() == 0 and runs == ["report"]


def test_a_job_worker_hands_over_payloads_keeps_failure_reasons_and_acks_with_the_data(client: redis.Redis) -> None:
    """With DATA the handler gets each job's payload and deliveries, a
    failure is handed back with the exception's text (a long one cut), the
    holder is named, a poison job dies with its payload and reason, and the
    acks leave no data behind."""
    queue, inflight, data = k("{jobs}"), k("{jobs}:inflight"), k("{jobs}:data")
    dead, counts = k("{jobs}:dead"), k("{jobs}:deliveries")
    z = zkit.Zkit(client)
    runs: List[Tuple[str, str, int]] = []
    seen_by_retry: List[zkit.JobInfo] = []

    def handle(job: zkit.Job) -> None:
        assert job.token is None and job.deliveries is not None and job.payload is not None
        runs.append((str(job.task), str(job.payload), job.deliveries))
        if job.task == "flaky":
            if job.deliveries == 1:
                raise RuntimeError("SMTP 451: try again")
            seen_by_retry.append(z.delay_job(queue, "flaky", inflight=inflight, data=data))
        if job.task == "poison":
            raise ValueError("x" * 5000)

    assert z.delay_add(queue, data=data, jobs=[(0, "ok", "to=ann"), (0, "flaky", "to=bob"), (0, "poison", "to=cat")]) == [1, 1, 1]
    worker = zkit.DelayWorker(
        client, queue, inflight, handle, block_ms=50, retry_delay_ms=0, deadletter=(dead, counts, 2), data=data, name="worker-1"
    )
    _run_until(worker, lambda: client.zcard(dead) == 1 and client.exists(queue, inflight) == 0, "the poison job to die")
    assert sorted(runs) == [("flaky", "to=bob", 1), ("flaky", "to=bob", 2), ("ok", "to=ann", 1), ("poison", "to=cat", 1), ("poison", "to=cat", 2)]
    [retry] = seen_by_retry
    assert (retry.state, retry.payload, retry.last_reason, retry.worker) == ("inflight", "to=bob", "RuntimeError: SMTP 451: try again", "worker-1")
    poison = z.delay_job(queue, "poison", inflight=inflight, dead=dead, deliveries=counts, data=data)
    assert (poison.state, poison.payload, poison.deliveries) == ("dead", "to=cat", 2)
    assert poison.last_reason is not None and len(poison.last_reason) == zkit.worker.REASON_MAX_CHARS
    assert poison.last_reason.startswith("ValueError: xxx") and poison.last_reason.endswith("...")
    # Only the dead job's data is left.
    assert sorted(client.hkeys(data)) == ["d:poison", "p:poison", "r:poison"]
    assert client.exists(counts) == 0


def _server_ms(client: redis.Redis) -> int:
    seconds, micros = client.time()
    return seconds * 1000 + micros // 1000


def test_renewed_leases_outlive_lease_ms_each_renewed_while_the_batch_runs(client: redis.Redis) -> None:
    """renew_leases: while the first job of a batch runs past its lease, the
    leases of both held jobs move on (the second's too, before its handler
    started), nothing is delivered again, and both are acked with their
    renewed tokens."""
    queue, inflight, data = k("{jobs}"), k("{jobs}:inflight"), k("{jobs}:data")
    z = zkit.Zkit(client)
    runs: List[str] = []

    def handle(job: zkit.Job) -> None:
        runs.append(str(job.task))
        if job.task != "long":
            return
        first = {task: client.zscore(inflight, task) for task in ("long", "short")}
        _wait(
            lambda: _server_ms(client) > max(first.values()) + 100
            and all((client.zscore(inflight, task) or 0) > first[task] for task in first),
            10,
            "both leases renewed past their first end",
        )
        assert z.delay_poll(inflight, lease=(inflight, 60_000)) == []  # no lease ended

    assert z.delay_add(queue, data=data, jobs=[(0, "long", "a"), (0, "short", "b")]) == [1, 1]
    worker = zkit.DelayWorker(client, queue, inflight, handle, lease_ms=300, count=2, block_ms=50, renew_leases=True, data=data)
    _run_until(worker, lambda: bool(runs), "the batch")
    assert runs == ["long", "short"]
    assert client.exists(queue, inflight, data) == 0


class _Sent(redis.Redis):
    """A client that records the name of each command it sends (the
    function's, for an FCALL)."""

    sent: List[str]

    def execute_command(self, *args: Any, **options: Any) -> Any:
        self.sent.append(str(args[1] if args[0] == "FCALL" else args[0]).lower().replace("zkit_", "").replace("_", "."))
        return super().execute_command(*args, **options)


def test_a_renewal_that_finds_the_lease_gone_keeps_the_result_from_being_acked(single: redis.Redis) -> None:
    """The handler's lease is taken over while it runs: the renewal answers
    0, and the handler's success is dropped, with no ACK sent, leaving the
    new delivery and the job's data as they are."""
    queue, inflight, data = k("{jobs}"), k("{jobs}:inflight"), k("{jobs}:data")
    client = _Sent(connection_pool=redis.ConnectionPool(**single.connection_pool.connection_kwargs))
    client.sent = []
    z = zkit.Zkit(single)
    lost = threading.Event()
    taken: List[float] = []

    class Lost(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "lost its lease" in record.getMessage():
                lost.set()

    def handle(job: zkit.Job) -> None:
        single.zadd(inflight, {str(job.task): 1})  # its lease ended long ago
        [claimed] = z.delay_poll(inflight, lease=(inflight, 120_000), data=data, withdata=True)
        taken.append(float(claimed.token or 0))
        assert lost.wait(10), "the renewal never found the lease gone"

    assert z.delay_add(queue, data=data, jobs=[(0, "report", "r")]) == [1]
    watcher = Lost()
    logging.getLogger("zkit.worker").addHandler(watcher)
    try:
        worker = zkit.DelayWorker(client, queue, inflight, handle, lease_ms=150, block_ms=50, renew_leases=True, data=data)
        _run_until(worker, lambda: bool(taken), "the take-over")
    finally:
        logging.getLogger("zkit.worker").removeHandler(watcher)
    assert "delay.touch" in client.sent and "delay.ack" not in client.sent and "delay.nack" not in client.sent
    assert single.zrange(inflight, 0, -1, withscores=True) == [("report", taken[0])]
    assert single.hget(data, "p:report") == "r"


def test_sigterm_lets_a_worker_finish_its_jobs_and_poll_no_more(single: redis.Redis) -> None:
    """SIGTERM while a job runs: the worker finishes and acks it, claims
    nothing more (a job added after the signal stays queued), and exits 0."""
    queue, data = k("{jobs}"), k("{jobs}:data")
    z = zkit.Zkit(single)
    assert z.delay_add(queue, data=data, jobs=[(0, "slow", "s")]) == [1]
    worker = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "job_worker.py"), SERVER, current_prefix()])
    try:
        _wait(lambda: single.llen(k("{jobs}:started")) == 1, 60, "the job to start")
        worker.send_signal(signal.SIGTERM)
        assert z.delay_add(queue, data=data, jobs=[(0, "later", "l")]) == [1]
        single.set(k("{jobs}:release"), 1)
        assert worker.wait(timeout=30) == 0
    finally:
        worker.kill()
        worker.wait()
    assert single.lrange(k("{jobs}:started"), 0, -1) == ["slow"]
    assert single.zrange(queue, 0, -1) == ["later"] and single.exists(k("{jobs}:inflight")) == 0
    assert single.hgetall(data) == {"p:later": "l"}
