"""Quick start: wrap a redis-py client (Redis, RedisCluster, a pipeline, or
their asyncio versions) and call zkit's commands as methods."""

import redis
import redis.asyncio

import zkit


def quick_start(r: redis.Redis, prefix: str = "") -> None:  # prefix: before every key
    z = zkit.Zkit(r)  # r: redis.Redis(...) or redis.cluster.RedisCluster(...)
    board = prefix + "gifts:room:1"
    total, rank = z.rank_gift(board, "alice", 100)
    assert (total, rank) == (100, 1)

    pipe = r.pipeline()
    zkit.Zkit(pipe).rank_gift(board, "bob", 50)  # queued
    zkit.Zkit(pipe).rank_top(board, 2)
    gift, top = pipe.execute()  # typed replies here too
    assert gift == (50, 2) and [entry.member for entry in top] == ["alice", "bob"]


async def quick_start_async(r: redis.asyncio.Redis, prefix: str = "") -> None:
    z = zkit.AsyncZkit(r)  # r: redis.asyncio.Redis(...) or redis.asyncio.cluster.RedisCluster(...)
    alice = await z.rank_get(prefix + "gifts:room:1", "alice")  # None if absent
    assert alice is not None and alice.total == 100


if __name__ == "__main__":
    from run_example import run_example  # REDIS_URL, one server or a cluster, keys of its own

    run_example(quick_start, quick_start_async)
