"""The engine a client picks: the module's commands where the server has
them, zkit's Functions library where it has that, a ZkitNotLoaded saying how
to load it where it has neither; and DELAY.BPOLL by polling on the library."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
import time
from typing import Iterator

import pytest
import redis

import zkit
from zkit import engine as engines
from zkit.replies import Task

from conftest import ENGINE, k


def test_the_engine_is_the_servers(client: redis.Redis) -> None:
    z = zkit.Zkit(client)
    assert z.engine is None
    assert z.rank_gift(k("{e}:board"), "alice", 1) == (1, 1)
    assert z.engine == ENGINE


@pytest.mark.skipif(ENGINE != "functions", reason="a server with only the library")
def test_a_server_without_zkit_says_how_to_load_it(single: redis.Redis) -> None:
    saved = single.function_dump()
    single.function_delete("zkit")
    try:
        with pytest.raises(zkit.ZkitNotLoaded, match="load_functions"):
            zkit.Zkit(redis.Redis(connection_pool=redis.ConnectionPool(**single.connection_pool.connection_kwargs))).rank_get(
                k("board"), "alice"
            )
        z = zkit.Zkit(single, engine=zkit.FUNCTIONS)
        shipped = engines.library_version(engines.library())
        assert z.load_functions() == shipped
        # Loaded once: the same version stays as it is.
        assert engines.ask(engines.load(False), single.execute_command) == shipped
        assert z.rank_gift(k("board"), "alice", 2) == (2, 1)
    finally:
        single.function_restore(saved, "REPLACE")


def test_a_newer_library_stays_unless_forced() -> None:
    shipped = "0.3.0+aaaa"
    assert engines.should_load(None, shipped, force=False)
    assert not engines.should_load(shipped, shipped, force=False)
    assert engines.should_load("0.3.0+bbbb", shipped, force=False)
    assert engines.should_load("0.2.9+cccc", shipped, force=False)
    assert not engines.should_load("0.4.0+dddd", shipped, force=False)
    assert engines.should_load("0.4.0+dddd", shipped, force=True)
    assert engines.release("0.10.2+x") > engines.release("0.9.9+y")


def test_bpoll_waits_for_a_task_on_either_engine(client: redis.Redis) -> None:
    """On the library the client polls with backoff where the module
    blocks: the same reply, a task due while waiting included."""
    z = zkit.Zkit(client)
    queue = k("{b}:jobs")
    started = time.monotonic()
    assert z.delay_bpoll(queue, 150) is None
    assert time.monotonic() - started >= 0.14
    adder = threading.Timer(0.1, lambda: client.zadd(queue, {"mail": 0}))
    adder.start()
    try:
        assert z.delay_bpoll(queue, 5000, lease=(k("{b}:inflight"), 60000)) == [Task("mail", 0.0)]
    finally:
        adder.join()
    # With RATE: the tasks the window allows, then nothing (the window is
    # spent) until the timeout, as the module replies.
    client.zadd(queue, {"report": 0, "digest": 0})
    rate = (k("{b}:rate"), 60000, 1)
    assert z.delay_bpoll(queue, 5000, rate=rate) == [Task("digest", 0.0)]
    assert z.delay_bpoll(queue, 150, rate=rate) is None
    with pytest.raises(redis.ResponseError, match="^timeout is negative$"):
        z.delay_bpoll(queue, -1)


#: A Valkey 9 server binary (scripts/suites/test-clients.sh names one), whose Lua
#: engine is a module the test unloads: a server with neither zkit nor Lua.
VALKEY = os.environ.get("ZKIT_TEST_VALKEY")


@pytest.fixture
def server_without_lua() -> Iterator[redis.Redis]:
    if not VALKEY:
        pytest.skip("ZKIT_TEST_VALKEY names no Valkey 9 server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [VALKEY, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder, "--enable-module-command", "yes"],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=port, decode_responses=True)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.02)
            client.execute_command("MODULE", "UNLOAD", "lua")
            yield client
        finally:
            client.close()
            server.terminate()
            server.wait(timeout=30)


def test_a_server_without_the_module_and_lua_says_so(server_without_lua: redis.Redis) -> None:
    """Valkey 9 without its Lua module refuses FUNCTION LOAD ("Engine 'lua'
    not found"): loading the library says the server has neither zkit's
    module nor Lua, and what to do."""
    z = zkit.Zkit(server_without_lua)
    with pytest.raises(zkit.ZkitNotLoaded, match="load_functions"):
        z.rank_get(k("board"), "alice")
    with pytest.raises(zkit.ZkitNotLoaded, match=r"neither the zkit module nor Lua.*Engine 'lua' not found.*loadmodule"):
        z.load_functions()


def test_a_scripting_engines_absence_is_told_apart_from_other_errors() -> None:
    assert isinstance(engines.without_lua(redis.ResponseError("Engine 'lua' not found")), zkit.ZkitNotLoaded)
    assert isinstance(engines.without_lua(redis.ResponseError("Could not find scripting engine 'lua'")), zkit.ZkitNotLoaded)
    assert engines.without_lua(redis.ResponseError("Function not found")) is None
