"""Fixtures: clients of the servers scripts/test-clients.sh started, given
as ZKIT_TEST_SERVER (host:port) and ZKIT_TEST_CLUSTER (host:port,...), and
each test's key prefix (``k``)."""

from __future__ import annotations

import itertools
import os
import time
from typing import Dict, Iterator, List

import pytest
import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

SERVER = os.environ["ZKIT_TEST_SERVER"]
CLUSTER = os.environ["ZKIT_TEST_CLUSTER"].split(",")


def _host_port(address: str) -> Dict[str, object]:
    host, port = address.rsplit(":", 1)
    return {"host": host, "port": int(port)}


def node_connections() -> List[redis.Redis]:
    """One plain connection per cluster node, for INFO."""
    return [redis.Redis(**_host_port(a), decode_responses=True) for a in CLUSTER]


# Each test's keys live under a prefix of their own, never used before, so
# the suite runs beside whatever else the servers hold and flushes nothing.
# The prefix has no braces: a key's hash tag stays the one the test gives.
RUN = f"zkit-test:{os.getpid()}-{int(time.time() * 1000)}"
_prefix = [f"{RUN}:0:"]
_tests = itertools.count(1)


def k(name: str) -> str:
    """The current test's key ``name``: ``k("{t}:mon")``."""
    return _prefix[0] + name


def current_prefix() -> str:
    return _prefix[0]


@pytest.fixture(autouse=True)
def _own_keys() -> None:
    _prefix[0] = f"{RUN}:{next(_tests)}:"


@pytest.fixture
def single() -> Iterator[redis.Redis]:
    client = redis.Redis(**_host_port(SERVER), decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def cluster() -> Iterator[redis.cluster.RedisCluster]:
    client = redis.cluster.RedisCluster(**_host_port(CLUSTER[0]), decode_responses=True)
    yield client
    client.close()


@pytest.fixture(params=["single", "cluster"])
def client(request: pytest.FixtureRequest) -> redis.Redis:
    return request.getfixturevalue(request.param)


def async_client(topology: str) -> redis.asyncio.Redis:
    if topology == "single":
        return redis.asyncio.Redis(**_host_port(SERVER), decode_responses=True)
    return redis.asyncio.cluster.RedisCluster(**_host_port(CLUSTER[0]), decode_responses=True)


def zkit_command_stats(nodes: List[redis.Redis]) -> Dict[str, int]:
    """Calls per zkit command (and per redirect error, GETKEYS) summed over
    ``nodes``, from INFO commandstats and errorstats."""
    totals: Dict[str, int] = {}
    for node in nodes:
        for name, stat in node.info("commandstats").items():
            totals[name] = totals.get(name, 0) + int(stat["calls"])
        for name, stat in node.info("errorstats").items():
            totals[name] = totals.get(name, 0) + int(stat["count"])
    return totals
