"""A worker SIGKILLed at random points of AI jobs, 20 times (issue 15, point 2 and "Deliver").

An all-AI game (`medium` search against `random`) plays itself on one worker; at a random moment of its jobs the
worker's whole process group (worker, work horse, scheduler) is killed, like a lost pod, and a fresh worker is
started. Whatever state the job was left in (taken but not started, started, its result half recorded) the game
must move on within AI_JOB_STALE_SECONDS plus one sweep (plus the time to start a worker and play a move), and
every version is written once: each AI turn played exactly once.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import sys
import time

import pytest
import requests
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.turns import ai_job_id
from tests.e2e.stack import Stack, start_process
from tests.faults.games import assert_each_version_written_once
from tests.redis_server import RedisServer

pytestmark = pytest.mark.e2e

TRIES = 20
STALE_SECONDS, SWEEP_SECONDS = 2, 1
BOUND_SECONDS = STALE_SECONDS + SWEEP_SECONDS
"""README "Limits and lifetimes": a lost AI turn is enqueued again within AI_JOB_STALE_SECONDS plus one sweep."""
SLACK_SECONDS = 15.0
"""Starting a worker process (about a second here) and playing one `medium` move (0.1 s), on a loaded machine."""
SETTINGS = {"AI_JOB_STALE_SECONDS": str(STALE_SECONDS), "AI_JOB_HEARTBEAT_SECONDS": "1",
            "AI_SWEEP_INTERVAL_SECONDS": str(SWEEP_SECONDS)}


def new_game(stack: Stack, seed: int) -> str:
    seats = [{"kind": "ai", "level": "medium"}, {"kind": "ai", "level": "random"}]
    created = requests.post(f"{stack.base_url}/v1/games", json={"game": "durak", "seats": seats, "seed": seed},
                            timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["game_id"]


def view(stack: Stack, game_id: str) -> dict:
    return requests.get(f"{stack.base_url}/v1/games/{game_id}", timeout=30).json()


def wait_for_move(stack: Stack, game_id: str, version: int, seconds: float) -> float:
    """Seconds until the game is past `version` (or finished); fails after `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        current = view(stack, game_id)
        if current["version"] > version or current["status"] == "finished":
            return time.monotonic() - started
        time.sleep(0.05)
    pytest.fail(f"game {game_id} stuck at version {version} for {seconds} s")


def job_state(queue: Queue, game_id: str, version: int) -> str:
    """What the killed worker left of the AI job at `version` (for the report)."""
    for seat in (0, 1):
        try:
            job = Job.fetch(ai_job_id(game_id, version, seat), queue.connection, queue.serializer)
        except NoSuchJobError:
            continue
        limbo = job.id.encode() in queue.connection.lrange(queue.intermediate_queue_key, 0, -1)
        return f"{job.get_status()}{' (intermediate list)' if limbo else ''}"
    return "none"


def test_a_worker_killed_at_random_points_of_ai_jobs_loses_no_turn(make_stack, own_redis: RedisServer) -> None:  # type: ignore[no-untyped-def]
    stack = make_stack(workers=0, environment=SETTINGS)
    queue = Queue(stack.queue, connection=own_redis.client(), serializer="json")
    rng = random.Random(15)
    games = [new_game(stack, seed=0)]
    worker = start_process(stack, "worker-0", [sys.executable, "-m", "worker"])
    left: collections.Counter[str] = collections.Counter()
    waits = []
    for attempt in range(TRIES):
        before = view(stack, games[-1])
        if before["status"] == "finished":
            games.append(new_game(stack, seed=len(games)))
            before = view(stack, games[-1])
        wait_for_move(stack, games[-1], before["version"], BOUND_SECONDS + SLACK_SECONDS)  # a job just ended
        time.sleep(rng.uniform(0, 0.4))  # somewhere in the next job: dequeue, start, search, write, bookkeeping
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        killed_at = view(stack, games[-1])
        left[job_state(queue, games[-1], killed_at["version"])] += 1
        worker = start_process(stack, f"worker-{attempt + 1}", [sys.executable, "-m", "worker"])
        waits.append(wait_for_move(stack, games[-1], killed_at["version"], BOUND_SECONDS + SLACK_SECONDS))
    for game_id in games:
        while view(stack, game_id)["status"] != "finished":
            wait_for_move(stack, game_id, view(stack, game_id)["version"], BOUND_SECONDS + SLACK_SECONDS)
        assert_each_version_written_once(stack, game_id)
    print(f"jobs left by the killed workers: {dict(left)}; longest wait {max(waits):.1f} s")
