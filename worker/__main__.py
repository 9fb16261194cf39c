"""Run an RQ worker for AI turns: `python -m worker` (or `cardroom worker`), on `REDIS_URL`, queue `RQ_QUEUE`."""

from __future__ import annotations

import os
import sys

import engine  # noqa: F401 - loaded before work() so each forked job starts warm
import worker.jobs  # noqa: F401
from service.config import eviction_allowed, redis_client
from service.logs import configure_logging
from service.store import UnsafeEviction, check_eviction_policy
from worker.sweeper import CardroomWorker


def main() -> None:
    """Process AI jobs until stopped (SIGINT/SIGTERM finish the current job first), through any Redis outage.

    Exits at once with a message if Redis's `maxmemory-policy` may evict game keys (service/store.py).
    """
    configure_logging()
    client = redis_client(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), wait_out_outages=True)
    try:
        check_eviction_policy(client, eviction_allowed())
    except UnsafeEviction as refused:
        sys.exit(f"cardroom worker: {refused}")
    queue_name = os.environ.get("RQ_QUEUE", "cardroom")
    key_prefix = os.environ.get("KEY_PREFIX", "cardroom")
    CardroomWorker([queue_name], connection=client, serializer="json", key_prefix=key_prefix).work(
        with_scheduler=True
    )


if __name__ == "__main__":
    main()
