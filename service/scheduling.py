"""One RQ job, enqueued once: at once, or by RQ's scheduler at a due time (AI turns and clock timeouts).

And the queue Redis a game's jobs go to when there are several (`Queues`).
"""

from __future__ import annotations

import hashlib
import weakref
from datetime import UTC, datetime
from typing import Any

from rq import Queue
from rq.exceptions import DuplicateJobError
from rq.job import Job

_REGISTERED: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
"""The queues each Redis client of this process has put in RQ's set of queues (`JobQueue`)."""


class JobQueue(Queue):
    """RQ's queue, put in RQ's set of queues (`rq:queues`, which `rq info` lists) once per process and Redis.

    RQ adds the queue to that set at every enqueue, a transaction of three commands before the job's own four
    (the unique check, its hash, its place in the queue); its only readers are RQ's listings (`Queue.all`).
    """

    def enqueue_job(self, job: Job, pipeline: Any = None, at_front: bool = False, unique: bool = False) -> Job:
        """RQ's `enqueue_job`, with the queue's registration made once per process instead of every time.

        A job with dependencies or a rate limit, or one enqueued in a pipeline (none here), goes RQ's own way.
        """
        if pipeline is not None or job._dependency_ids or job.has_rate_limit:
            return super().enqueue_job(job, pipeline, at_front, unique)
        known = _REGISTERED.setdefault(self.connection, set())
        if self.key not in known:
            self.connection.sadd(self.redis_queues_keys, self.key)
            known.add(self.key)
        job.origin = self.name
        return self._enqueue_job(job, at_front=at_front, unique=unique)


def enqueue_once(queue: Queue, due: float, now: float, function: str, job_id: str, **options: Any) -> None:
    """Enqueue `function` as job `job_id` (other RQ `options`: args, timeout, callbacks) unless it exists.

    `due` is a Unix time in seconds: one after `now` (the caller's clock) is left to RQ's scheduler (the worker
    runs `with_scheduler`), which keeps whole seconds, so callers round it up; one not after `now` is enqueued
    at once. A job of that id that exists already (the same turn enqueued twice) is left alone.
    """
    try:
        if due > now:
            queue.enqueue_at(datetime.fromtimestamp(due, tz=UTC), function, job_id=job_id, unique=True, **options)
        else:
            queue.enqueue(function, job_id=job_id, unique=True, **options)
    except DuplicateJobError:
        pass


def queue_shard(game_id: str, count: int) -> int:
    """Which of `count` queue Redis (0 to `count` - 1) carries the jobs of game `game_id`: the same in every process.

    Lamping and Veach's jump consistent hash ("A Fast, Minimal Memory, Consistent Hash Algorithm", 2014) of the
    first 8 bytes of the id's BLAKE2b digest (Python's `hash` of a string differs from process to process). A
    queue Redis added at the end of the list takes over 1/`count` of the games, each from one of the others; the
    rest stay where they were.
    """
    key = int.from_bytes(hashlib.blake2b(game_id.encode(), digest_size=8).digest(), "big")
    bucket, jump = -1, 0
    while jump < count:
        bucket = jump
        key = (key * 2862933555777941757 + 1) % 2**64
        jump = int((bucket + 1) * (2**31 / ((key >> 33) + 1)))
    return bucket


class Queues(tuple[Queue, ...]):
    """The RQ queues of AI turns and clock timeouts, one per queue Redis (`RQ_REDIS_URL`'s list, in its order).

    A game's jobs all go to `for_game(game_id)`; its workers (`cardroom worker` with `RQ_REDIS_URL` set to that
    Redis) run them, and a job's own follow-ups (the next AI turn) go where it came from: a worker's `Queues` is
    the one queue it serves.
    """

    def for_game(self, game_id: str) -> Queue:
        """The queue of game `game_id`'s jobs (`queue_shard`)."""
        return self[queue_shard(game_id, len(self))] if len(self) > 1 else self[0]
