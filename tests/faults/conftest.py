"""The fault suite: real gunicorn, real RQ workers and a Redis of the test's own, which the tests stop, kill or fill.

Each test gets a fresh `RedisServer` (tests/redis_server.py, the `own_redis` fixture) and a stack on it
(tests/e2e/stack.py); a failed test's report carries the logs of every process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.e2e.stack import Stack, start_stack, stop_stack
from tests.redis_server import RedisServer


@pytest.fixture
def make_stack(own_redis: RedisServer, request: pytest.FixtureRequest) -> Iterator[Callable[..., Stack]]:
    """Start a stack on the test's own Redis (`start_stack`'s keyword arguments); stopped after the test."""
    stacks: list[Stack] = []

    def make(**options: Any) -> Stack:
        stack = start_stack(label="fault", redis_url=own_redis.url, **options)
        stacks.append(stack)
        request.node.stacks = stacks  # for the failure report
        return stack

    yield make
    if own_redis.process is not None and own_redis.process.poll() is None:
        own_redis.resume()  # a frozen Redis would hold the stopping workers
    for stack in stacks:
        stop_stack(stack, delete_redis_keys=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Attach the logs of the test's stacks to the report of a failed test."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for stack in getattr(item, "stacks", []):
            report.sections.append(("cardroom logs", stack.log_text()))
