"""How many AI moves one worker process makes per second with its queue never empty (issue 17: ≥ 200 `easy`).

    python bench/worker_throughput.py [--games 8] [--levels easy] [--runs 3] [--source OLD_CHECKOUT]
                                      [--redis-url redis://127.0.0.1:6379/0]

One real worker process (`python -m worker`, own key prefix and queue, keys deleted at the end) is started and
left to warm up; then `--games` all-AI games of each game (seats at `--levels`, alternating as in
`bench/ai_job_latency.py`) are created in this process, through the app's own write path, all at once, so the
worker always has a turn waiting until the last games end. No web server and no watching client share the
machine, unlike `bench/ai_job_latency.py`, which measures turnaround on the whole stack. Per run it prints the
jobs, the wall time from the first game created to the last one finished, jobs per second over it, the worker's
CPU time per job (user + system of its process, not of the scheduler it forks) and the jobs per second that CPU
time allows on a free core. With `--source`, each run measures that checkout's worker (e.g. a `git archive` of an
older commit) and then this one's, side by side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import redis
from rq import Queue, Worker
from rq.registry import FailedJobRegistry, FinishedJobRegistry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.ai_job_latency import GAMES, OPTIONS, seat_levels  # noqa: E402 - needs the repo root on sys.path
from service.app import create_app  # noqa: E402
from service.records import Status  # noqa: E402
from tests.e2e.stack import DEFAULT_REDIS_URL, REPO, StallGuard, delete_keys  # noqa: E402

START_SECONDS = 120.0
"""Hang guard of the worker's start (a few seconds; many more on a loaded machine)."""


def ready_worker(worker: subprocess.Popen, queue: Queue) -> psutil.Process:
    """The process of `worker` once it is registered on `queue` and past its start-up work, for CPU counting.

    Raises:
        AssertionError: the worker exited, or did not register within `START_SECONDS`.
    """
    deadline = time.monotonic() + START_SECONDS
    while not Worker.all(queue=queue):
        assert worker.poll() is None and time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.1)
    time.sleep(1)  # its first sweep and RQ's first maintenance are done
    return psutil.Process(worker.pid)


def measure(source: Path, redis_url: str, games: int, levels: list[str]) -> tuple[int, float, float]:
    """One run with the worker of checkout `source`: (jobs, wall seconds, worker CPU seconds)."""
    prefix = f"bench-wtp-{uuid.uuid4().hex[:10]}"
    connection = redis.Redis.from_url(redis_url)
    app = create_app({"REDIS_URL": redis_url, "KEY_PREFIX": prefix, "RQ_QUEUE": prefix})
    client, store = app.test_client(), app.extensions["cardroom"].store
    worker = subprocess.Popen([sys.executable, "-m", "worker"], cwd=source, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=dict(os.environ, REDIS_URL=redis_url,
                                                                  KEY_PREFIX=prefix, RQ_QUEUE=prefix))
    try:
        queue = Queue(prefix, connection=connection)
        process = ready_worker(worker, queue)
        cpu_before = sum(process.cpu_times()[:2])
        started = time.monotonic()
        game_ids = []
        for index in range(games):
            for game, seats in GAMES.items():
                body = {"game": game, "seats": [{"kind": "ai", "level": level}
                                                for level in seat_levels(levels, seats, index)],
                        "options": OPTIONS.get(game, {}), "seed": index}
                created = client.post("/v1/games", json=body)
                assert created.status_code == 201, created.json
                game_ids.append(created.json["game_id"])
        guard = StallGuard("the AI games")
        while True:
            records = [store.load(game_id) for game_id in game_ids]
            if all(record.status == Status.FINISHED for record in records):
                break
            guard.check(sum(record.version for record in records))
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.05)
        seconds = time.monotonic() - started
        cpu = sum(process.cpu_times()[:2]) - cpu_before
        assert FailedJobRegistry(queue=queue).count == 0, "some AI jobs failed"
        return FinishedJobRegistry(queue=queue).count, seconds, cpu
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        delete_keys(connection, prefix, prefix)
        store.client.close()


def main() -> None:
    """Alternate the checkouts' runs and print one Markdown row per run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="games per game type, all started at once")
    parser.add_argument("--levels", default="easy", help="the seats' levels, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="runs per checkout")
    parser.add_argument("--source", type=Path, default=None, help="another checkout, measured before this one")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    args = parser.parse_args()
    sources = [args.source, REPO] if args.source else [REPO]
    print("| run | worker of | jobs | seconds | jobs/s | worker CPU ms/job | jobs/s on a free core |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for run in range(1, args.runs + 1):
        for source in sources:
            jobs, seconds, cpu = measure(source, args.redis_url, args.games, args.levels.split(","))
            print(f"| {run} | {source} | {jobs} | {seconds:.1f} | {jobs / seconds:.1f} | {1000 * cpu / jobs:.2f} "
                  f"| {jobs / cpu:.0f} |", flush=True)


if __name__ == "__main__":
    main()
