"""A stopping RQ worker (here CardroomWorker, worker/sweeper.py) waits for its pubsub thread at most RQ's second.

The thread is a daemon: it may sleep on until RQ's 60 s run out or the process exits, and nothing waits for it. The
test holds the redis-py bound in pyproject.toml: RQ 3.0 and redis-py 8.2 together fail it.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

import redis
from rq import Queue

from worker.sweeper import CardroomWorker

HANG_GUARD_SECONDS = 10
"""Ten times the bounded wait (1 s); unbounded, the thread first waits RQ's `sleep_time` of 60 s."""


def test_unsubscribing_does_not_wait_out_the_pubsub_threads_sleep() -> None:
    """A worker on SIGTERM took a minute to exit now and then with redis-py 8.2 (tests/faults/test_sentinel.py, 1 run
    in 12), and so did every burst of the tests' `SimpleWorker` (tests/service/conftest.py `run_ai`).

    RQ unsubscribes, then stops its pubsub thread and waits for it at most a second. redis-py 8.2's
    `PubSubWorkerThread.stop()` itself waits for the thread without a bound, and a thread that has already read
    the unsubscribe's reply first waits RQ's `sleep_time` (60 s) for a new subscription. Here the thread is put in
    that state on purpose: it has read the reply before the worker unsubscribes.
    """
    with redis.Redis.from_url(os.environ["REDIS_URL"]) as connection:
        name = f"test-teardown-{uuid.uuid4().hex[:8]}"
        worker = CardroomWorker([Queue(name, connection=connection)], connection=connection, key_prefix=name)
        worker.subscribe()
        worker.pubsub.unsubscribe()
        guard = time.monotonic() + HANG_GUARD_SECONDS
        while worker.pubsub.subscribed:
            assert time.monotonic() < guard, "the pubsub thread never read the unsubscribe's reply"
            time.sleep(0.01)
        stopping = threading.Thread(target=worker.unsubscribe, name="unsubscribe", daemon=True)
        stopping.start()
        stopping.join(HANG_GUARD_SECONDS)
        assert not stopping.is_alive(), "the worker still waits for its pubsub thread"
        assert worker.pubsub.connection is None
