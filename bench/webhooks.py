"""How many webhook deliveries one worker process makes per second with its queue never empty (issue 41).

    python bench/webhooks.py [--deliveries 2000] [--runs 3] [--redis-url redis://127.0.0.1:6379/0]

A receiver on 127.0.0.1 (tests/webhook_receiver.py, in this process: it verifies each signature and answers 200)
and one real worker process (`python -m worker`, own key prefix and queue, keys deleted at the end) that allows
only it. A game with the receiver as its creator's webhook is created through the app's own write path; then
`--deliveries` `your_turn` events of it are enqueued at once (service/webhooks.py `enqueue_delivery`, as a move
does), so the worker always has one waiting. Per run it prints the deliveries, the wall time from the first
enqueued to the last received, deliveries per second over it, and the worker's CPU time per delivery (user +
system of its process). Each delivery is one job: a read of the game, a new connection to the receiver (no
keep-alive), the signed POST, the status written and RQ's bookkeeping.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import redis
from rq import Queue

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.worker_throughput import ready_worker  # noqa: E402 - needs the repo root on sys.path
from service.app import create_app  # noqa: E402
from service.config import webhook_allowed_hosts  # noqa: E402
from service.webhooks import enqueue_delivery  # noqa: E402
from tests.e2e.stack import DEFAULT_REDIS_URL, REPO, StallGuard, delete_keys  # noqa: E402
from tests.webhook_receiver import start_receiver  # noqa: E402

SECRET = "bench-webhook-secret-0123456789"


def measure(redis_url: str, deliveries: int) -> tuple[int, float, float, int]:
    """One run: (deliveries received, wall seconds, worker CPU seconds, deliveries that did not verify)."""
    prefix = f"bench-hooks-{uuid.uuid4().hex[:10]}"
    receiver = start_receiver()
    allowed = f"127.0.0.1:{receiver.port}"
    connection = redis.Redis.from_url(redis_url)
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "KEY_PREFIX": prefix,
            "RQ_QUEUE": prefix,
            "WEBHOOK_ALLOWED_HOSTS": webhook_allowed_hosts(allowed),
        }
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "worker"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, REDIS_URL=redis_url, KEY_PREFIX=prefix, RQ_QUEUE=prefix, WEBHOOK_ALLOWED_HOSTS=allowed),
    )
    try:
        url = receiver.expect("/bench", SECRET)
        created = app.test_client().post(
            "/v1/games",
            json={
                "game": "durak",
                "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
                "webhook": {"url": url, "secret": SECRET},
            },
        )
        assert created.status_code == 201, created.json
        game_id = created.json["game_id"]
        process = ready_worker(worker, Queue(prefix, connection=connection))
        cpu_before = sum(process.cpu_times()[:2])
        jobs = app.extensions["cardroom"].queues[0]
        started = time.time()  # the receiver stamps each delivery with time.time() too
        for version in range(deliveries):
            enqueue_delivery(
                jobs,
                prefix,
                {
                    "event": "your_turn",
                    "game_id": game_id,
                    "game": "durak",
                    "version": version,
                    "seat": 0,
                    "to_act": [0],
                    "deadline": None,
                },
            )
        guard = StallGuard("webhook deliveries", 60)
        while len(got := receiver.at("/bench")) < deliveries:
            guard.check(len(got))
            time.sleep(0.05)
        wall = got[-1].at - started
        cpu = sum(process.cpu_times()[:2]) - cpu_before
        return len(got), wall, cpu, sum(not delivery.verified for delivery in got)
    finally:
        worker.terminate()
        worker.wait(30)
        receiver.close()
        delete_keys(connection, prefix, prefix)
        app.extensions["cardroom"].store.client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    args = parser.parse_args()
    print("| run | deliveries | wall s | deliveries/s | worker CPU ms per delivery | not verified |")
    print("|---|---|---|---|---|---|")
    for run in range(1, args.runs + 1):
        count, wall, cpu, unverified = measure(args.redis_url, args.deliveries)
        print(f"| {run} | {count} | {wall:.2f} | {count / wall:.0f} | {1000 * cpu / count:.2f} | {unverified} |")


if __name__ == "__main__":
    main()
