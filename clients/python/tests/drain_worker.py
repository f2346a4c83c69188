"""One DelayWorker process of test_worker.py: drains {jobs} (after the
test's key prefix), logging each run as "task worker start_ms end_ms",
until SIGTERM asks it to stop (DelayWorker.run stops on SIGTERM)."""

from __future__ import annotations

import sys
import time

import redis
import redis.cluster

import zkit

topology, address, worker_id, prefix = sys.argv[1:5]  # prefix: the test's, before every key
host, port = address.rsplit(":", 1)
# Named, so the test sees when every worker is connected.
name = f"drain-worker-{worker_id}"
if topology == "cluster":
    client = redis.cluster.RedisCluster(host=host, port=int(port), decode_responses=True, client_name=name)
else:
    client = redis.Redis(host=host, port=int(port), decode_responses=True, client_name=name)


def handle(task: zkit.Task) -> None:
    start_ms = time.time() * 1000
    time.sleep(0.002)  # the work
    client.sadd(prefix + "{jobs}:done", task.task)
    client.rpush(prefix + "{jobs}:log", f"{task.task} {worker_id} {start_ms:.3f} {time.time() * 1000:.3f}")


worker = zkit.DelayWorker(client, prefix + "{jobs}", prefix + "{jobs}:inflight", handle, lease_ms=2000, count=5, block_ms=200)
worker.run()
