"""The examples the docs show run as they are, on one server and on the
cluster: on an empty database, and on their own key prefix beside other data
(the docs' walk-through keys and an app's own), which they leave alone."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import uuid
from types import ModuleType
from typing import Dict, List

import pytest
import redis
import redis.cluster

from conftest import SERVER, _host_port, async_client, node_connections

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
USE_CASES = ["quick_start", "gift_board", "job_queue", "rate_limit", "recently_viewed", "voting_site", "feed"]


def _load(use_case: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(use_case, os.path.join(EXAMPLES, f"{use_case}.py"))
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


@pytest.mark.parametrize("use_case", USE_CASES)
def test_example(use_case: str, client: redis.Redis) -> None:
    getattr(_load(use_case), use_case)(client)


def _nodes(client: redis.Redis) -> List[redis.Redis]:
    if isinstance(client, redis.cluster.RedisCluster):
        return node_connections()
    return [redis.Redis(**_host_port(SERVER), decode_responses=True)]


def _snapshot(client: redis.Redis) -> Dict[str, bytes]:
    """Every key of the database and its DUMP, read on each node."""
    return {key: node.dump(key) for node in _nodes(client) for key in node.keys("*")}


@pytest.mark.parametrize("use_case", USE_CASES)
def test_example_on_its_own_prefix_beside_other_data(use_case: str, client: redis.Redis) -> None:
    # The database already holds the docs' walk-through keys (every example
    # run once without a prefix) and keys of an app's own.
    for other in USE_CASES:
        getattr(_load(other), other)(client)
    client.set("session:1", "x")
    client.zadd("feed:user:8", {"item:1": 1})
    before = _snapshot(client)
    prefix = f"test:{uuid.uuid4().hex[:8]}:"
    getattr(_load(use_case), use_case)(client, prefix=prefix)
    after = _snapshot(client)
    assert {k: v for k, v in after.items() if not k.startswith(prefix)} == before, "the example touched other keys"
    assert any(k.startswith(prefix) for k in after), "the example wrote nothing under its prefix"


@pytest.mark.parametrize("topology", ["single", "cluster"])
def test_quick_start_async(topology: str, request: pytest.FixtureRequest) -> None:
    example = _load("quick_start")
    example.quick_start(request.getfixturevalue(topology))

    async def run() -> None:
        r = async_client(topology)
        try:
            await example.quick_start_async(r)
        finally:
            await r.aclose()

    asyncio.run(run())


def test_every_example_is_tested() -> None:
    assert sorted(f[: -len(".py")] for f in os.listdir(EXAMPLES) if f.endswith(".py")) == sorted(USE_CASES)
