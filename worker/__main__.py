"""Run an RQ worker for AI turns: `python -m worker` (or `cardroom worker`), queue `RQ_QUEUE`.

The queue on `RQ_REDIS_URL` (else `REDIS_URL`), the games on `REDIS_CLUSTER_URL` (else `REDIS_URL`): service/config.py
`redis_settings`. Of several queue Redis a worker serves one: its `RQ_REDIS_URL` names that one, `RQ_REDIS_SHARD`
which of them it is (service/config.py `worker_shard`).
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
from service.config import eviction_allowed, queue_url, redis_settings, worker_shard
from service.eviction import UnsafeEviction, check_eviction_policy
from service.logs import configure_logging
from service.redis_clients import UntilRedisAnswers, check_sentinel_password, queue_client
from worker.jobs import game_client
from worker.sweeper import CardroomWorker

log = logging.getLogger("worker")


def main() -> None:
    """Process AI jobs until stopped (SIGINT/SIGTERM finish the current job first), through any Redis outage.

    Exits at once with a message if a Redis's `maxmemory-policy` (the game state's or the queue's) may evict keys
    (service/eviction.py), if a Redis Sentinel refuses `REDIS_SENTINEL_PASSWORD` (service/config.py
    `check_sentinel_password`), or if `RQ_REDIS_URL` lists several queue Redis or `RQ_REDIS_SHARD` is malformed.
    """
    configure_logging()
    settings = redis_settings()
    try:
        shard, url = worker_shard(), queue_url(settings)
    except ValueError as wrong:
        sys.exit(f"cardroom worker: {wrong}")
    try:
        for checked_url in {settings["REDIS_URL"], url}:
            check_sentinel_password(checked_url)
    except redis.AuthenticationError as refused:
        sys.exit(f"cardroom worker: {refused}")
    # the scheduler this process forks dies with it, even when it is killed: it would otherwise go on alone,
    # waiting out an outage for ever (service/cli.py `die_with_parent`)
    os.register_at_fork(after_in_child=lambda: die_with_parent(signal.SIGKILL, os.getppid()))
    games = game_client()
    client = queue_client(settings, games, wait_out_outages=True)
    try:
        for checked in {id(each): each for each in (games, client)}.values():
            check_eviction_policy(checked, eviction_allowed())
    except UnsafeEviction as refused:
        sys.exit(f"cardroom worker: {refused}")
    queue_name = os.environ.get("RQ_QUEUE", "cardroom")
    key_prefix = os.environ.get("KEY_PREFIX", "cardroom")
    try:
        CardroomWorker([queue_name], connection=client, serializer="json", key_prefix=key_prefix,
                       shard=shard).work(with_scheduler=True)
    except redis.RedisError:
        if not UntilRedisAnswers.stopped_waiting():
            raise
        log.warning("stopped while Redis was unreachable: this worker could not sign off (RQ forgets it by itself)")


if __name__ == "__main__":
    main()
