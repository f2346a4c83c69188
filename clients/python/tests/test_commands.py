"""Every zkit command through Zkit and AsyncZkit, on one server and on a
3-master cluster, directly and in pipelines, with typed replies."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any, Callable, Set

import pytest
import redis
import redis.cluster

import zkit
from zkit.commands import COMMANDS
from zkit.layout import Choice, Flag, Option
from zkit.replies import FeedItem, JobInfo, RankEntry, RankEntryWithData, Task

from conftest import ENGINE, SERVER, _host_port, async_client, call_stats, k, node_connections, zkit_command_stats

POSTED_AT = 1795313748  # unix s, for VOTE.CAST WINDOW


async def _get(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _applied(reply: Any) -> Any:
    """A reply as a plain tuple, and its IDMP flag."""
    return tuple(reply), reply.already_applied


async def _refused(call: Callable[[], Any], reason: str) -> None:
    """`call` (sync or async) is refused with an error naming `reason`."""
    with pytest.raises(redis.ResponseError, match=reason):
        await _get(call())


def _token(reply: Any) -> int:
    """DELAY.TOUCH's reply with TOKEN: an integer (0 included), not a flag."""
    assert type(reply) is int, f"{reply!r} is not a token"
    return reply


class Recorder:
    """Records which command methods a scenario called."""

    def __init__(self, z: Any) -> None:
        self.z = z
        self.called: Set[str] = set()

    def __getattr__(self, name: str) -> Any:
        self.called.add(name)
        return getattr(self.z, name)


async def every_command(z: Any, r: Any) -> None:
    """One call or more of every command, checking each reply; ``z`` is a
    Zkit or AsyncZkit over ``r``. Multi-key calls share the tag {t}."""
    assert await _get(z.rank_gift(k("{t}:mon"), "alice", 100, at=1718000000000)) == (100, 1)
    assert await _get(z.rank_gift(k("{t}:mon"), "bob", 50)) == (50, 2)
    assert await _get(z.rank_set(k("{t}:mon"), "bob", 100, at=1718000001000)) == (100, 2)  # alice got there first
    assert await _get(z.rank_get(k("{t}:mon"), "bob")) == (100, 2, 1718000001000)
    assert await _get(z.rank_get(k("{t}:mon"), "nobody")) is None
    top = [RankEntry(1, "alice", 100), RankEntry(2, "bob", 100)]
    assert await _get(z.rank_top(k("{t}:mon"), 10)) == top
    assert await _get(z.rank_top(k("{t}:mon"), 1, offset=1)) == top[1:]
    assert await _get(z.rank_around(k("{t}:mon"), "bob", 1)) == top
    assert await _get(z.rank_merge(k("{t}:week"), [k("{t}:mon"), k("{t}:mon")], weights=[1, 2])) == 2
    assert (await _get(z.rank_get(k("{t}:week"), "alice"))).total == 300
    # In steps of one member: alice, then bob, whose step also ends the merge.
    first = await _get(z.rank_merge(k("{t}:week2"), [k("{t}:mon")], step=(1, k("{t}:staging"), 0)))
    assert first.staged == 1 and first.cursor not in (b"0", "0")
    last = await _get(z.rank_merge(k("{t}:week2"), [k("{t}:mon")], step=(1, k("{t}:staging"), first.cursor)))
    assert last.cursor in (b"0", "0") and last.staged == 2
    assert await _get(z.rank_top(k("{t}:week2"), 10)) == await _get(z.rank_top(k("{t}:mon"), 10))
    # SHARED: dave reaches 100 third, at position 3 but sharing rank 1.
    assert await _get(z.rank_gift(k("{t}:mon"), "carol", 99)) == (99, 3)
    # TTL: the board expires a day after this write.
    assert await _get(z.rank_gift(k("{t}:mon"), "dave", 100, at=1718000002000, shared=True, ttl=86400)) == (100, 1)
    assert 86000 <= await _get(r.ttl(k("{t}:mon"))) <= 86400
    assert await _get(z.rank_set(k("{t}:mon"), "dave", 100, gt=True)) == (100, 3)
    assert await _get(z.rank_set(k("{t}:mon"), "carol", 98, lt=True, shared=True)) == (98, 4)
    assert await _get(z.rank_get(k("{t}:mon"), "dave", shared=True)) == (100, 1, 1718000002000)
    shared_top = [RankEntry(1, "alice", 100), RankEntry(1, "bob", 100), RankEntry(1, "dave", 100), RankEntry(4, "carol", 98)]
    assert await _get(z.rank_top(k("{t}:mon"), 10, shared=True)) == shared_top
    assert await _get(z.rank_top(k("{t}:mon"), 2, offset=2, shared=True)) == shared_top[2:]
    assert await _get(z.rank_around(k("{t}:mon"), "carol", 1, shared=True)) == shared_top[2:]
    assert await _get(z.rank_mgift([k("{t}:mon"), k("{t}:week")], "carol", 2, at=1718000003000)) == [(100, 4), (2, 3)]
    assert await _get(z.rank_mgift([k("{t}:mon")], "erin", 1, shared=True)) == [(1, 5)]
    assert await _get(z.rank_mget(k("{t}:mon"), "dave", "nobody", "carol")) == [(100, 3, 1718000002000), None, (100, 4, 1718000003000)]
    assert await _get(z.rank_mget(k("{t}:mon"), "carol", shared=True)) == [(100, 1, 1718000003000)]
    # DATA: member data in a hash beside the board, set with the score,
    # read with the rank, removed with the member.
    profiles = k("{t}:profiles")
    assert await _get(z.rank_gift(k("{t}:game"), "ann", 3, data=(profiles, "Ann|fr"))) == (3, 1)
    assert await _get(z.rank_top(k("{t}:game"), 5, data=profiles)) == [RankEntryWithData(1, "ann", 3, "Ann|fr")]
    assert await _get(z.rank_top(k("{t}:game"), 5)) == [RankEntry(1, "ann", 3)]
    ann = await _get(z.rank_get(k("{t}:game"), "ann", data=profiles))
    assert ann is not None and ann.data == "Ann|fr"
    assert await _get(z.rank_remove(k("{t}:game"), "ann", data=profiles)) == 1
    assert await _get(r.exists(profiles)) == 0
    # IDMP: a retried event changes nothing and says so.
    once = {"idmp": (k("{t}:seen"), "pay-881")}
    assert _applied(await _get(z.rank_gift(k("{t}:room"), "alice", 10, **once))) == ((10, 1), False)
    assert _applied(await _get(z.rank_gift(k("{t}:room"), "alice", 10, **once))) == ((10, 1), True)
    assert _applied(await _get(z.rank_set(k("{t}:room"), "bob", 5, idmp=(k("{t}:seen"), "set-1"), retain=60000))) == ((5, 2), False)
    assert _applied(await _get(z.rank_set(k("{t}:room"), "bob", 5, idmp=(k("{t}:seen"), "set-1")))) == ((5, 2), True)
    # Another total under the same event id is another event: refused.
    with pytest.raises(redis.ResponseError, match="other arguments"):
        await _get(z.rank_set(k("{t}:room"), "bob", 7, idmp=(k("{t}:seen"), "set-1")))
    mgift = {"idmp": (k("{t}:seen"), "m-1")}
    [first, other] = await _get(z.rank_mgift([k("{t}:room"), k("{t}:hall")], "bob", 1, **mgift))
    [again, _] = await _get(z.rank_mgift([k("{t}:room"), k("{t}:hall")], "bob", 1, **mgift))
    assert (_applied(first), _applied(other), _applied(again)) == (((6, 2), False), ((1, 1), False), ((6, 2), True))
    assert (await _get(z.rank_gift(k("{t}:room"), "bob", 1))).already_applied is None
    board = await _get(z.rank_stats(k("{t}:mon")))  # totals 1, 100, 100, 100, 100
    assert board[:6] == (5, 100, 100, 100, 100, 1) and board.memory_bytes > 0
    assert await _get(z.rank_stats(k("{t}:noboard"))) == (0, None, None, None, None, None, 0)
    for member, total in (("a", 1), ("b", 2), ("c", 3), ("d", 4)):
        await _get(z.rank_gift(k("{t}:pct"), member, total))
    assert [await _get(z.rank_percentile(k("{t}:pct"), m)) for m in ("d", "a", "nobody")] == [75, 0, None]
    assert [await _get(z.rank_quantile(k("{t}:pct"), p)) for p in (50, 87.5, "100")] == [2.5, 3.625, 4.0]
    assert await _get(z.rank_quantile(k("{t}:noboard"), 50)) is None
    assert [await _get(z.rank_count(k("{t}:pct"), *bounds)) for bounds in ((2, "+inf"), ("(2", "+inf"), ("-inf", "(2"))] == [3, 2, 1]
    # e reaches 3 at a time given before c's (the server's now): d 4, e 3, c 3, b 2, a 1.
    await _get(z.rank_gift(k("{t}:pct"), "e", 3, at=1718000000000))
    band = [RankEntry(2, "e", 3), RankEntry(3, "c", 3), RankEntry(4, "b", 2)]
    assert await _get(z.rank_range(k("{t}:pct"), 3, "(1")) == band
    assert await _get(z.rank_range(k("{t}:pct"), "+inf", "-inf", limit=(2, 1), shared=True)) == [RankEntry(2, "c", 3)]
    assert await _get(z.rank_range(k("{t}:noboard"), "+inf", "-inf")) == []
    friends = [RankEntry(1, "e", 3), RankEntry(1, "c", 3), RankEntry(3, "a", 1)]
    assert await _get(z.rank_among(k("{t}:pct"), "c", "a", "nobody", "e", shared=True)) == friends
    assert await _get(z.rank_among(k("{t}:pct"), "SHARED", "c")) == [RankEntry(1, "c", 3)]

    assert await _get(z.feed_add(k("{t}:feed"), {"item:1": 1, "item:2": 2, "item:3": 3.5}, cap=2)) == 3
    first = await _get(z.feed_page(k("{t}:feed"), count=1))
    assert first.items == [FeedItem("item:3", 3.5)] and first.more is True
    older = await _get(z.feed_page(k("{t}:feed"), count=5, older=first.bottom))
    assert older.items == [FeedItem("item:2", 2.0)] and older.more is False
    newer = await _get(z.feed_page(k("{t}:feed"), newer=older.top))
    assert newer.items == [FeedItem("item:3", 3.5)] and newer.more is False
    assert await _get(z.feed_page(k("{t}:nofeed"))) == ([], None, None, False)

    await _get(r.zadd(k("{t}:jobs"), {"mail:1": 1000, "mail:2": 2000, "mail:3": 3000}))
    lease = (k("{t}:jobs:inflight"), 60000)
    assert await _get(z.delay_poll(k("{t}:jobs"), count=2, lease=lease)) == [Task("mail:1", 1000.0), Task("mail:2", 2000.0)]
    assert await _get(z.delay_bpoll(k("{t}:jobs"), 100, lease=lease)) == [Task("mail:3", 3000.0)]
    assert await _get(z.delay_bpoll(k("{t}:jobs"), 1)) is None
    assert await _get(z.delay_poll(k("{t}:jobs"))) == []
    assert await _get(z.delay_ack(k("{t}:jobs:inflight"), "mail:1", "mail:2", "mail:9")) == 2
    # mail:3 is held; NACK hands it back, counted: its second delivery is its last.
    deadletter = (k("{t}:dead"), k("{t}:deliveries"), 1)
    assert await _get(z.delay_touch(k("{t}:jobs:inflight"), "mail:3", 120000)) is True
    assert await _get(z.delay_nack(k("{t}:jobs:inflight"), k("{t}:jobs"), "mail:3", 0)) is True
    assert await _get(z.delay_nack(k("{t}:jobs:inflight"), k("{t}:jobs"), "mail:3", 0)) is False
    assert await _get(z.delay_touch(k("{t}:jobs:inflight"), "mail:3", 120000)) is False
    [(task, _)] = await _get(z.delay_poll(k("{t}:jobs"), lease=lease, deadletter=deadletter))
    assert task == "mail:3" and await _get(r.zscore(k("{t}:deliveries"), "mail:3")) == 1
    assert await _get(z.delay_nack(k("{t}:jobs:inflight"), k("{t}:jobs"), "mail:3", 0)) is True
    await _get(r.zadd(k("{t}:jobs"), {"mail:4": 4000}))
    assert await _get(z.delay_bpoll(k("{t}:jobs"), 100, count=2, lease=lease, deadletter=deadletter)) == [Task("mail:4", 4000.0)]
    assert await _get(r.zrange(k("{t}:dead"), 0, -1)) == ["mail:3"]
    assert await _get(z.delay_ack(k("{t}:jobs:inflight"), "mail:4", deliveries=k("{t}:deliveries"))) == 1
    assert await _get(r.exists(k("{t}:jobs:inflight"), k("{t}:deliveries"))) == 0
    sets = {"inflight": k("{t}:jobs:inflight"), "dead": k("{t}:dead"), "deliveries": k("{t}:deliveries")}
    stats = await _get(z.delay_stats(k("{t}:jobs"), **sets))
    assert stats[1:] == (0, 0, 0, None, 0, 0, 1, 0, None, None) and stats.now_ms > 1718000000000  # mail:3 is dead
    await _get(r.zadd(k("{t}:jobs"), {"mail:5": 5000}))
    stats = await _get(z.delay_stats(k("{t}:jobs")))
    assert (stats.tasks, stats.due, stats.oldest_due_age_ms) == (1, 1, stats.now_ms - 5000) and stats.dead is None
    # Fenced leases: each delivery's token; a stale token's calls change nothing.
    inflight, jobs = k("{t}:jobs:inflight"), k("{t}:jobs")
    [fenced] = await _get(z.delay_poll(jobs, lease=lease, withtokens=True))
    assert fenced[:2] == ("mail:5", 5000.0) and fenced.token == await _get(r.zscore(inflight, "mail:5"))
    renewed = _token(await _get(z.delay_touch(inflight, "mail:5", 120000, token=fenced.token)))
    assert renewed > fenced.token and renewed == await _get(r.zscore(inflight, "mail:5"))
    assert _token(await _get(z.delay_touch(inflight, "mail:5", 120000, token=fenced.token))) == 0
    assert await _get(z.delay_nack(inflight, jobs, "mail:5", 0, token=fenced.token)) is False
    assert await _get(z.delay_ack(inflight, leases=[("mail:5", fenced.token)])) == 0
    assert await _get(r.zscore(inflight, "mail:5")) == renewed
    assert await _get(z.delay_nack(inflight, jobs, "mail:5", 0, token=renewed)) is True
    [again] = await _get(z.delay_bpoll(jobs, 100, lease=lease, withtokens=True))
    assert again.task == "mail:5" and again.token == await _get(r.zscore(inflight, "mail:5"))
    assert await _get(z.delay_ack(inflight, leases=[("mail:5", again.token)], deliveries=k("{t}:deliveries"))) == 1
    assert await _get(r.exists(inflight)) == 0
    # Jobs: tasks that carry their data, in the hash beside the queue.
    data, dead, counts = k("{t}:jobs:data"), k("{t}:dead"), k("{t}:deliveries")
    assert await _get(z.delay_add(jobs, data=data, jobs=[(0, "mail:17", "to=ann"), (0, "mail:18", "to=bob")])) == [1, 1]
    assert await _get(z.delay_add(jobs, data=data, keep=True, jobs=[(0, "mail:17", "to=cat")])) == [0]
    assert await _get(r.hget(data, "p:mail:17")) == "to=ann"
    before_ms = int(time.time() * 1000)
    replaced = await _get(z.delay_add(jobs, data=data, inflight=inflight, replace=True, within=3600000, jobs=[(0, "mail:18", "to=dan")]))
    after_ms = int(time.time() * 1000)
    assert replaced == [2] and await _get(r.hmget(data, "p:mail:18", "p:mail:17")) == ["to=dan", "to=ann"]
    # Its not-started-by deadline, counted from now (a due time past is now).
    assert before_ms + 3600000 <= int(await _get(r.hget(data, "x:mail:18"))) <= after_ms + 3600000
    assert await _get(z.delay_add(jobs, tasks=[(4102444800000, "report:1")])) == [1]
    assert await _get(z.delay_add(jobs, extend=True, tasks=[(4102444800001, "report:1")])) == [2]
    assert await _get(z.delay_add(jobs, extend=True, tasks=[(4102444700000, "report:1")])) == [0]  # only later
    assert await _get(r.zscore(jobs, "report:1")) == 4102444800001
    assert await _get(z.delay_pause(jobs, data)) is True
    assert await _get(z.delay_pause(jobs, data)) is False
    assert (await _get(z.delay_stats(jobs, data=data))).paused is True
    assert await _get(z.delay_poll(jobs, lease=lease, data=data, withdata=True)) == []
    assert await _get(z.delay_resume(jobs, data)) is True
    assert await _get(z.delay_resume(jobs, data)) is False
    assert (await _get(z.delay_stats(jobs, data=data))).paused is False
    once = (dead, counts, 1)
    held = await _get(z.delay_poll(jobs, count=3, lease=lease, deadletter=once, data=data, withdata=True, worker="worker-1"))
    assert [(job.task, job.payload, job.deliveries) for job in held] == [("mail:17", "to=ann", 1), ("mail:18", "to=dan", 1)]
    assert held[0].token == await _get(r.zscore(inflight, "mail:17")) and held[0].token == held[1].token
    assert await _get(r.hget(data, "w:mail:17")) == "worker-1"
    info = await _get(z.delay_job(jobs, "mail:17", inflight=inflight, dead=dead, deliveries=counts, data=data))
    assert info == JobInfo("inflight", float(held[0].token), "to=ann", 1, None, None, "worker-1")
    # mail:18 fails: handed back with its reason; delivered once already, the next poll buries it.
    assert await _get(z.delay_nack(inflight, jobs, "mail:18", 0, token=held[1].token, data=data, reason="SMTP 451")) is True
    assert await _get(r.hmget(data, "r:mail:18", "w:mail:18")) == ["SMTP 451", None]
    assert await _get(z.delay_bpoll(jobs, 100, lease=lease, deadletter=once, data=data, withdata=True)) is None
    info = await _get(z.delay_job(jobs, "mail:18", inflight=inflight, dead=dead, deliveries=counts, data=data))
    assert info == JobInfo("dead", await _get(r.zscore(dead, "mail:18")), "to=dan", 1, "SMTP 451", None, None)
    assert await _get(z.delay_retry(dead, jobs, "mail:18", "nobody", data=data)) == 1
    [retried] = await _get(z.delay_bpoll(jobs, 1000, lease=lease, data=data, withdata=True))
    assert (retried.task, retried.payload, retried.deliveries) == ("mail:18", "to=dan", None)
    assert retried.token == await _get(r.zscore(inflight, "mail:18"))
    leases = [("mail:17", held[0].token), ("mail:18", retried.token)]
    assert await _get(z.delay_ack(inflight, deliveries=counts, data=data, leases=leases)) == 2
    assert await _get(r.exists(inflight, counts, data)) == 0  # payloads, reasons and holders went with them
    # Polled without a lease, a job is done: its data goes with it.
    assert await _get(z.delay_add(jobs, data=data, jobs=[(0, "mail:19", "to=eve")])) == [1]
    [(task, _, token, payload, deliveries)] = await _get(z.delay_poll(jobs, data=data, withdata=True))
    assert (task, token, payload, deliveries) == ("mail:19", None, "to=eve", None)
    assert await _get(r.exists(data)) == 0
    assert await _get(r.zrange(jobs, 0, -1)) == ["report:1"]

    # Priority lanes: the first queue's due task first, then the next's.
    high, low = k("{t}:high"), k("{t}:low")
    assert await _get(z.delay_add(low, tasks=[(0, "low:1")])) == [1]
    assert await _get(z.delay_add(high, tasks=[(0, "high:1")])) == [1]
    assert [t.task for t in await _get(z.delay_poll(high, count=5, lanes=[low]))] == ["high:1", "low:1"]
    assert await _get(z.delay_bpoll(high, 1, lanes=[low])) is None
    # Groups: acme's cap holds, the other tenant is still served.
    tenants, tenant_data, tenant_held = k("{t}:tenants"), k("{t}:tenants:data"), k("{t}:tenants:inflight")
    assert await _get(z.delay_group(tenants, tenant_data, "acme", cap=1, rate=(60000, 10))) is True
    assert await _get(z.delay_add(tenants, data=tenant_data, group="acme", jobs=[(0, "a:1", "x"), (0, "a:2", "x")])) == [1, 1]
    assert await _get(z.delay_add(tenants, data=tenant_data, group="zeta", tasks=[(0, "z:1")])) == [1]
    held = await _get(z.delay_poll(tenants, count=5, lease=(tenant_held, 60000), data=tenant_data))
    assert sorted(t.task for t in held) == ["a:1", "z:1"]
    [acme] = await _get(z.delay_groups(tenants, tenant_data))
    assert (acme.group, acme.inflight, acme.cap, acme.rate_limit, acme.window_ms, acme.capped) == ("acme", 1, 1, 10, 60000, True)
    assert (await _get(z.delay_stats(tenants, data=tenant_data))).capped_groups == 1
    # Rate-limited claims: one per minute across workers.
    rated, rate_log = k("{t}:rated"), k("{t}:rated:log")
    assert await _get(z.delay_add(rated, data=tenant_data, jobs=[(0, "r:1", "x"), (0, "r:2", "y")])) == [1, 1]
    first = await _get(z.delay_poll(rated, data=tenant_data, withdata=True, rate=(rate_log, 60000, 1)))
    assert [job.payload for job in first.jobs] == ["x"] and first.retry_after_ms == -1
    limited = await _get(z.delay_poll(rated, rate=(rate_log, 60000, 1)))
    assert limited.tasks == [] and 0 < limited.retry_after_ms <= 60000
    # Repeating jobs: listed by id, changed, cancelled.
    beats, beat_data = k("{t}:beats"), k("{t}:beats:data")
    # On both engines: the library reads cron rules in a time zone as the module does.
    assert await _get(z.delay_schedule(beats, beat_data, "beat", every=60000, start=4102444800000, payload="p")) == 4102444800000
    assert await _get(z.delay_schedule(beats, beat_data, "daily", cron="0 9 * * *", tz="Europe/Paris")) > 1718000000000
    rows = await _get(z.delay_schedules(beats, beat_data))
    assert [(row.id, row.every_ms, row.cron, row.tz, row.payload) for row in rows] == [
        ("beat", 60000, None, None, "p"),
        ("daily", None, "0 9 * * *", "Europe/Paris", None),
    ]
    # Each pending occurrence is a task <id>@<unix-ms> in the queue.
    assert await _get(r.zrange(beats, 0, -1)) == [f"daily@{rows[1].next_ms}", "beat@4102444800000"]
    assert await _get(z.delay_unschedule(beats, beat_data, "beat")) is True
    assert await _get(z.delay_unschedule(beats, beat_data, "beat")) is False

    assert await _get(z.rate_hit(k("{t}:rate"), 60000, 2, cost=2)) == (True, 2, 0, -1)
    allowed, count, remaining, retry_after_ms = await _get(z.rate_hit(k("{t}:rate"), 60000, 2))
    assert (allowed, count, remaining) == (False, 2, 0) and 0 < retry_after_ms <= 60000
    assert await _get(z.rate_hit_limits(k("{t}:rate2"), [(60000, 5), (1000, 2)], cost=2)) == (True, 2, 0, -1, 2)
    allowed, count, remaining, retry_after_ms, binding = await _get(z.rate_hit_limits(k("{t}:rate2"), [(60000, 5), (1000, 2)]))
    assert (allowed, count, remaining, binding) == (False, 2, 0, 2) and 0 < retry_after_ms <= 1000
    hit = {"idmp": (k("{t}:seen"), "hit-1")}
    # With IDMP the binding position is there with one limit too: 1.
    assert _applied(await _get(z.rate_hit(k("{t}:rate3"), 60000, 1, **hit))) == ((True, 1, 0, -1, 1), False)
    assert _applied(await _get(z.rate_hit(k("{t}:rate3"), 60000, 1, **hit))) == ((True, 1, 0, -1, 1), True)
    # The flag is the last element whatever the reply's shape: a retried
    # hit on several limits (under its own event id) says so too.
    several = {"idmp": (k("{t}:seen"), "hit-2")}
    assert _applied(await _get(z.rate_hit_limits(k("{t}:rate4"), [(60000, 1), (1000, 5)], **several))) == ((True, 1, 0, -1, 1), False)
    assert _applied(await _get(z.rate_hit_limits(k("{t}:rate4"), [(60000, 1), (1000, 5)], **several))) == ((True, 1, 0, -1, 1), True)
    rate = await _get(z.rate_stats(k("{t}:rate"), 60000, 120000))
    assert (rate.entries, rate.windows) == (2, [(60000, 2), (120000, 2)]) and rate.newest_ms > 1718000000000
    # A peek answers what the hit would and logs nothing; a cost above the
    # limit is refused with -1 (it never fits); a negative cost gives back.
    assert await _get(z.rate_peek(k("{t}:rate5"), 60000, 3, cost=2)) == (True, 2, 1, -1)
    assert await _get(r.exists(k("{t}:rate5"))) == 0
    assert await _get(z.rate_peek_limits(k("{t}:rate5"), [(60000, 3), (1000, 1)], cost=2)) == (False, 0, 1, -1, 2)
    assert await _get(z.rate_hit(k("{t}:rate5"), 60000, 3, cost=2)) == (True, 2, 1, -1)
    assert await _get(z.rate_hit(k("{t}:rate5"), 60000, 3, cost=-1)) == (True, 1, 2, -1)
    assert await _get(z.rate_hit(k("{t}:rate5"), 60000, 3, cost=4)) == (False, 1, 2, -1)
    # At most one at once: the second holder waits for the lease; a token
    # that is not the lease's frees nothing.
    held = await _get(z.rate_acquire(k("{t}:busy"), "req:1", 60000, 1))
    assert held[:4] == (True, 1, 0, -1) and held.token > 1718000000000
    waiting = await _get(z.rate_acquire(k("{t}:busy"), "req:2", 60000, 1))
    assert (waiting.acquired, waiting.held, waiting.token) == (False, 1, -1) and 0 < waiting.retry_after_ms <= 60000
    assert await _get(z.rate_release(k("{t}:busy"), "req:1", token=held.token - 1)) is False
    assert await _get(z.rate_release(k("{t}:busy"), "req:1", token=held.token)) is True
    assert await _get(z.rate_release(k("{t}:busy"), "req:1")) is False

    assert await _get(z.recent_add(k("{t}:recent"), "3002", "3001", "3004", cap=2, ttl=60)) == 2
    assert await _get(r.zrevrange(k("{t}:recent"), 0, -1)) == ["3004", "3001"]

    await _get(r.zadd(k("{t}:time"), {"100408": POSTED_AT}))
    keys = (k("{t}:score"), k("{t}:up:100408"), k("{t}:down:100408"))
    window = (k("{t}:time"), 10**10)
    assert await _get(z.vote_cast(*keys, "100408", "user:1", "UP", weight=(432, 432), window=window)) == (432.0, 1, 0, True)
    assert await _get(z.vote_cast(*keys, "100408", "user:1", "DOWN", weight=(432, 432))) == (-432.0, 0, 1, True)
    assert await _get(z.vote_cast(*keys, "100408", "user:1", "DOWN", weight=(432, 432))) == (-432.0, 0, 1, False)
    assert await _get(z.vote_state(keys[1], keys[2], "user:1")) == -1


_SEVERAL_LIMITS = {"RATE.HIT": "rate_hit_limits", "RATE.PEEK": "rate_peek_limits"}


def _method_names() -> Set[str]:
    # RATE.HIT and RATE.PEEK have a second method, for several limits.
    return {name.lower().replace(".", "_") for name in COMMANDS} | set(_SEVERAL_LIMITS.values())


def test_every_command_sync(client: redis.Redis) -> None:
    z = Recorder(zkit.Zkit(client))
    asyncio.run(every_command(z, client))
    # Every method the scenario calls is a command's; every command is
    # called, through its method, by tests/test_declared_examples.py.
    assert z.called and z.called <= _method_names()


@pytest.mark.parametrize("topology", ["single", "cluster"])
def test_every_command_async(topology: str) -> None:
    async def run() -> Set[str]:
        client = async_client(topology)
        try:
            z = Recorder(zkit.AsyncZkit(client))
            await every_command(z, client)
            return z.called
        finally:
            await client.aclose()

    called = asyncio.run(run())
    assert called and called <= _method_names()


def test_every_option_is_a_keyword_argument() -> None:
    """Each option and flag of the generated table is a keyword argument of
    its command's methods, so an option added to a command (IDMP, RETAIN)
    cannot go unexposed; each list of a choice is a parameter too (the
    first may be the method's ``*args``)."""
    for name, command in COMMANDS.items():
        options = {part.name for part in command.layout if isinstance(part, (Option, Flag))}
        lists = {alternative.name for part in command.layout if isinstance(part, Choice) for alternative in part.alternatives}
        methods = [name.lower().replace(".", "_")] + ([_SEVERAL_LIMITS[name]] if name in _SEVERAL_LIMITS else [])
        for method in methods:
            parameters = inspect.signature(getattr(zkit.Zkit, method)).parameters.values()
            keywords = {parameter.name for parameter in parameters if parameter.kind is parameter.KEYWORD_ONLY}
            assert options <= keywords, f"{method} lacks {sorted(options - keywords)}"
            named = keywords | {parameter.name for parameter in parameters if parameter.kind is parameter.VAR_POSITIONAL}
            assert lists <= named, f"{method} lacks {sorted(lists - named)}"


def test_ack_takes_either_tasks_or_leases(single: redis.Redis) -> None:
    z = zkit.Zkit(single)
    before = zkit_command_stats([single])
    with pytest.raises(TypeError, match=r"^DELAY\.ACK: give either tasks or leases$"):
        z.delay_ack(k("{jobs}:inflight"))
    with pytest.raises(TypeError, match=r"^DELAY\.ACK: give either tasks or leases$"):
        z.delay_ack(k("{jobs}:inflight"), "mail:1", leases=[("mail:2", 1718000060000)])
    with pytest.raises(TypeError, match=r"^DELAY\.ACK: leases must be a non-empty list$"):
        z.delay_ack(k("{jobs}:inflight"), leases=[])
    with pytest.raises(TypeError, match=r"^DELAY\.ACK: each of leases must be a tuple of 2 values"):
        z.delay_ack(k("{jobs}:inflight"), leases=["mail:1"])
    after = zkit_command_stats([single])
    for stat in call_stats(["DELAY.ACK"]):
        assert after.get(stat) == before.get(stat), f"{stat} reached the server"


def _claimed(poll: Any) -> Any:
    """The one task ``poll()`` claims, polling until it claims it."""
    deadline = time.monotonic() + 10
    while True:
        tasks = poll()
        if tasks:
            [task] = tasks
            return task
        assert time.monotonic() < deadline, "nothing was claimed"
        time.sleep(0.005)


def test_a_stale_holders_late_calls_change_nothing(client: redis.Redis) -> None:
    """A worker whose lease ended and whose task another worker claimed
    since: its ACK, NACK and TOUCH with its token answer 0 (False) and
    leave the new delivery as it is; the new holder's act."""
    z = zkit.Zkit(client)
    queue, inflight = k("{jobs}"), k("{jobs}:inflight")
    client.zadd(queue, {"mail:1": 1})
    [first] = z.delay_poll(queue, lease=(inflight, 1), withtokens=True)  # its lease ends a ms later
    second = _claimed(lambda: z.delay_poll(inflight, lease=(inflight, 60000), withtokens=True))
    assert second.task == "mail:1" and second.token > first.token

    def state() -> Any:
        return client.zrange(inflight, 0, -1, withscores=True), client.zrange(queue, 0, -1, withscores=True)

    taken_over = state()
    assert taken_over == ([("mail:1", float(second.token))], [])
    assert z.delay_ack(inflight, leases=[("mail:1", first.token)]) == 0
    assert z.delay_nack(inflight, queue, "mail:1", 0, token=first.token) is False
    assert _token(z.delay_touch(inflight, "mail:1", 60000, token=first.token)) == 0
    assert state() == taken_over
    renewed = _token(z.delay_touch(inflight, "mail:1", 60000, token=second.token))
    assert renewed >= second.token and state()[0] == [("mail:1", float(renewed))]
    assert z.delay_ack(inflight, leases=[("mail:1", renewed)]) == 1
    assert client.exists(inflight, queue) == 0


def test_every_command_is_a_server_command(single: redis.Redis) -> None:
    """The table covers exactly what the module registers (but its test-only
    debug command), or the library's functions (but its helpers, and the
    blocking DELAY.BPOLL, which the client runs by polling)."""
    if ENGINE == "functions":
        def fields(pairs: Any) -> Any:
            return dict(zip(pairs[::2], pairs[1::2])) if isinstance(pairs, list) else pairs

        functions = fields(single.function_list(library="zkit")[0])["functions"]
        names = {fields(f)["name"] for f in functions} - {"zkit_version", "zkit_keys"}
        assert names == {zkit.engine.function_name(c) for c in COMMANDS} - {"zkit_delay_bpoll"}
        return
    registered = {name.upper() for name in single.command_list(module="zkit")}
    assert registered - {"ZKIT.DEBUG-PANIC"} == set(COMMANDS)


def test_pipelines_return_typed_replies(client: redis.Redis) -> None:
    pipe = client.pipeline(transaction=False)
    z = zkit.Zkit(pipe)
    z.rank_gift(k("{p}:board"), "alice", 5)
    z.rank_top(k("{p}:board"), 1)
    z.vote_cast(k("{p}:s"), k("{p}:u"), k("{p}:d"), "item", "voter", "UP")
    z.rate_hit(k("other"), 1000, 1)
    z.rank_mgift([k("{p}:board"), k("{p}:all")], "bob", 3, shared=True)
    z.rank_mget(k("{p}:board"), "bob", "nobody")
    z.rank_set(k("{p}:board"), "bob", 1, gt=True)
    z.rate_hit_limits(k("rate"), [(1000, 2), (60000, 1)])
    z.delay_poll(k("{p}:q"), lease=(k("{p}:in"), 60000), deadletter=(k("{p}:dead"), k("{p}:n"), 2))
    z.delay_touch(k("{p}:in"), "task", 60000)
    z.delay_nack(k("{p}:in"), k("{p}:q"), "task", 0)
    z.delay_ack(k("{p}:in"), "task", deliveries=k("{p}:n"))
    z.delay_touch(k("{p}:in"), "task", 60000, token=1718000060000)
    z.delay_ack(k("{p}:in"), leases=[("task", 1718000060000)])
    replies = pipe.execute()
    assert replies[:6] == [
        (5, 1),
        [RankEntry(1, "alice", 5)],
        (1.0, 1, 0, True),
        (True, 1, 0, -1),
        [(3, 2), (3, 1)],
        [(3, 2, replies[5][0].reached_at_ms), None],
    ]
    assert replies[6:12] == [(3, 2), (True, 1, 0, -1, 2), [], False, False, 0]
    assert _token(replies[12]) == 0 and replies[13] == 0


def test_pipelines_parse_idmp_replies(client: redis.Redis) -> None:
    pipe = client.pipeline(transaction=False)
    z = zkit.Zkit(pipe)
    for _ in range(2):
        z.rank_gift(k("{p}:board"), "alice", 10, idmp=(k("{p}:seen"), "pay-1"))
        z.rate_hit(k("{p}:rate"), 60000, 5, idmp=(k("{p}:seen"), "hit-1"))
        z.rate_hit_limits(k("{p}:rate"), [(60000, 5), (120000, 9)])
    replies = pipe.execute()
    assert [_applied(reply) for reply in replies] == [
        ((10, 1), False),
        ((True, 1, 4, -1, 1), False),
        ((True, 2, 3, -1, 1), None),
        ((10, 1), True),
        ((True, 2, 3, -1, 1), True),
        ((True, 3, 2, -1, 1), None),
    ]


def test_idmp_seen_key_shares_the_boards_slot(cluster: redis.cluster.RedisCluster) -> None:
    before = zkit_command_stats(node_connections())
    with pytest.raises(zkit.CrossSlotError, match=r"RANK\.GIFT: .*\{a\}:board'.*\{b\}:seen'"):
        zkit.Zkit(cluster).rank_gift(k("{a}:board"), "alice", 1, idmp=(k("{b}:seen"), "pay-1"))
    with pytest.raises(zkit.CrossSlotError, match=r"\{b\}:seen'"):
        zkit.Zkit(cluster).rate_hit(k("{a}:rate"), 1000, 1, idmp=(k("{b}:seen"), "hit-1"))
    after = zkit_command_stats(node_connections())
    for name in call_stats(["RANK.GIFT", "RATE.HIT"]):
        assert after.get(name) == before.get(name), f"{name} reached a server"


def test_async_cluster_pipeline() -> None:
    async def run() -> Any:
        client = async_client("cluster")
        try:
            pipe = client.pipeline()
            z = zkit.AsyncZkit(pipe)
            await z.rank_gift(k("{p}:board"), "alice", 5)
            await z.delay_poll(k("{p}:q"), lease=(k("{p}:in"), 1000))
            await z.rank_gift(k("elsewhere"), "bob", 1)
            await z.rank_mgift([k("{p}:board"), k("{p}:all")], "alice", 1, at=1718000000000)
            await z.rank_mget(k("{p}:all"), "alice", shared=True)
            await z.rate_hit_limits(k("{r}"), [(1000, 2), (60000, 1)], cost=1)
            await z.delay_touch(k("{p}:in"), "task", 1000)
            await z.delay_nack(k("{p}:in"), k("{p}:q"), "task", 0)
            await z.delay_touch(k("{p}:in"), "task", 1000, token=1718000060000)
            for _ in range(2):
                await z.rank_mgift([k("{p}:board"), k("{p}:all")], "carol", 2, idmp=(k("{p}:seen"), "m-1"))
            return await pipe.execute()
        finally:
            await client.aclose()

    replies = asyncio.run(run())
    assert _token(replies[8]) == 0
    assert [[_applied(board) for board in reply] for reply in replies[9:]] == [
        [((2, 2), False), ((2, 1), False)],
        [((2, 2), True), ((2, 1), True)],
    ]
    assert replies[:8] == [
        (5, 1),
        [],
        (1, 1),
        [(6, 1), (1, 1)],
        [(1, 1, 1718000000000)],
        (True, 1, 0, -1, 2),
        False,
        False,
    ]


def test_resp3_and_bytes_replies(single: redis.Redis) -> None:
    r3 = redis.Redis(**_host_port(SERVER), protocol=3)
    z = zkit.Zkit(r3)
    z.feed_add(k("feed"), {"a": 0.1, "b": 2})
    page = z.feed_page(k("feed"))
    assert page.items == [FeedItem(b"b", 2.0), FeedItem(b"a", 0.1)] and isinstance(page.top, bytes)
    assert z.vote_cast(k("s"), k("u"), k("d"), "i", "v", "UP", weight=(0.5, 1)) == (0.5, 1, 0, True)
    r3.zadd(k("q"), {"t": 5})
    assert z.delay_poll(k("q")) == [Task(b"t", 5.0)]
    assert z.rank_get(k("board"), "nobody") is None
    z.rank_gift(k("board"), "alice", 3, at=1718000000000)
    assert z.rank_mget(k("board"), "nobody", "alice", shared=True) == [None, (3, 1, 1718000000000)]
    assert z.rank_mgift([k("board")], "alice", 1) == [(4, 1)]
    assert z.rate_hit_limits(k("rate"), [(1000, 2), (60000, 3)]) == (True, 1, 1, -1, 1)
    r3.zadd(k("q"), {"t": 5})
    assert z.delay_poll(k("q"), lease=(k("in"), 60000), deadletter=(k("dead"), k("n"), 1)) == [Task(b"t", 5.0)]
    assert z.delay_touch(k("in"), "t", 60000) is True
    assert z.delay_nack(k("in"), k("q"), "t", 0) is True
    [fenced] = z.delay_poll(k("q"), lease=(k("in"), 60000), withtokens=True)
    assert fenced.task == b"t" and _token(fenced.token) == r3.zscore(k("in"), "t")
    assert _token(z.delay_touch(k("in"), "t", 60000, token=fenced.token)) >= fenced.token


def test_server_errors_surface_unchanged(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    with pytest.raises(redis.ResponseError, match="^value is not an integer or out of range$"):
        z.rank_gift(k("board"), "alice", "ten")
    client.set(k("{v}:up"), "not a set")
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        z.vote_cast(k("{v}:s"), k("{v}:up"), k("{v}:down"), "item", "voter", "UP")


def test_cross_slot_keys_fail_before_sending(cluster: redis.cluster.RedisCluster) -> None:
    z = zkit.Zkit(cluster)
    before = zkit_command_stats(node_connections())
    # Keys of their own hash tags (the prefix has none): their slots differ.
    with pytest.raises(zkit.CrossSlotError, match=r"RANK\.MERGE: .*\{week\}'.*\{mon\}'"):
        z.rank_merge(k("{week}"), [k("{mon}")])
    with pytest.raises(zkit.CrossSlotError, match=r"\{jobs\}:inflight'.*\{jobs-inflight\}'"):
        z.delay_poll(k("{jobs}:inflight"), lease=(k("{jobs-inflight}"), 1000))
    with pytest.raises(zkit.CrossSlotError, match=r"\{times\}'"):
        z.vote_cast(k("{n}:s"), k("{n}:u"), k("{n}:d"), "item", "voter", "UP", window=(k("{times}"), 60))
    with pytest.raises(zkit.CrossSlotError, match=r"RANK\.MGIFT: .*\{day\}'.*\{week\}'"):
        z.rank_mgift([k("{day}"), k("{week}")], "bob", 1)
    with pytest.raises(zkit.CrossSlotError, match=r"DELAY\.NACK: .*\{jobs-queue\}'"):
        z.delay_nack(k("{jobs}:inflight"), k("{jobs-queue}"), "task", 0)
    with pytest.raises(zkit.CrossSlotError, match=r"\{dead\}'"):
        z.delay_poll(k("{jobs}"), lease=(k("{jobs}:inflight"), 1000), deadletter=(k("{dead}"), k("{jobs}:n"), 3))
    with pytest.raises(zkit.CrossSlotError, match=r"\{deliveries\}'"):
        z.delay_ack(k("{jobs}:inflight"), "task", deliveries=k("{deliveries}"))
    after = zkit_command_stats(node_connections())
    for name in call_stats(["RANK.MERGE", "RANK.MGIFT", "DELAY.POLL", "DELAY.NACK", "DELAY.ACK", "VOTE.CAST"]):
        assert after.get(name) == before.get(name), f"{name} reached a server"


def test_cross_slot_keys_work_on_one_server(single: redis.Redis) -> None:
    z = zkit.Zkit(single)
    z.rank_gift(k("{mon}"), "alice", 3)
    assert z.rank_merge(k("{week}"), [k("{mon}")]) == 1
