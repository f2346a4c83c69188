"""How the examples run as scripts (`python gift_board.py`): connected to
REDIS_URL (redis://127.0.0.1:6379 when unset), through RedisCluster when
that server is a cluster node, on keys under a prefix of the run's own
that are deleted afterwards, so an example runs beside any other data, and
again."""

import asyncio
import os
import uuid
from typing import Any, Awaitable, Callable, Optional

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")


def _is_cluster() -> bool:
    with redis.Redis.from_url(URL) as r:
        return bool(r.info("cluster")["cluster_enabled"])


def run_example(
    example: Callable[[Any, str], None],
    async_example: Optional[Callable[[Any, str], Awaitable[None]]] = None,
) -> None:
    """Runs example(client, prefix), then async_example(asyncio client, prefix)."""
    cluster = _is_cluster()
    r: Any = (redis.cluster.RedisCluster if cluster else redis.Redis).from_url(URL, decode_responses=True)
    prefix = f"zkit-example:{uuid.uuid4().hex}:"
    try:
        example(r, prefix)
        if async_example is not None:
            asyncio.run(_run_async(async_example, cluster, prefix))
    finally:
        for key in r.scan_iter(match=prefix + "*"):  # on every primary of a cluster
            r.delete(key)
        r.close()


async def _run_async(example: Callable[[Any, str], Awaitable[None]], cluster: bool, prefix: str) -> None:
    r: Any = (redis.asyncio.cluster.RedisCluster if cluster else redis.asyncio.Redis).from_url(URL, decode_responses=True)
    try:
        await example(r, prefix)
    finally:
        await r.aclose()
