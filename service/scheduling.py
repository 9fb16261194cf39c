"""One RQ job, enqueued once: at once, or by RQ's scheduler at a due time (AI turns and clock timeouts)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from rq import Queue
from rq.exceptions import DuplicateJobError


def enqueue_once(queue: Queue, due: float, function: str, job_id: str, **options: Any) -> None:
    """Enqueue `function` as job `job_id` (other RQ `options`: args, timeout, callbacks) unless it exists.

    `due` is a Unix time in seconds: a later one is left to RQ's scheduler (the worker runs `with_scheduler`),
    which keeps whole seconds, so callers round it up; one already past is enqueued now. A job of that id that
    exists already (the same turn enqueued twice) is left alone.
    """
    try:
        if due > time.time():
            queue.enqueue_at(datetime.fromtimestamp(due, tz=UTC), function, job_id=job_id, unique=True, **options)
        else:
            queue.enqueue(function, job_id=job_id, unique=True, **options)
    except DuplicateJobError:
        pass
