"""The RQ job that enforces a clock's deadline (service/clocks.py), and the sweep that revives lost ones.

A timeout is applied through the same write path as a human move (`service.turns.play`, version check included),
so it is applied at most once and only if no move landed first. With `on_timeout: autoplay` the `easy` AI plays
the seat's turn from the seat's own view (the first move carries a `timeout` event, the rest of that turn an
`autoplay` event each); with `forfeit`, or at the `autoplay_limit`-th timeout in a row, the seat resigns (a
`timeout` and a `forfeit` event; Talmut then hands the seat to the easy AI, talmut.md §3.17).
"""

from __future__ import annotations

import logging
import random
import time

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from engine.errors import IllegalAction
from engine.players import choose_action
from engine.protocol import Action, Event
from service import clocks
from service.records import GameRecord
from service.scheduling import Queues
from service.store import GameStore, VersionConflict
from service.turns import MAX_REVIVES, job_is_live, play
from service.views import ai_seat_view
from worker.jobs import current_game, fallback_move, job_queues, outlasting

log = logging.getLogger(__name__)

MAX_TURN_MOVES = 10
"""A bound on the moves of one autoplayed turn (a Talmut turn is at most a draw, a decision and a power)."""
SCHEDULER_GRACE_SECONDS = 3.0
"""How long past its due time a scheduled timeout may wait for RQ's scheduler (which polls every second) before
the sweep enqueues it itself: the worker holding the scheduler's lock may have died, and RQ lets another worker
take the lock only a minute later."""


@outlasting
def play_timeout(key_prefix: str, game_id: str, expected_version: int, seat: int) -> str:
    """Time `seat` out in game `game_id` (under `key_prefix`) if the game is still at `expected_version`.

    Returns "autoplayed" or "forfeited"; "stale" when the game moved on (a move landed first, or the seat's clock
    no longer runs), "early" when its deadline has not come (the sweep runs it again later), "gone" for an expired
    game.
    """
    job, store, record = current_game(key_prefix, game_id, expected_version)
    if isinstance(record, str):
        return record
    deadline = clocks.deadlines(record).get(seat)
    if deadline is None:
        return "stale"
    if time.time() < deadline:
        return "early"
    try:
        return apply_timeout(store, job_queues(job), record, seat)
    except VersionConflict:
        return "stale"


def apply_timeout(store: GameStore, queues: Queues, record: GameRecord, seat: int) -> str:
    """Apply `seat`'s timeout to `record`, whose deadline for it has passed: "autoplayed" or "forfeited".

    Raises:
        VersionConflict: a move landed first; the timeout was not applied.
    """
    config = clocks.config_of(record)
    assert config is not None
    if config.on_timeout == "forfeit" or clocks.timeouts_in_a_row(record, seat) + 1 >= config.autoplay_limit:
        resign = {"type": "resign"}
        notes = [Event("timeout", {"seat": seat, "action": resign}), Event("forfeit", {"seat": seat})]
        play(store, queues, record, seat, resign, notes, by_clock="timeout")
        return "forfeited"
    by_clock: clocks.ClockMove = "timeout"
    for _ in range(MAX_TURN_MOVES):
        action, notes = default_move(record, seat)
        try:
            record = play(store, queues, record, seat, action,
                          [Event(by_clock, {"seat": seat, "action": dict(action)}), *notes], by_clock=by_clock)
        except VersionConflict:
            if by_clock == "timeout":
                raise
            break  # the seat's player (or another seat) moved meanwhile: the rest of the turn is theirs
        if seat not in clocks.charged_seats(record):
            break
        by_clock = "autoplay"  # the same seat must act again (a Talmut draw, then its discard): its turn goes on
    return "autoplayed"


def default_move(record: GameRecord, seat: int) -> tuple[Action, list[Event]]:
    """The `easy` AI's move for `seat` from its own view, or a fallback level's with an `ai_fallback` note."""
    view = ai_seat_view(record, seat)
    rng = random.Random(f"{record.game_id}:{record.version}:{seat}:timeout")
    try:
        action = choose_action(view, "easy", rng)
        if action is None or action not in view["legal_actions"]:
            raise IllegalAction(f"level easy chose {action}, which is not a move the seat must make")
    except Exception as exc:  # never leave a timed-out seat stuck: a simpler level moves
        fallback, notes = fallback_move(view, "easy", "error", exc)
        if fallback is None:
            raise RuntimeError(f"no level could move for timed-out seat {seat}") from exc
        return fallback, notes
    return action, []


def revive_timeouts(store: GameStore, queue: Queue, record: GameRecord, stale_seconds: float) -> list[int]:
    """Schedule again the timeouts of `record` whose job is gone; return their seats (worker/sweeper.py).

    A job is gone when it is missing (the write's enqueue failed), failed, finished without applying (it ran
    early), left by a dead worker (`job_is_live`), or scheduled but `SCHEDULER_GRACE_SECONDS` past due. The
    new job applies with the version check, so one that was only slow is a no-op; each timeout is scheduled
    again at most `MAX_REVIVES` times.
    """
    now = time.time()
    revived = []
    for seat, deadline in clocks.deadlines(record).items():
        job = _timeout_job(queue, record, seat)
        if job is not None and _is_live(job, queue, deadline, now, stale_seconds):
            continue
        if job is None and deadline > now:
            clocks.schedule_timeouts(queue, store.prefix, record, only=[seat])  # never enqueued: schedule it
            continue
        if job is not None and deadline > now:
            continue  # finished early or failed before its time: the next sweep after the deadline revives it
        if store.count(store.timeout_revive_key(record.game_id, record.version, seat)) > MAX_REVIVES:
            continue
        log.warning("timeout of game %s version %s seat %s: job %s, enqueued again", record.game_id, record.version,
                    seat, "missing" if job is None else job.get_status(refresh=False))
        if job is not None:
            job.delete()
        clocks.schedule_timeouts(queue, store.prefix, record, only=[seat])
        revived.append(seat)
    return revived


def _timeout_job(queue: Queue, record: GameRecord, seat: int) -> Job | None:
    job_id = clocks.timeout_job_id(record.game_id, record.version, seat)
    try:
        return Job.fetch(job_id, queue.connection, queue.serializer)
    except NoSuchJobError:
        return None


def _is_live(job: Job, queue: Queue, deadline: float, now: float, stale_seconds: float) -> bool:
    status = job.get_status(refresh=False)
    if status == JobStatus.SCHEDULED:
        return now < deadline + SCHEDULER_GRACE_SECONDS
    return status != JobStatus.FINISHED and job_is_live(job, queue, stale_seconds)
