"""Gift board: every gift returns the giver's total and rank; equal totals
rank whoever reached them first."""

import time

import redis

import zkit


def gift_board(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    board = prefix + "gifts:room:42"
    assert z.rank_gift(board, "alice", 100) == (100, 1)  # (total, rank)
    assert z.rank_gift(board, "bob", 50) == (50, 2)
    assert z.rank_gift(board, "carol", 300) == (300, 1)
    time.sleep(0.01)  # a moment later
    total, rank = z.rank_gift(board, "bob", 50)
    assert (total, rank) == (100, 3)  # bob has 100 too, but alice got there first

    for rank, member, total in z.rank_top(board, 3):
        print(rank, member, total)  # 1 carol 300 / 2 alice 100 / 3 bob 100
    bob = z.rank_get(board, "bob")
    assert bob is not None and (bob.total, bob.rank) == (100, 3)  # bob.reached_at_ms: when he reached 100
    assert [e.member for e in z.rank_around(board, "alice", 1)] == ["carol", "alice", "bob"]

    # Daily boards merge into a weekly one in first-come order; keys used
    # together share a hash tag, for Redis Cluster.
    mon, tue, week = prefix + "{room42}:mon", prefix + "{room42}:tue", prefix + "{room42}:week"
    z.rank_gift(mon, "alice", 10)
    z.rank_gift(tue, "bob", 10)
    assert z.rank_merge(week, [mon, tue]) == 2

    # A board per day of the room's time zone: the server names today's
    # board (and yesterday's) with the TTL that keeps it a week after the day.
    today, yesterday = z.rank_season(prefix + "{room42}:day", "DAY", tz="Europe/Paris", keep=7 * 86400)
    assert yesterday.ends_at_ms == today.starts_at_ms and today.ttl is not None
    assert z.rank_gift(today.key, "alice", 100, ttl=today.ttl) == (100, 1)


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(gift_board)
