"""One RQ job, enqueued once: at once, or by RQ's scheduler at a due time (AI turns and clock timeouts)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rq import Queue
from rq.exceptions import DuplicateJobError


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
