"""Job queue: tasks scheduled with ZADD by due time, claimed once each, and
run at least once by DelayWorker (leases, acks, redelivery)."""

import threading
import time

import redis

import zkit


def job_queue(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    queue, inflight = prefix + "{jobs}", prefix + "{jobs}:inflight"
    now_ms = int(time.time() * 1000)
    r.zadd(queue, {"mail:17": now_ms - 1000, "mail:18": now_ms, "report:1": now_ms + 3_600_000})

    # At-most-once: a poll removes what it claims.
    assert [task for task, due_ms in z.delay_poll(queue, count=10)] == ["mail:17", "mail:18"]
    assert z.delay_bpoll(queue, 100) is None  # nothing due within 100 ms

    # At-least-once: a worker leases each task into {jobs}:inflight, acks it
    # when the handler returns, and leaves it there when the handler fails
    # (the task is delivered again when its lease ends).
    r.zadd(queue, {"mail:19": now_ms, "mail:20": now_ms})
    done = []

    def send_mail(task: zkit.Task) -> None:
        done.append(task.task)  # must be idempotent: a task may run twice

    worker = zkit.DelayWorker(r, queue, inflight, send_mail, lease_ms=60_000, block_ms=100)
    thread = threading.Thread(target=worker.run)
    thread.start()
    while len(done) < 2:
        time.sleep(0.01)
    worker.stop()  # returns within block_ms
    thread.join()
    assert sorted(done) == ["mail:19", "mail:20"]
    assert r.zcard(inflight) == 0  # both acked


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(job_queue)
