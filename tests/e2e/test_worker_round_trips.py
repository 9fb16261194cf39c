"""How many Redis round trips one worker process makes per AI job (issue 17: ≥ 200 `easy` moves a second).

Each round trip is a wait on Redis and the CPU of a request and its answer; RQ's own loop made ~27 per job, most of
them re-registering the worker and checking for a suspension between every two jobs. Games of `easy` seats are
created with no worker running, so their turns wait in the queue; one real worker (`tests.e2e.counting_worker`)
then plays them to the end and counts its round trips.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from service.app import create_app
from service.redis_clients import redis_client
from tests.e2e.stack import REPO, StallGuard, delete_keys
from tests.service.conftest import Api

pytestmark = pytest.mark.e2e

GAMES = 4
ROUND_TRIPS_PER_JOB = 10
"""The bound: ~9.3 now, 4 of them RQ's (dequeue, fetch, the job's start, its end: the hash deleted, an AI turn
keeps no result) and 5 the job's own (load the game, its history for Durak's `easy`, store the move, its index
entries with its counters, and enqueue the next turn, in one script call since the queue's registration is made
once per process); ~10.3 before the worker stopped writing RQ's execution record and its counters per job and the
enqueue registered the queue each time; ~13.3 before the worker stopped watching and reading a succeeded
job's dependents (it has none) and made RQ's two writes before a job one; ~16.7 before the worker stopped storing
"idle" between two jobs when the next one waits, writing a succeeded job's last heartbeat apart from its result,
and counting the move apart from its index entries; ~28.4 before the worker stopped renewing its registration and
looking for `rq suspend` around every job and stopped writing the decision time apart from the move."""


def test_a_worker_makes_few_redis_round_trips_per_ai_job(tmp_path: Path) -> None:
    redis_connection = redis_client(os.environ["REDIS_URL"])
    prefix = f"test-trips-{uuid.uuid4().hex[:8]}"
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix,
                      "TESTING": True})
    api = Api(app, redis_connection)
    counts = tmp_path / "counts.json"
    worker = None
    try:
        game_ids = []
        for seed in range(GAMES):
            created = api.create([{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}], seed=seed)
            assert created.status_code == 201, created.json
            game_ids.append(created.json["game_id"])
        worker = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.counting_worker", str(counts)], cwd=REPO,
            env=dict(os.environ, KEY_PREFIX=prefix, RQ_QUEUE=prefix), start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        guard = StallGuard("the AI games")
        while True:
            views = [api.view(game_id).json for game_id in game_ids]
            if all(view["status"] == "finished" for view in views):
                break
            guard.check(sum(view["version"] for view in views))
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.2)
        # the queue is empty now: the worker, which stores "idle" only when it has to wait for a job, shows it
        idle = StallGuard("the worker's state")
        while (state := registered_state(redis_connection, prefix)) != "idle":
            idle.check(state)
            time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0
        counted = json.loads(counts.read_text())
        moves = sum(view["version"] - 1 for view in views)
        assert counted["jobs"] >= moves > 50 * GAMES
        assert counted["round_trips"] / counted["jobs"] <= ROUND_TRIPS_PER_JOB, counted
    finally:
        if worker is not None and worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        delete_keys(redis_connection, prefix, prefix)
        app.extensions["cardroom"].store.client.close()


def registered_state(connection: redis.Redis, queue: str) -> str:
    """The state the one worker of `queue` stored in its registration ("busy", "idle", ...: `rq info`)."""
    (registered,) = Worker.all(connection=connection, queue=Queue(queue, connection=connection))
    return registered.get_state()
