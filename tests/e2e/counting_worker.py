"""Test-only: `python -m tests.e2e.counting_worker FILE` runs the real worker and counts its Redis round trips.

A round trip is one `send_packed_command` of redis-py (a command, or a whole pipeline); a job is one call of
`worker.jobs.play_ai_turn`. At a clean exit the worker process (not the scheduler it forks) writes
`{"round_trips": ..., "jobs": ...}` to FILE. Nothing in the product knows about it: the patch lives in this process.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import sys
from pathlib import Path

import redis.connection

import worker.jobs
from worker.__main__ import main

round_trips = itertools.count()  # next() on it is atomic in CPython: the heartbeat thread counts too
jobs = itertools.count()
_send_packed_command = redis.connection.AbstractConnection.send_packed_command
_play_ai_turn = worker.jobs.play_ai_turn


def counted_send(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    next(round_trips)
    return _send_packed_command(self, *args, **kwargs)


def counted_play(*args, **kwargs):  # type: ignore[no-untyped-def]
    next(jobs)
    return _play_ai_turn(*args, **kwargs)


def write_counts(path: Path, pid: int) -> None:
    if os.getpid() == pid:
        path.write_text(json.dumps({"round_trips": next(round_trips), "jobs": next(jobs)}))


if __name__ == "__main__":
    redis.connection.AbstractConnection.send_packed_command = counted_send  # type: ignore[method-assign]
    worker.jobs.play_ai_turn = counted_play
    atexit.register(write_counts, Path(sys.argv[1]), os.getpid())
    main()
