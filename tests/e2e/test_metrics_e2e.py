"""`/metrics` under gunicorn (2 processes, multiprocess mode) with the AI decided in the separate RQ worker."""

from __future__ import annotations

import time

import pytest
import requests

from tests.e2e.stack import Stack
from tests.service.test_metrics import samples

pytestmark = pytest.mark.e2e


def test_metrics_add_up_both_gunicorn_workers_and_include_the_rq_worker(stack: Stack) -> None:
    """prometheus-client's multiprocess mode (service/gunicorn_conf.py) sums the two gunicorn processes; the AI
    decision time written by the worker process comes through Redis (service/game_metrics.py)."""
    session = requests.Session()
    before = samples(session.get(f"{stack.base_url}/metrics", timeout=10).text)
    key = ("cardroom_http_requests_total", (("method", "GET"), ("route", "/healthz"), ("status", "200")))
    for _ in range(20):  # new connections: spread over both gunicorn workers
        assert requests.get(f"{stack.base_url}/healthz", timeout=10).status_code == 200
    created = session.post(f"{stack.base_url}/v1/games", timeout=10, json={
        "game": "durak", "seats": [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}], "seed": 2,
    })
    assert created.status_code == 201
    decision = ("cardroom_ai_decision_seconds_count", (("game", "durak"), ("level", "easy")))
    deadline = time.monotonic() + 20
    while True:
        after = samples(session.get(f"{stack.base_url}/metrics", timeout=10).text)
        if after.get(decision, 0) > before.get(decision, 0):
            break
        assert time.monotonic() < deadline, "no AI decision reached /metrics"
        time.sleep(0.2)
    assert after[key] - before.get(key, 0) == 20
    assert any(name == "cardroom_actions_applied_total" and dict(labels)["game"] == "durak"
               for name, labels in after)
    assert ("cardroom_active_games", (("game", "durak"),)) in after


def promtool() -> str:
    """Debian's promtool (package `prometheus`, which .ci/run installs); skips the test when it is missing."""
    import shutil

    found = shutil.which("promtool")
    if found is None:
        pytest.skip("promtool is not installed (apt-get install -y prometheus; .ci/run installs it)")
    return found


def test_metrics_under_gunicorn_pass_promtool_and_keep_long_polls_apart(stack: Stack) -> None:
    """Issue 20 §9: `promtool check metrics` finds nothing; in multiprocess mode `python_info` and the build are
    reported but no per-process collector; a long-poll lands in its own histogram."""
    import subprocess

    checker = promtool()
    created = requests.post(f"{stack.base_url}/v1/games", timeout=10, json={
        "game": "tadmur", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], "seed": 4,
    }).json()
    polled = requests.get(f"{stack.base_url}/v1/games/{created['game_id']}", timeout=10,
                          params={"after_version": created["version"], "wait": 0.2})
    assert polled.status_code == 304
    with requests.get(f"{stack.base_url}/v1/games/{created['game_id']}/stream", stream=True, timeout=10) as stream:
        assert stream.status_code == 200
    page = requests.get(f"{stack.base_url}/metrics", timeout=10).text
    checked = subprocess.run([checker, "check", "metrics"], input=page, capture_output=True, text=True, timeout=60)
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), page
    found = samples(page)
    names = {name for name, _ in found}
    assert {"python_info", "cardroom_build_info", "cardroom_long_poll_duration_seconds_count",
            "cardroom_streams_opened_total"} <= names
    assert not {name for name in names if name.startswith(("process_", "python_gc_"))}
    assert found[("cardroom_long_poll_duration_seconds_count", (("status", "304"),))] >= 1


def test_made_up_methods_do_not_grow_the_metrics(stack: Stack) -> None:
    """Issue 43 point 4: a method outside the fixed set is counted as `other`, so 1,000 made-up methods sent without
    a token leave `/metrics` within a few KB of its size (it grew by ~2 KB per method when the method was a
    label)."""
    session = requests.Session()

    def made_up(count: int, first: int) -> None:
        for number in range(first, first + count):
            answered = session.request(f"X{number:05d}", f"{stack.base_url}/healthz", timeout=10)
            assert answered.status_code == 405

    made_up(1, 0)  # the `other` series exist from here on: what follows only counts in them
    before = len(session.get(f"{stack.base_url}/metrics", timeout=10).content)
    made_up(1000, 1)
    page = session.get(f"{stack.base_url}/metrics", timeout=10).text
    assert len(page.encode()) - before < 4096, f"/metrics grew from {before} to {len(page.encode())} bytes"
    counted = samples(page)
    key = ("cardroom_http_requests_total", (("method", "other"), ("route", "<unmatched>"), ("status", "405")))
    assert counted[key] >= 1001
    assert not [labels for name, labels in counted if dict(labels).get("method", "").startswith("X0")]
