"""The web servers and a worker started while no node of their Redis Cluster answers (issue 21).

With `REDIS_CLUSTER_URL` set, gunicorn (service/app.py) and `cardroom worker` failed to start at all then: redis-py's
cluster client connects in its constructor. As with a single Redis that is down (tests/faults/test_redis_outage.py),
they now start; every game request and `/readyz` answers 503 `store_unavailable` meanwhile, the worker waits and
says so, and once the cluster is created a game plays through, its AI moves made by that worker.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
import requests

from tests.cluster import ClusterNode, LocalCluster, free_cluster_port
from tests.e2e.stack import REPO, StallGuard
from tests.faults.games import assert_each_version_written_once, create_ai_games, wait_finished
from tests.faults.test_redis_outage import requests_while_down

pytestmark = pytest.mark.e2e


@pytest.fixture
def unstarted_cluster() -> Iterator[LocalCluster]:
    """A `LocalCluster` whose nodes have ports but no process yet; stopped (if started) after the test."""
    cluster = LocalCluster()
    yield cluster
    cluster.stop()


def test_the_stack_starts_before_its_cluster_and_plays_once_the_cluster_answers(  # type: ignore[no-untyped-def]
    make_stack, unstarted_cluster: LocalCluster,
) -> None:
    stack = make_stack(cluster_url=unstarted_cluster.url, ready_path="/healthz")
    session = requests.Session()
    answers = [
        (method, url, response.status_code, response.headers.get("Retry-After"), response.json().get("error"))
        for method, url, body in requests_while_down(stack.base_url, uuid.uuid4().hex)
        for response in [session.request(method, url, json=body, timeout=30)]
    ]
    wrong = [answer for answer in answers if answer[2:] != (503, "1", "store_unavailable")]
    assert not wrong, wrong
    (worker,) = stack.workers
    assert worker.poll() is None, stack.log_text()
    assert "waiting for it" in stack.logs["worker-0"].read_text(), stack.log_text()

    unstarted_cluster.start()
    guard = StallGuard("/readyz once the cluster answers")
    while session.get(f"{stack.base_url}/readyz", timeout=30).status_code != 200:
        guard.check(None)
        time.sleep(0.2)
    (game_id,) = create_ai_games(stack, 1)
    finished = wait_finished(stack, [game_id])
    assert finished[game_id]["result"] is not None
    assert len(assert_each_version_written_once(stack, game_id)) > 1


def test_a_worker_refused_by_its_cluster_exits_instead_of_waiting(own_redis) -> None:  # type: ignore[no-untyped-def]
    """A worker waits for a cluster that does not answer, but a wrong password is no outage: waiting would hide the
    misconfiguration for ever."""
    node = ClusterNode(free_cluster_port(set()), options=["--requirepass", "secret"])
    node.start()
    try:
        environment = dict(os.environ, REDIS_CLUSTER_URL=f"redis://:wrong@127.0.0.1:{node.port}",
                           RQ_REDIS_URL=own_redis.url, KEY_PREFIX="auth", RQ_QUEUE="auth")
        worker = subprocess.run([sys.executable, "-m", "worker"], cwd=REPO, env=environment, capture_output=True,
                                text=True, timeout=120)
    finally:
        node.remove()
    assert worker.returncode != 0 and "invalid username-password pair" in worker.stderr, worker.stderr[-2000:]
