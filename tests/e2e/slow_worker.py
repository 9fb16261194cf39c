"""Test-only: `python -m tests.e2e.slow_worker SECONDS` runs the real worker, each AI decision first sleeping SECONDS.

Nothing in the product knows about it: the patch lives in this process, where the worker runs its jobs, so a test
can kill a worker that is certainly in the middle of an AI job.
"""

from __future__ import annotations

import sys
import time

import worker.jobs
from worker.__main__ import main

_choose_action = worker.jobs.choose_action


def slow_choose_action(*args, **kwargs):  # type: ignore[no-untyped-def]
    time.sleep(float(sys.argv[1]))
    return _choose_action(*args, **kwargs)


if __name__ == "__main__":
    worker.jobs.choose_action = slow_choose_action
    main()
