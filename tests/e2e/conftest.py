"""The e2e stack: gunicorn (2 workers, production config) and one `python -m worker`, on the real Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.stack import Stack, start_stack, stop_stack


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    """One running Cardroom for the session under its own KEY_PREFIX/RQ_QUEUE; its keys are deleted afterwards."""
    running = start_stack(label="e2e")
    try:
        yield running
    finally:
        stop_stack(running)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Attach the gunicorn and worker logs to the report of a failed test that used the stack."""
    outcome = yield
    report = outcome.get_result()
    running = getattr(item, "funcargs", {}).get("stack")
    if report.failed and isinstance(running, Stack):
        report.sections.append(("cardroom logs", running.log_text()))
