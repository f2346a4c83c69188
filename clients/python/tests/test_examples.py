"""The examples README shows run as they are, on one server and on the cluster."""

from __future__ import annotations

import importlib.util
import os

import pytest
import redis

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
USE_CASES = ["gift_board", "job_queue", "rate_limit", "recently_viewed", "voting_site", "feed"]


@pytest.mark.parametrize("use_case", USE_CASES)
def test_example(use_case: str, client: redis.Redis) -> None:
    spec = importlib.util.spec_from_file_location(use_case, os.path.join(EXAMPLES, f"{use_case}.py"))
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    getattr(example, use_case)(client)


def test_every_example_is_tested() -> None:
    assert sorted(f[: -len(".py")] for f in os.listdir(EXAMPLES) if f.endswith(".py")) == sorted(USE_CASES)
