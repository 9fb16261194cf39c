"""Run an RQ worker for AI turns: `python -m worker` (or `cardroom worker`), queue `RQ_QUEUE`.

The queue on `RQ_REDIS_URL` (else `REDIS_URL`), the games on `REDIS_CLUSTER_URL` (else `REDIS_URL`): service/config.py
`redis_settings`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys

import redis

import engine  # noqa: F401 - loaded before work(): the first job starts warm
import worker.jobs  # noqa: F401
from service.cli import die_with_parent
from service.config import eviction_allowed, queue_client, redis_settings
from service.logs import configure_logging
from service.store import UnsafeEviction, UntilRedisAnswers, check_eviction_policy
from worker.jobs import game_client
from worker.sweeper import CardroomWorker

log = logging.getLogger("worker")


def main() -> None:
    """Process AI jobs until stopped (SIGINT/SIGTERM finish the current job first), through any Redis outage.

    Exits at once with a message if a Redis's `maxmemory-policy` (the game state's or the queue's) may evict keys
    (service/store.py).
    """
    configure_logging()
    # the scheduler this process forks dies with it, even when it is killed: it would otherwise go on alone,
    # waiting out an outage for ever (service/cli.py `die_with_parent`)
    os.register_at_fork(after_in_child=lambda: die_with_parent(signal.SIGKILL, os.getppid()))
    games = game_client()
    client = queue_client(redis_settings(), games, wait_out_outages=True)
    try:
        for checked in {id(each): each for each in (games, client)}.values():
            check_eviction_policy(checked, eviction_allowed())
    except UnsafeEviction as refused:
        sys.exit(f"cardroom worker: {refused}")
    queue_name = os.environ.get("RQ_QUEUE", "cardroom")
    key_prefix = os.environ.get("KEY_PREFIX", "cardroom")
    try:
        CardroomWorker([queue_name], connection=client, serializer="json", key_prefix=key_prefix).work(
            with_scheduler=True
        )
    except redis.RedisError:
        if not UntilRedisAnswers.stopped_waiting():
            raise
        log.warning("stopped while Redis was unreachable: this worker could not sign off (RQ forgets it by itself)")


if __name__ == "__main__":
    main()
