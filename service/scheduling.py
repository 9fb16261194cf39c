"""One RQ job, enqueued once: at once, or by RQ's scheduler at a due time (AI turns and clock timeouts)."""

from __future__ import annotations

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
