"""`python -m worker.liveness`, the chart's liveness probe of worker pods, against a real RQ worker."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.e2e.stack import REPO, Stack, free_port

pytestmark = pytest.mark.e2e


def probe(**settings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "worker.liveness"], cwd=REPO, env={**os.environ, **settings},
                          capture_output=True, text=True, timeout=60)


def test_a_live_worker_of_this_host_passes(stack: Stack) -> None:
    checked = probe(REDIS_URL=stack.redis_url, RQ_QUEUE=stack.queue, KEY_PREFIX=stack.prefix)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_no_worker_of_this_host_on_the_queue_fails(stack: Stack) -> None:
    checked = probe(REDIS_URL=stack.redis_url, RQ_QUEUE=f"{stack.queue}-nobody", KEY_PREFIX=stack.prefix)
    assert checked.returncode == 1 and "no RQ worker" in checked.stderr, checked.stdout + checked.stderr


def test_an_unreachable_redis_is_no_reason_to_restart_the_worker() -> None:
    checked = probe(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", RQ_QUEUE="anything",
                    REDIS_CONNECT_TIMEOUT_SECONDS="0.5")
    assert checked.returncode == 0 and "Redis unreachable" in checked.stderr, checked.stdout + checked.stderr
