"""Fixtures: clients of the servers scripts/suites/test-clients.sh started, given
as ZKIT_TEST_SERVER (host:port) and ZKIT_TEST_CLUSTER (host:port,...), and
each test's key prefix (``k``). ZKIT_TEST_ENGINE=functions: the servers have
no module, and the suite first loads zkit's Functions library on them with
``load_functions()``."""

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
#: "module", or "functions" for servers with only the library.
ENGINE = os.environ.get("ZKIT_TEST_ENGINE", "module")


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


def call_stats(commands: List[str]) -> List[str]:
    """The INFO commandstats names that count calls of zkit ``commands``:
    theirs with the module, FCALL's with the library."""
    if ENGINE == "functions":
        return ["cmdstat_fcall"]
    return [f"cmdstat_{command.lower()}" for command in commands]


@pytest.fixture(scope="session", autouse=True)
def _library_loaded() -> None:
    """With ZKIT_TEST_ENGINE=functions, the library on the server and on
    every cluster primary, loaded as users load it."""
    if ENGINE != "functions":
        return
    import zkit

    single = redis.Redis(**_host_port(SERVER))
    cluster = redis.cluster.RedisCluster(**_host_port(CLUSTER[0]))
    for client in (single, cluster):
        z = zkit.Zkit(client)
        z.load_functions()
        assert z.engine == zkit.FUNCTIONS
        client.close()


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
