"""The RQ job that plays one AI seat's turn, through the same write path as a human move."""

from __future__ import annotations

import functools
import logging
import math
import random
import time
from collections.abc import Callable
from typing import Any, cast

from rq import get_current_job
from rq.job import Job
from rq.timeouts import JobTimeoutException

from engine.errors import IllegalAction
from engine.players import SeatView, choose_action, reads_history
from engine.protocol import Action, Event
from service import config, redis_clients
from service.cache import RecordCache
from service.game_metrics import PENDING, observe_ai_decision
from service.records import GameRecord, Status
from service.redis_clients import UntilRedisAnswers
from service.scheduling import Queues
from service.store import GameNotFound, GameStore, VersionConflict
from service.turns import make_queue, play
from service.views import ai_seat_view

log = logging.getLogger(__name__)


def outlasting(job: Callable[..., str]) -> Callable[..., str]:
    """`job` (a job function answering a string), run again from its start while the game store cannot serve.

    That is while `is_outage` says so, e.g. a Redis Cluster failing over, which redis-py's cluster client does not
    wait out (service/redis_clients.py `cluster_client`): the worker's own retry policy (`UntilRedisAnswers`, pausing up
    to `OUTAGE_BACKOFF_CAP_SECONDS`) around the whole job. The job's time limit still ends it (RQ interrupts the
    pause too), and so does a worker told to stop (`UntilRedisAnswers.stop_waiting`). A run reads the game afresh
    and writes with the version check, so a move whose write was stored before its answer was lost is not played
    twice: the next run finds the game moved on.
    """

    @functools.wraps(job)
    def outlasted(*args: Any) -> str:
        retry = UntilRedisAnswers(redis_clients.OUTAGE_BACKOFF_CAP_SECONDS)
        return cast(str, retry.call_with_retry(lambda: job(*args), lambda error: None))

    return outlasted


@outlasting
def play_ai_turn(key_prefix: str, game_id: str, expected_version: int, seat: int) -> str:
    """Play `seat`'s move in game `game_id` (under `key_prefix`) if it is still at `expected_version`.

    The move is computed from the seat's view only (`ai_seat_view`), then applied with the same version check
    as a human move, which also enqueues the next AI turn. Returns "played", or "stale" when the game moved on
    (another write won, or it is no longer this seat's turn), "passed" when the seat was listed only for actions
    nobody waits for and chose none (talmut.md §4.1), or "gone" for an expired game. If the seat's level fails
    (raises, chooses an illegal move, or the job's time limit interrupts it) a fallback level moves instead,
    with an `ai_fallback` event (`fallback_move`), and the job returns "fallback"; a job that fails anyway is
    answered the same way by its failure callback (`ai_turn_failed`).

    A job keeps no result (service/turns.py `enqueue_ai_turns`), except one that leaves the game at its version
    ("passed", or "stale" with no legal action): `keep_finished`.
    """
    job, store, record = current_game(key_prefix, game_id, expected_version)
    if isinstance(record, str):
        return record
    try:
        level = record.seats[seat].level or "random"
        view = ai_seat_view(record, seat, store.events(game_id) if reads_history(record.game, level) else None)
        if not view["legal_actions"]:
            keep_finished(job)
            return "stale"
        rng = random.Random(f"{game_id}:{expected_version}:{seat}")
        started = time.perf_counter()
        notes: list[Event] = []
        try:
            action = choose_action(view, level, rng)
            if action is not None and action not in view["legal_actions"]:
                raise IllegalAction(f"level {level} chose {dict(action)}, which is not legal")
        except Exception as exc:  # any failure of a level, its timeout included: never leave the seat stuck
            reason = "timeout" if isinstance(exc, JobTimeoutException) else "error"
            action, notes = fallback_move(view, level, reason, exc)
        seconds = time.perf_counter() - started
        if action is None:
            observe_ai_decision(store.client, key_prefix, record.game, level, seconds)
            keep_finished(job)
            return "passed"
        try:
            played = play(store, job_queues(job), record, seat, action, notes, decision=(level, seconds))
        except VersionConflict:
            observe_ai_decision(store.client, key_prefix, record.game, level, seconds)
            return "stale"
        game_records(key_prefix).keep(played)
        return "played" if not notes else "fallback"
    finally:  # the job's counts (service/game_metrics.py) reach Redis with it: every /metrics shows them at once
        PENDING.flush(store.client)


def job_queues(job: Job) -> Queues:
    """The queue `job` came from, as the `Queues` its move is played with: the next turns of its game go there too.

    That is the queue Redis the game's id chose (service/scheduling.py `Queues.for_game`), the one this worker
    serves.
    """
    return Queues([make_queue(job.connection, job.origin)])


def keep_finished(job: Job) -> None:
    """Keep the running AI turn `job` finished, with its result, for a minute past `AI_JOB_STALE_SECONDS`.

    For a turn that leaves its game at the version it was enqueued for (a Talmut seat that passes on a match
    nobody waits for, talmut.md §4.1): while that version is younger than `AI_JOB_STALE_SECONDS`, a missing job
    may be one about to be enqueued and counts as pending (service/turns.py `pending_ai`), so a job deleted at
    once would show its seat as "being computed" until then. Past it, a missing job counts as gone anyway.
    """
    job.result_ttl = math.ceil(config.lifetimes()["AI_JOB_STALE_SECONDS"]) + 60


def current_game(key_prefix: str, game_id: str, expected_version: int) -> tuple[Job, GameStore, GameRecord | str]:
    """The running RQ job, its game store, and the game if it is still active at `expected_version` (`game_records`).

    In place of the game: "gone" for an expired game, "stale" when the game moved on (the job's answer then).
    """
    job = get_current_job()
    assert job is not None, "runs inside an RQ job"
    records = game_records(key_prefix)
    store = records.store
    try:
        record = records.load(game_id)
    except GameNotFound:
        return job, store, "gone"
    if record.version != expected_version or record.status != Status.ACTIVE:
        return job, store, "stale"
    return job, store, record


@functools.cache
def game_client() -> Any:
    """This worker process's client of the game state (`REDIS_CLUSTER_URL`, else `REDIS_URL`), waiting out outages.

    Never the job's own connection, which is RQ's Redis (`RQ_REDIS_URL`): the game state may live elsewhere.
    """
    return redis_clients.game_client(config.redis_settings(), wait_out_outages=True)


def game_store(key_prefix: str) -> GameStore:
    """The games under `key_prefix` on `game_client()`, with the lifetimes and replica waits of the environment."""
    settings = config.redis_settings()
    return GameStore(game_client(), key_prefix, wait_replicas=settings["REDIS_WAIT_REPLICAS"],
                     wait_timeout_ms=settings["REDIS_WAIT_TIMEOUT_MS"])


WORKER_RECORDS = 256
"""How many games' latest records a worker process holds (`game_records`): more than one worker plays at once."""


@functools.cache
def game_records(key_prefix: str) -> RecordCache:
    """The latest records of the games under `key_prefix` that this worker process read or stored (service/cache.py).

    A read still asks Redis for the current record (one round trip), but a record this process stored, as a game's
    next turn after its move (`play_ai_turn` keeps it), is not decoded again while Redis holds its very text
    (`GameStore.load`): ~6% of an `easy` job's CPU went to decoding the game's state (docs/benchmarks.md).
    """
    return RecordCache(game_store(key_prefix), size=WORKER_RECORDS)


FALLBACK_LEVELS = ("easy", "random")
"""The levels tried, in order, when a seat's own level fails: quick rule bots that need no search."""


def fallback_move(
    view: SeatView, level: str, reason: str, exc: BaseException | None
) -> tuple[Action | None, list[Event]]:
    """A move for `view`'s seat from the first fallback level that gives a legal one, and the `ai_fallback` note.

    The note, stored with the move, says which seat fell back, from which level to which, and why (`timeout`:
    the job hit its time limit; `error`: the level raised or chose an illegal move).
    """
    log.warning("AI level %s failed for seat %s (%s): %r", level, view["you"], reason, exc)
    for fallback in FALLBACK_LEVELS:
        try:
            action = choose_action(view, fallback, random.Random(0))
        except Exception:  # noqa: BLE001 - try the next, simpler level
            continue
        if action is None or action in view["legal_actions"]:
            note = Event("ai_fallback", {"seat": view["you"], "level": level, "fallback": fallback, "reason": reason})
            return action, [note]
    raise RuntimeError(f"no fallback level could move for seat {view['you']}")


def ai_turn_failed(job: Job, connection: Any, exc_type: Any, exc: BaseException | None, traceback: Any) -> None:
    """RQ's failure callback of `play_ai_turn`: the job raised or timed out, so play a fallback move now.

    Only if the game is still at the job's version with the seat to act; the move carries an `ai_fallback` event.
    Not when the worker was stopped at once (a second SIGTERM raises SystemExit inside the job, which runs in the
    worker's own process): the job is failed, so the sweep revives the turn at its own level.
    """
    if isinstance(exc, SystemExit):
        return
    key_prefix, game_id, expected_version, seat = job.args
    store = game_store(key_prefix)
    try:
        record = store.load(game_id)
    except GameNotFound:
        return
    if record.version != expected_version or record.status != Status.ACTIVE:
        return
    view = ai_seat_view(record, seat)
    if not view["legal_actions"]:
        return
    reason = "timeout" if isinstance(exc, JobTimeoutException) else "error"
    action, notes = fallback_move(view, record.seats[seat].level or "random", reason, exc)
    if action is None:
        return
    try:
        play(store, job_queues(job), record, seat, action, notes)
    except VersionConflict:
        pass

