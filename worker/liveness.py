"""The worker pods' liveness check: `python -m worker.liveness` (the Helm chart's exec probe).

Exit 0 while an RQ worker of this host (the pod) is registered on `RQ_QUEUE`: RQ drops a worker's registration
when it misses its heartbeats for the worker TTL (420 s), so a hung or dead worker process fails the check and the
pod is restarted. Also exit 0 when Redis is unreachable: a restart would not bring Redis back, and the readiness
of the web pods already reports that outage. Exit 1, with the reason on stderr, otherwise.
"""

from __future__ import annotations

import os
import socket
import sys

import redis
from rq import Queue, Worker

from service.config import queue_url, redis_settings
from service.redis_clients import redis_client


def main() -> int:
    """Check this host's RQ worker on the queue's Redis (`RQ_REDIS_URL`, else `REDIS_URL`); the exit status as above."""
    client = redis_client(queue_url(redis_settings()))
    queue_name = os.environ.get("RQ_QUEUE", "cardroom")
    host = socket.gethostname()
    try:
        workers = Worker.all(connection=client, queue=Queue(queue_name, connection=client))
    except redis.RedisError as error:
        print(f"Redis unreachable ({error}): not the worker's fault, so no restart", file=sys.stderr)
        return 0
    if any(worker.hostname == host for worker in workers):
        return 0
    print(f"no RQ worker of host {host} is registered on queue {queue_name!r}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
