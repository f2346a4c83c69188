"""DelayWorker drains 1,000 tasks with 4 worker processes while one is
killed and every worker's connection is dropped: every task runs, none is
lost, and no two workers ever hold the same task at once. And one worker
hands failed tasks back (retry_delay_ms) and dead-letters poison ones."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from typing import Callable, Dict, List, Tuple

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
