"""A job DelayWorker process of test_worker.py: runs the jobs of {jobs}
(after the test's key prefix), each handler logging its job to
{jobs}:started, then waiting until {jobs}:release exists; stops on SIGTERM
as DelayWorker.run does."""

from __future__ import annotations

import sys
import time

import redis

import zkit

address, prefix = sys.argv[1:3]  # prefix: the test's, before every key
host, port = address.rsplit(":", 1)
client = redis.Redis(host=host, port=int(port), decode_responses=True)


def handle(job: zkit.Job) -> None:
    client.rpush(prefix + "{jobs}:started", job.task)
    while not client.exists(prefix + "{jobs}:release"):
        time.sleep(0.01)


zkit.DelayWorker(client, prefix + "{jobs}", prefix + "{jobs}:inflight", handle, block_ms=200, data=prefix + "{jobs}:data").run()
