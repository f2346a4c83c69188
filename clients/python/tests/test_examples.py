"""The examples README shows run as they are, on one server and on the
cluster, each on its test's key prefix."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from types import ModuleType

import pytest
import redis

from conftest import async_client, current_prefix

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
    getattr(_load(use_case), use_case)(client, current_prefix())


@pytest.mark.parametrize("topology", ["single", "cluster"])
def test_quick_start_async(topology: str, request: pytest.FixtureRequest) -> None:
    example = _load("quick_start")
    example.quick_start(request.getfixturevalue(topology), current_prefix())

    async def run() -> None:
        r = async_client(topology)
        try:
            await example.quick_start_async(r, current_prefix())
        finally:
            await r.aclose()

    asyncio.run(run())


def test_every_example_is_tested() -> None:
    # run_example.py runs them as scripts; scripts/suites/test-clients.sh runs each so.
    examples = [f[: -len(".py")] for f in os.listdir(EXAMPLES) if f.endswith(".py") and f != "run_example.py"]
    assert sorted(examples) == sorted(USE_CASES)
