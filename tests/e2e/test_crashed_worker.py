"""A worker killed with SIGKILL in the middle of an AI job: the move is still made, exactly once (issue 8).

RQ alone would notice the abandoned job only after its timeout plus a minute and never run it again; Cardroom's
sweep (worker/sweeper.py, `service.turns.revive_ai_turns`) sees that the job's heartbeat stopped and enqueues the
turn again. Workers here run with a 1 s heartbeat, a 1 s sweep and a 3 s staleness threshold.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from rq.job import Job, JobStatus

from service.app import create_app
from service.turns import ai_job_id, pending_ai
from tests.e2e.stack import REPO, delete_keys
from tests.service.conftest import Api

pytestmark = pytest.mark.e2e

STALE_SECONDS = 3
HANG_GUARD_SECONDS = 120
"""Each wait below takes a few seconds (a worker starting, a job revived after STALE_SECONDS): ten times that."""


@pytest.fixture
def setup(redis_connection) -> Iterator[tuple[Api, dict[str, str], list[subprocess.Popen[bytes]]]]:  # type: ignore[no-untyped-def]
    prefix = f"test-crash-{uuid.uuid4().hex[:8]}"
    app = create_app({
        "REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True,
        "AI_JOB_STALE_SECONDS": STALE_SECONDS,
    })
    environment = dict(
        os.environ, KEY_PREFIX=prefix, RQ_QUEUE=prefix, AI_JOB_HEARTBEAT_SECONDS="1", AI_SWEEP_INTERVAL_SECONDS="1",
        AI_JOB_STALE_SECONDS=str(STALE_SECONDS),
    )
    processes: list[subprocess.Popen[bytes]] = []
    try:
        yield Api(app, redis_connection), environment, processes
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        delete_keys(redis_connection, prefix, prefix)
        app.extensions["cardroom"].store.client.close()


def start_worker(environment: dict[str, str], *module: str) -> subprocess.Popen[bytes]:
    # its own process group: SIGKILL takes the worker and its scheduler at once, like a lost pod
    return subprocess.Popen([sys.executable, "-m", *module], cwd=REPO, env=environment, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(condition, seconds: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"no {what} within {seconds} s")


def ai_turn_due(api: Api) -> tuple[str, dict]:  # type: ignore[type-arg]
    """A human-vs-`easy` game played (by its human) until the AI seat is to act; its id and the human's view."""
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = api.view(game_id, token).json
    while 1 not in view["to_act"]:
        move = next(action for action in view["legal_actions"] if action["type"] != "resign")
        view = api.act(game_id, token, move).json
    return game_id, view


@pytest.fixture(scope="session")
def redis_connection():  # type: ignore[no-untyped-def]
    from service.redis_clients import redis_client

    return redis_client(os.environ["REDIS_URL"])


def test_ai_move_survives_a_worker_killed_mid_job_exactly_once(setup) -> None:  # type: ignore[no-untyped-def]
    api, environment, processes = setup
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = api.view(game_id, token).json
    while 1 not in view["to_act"]:  # play until the AI seat is due (its job waits: no worker runs yet)
        move = next(action for action in view["legal_actions"] if action["type"] != "resign")
        view = api.act(game_id, token, move).json
    version = view["version"]
    services = api.services
    job_id = ai_job_id(game_id, version, 1)

    processes.append(start_worker(environment, "tests.e2e.slow_worker", "60"))
    wait_for(lambda: Job.fetch(job_id, services.queues[0].connection, services.queues[0].serializer).get_status()
             == JobStatus.STARTED, HANG_GUARD_SECONDS, "started AI job")
    os.killpg(processes[-1].pid, signal.SIGKILL)
    processes[-1].wait()

    record = services.store.load(game_id)
    assert record.version == version, "the killed job moved"
    time.sleep(STALE_SECONDS + 0.5)
    assert pending_ai(services.queues, record, STALE_SECONDS) == [], "pending_ai names a job nobody works on"

    processes.append(start_worker(environment, "worker"))  # a healthy worker: its sweep revives the turn
    wait_for(lambda: services.store.version(game_id) > version, HANG_GUARD_SECONDS, "AI move after the crash")
    assert wait_for(lambda: not Job.exists(job_id, services.queues[0].connection), HANG_GUARD_SECONDS,
                    "the revived job's end (an AI turn keeps no result: its hash is deleted)")
    events = services.store.events(game_id)
    moved = [event for event in events if event["version"] == version + 1]
    assert moved and all(event["version"] == version + 1 for event in moved)
    versions = sorted({event["version"] for event in events})
    assert versions == list(range(1, versions[-1] + 1)), "every version written once, in order"
    assert services.store.revive_key(game_id, version, 1)
    assert int(api.connection.get(services.store.revive_key(game_id, version, 1))) == 1, "revived exactly once"


def test_a_worker_runs_jobs_in_its_own_process_not_a_forked_one(setup) -> None:  # type: ignore[no-untyped-def]
    """No fork per job (issue 17: a fork cost ~25 ms of every AI turn): the job runs in the worker's process."""
    api, environment, processes = setup
    processes.append(start_worker(environment, "worker"))
    job = api.services.queues[0].enqueue(os.getpid)
    wait_for(lambda: job.get_status() == JobStatus.FINISHED, HANG_GUARD_SECONDS, "finished job")
    assert job.return_value() == processes[-1].pid


def test_a_job_running_longer_than_the_staleness_threshold_is_kept_alive_not_revived(setup) -> None:  # type: ignore[no-untyped-def]
    """A job running in the worker's own process is marked alive while it runs (worker/sweeper.py `perform_job`):
    a slow AI decision (2 x `AI_JOB_STALE_SECONDS` here) stays pending and is played once, never revived."""
    api, environment, processes = setup
    game_id, view = ai_turn_due(api)
    version = view["version"]
    services = api.services
    job = Job.fetch(ai_job_id(game_id, version, 1), services.queues[0].connection, services.queues[0].serializer)

    processes.append(start_worker(environment, "tests.e2e.slow_worker", str(2 * STALE_SECONDS)))
    wait_for(lambda: job.get_status() == JobStatus.STARTED, HANG_GUARD_SECONDS, "started AI job")
    time.sleep(STALE_SECONDS + 1)
    record = services.store.load(game_id)
    assert record.version == version, "the slow job moved early"
    assert pending_ai(services.queues, record, STALE_SECONDS) == [1], "a running job counts as dead"
    wait_for(lambda: services.store.version(game_id) > version, HANG_GUARD_SECONDS, "the slow AI move")
    wait_for(lambda: not Job.exists(job.id, services.queues[0].connection), HANG_GUARD_SECONDS, "the job's end")
    assert services.store.version(game_id) == version + 1
    assert api.connection.get(services.store.revive_key(game_id, version, 1)) is None, "revived while it ran"


def test_sigterm_during_a_job_lets_it_finish_then_the_worker_exits(setup) -> None:  # type: ignore[no-untyped-def]
    """Warm shutdown with the job in the worker's own process: the signal only notes the request (no Redis write,
    no wait for the scheduler in the job's frame, worker/sweeper.py `request_stop`), the move is played, and the
    worker exits cleanly."""
    api, environment, processes = setup
    game_id, view = ai_turn_due(api)
    services = api.services
    queue = services.queues[0]
    job = Job.fetch(ai_job_id(game_id, view["version"], 1), queue.connection, queue.serializer)
    processes.append(start_worker(environment, "tests.e2e.slow_worker", "2"))
    wait_for(lambda: job.get_status() == JobStatus.STARTED, HANG_GUARD_SECONDS, "started AI job")
    processes[-1].send_signal(signal.SIGTERM)
    assert processes[-1].wait(timeout=HANG_GUARD_SECONDS) == 0
    assert services.store.version(game_id) == view["version"] + 1, "the job in flight was not finished"
    assert not Job.exists(job.id, services.queues[0].connection), "the played job's hash is left (result_ttl=0)"
