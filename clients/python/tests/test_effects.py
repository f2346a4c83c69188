"""What the RANK, DELAY and RATE options and commands do to the data, beyond
their replies: shared ranks, best-score boards, gifts on several boards,
NACK, TOUCH, dead letters, stacked rate limits and exactly-once writes
(IDMP), on one server and on the cluster (the ``client`` fixture runs each
test on both)."""

from __future__ import annotations

import time
from typing import Any, Callable, List, Tuple

import pytest
import redis

import zkit
from zkit.commands import COMMANDS
from zkit.layout import Args, Choice, Flag, Option, Blocks
from zkit.replies import RankEntry, RankInfo, Task

from conftest import k

T0 = 1718000000000  # unix ms, for AT


def _now_ms() -> int:
    # The servers run on this machine: one clock.
    return int(time.time() * 1000)


def _ties(z: zkit.Zkit) -> None:
    """The docs' board: a and b at 100, c at 99, d reaching 100 after them."""
    z.rank_gift(k("board"), "a", 100, at=T0)
    z.rank_gift(k("board"), "b", 100, at=T0 + 1)
    z.rank_gift(k("board"), "c", 99, at=T0 + 2)
    z.rank_gift(k("board"), "d", 100, at=T0 + 3)


# RANK


def test_shared_ranks_tie(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    _ties(z)
    assert z.rank_top(k("board"), 10) == [
        RankEntry(1, "a", 100),
        RankEntry(2, "b", 100),
        RankEntry(3, "d", 100),
        RankEntry(4, "c", 99),
    ]
    shared = [RankEntry(1, "a", 100), RankEntry(1, "b", 100), RankEntry(1, "d", 100), RankEntry(4, "c", 99)]
    assert z.rank_top(k("board"), 10, shared=True) == shared
    assert z.rank_top(k("board"), 2, offset=1, shared=True) == shared[1:3]  # a page inside a run of ties
    assert z.rank_around(k("board"), "c", 1, shared=True) == shared[2:]
    assert z.rank_get(k("board"), "d") == (100, 3, T0 + 3)
    assert z.rank_get(k("board"), "d", shared=True) == (100, 1, T0 + 3)
    assert z.rank_mget(k("board"), "d", "c", "nobody", shared=True) == [(100, 1, T0 + 3), (99, 4, T0 + 2), None]
    # A gift of 0 changes nothing: d keeps its place and its time.
    assert z.rank_gift(k("board"), "d", 0, shared=True) == (100, 1)
    assert z.rank_set(k("board"), "c", 100, at=T0 + 4, shared=True) == (100, 1)
    assert z.rank_set(k("board"), "c", 100) == (100, 4)
    assert z.rank_mgift([k("board")], "e", 100, at=T0 + 5, shared=True) == [(100, 1)]
    # SHARED only changes the ranks shown: the order stays first-come.
    assert [entry.member for entry in z.rank_top(k("board"), 10, shared=True)] == ["a", "b", "d", "c", "e"]
    assert client.zrevrange(k("board"), 0, -1) == ["a", "b", "d", "c", "e"]


def test_rank_set_gt_keeps_the_best(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    assert z.rank_set(k("best"), "alice", 120, at=T0, gt=True) == (120, 1)  # not on the board: added
    assert z.rank_set(k("best"), "bob", 120, at=T0 + 1, gt=True) == (120, 2)
    assert z.rank_set(k("best"), "alice", 90, at=T0 + 2, gt=True) == (120, 1)  # a worse run: nothing changes
    assert z.rank_set(k("best"), "alice", 120, at=T0 + 3, gt=True) == (120, 1)  # equal: keeps its first time
    assert z.rank_get(k("best"), "alice") == (120, 1, T0)
    assert z.rank_set(k("best"), "bob", 130, at=T0 + 4, gt=True) == (130, 1)
    assert z.rank_get(k("best"), "bob") == (130, 1, T0 + 4)
    assert z.rank_set(k("best"), "alice", 90) == (90, 2)  # without GT, any total
    assert int(client.zscore(k("best"), "alice") or 0) == 90


def test_rank_set_lt_keeps_the_lowest(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    assert z.rank_set(k("laps"), "alice", -61000, lt=True) == (-61000, 1)
    assert z.rank_set(k("laps"), "alice", -59000, lt=True) == (-61000, 1)  # higher: kept out
    assert z.rank_set(k("laps"), "alice", -65000, lt=True, shared=True) == (-65000, 1)
    assert z.rank_get(k("laps"), "alice").total == -65000  # type: ignore[union-attr]


def test_rank_set_gt_and_lt_together_is_the_servers_syntax_error(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    z.rank_set(k("best"), "alice", 10)
    with pytest.raises(redis.ResponseError, match=r"^syntax error: GT and LT exclude each other; usage: RANK\.SET key "):
        z.rank_set(k("best"), "alice", 20, gt=True, lt=True)
    assert z.rank_get(k("best"), "alice").total == 10  # type: ignore[union-attr]


def test_rank_mgift_gifts_every_board_at_once(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    boards = [k("{room42}:day"), k("{room42}:week"), k("{room42}:all")]
    z.rank_gift(boards[1], "alice", 150, at=T0)
    z.rank_gift(boards[2], "bob", 900, at=T0)
    z.rank_gift(boards[2], "alice", 2000, at=T0)
    assert z.rank_mgift(boards, "bob", 100, at=T0 + 1) == [(100, 1), (100, 2), (1000, 2)]
    assert z.rank_mgift(boards, "bob", 50, at=T0 + 2) == [(150, 1), (150, 2), (1050, 2)]
    assert [z.rank_get(board, "bob") for board in boards] == [
        RankInfo(150, 1, T0 + 2),
        RankInfo(150, 2, T0 + 2),  # alice reached 150 first
        RankInfo(1050, 2, T0 + 2),
    ]
    assert z.rank_mgift(boards[1:], "bob", 0, shared=True) == [(150, 1), (1050, 2)]


def test_rank_mgift_is_atomic(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    z.rank_gift(k("{room}:day"), "bob", 1)
    client.set(k("{room}:week"), "not a board")
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        z.rank_mgift([k("{room}:day"), k("{room}:week")], "bob", 5)
    assert z.rank_get(k("{room}:day"), "bob").total == 1  # type: ignore[union-attr]
    with pytest.raises(redis.ResponseError, match="named twice"):
        z.rank_mgift([k("{room}:day"), k("{room}:day")], "bob", 5)
    with pytest.raises(TypeError, match="non-empty list"):
        z.rank_mgift([], "bob", 5)


def test_rank_mget(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    _ties(z)
    assert z.rank_mget(k("board"), "c", "nobody", "a") == [RankInfo(99, 4, T0 + 2), None, RankInfo(100, 1, T0)]
    assert z.rank_mget(k("board"), "a", "a") == [RankInfo(100, 1, T0)] * 2
    assert z.rank_mget(k("no-board"), "a", "b") == [None, None]


def _keywords(command: str) -> List[str]:
    """Every keyword of the command, as the generated table has it, in upper
    and lower case."""
    parts: List[Any] = []
    for part in COMMANDS[command].layout:
        parts.extend(part.alternatives if isinstance(part, Choice) else [part])
    tokens = [part.token for part in parts if isinstance(part, (Args, Blocks, Flag, Option)) and part.token]
    return [spelled for token in tokens for spelled in (token, token.lower())]


def _keywords_are_ids(command: str, scenario: Callable[[str, str], Any]) -> None:
    """``scenario(key, id)`` gives the same with every keyword of the command
    as the id as with a neutral one (on a key of its own each)."""
    neutral = scenario(k(f"{{kw}}:{command}:neutral"), "neutral")
    spellings = _keywords(command)
    assert len(spellings) >= 4, spellings
    for n, spelled in enumerate(spellings):
        assert scenario(k(f"{{kw}}:{command}:{n}"), spelled) == neutral, f"{command} with an id spelled {spelled}"


def test_ids_spelled_like_a_keyword_are_ids(client: redis.Redis) -> None:
    """0.3 sends members, tasks and items after their keyword (MEMBERS,
    TASKS, ITEMS), so any id goes, even one spelled like a keyword of its
    command, and the client refuses none."""
    z = zkit.Zkit(client)

    def as_id(spelled: str) -> Callable[[List[str]], List[str]]:
        return lambda members: ["ID" if member == spelled else member for member in members]

    def rank_mget(board: str, member: str) -> Any:
        z.rank_gift(board, member, 5, at=T0)
        z.rank_gift(board, "cat", 5, at=T0 + 1)
        return [z.rank_mget(board, member, "cat", shared=True), z.rank_mget(board, "cat", member), z.rank_mget(board, member)]

    def delay_ack(key: str, task: str) -> Any:
        inflight, deliveries = f"{key}:inflight", f"{key}:deliveries"
        client.zadd(inflight, {task: 1, "a": 1, "b": 1})
        client.zadd(deliveries, {task: 1, "a": 1, "b": 1})
        acked = [z.delay_ack(inflight, "a", task, deliveries=deliveries), z.delay_ack(inflight, task, "b"), z.delay_ack(inflight, task)]
        client.zadd(inflight, {task: 1, "c": 1})  # delivered under the token 1
        acked.append(z.delay_ack(inflight, leases=[("c", 1), (task, 1)], deliveries=deliveries))
        return [acked, as_id(task)(client.zrange(inflight, 0, -1)), as_id(task)(client.zrange(deliveries, 0, -1))]

    def recent_add(key: str, item: str) -> Any:
        sizes = [z.recent_add(key, item, "x", "y", cap=3, ttl=60), z.recent_add(key, "z", item, cap=3), z.recent_add(key, item)]
        return [sizes, as_id(item)(client.zrevrange(key, 0, -1)), client.ttl(key) > 0]

    _keywords_are_ids("RANK.MGET", rank_mget)
    _keywords_are_ids("DELAY.ACK", delay_ack)
    _keywords_are_ids("RECENT.ADD", recent_add)

    def rank_gift(board: str, event_id: str) -> Any:
        once = (f"{board}:seen", event_id)
        replies = [z.rank_gift(board, event_id, 5, at=T0, idmp=once), z.rank_gift(board, event_id, 5, at=T0, idmp=once)]
        return [[(tuple(reply), reply.already_applied) for reply in replies], client.zcard(f"{board}:seen")]

    _keywords_are_ids("RANK.GIFT", rank_gift)


# IDMP: exactly-once writes


def _once(reply: Any) -> Tuple[Any, Any]:
    """A reply as a plain tuple, and its IDMP flag."""
    return tuple(reply), reply.already_applied


def _forgotten_at(client: redis.Redis, seen: str, event_id: str) -> int:
    """When the seen-key forgets the event id (unix ms, its score)."""
    score = client.zscore(seen, event_id)
    assert score is not None, f"{event_id} is not remembered in {seen}"
    return int(score)


def test_idmp_gift_counts_once(client: redis.Redis) -> None:
    """The issue's example: a redelivered payment callback gifts once."""
    z = zkit.Zkit(client)
    board, seen = k("{room:7}:board"), k("{room:7}:seen")
    before = _now_ms()
    assert _once(z.rank_gift(board, "alice", 10, idmp=(seen, "pay-881"))) == ((10, 1), False)
    after = _now_ms()
    assert _once(z.rank_gift(board, "alice", 10, idmp=(seen, "pay-881"))) == ((10, 1), True)
    assert z.rank_get(board, "alice")[:2] == (10, 1)  # the total stays 10
    # Remembered for zkit.idmp-retain-ms, 24 h by default.
    assert before + 86400000 <= _forgotten_at(client, seen, "pay-881") <= after + 86400000
    # Another event id is another gift; without idmp a gift never is a repeat.
    assert _once(z.rank_gift(board, "alice", 10, idmp=(seen, "pay-882"))) == ((20, 1), False)
    assert _once(z.rank_gift(board, "alice", 1)) == ((21, 1), None)
    # A repeat after the member left the board changes nothing: total 0, rank 0.
    client.zrem(board, "alice")
    assert _once(z.rank_gift(board, "alice", 10, idmp=(seen, "pay-881"))) == ((0, 0), True)
    assert client.exists(board) == 0


def test_idmp_set_and_mgift_apply_once(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    day, week, seen = k("{room:7}:day"), k("{room:7}:week"), k("{room:7}:seen")
    before = _now_ms()
    assert _once(z.rank_set(day, "bob", 5, idmp=(seen, "set-1"), retain=60000)) == ((5, 1), False)
    after = _now_ms()
    assert before + 60000 <= _forgotten_at(client, seen, "set-1") <= after + 60000
    # A late retry of the same event does not overwrite a newer total.
    assert _once(z.rank_set(day, "bob", 9)) == ((9, 1), None)
    assert _once(z.rank_set(day, "bob", 5, idmp=(seen, "set-1"), retain=60000)) == ((9, 1), True)
    assert z.rank_get(day, "bob")[0] == 9
    gifts = [_once(board) for board in z.rank_mgift([day, week], "bob", 3, idmp=(seen, "m-1"))]
    assert gifts == [((12, 1), False), ((3, 1), False)]
    gifts = [_once(board) for board in z.rank_mgift([day, week], "bob", 3, idmp=(seen, "m-1"))]
    assert gifts == [((12, 1), True), ((3, 1), True)]
    # Each remembered id is two members: the id, and the id with its
    # arguments' digest (docs/delivery.md).
    assert (client.zcard(day), client.zcard(week), client.zcard(seen)) == (1, 1, 4)


def test_idmp_rate_hit_spends_quota_once(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    rate, seen = k("{api}:rate"), k("{api}:seen")
    # With IDMP the binding limit's position is there with one limit too
    # (the reply has six elements): a RateLimitsResult, binding 1.
    assert _once(z.rate_hit(rate, 60000, 2, idmp=(seen, "req-1"))) == ((True, 1, 1, -1, 1), False)
    assert _once(z.rate_hit(rate, 60000, 2, idmp=(seen, "req-1"))) == ((True, 1, 1, -1, 1), True)
    hit = z.rate_hit(rate, 60000, 2, idmp=(seen, "req-2"))
    assert isinstance(hit, zkit.RateLimitsResult) and _once(hit) == ((True, 2, 0, -1, 1), False)
    assert client.zcard(rate) == 2
    # A refused hit spends nothing, so its event id is not remembered.
    refused = z.rate_hit(rate, 60000, 2, idmp=(seen, "req-3"))
    assert refused[:3] == (False, 2, 0) and refused.binding == 1 and refused.already_applied is False
    assert client.zscore(seen, "req-3") is None and client.zcard(rate) == 2
    # The same event id with other limits is another call, not a retry:
    # refused, and nothing is spent.
    with pytest.raises(redis.ResponseError, match="other arguments"):
        z.rate_hit_limits(rate, [(60000, 2), (120000, 5)], idmp=(seen, "req-2"), cost=1)
    assert client.zcard(rate) == 2


def test_idmp_errors_change_nothing(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    board, seen = k("{room:7}:board"), k("{room:7}:seen")
    with pytest.raises(redis.ResponseError, match="^the IDMP seen-key must be a key of its own"):
        z.rank_gift(board, "alice", 10, idmp=(board, "pay-1"))
    with pytest.raises(redis.ResponseError, match="^retain must be between 1 and"):
        z.rank_gift(board, "alice", 10, idmp=(seen, "pay-1"), retain=0)
    with pytest.raises(TypeError, match="idmp takes 2 values"):
        z.rank_gift(board, "alice", 10, idmp=(seen,))  # type: ignore[arg-type]
    assert client.exists(board, seen) == 0


# DELAY


def _lease_one(z: zkit.Zkit, client: redis.Redis, task: str, lease_ms: int = 60000) -> None:
    client.zadd(k("{jobs}"), {task: 1000})
    assert z.delay_poll(k("{jobs}"), lease=(k("{jobs}:inflight"), lease_ms)) == [Task(task, 1000.0)]


def test_delay_nack_hands_a_task_back_due_after_its_delay(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    _lease_one(z, client, "resize:9")
    before = _now_ms()
    assert z.delay_nack(k("{jobs}:inflight"), k("{jobs}"), "resize:9", 30000) is True
    after = _now_ms()
    assert client.zscore(k("{jobs}:inflight"), "resize:9") is None
    due = client.zscore(k("{jobs}"), "resize:9")
    assert due is not None and before + 30000 <= due <= after + 30000
    assert z.delay_poll(k("{jobs}")) == []  # not due yet
    # No longer in flight: nothing changes.
    assert z.delay_nack(k("{jobs}:inflight"), k("{jobs}"), "resize:9", 0) is False
    assert client.zscore(k("{jobs}"), "resize:9") == due
    # Delay 0: due now; a NACK into the in-flight set itself re-times the task.
    _lease_one(z, client, "mail:1")
    assert z.delay_nack(k("{jobs}:inflight"), k("{jobs}"), "mail:1", 0) is True
    assert z.delay_poll(k("{jobs}"), lease=(k("{jobs}:inflight"), 60000))[0].task == "mail:1"
    assert z.delay_nack(k("{jobs}:inflight"), k("{jobs}:inflight"), "mail:1", 0) is True
    assert z.delay_poll(k("{jobs}:inflight"))[0].task == "mail:1"


def test_delay_touch_extends_a_lease(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    _lease_one(z, client, "report:1", lease_ms=1000)
    before = _now_ms()
    assert z.delay_touch(k("{jobs}:inflight"), "report:1", 600000) is True
    after = _now_ms()
    lease_end = client.zscore(k("{jobs}:inflight"), "report:1")
    assert lease_end is not None and before + 600000 <= lease_end <= after + 600000
    assert z.delay_touch(k("{jobs}:inflight"), "nobody", 600000) is False
    assert client.zcard(k("{jobs}:inflight")) == 1
    # A lease that has ended is not extended: the task is due again.
    _lease_one(z, client, "report:2", lease_ms=1)
    time.sleep(0.01)
    ended = client.zscore(k("{jobs}:inflight"), "report:2")
    assert z.delay_touch(k("{jobs}:inflight"), "report:2", 600000) is False
    assert client.zscore(k("{jobs}:inflight"), "report:2") == ended
    with pytest.raises(redis.ResponseError, match="^lease must be between 1 and"):
        z.delay_touch(k("{jobs}:inflight"), "report:1", 0)


def test_dead_letters_after_max_deliveries(client: redis.Redis) -> None:
    """A poison task is delivered max-deliveries times, then moved to the
    dead set by the poll that would deliver it again, which goes on to
    deliver the live tasks behind it."""
    z = zkit.Zkit(client)
    lease = (k("{jobs}:inflight"), 60000)
    deadletter = (k("{jobs}:dead"), k("{jobs}:deliveries"), 3)
    client.zadd(k("{jobs}"), {"poison": 1})
    # Three deliveries, each handed back at once by a failing worker.
    for delivery in range(1, 4):
        [task] = z.delay_poll(k("{jobs}"), lease=lease, deadletter=deadletter)
        assert task.task == "poison"
        assert client.zscore(k("{jobs}:deliveries"), "poison") == delivery
        assert z.delay_nack(k("{jobs}:inflight"), k("{jobs}"), "poison", 0) is True  # keeps the count
    client.zadd(k("{jobs}"), {"live": 2})
    before = _now_ms()
    assert z.delay_poll(k("{jobs}"), count=5, lease=lease, deadletter=deadletter) == [Task("live", 2.0)]
    after = _now_ms()
    died = client.zscore(k("{jobs}:dead"), "poison")
    assert died is not None and before <= died <= after  # scored by when it died
    assert client.zscore(k("{jobs}"), "poison") is None and client.zscore(k("{jobs}:inflight"), "poison") is None
    assert client.zrange(k("{jobs}:deliveries"), 0, -1, withscores=True) == [("live", 1.0)]  # the dead count went
    assert z.delay_ack(k("{jobs}:inflight"), "live", deliveries=k("{jobs}:deliveries")) == 1
    assert client.exists(k("{jobs}:inflight"), k("{jobs}:deliveries")) == 0


def test_dead_letters_from_the_inflight_set_and_bpoll(client: redis.Redis) -> None:
    """Re-deliveries after a lease ends count too; BPOLL's first try moves
    dead tasks at once."""
    z = zkit.Zkit(client)
    deadletter = (k("{jobs}:dead"), k("{jobs}:deliveries"), 2)
    client.zadd(k("{jobs}"), {"crash": 1})
    assert z.delay_bpoll(k("{jobs}"), 100, lease=(k("{jobs}:inflight"), 1), deadletter=deadletter) == [Task("crash", 1.0)]
    time.sleep(0.01)  # the worker died: its lease ends
    [again] = z.delay_poll(k("{jobs}:inflight"), lease=(k("{jobs}:inflight"), 1), deadletter=deadletter)
    assert again.task == "crash" and client.zscore(k("{jobs}:deliveries"), "crash") == 2
    time.sleep(0.01)
    assert z.delay_bpoll(k("{jobs}:inflight"), 50, lease=(k("{jobs}:inflight"), 1), deadletter=deadletter) is None
    assert client.zrange(k("{jobs}:dead"), 0, -1) == ["crash"]
    assert client.exists(k("{jobs}:inflight"), k("{jobs}:deliveries")) == 0
    with pytest.raises(redis.ResponseError, match="^DEADLETTER needs LEASE"):
        z.delay_poll(k("{jobs}"), deadletter=deadletter)


# RATE


def test_rate_hit_limits_stack(client: redis.Redis) -> None:
    """"2 per 10 s and 3 per day": the 10 s limit binds first, then the day."""
    z = zkit.Zkit(client)
    limits: List[Tuple[int, int]] = [(10000, 2), (86400000, 3)]
    assert z.rate_hit_limits(k("comments"), limits) == (True, 1, 1, -1, 1)
    assert z.rate_hit_limits(k("comments"), limits) == (True, 2, 0, -1, 1)
    refused = z.rate_hit_limits(k("comments"), limits)
    assert refused[:3] == (False, 2, 0) and 0 < refused.retry_after_ms <= 10000 and refused.binding == 1
    assert client.zcard(k("comments")) == 2  # a refused hit logs nothing
    # The day limit binds when it has less room (one unit left of 3; the
    # 1 ms window holds at most the 3 hits so far, of 5).
    assert z.rate_hit_limits(k("comments"), [(1, 5), (86400000, 3)]) == (True, 3, 0, -1, 2)
    refused = z.rate_hit_limits(k("comments"), [(1, 5), (86400000, 3)])
    assert refused[:3] == (False, 3, 0) and refused.binding == 2 and refused.retry_after_ms > 80000000
    assert client.zcard(k("comments")) == 3
    # COST counts against every limit; one above the smallest never fits:
    # refused with -1, that limit binding, nothing logged.
    assert z.rate_hit_limits(k("api"), [(60000, 10), (1000, 4)], cost=3) == (True, 3, 1, -1, 2)
    assert z.rate_hit_limits(k("api"), [(60000, 10), (1000, 4)], cost=5) == (False, 3, 1, -1, 2)
    assert client.zcard(k("api")) == 3
    with pytest.raises(redis.ResponseError, match="^cost must not be 0"):
        z.rate_hit_limits(k("api"), [(60000, 10), (1000, 4)], cost=0)
    # One limit keeps its four fields.
    assert z.rate_hit(k("api"), 60000, 10) == (True, 4, 6, -1)


def test_rate_hit_limits_wants_two_limits(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    for limits in ([], [(1000, 1)]):
        with pytest.raises(TypeError, match="at least two"):
            z.rate_hit_limits(k("api"), limits)
    with pytest.raises(TypeError, match="each of limits must be a tuple of 2 values, not \\(1000,\\)"):
        z.rate_hit_limits(k("api"), [(1000, 1), (1000,)])  # type: ignore[list-item]
    assert client.exists(k("api")) == 0
