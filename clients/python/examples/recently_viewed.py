"""Recently viewed: one call records views, moves repeats to the front,
keeps the newest 60 and refreshes a 30-day TTL."""

import redis

import zkit


def recently_viewed(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)
    key = prefix + "MemberRecentGoods:66"
    assert z.recent_add(key, "3002", "3001", "3004", cap=60, ttl=2_592_000) == 3  # the list's size
    assert z.recent_add(key, "3001", cap=60, ttl=2_592_000) == 3  # viewed again
    assert r.zrevrange(key, 0, 9) == ["3001", "3004", "3002"]  # newest first, with a native read


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(recently_viewed)
