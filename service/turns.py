"""The one write path for every change to a game: humans through the API and AI seats through the worker.

Each function, `create_game` included, loads nothing itself beyond what it is given, applies the pure engine
function, then makes one write (`GameStore.create`, or the compare-and-set `GameStore.save`), and enqueues the next
AI turn and the webhook deliveries due (service/webhooks.py `notify`). A rejection raises before any write.

Two of a game's optional capabilities (`engine.protocol.Capabilities`) let the rules, not the service, decide:
`seats_handed_to_ai(state)` (a resigned Talmut seat plays on as an AI) and `ai_delay_ms(state, seat)` (an AI
waits before closing Talmut's matching window); their defaults hand over no seat and never wait.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import redis
from rq import Callback, Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry
from rq.utils import now as rq_now

from engine import GAMES, GameFinished, NotYourTurn
from engine.cards import parse_deck
from engine.players import LEVELS
from engine.protocol import Action, Event, capabilities
from service import clocks, pauses, presence, webhooks
from service.cache import RecordCache
from service.config import lifetimes
from service.game_metrics import count_action
from service.idempotency import IdempotentRequest
from service.recording import created_event, move_events
from service.records import GameRecord, SeatRecord, Status
from service.redis_clients import STORE_ERRORS
from service.refusals import Refusal
from service.scheduling import JobQueue, Queues, enqueue_once
from service.store import ClockRanOut, GameStore, KeyClaim, VersionConflict
from service.views import stored_event

AI_JOB = "worker.jobs.play_ai_turn"
MAX_REVIVES = 3
"""How many times one AI turn is enqueued again after its job died (`revive_ai_turns`)."""
AI_JOB_TIMEOUT_SECONDS = 60
"""RQ's hard limit on one AI turn: far above every level's wall-time safety cap (engine.ai.search.default_budget)."""
AI_JOB_FAILED = "worker.jobs.ai_turn_failed"
"""The job's failure callback: plays a fallback move when the job raised or hit its timeout."""
AI_JOB_FAILURE_TTL_SECONDS = 3600
"""How long the queue's Redis keeps a failed AI turn (its hash with the traceback, RQ's failed registry): long
enough to look at it (`rq info`), short enough that a run of failures does not fill that Redis (RQ's default is a
year). Its failure callback has played a fallback move already, and the sweep revives a failed turn that did not."""
ARRIVAL_RETRIES = 3
"""How often a player's action that lost a compare-and-set race is judged again before the client gets 409."""
log = logging.getLogger(__name__)


class GameNotStarted(Refusal):
    """An action sent to a game that is still waiting for players (docs/API.md errors: 409 game_not_started)."""

    status = 409
    error = "game_not_started"


def make_queue(connection: redis.Redis, name: str) -> Queue:
    """The RQ queue `name` of AI turns on `connection`, with the JSON serializer the worker uses too.

    `connection` is RQ's Redis (`RQ_REDIS_URL`, else `REDIS_URL`), never a Redis Cluster (rq/rq#1048).
    """
    return JobQueue(name, connection=connection, serializer="json")


def ai_job_id(game_id: str, version: int, seat: int) -> str:
    """The unique RQ job id of one AI turn: a duplicate enqueue of the same turn is refused by RQ."""
    return f"ai-{game_id}-{version}-{seat}"


class UnknownGame(Refusal):
    """No game of that name is offered (404 `unknown_game`)."""

    status = 404
    error = "unknown_game"


class InvalidSetup(Refusal):
    """The seats asked for do not fit the game: their number, or an AI level it does not have (422)."""

    status = 422
    error = "invalid_request"


def create_game(
    store: GameStore,
    queues: Queues,
    game_name: str,
    seats: list[SeatRecord],
    options: dict[str, object],
    deck: list[str] | None = None,
    seed: int | None = None,
    visibility: str = "public",
    invites: Sequence[tuple[str, str]] = (),
    rematch_of: str | None = None,
    game_id: str | None = None,
) -> GameRecord:
    """Deal a new game of `game_name` for `seats`, store it as version 1 and enqueue the AI turns due.

    `seats` are the stored seat records in seat order: AI seats with their `level`, human seats open or (the
    creator's) already holding a token hash and a name. The game is `waiting` while a human seat is open, else
    `active` at once (an all-AI game plays itself). `deck` (card codes, top first) or `seed` fixes the deal; with
    neither, a random seed. `options.clock` is the service's, validated and in its stored form already
    (service/schemas/clock.py), as is `options.claim_after_seconds` (service/presence.py); the other options are
    the game's.
    A "private" game is not listed; `invites` are the (code, stored hash) pairs of the codes that may take its
    open seats (service/seating.py `invitations`), the codes kept for its seated players' views;
    `rematch_of` names the finished game whose rematch this is (service/rematch.py). `game_id` is the new game's
    id when the caller chose it (a quick match's table, service/matchmaking.py), else a fresh one.
    docs/API.md "Resources".

    Raises:
        UnknownGame: no such game.
        InvalidSetup: too few or too many seats, or an AI level the game does not offer.
        InvalidOptions: `options` are not the game's (engine/errors.py).
        InvalidDeck: `deck` is not a permutation of the game's deck.
        VersionConflict: a game with that `game_id` exists already; nothing was written.
    """
    game, parsed_options = checked_setup(game_name, seats, options)
    full_deck = game.full_deck(parsed_options)
    seed = secrets.randbits(63) if seed is None else seed
    cards = parse_deck(deck, full_deck) if deck is not None else None
    state = game.new_game(len(seats), parsed_options, cards, seed=seed)
    state = capabilities(game).with_ai_seats(state, [number for number, seat in enumerate(seats) if seat.kind == "ai"])
    record = GameRecord(
        game_id=game_id or uuid.uuid4().hex,
        game=game.ID,
        version=1,
        status=Status.WAITING if any(seat.is_open for seat in seats) else Status.ACTIVE,
        created_at=time.time(),
        seats=seats,
        options=options,
        state=game.dump_state(state),
        visibility=visibility,
        invites=[code_hash for _, code_hash in invites],
        invite_codes=[code for code, _ in invites],
        rematch_of=rematch_of,
    )
    record.decoded = state
    record.clock = clocks.next_clock(None, record, None, None, record.created_at)
    store.create(record, [created_event(game.ID, len(seats), record.status, seed, deck)])
    wake_ai(store, queues, record)  # the game is stored: a failure now (e.g. Redis full) leaves the AI to the sweep
    clocks.schedule_timeouts(queues.for_game(record.game_id), store.prefix, record)
    webhooks.notify(store, queues, None, record, None)
    return record


def store_finished(store: GameStore, record: GameRecord, events: Sequence[dict[str, Any]]) -> None:
    """Store a game made finished whole (a replay, service/export.py `replayed_game`): `record` and all its `events`.

    One `GameStore.create`; nothing is enqueued (no turn is due, no clock runs) and no webhook is due (no seat has
    one).

    Raises:
        VersionConflict: a game with that id exists already; nothing was written.
    """
    store.create(record, list(events))


SERVICE_OPTIONS = (clocks.OPTION, presence.OPTION)
"""The options every game takes, the service's (validated with the request); a game's rules never see them."""


def rules_options(game: Any, options: Mapping[str, object]) -> Any:
    """`game`'s own `parse_options` of `options` without the service's (`SERVICE_OPTIONS`).

    Raises:
        InvalidOptions: they are not the game's (engine/errors.py).
    """
    return game.parse_options({name: value for name, value in options.items() if name not in SERVICE_OPTIONS})


def checked_setup(game_name: str, seats: Sequence[SeatRecord], options: Mapping[str, object]) -> tuple[Any, Any]:
    """The rules of `game_name` and its parsed `options` (`rules_options`), checked against `seats`.

    Raises:
        UnknownGame: no such game.
        InvalidSetup: too few or too many seats, or an AI level the game does not offer.
        InvalidOptions: `options` are not the game's (engine/errors.py).
    """
    if game_name not in GAMES:
        raise UnknownGame(f"no game called {game_name!r}")
    game = GAMES[game_name]
    parsed_options = rules_options(game, options)
    if len(seats) not in game.SEATS:
        raise InvalidSetup(f"{game.ID} is played by {game.SEATS.start}-{game.SEATS.stop - 1} seats")
    for number, seat in enumerate(seats):
        if seat.kind == "ai" and seat.level not in LEVELS[game.ID]:
            raise InvalidSetup(f"seat {number}: AI level must be one of {', '.join(LEVELS[game.ID])}")
    return game, parsed_options


def refuse_unless_active(record: GameRecord) -> None:
    """Refuse any move in a game that is over or has not started (docs/API.md errors, in this order).

    Raises:
        GameFinished: the game has a result (409 `game_finished`).
        GameNotStarted: the game is waiting for players (409 `game_not_started`).
    """
    if record.status == Status.FINISHED:
        raise GameFinished("the game is finished")
    if record.status == Status.WAITING:
        raise GameNotStarted("the game has not started: human seats are still open")


def claim(store: GameStore, queues: Queues, record: GameRecord, claimant: int, now: float) -> GameRecord:
    """Apply `claimant`'s claim at `now` (Unix seconds) against an absent seat; the new record.

    The seat `presence.check_claim` names resigns, stored with a `claimed` event `{"seat", "by"}` before the
    resignation's own (docs/api-additions.md "Presence and claims").

    Raises:
        GameFinished, GameNotStarted: as `refuse_unless_active`.
        ClaimNotAllowed, NotYourClaim, ClaimTooEarly: as `presence.check_claim`.
        VersionConflict: another write landed first; nothing was changed.
    """
    refuse_unless_active(record)
    absent = presence.check_claim(record, claimant, now)
    note = Event("claimed", {"seat": absent, "by": claimant})
    return play(store, queues, record, absent, {"type": "resign"}, [note])


def play(
    store: GameStore,
    queues: Queues,
    record: GameRecord,
    seat: int,
    action: Action,
    notes: Sequence[Event] = (),
    by_clock: clocks.ClockMove | None = None,
    decision: tuple[str, float] | None = None,
    claim: KeyClaim | None = None,
    present: bool = False,
) -> GameRecord:
    """Apply `action` for `seat` to `record` and store it as version + 1; return the new record.

    `notes` are service events stored just before the action's own, in the same write (the worker's
    `ai_fallback`: the AI's level failed and a fallback level chose this move; a clock's `timeout`). `by_clock`
    says the clock made this move for the seat (service/clocks.py `next_clock`), None: the seat itself.
    `decision` is an AI seat's `(level, seconds it took to choose)`, counted with the action
    (service/game_metrics.py `count_action`). `claim` is the request's `Idempotency-Key`, claimed by the same write
    (service/idempotency.py). `present`: the move is the request of `seat`'s player, whose presence (`last_seen`,
    service/auth.py `mark_present`) the same write records.

    Raises:
        GameFinished: the game has a result (docs/API.md errors, 409).
        GameNotStarted: the game is waiting for players (409).
        NotYourTurn: `seat` may not act now.
        IllegalAction: the rules forbid `action` now.
        ClockRanOut: the seat's clock ran out before this move of its own (not a resignation) was stored; nothing
            was changed, its timeout comes (docs/API.md `options.clock`).
        VersionConflict: another write landed first; nothing was changed.
    """
    refuse_unless_active(record)
    game = GAMES[record.game]
    # CPU-bound and never yielding to gevent's loop in a web process: one rules step over one game's state,
    # a millisecond or two (an 8-seat Talmut table at most ~5 ms to decode); AI searches run in RQ workers only
    state, events = game.apply(record.engine_state(), seat, action)
    result = game.result(state)
    new_record = dataclasses.replace(
        record,
        version=record.version + 1,
        seats=handed_to_ai(record, state),
        state=game.dump_state(state),
        status=Status.FINISHED if result else Status.ACTIVE,
        result=result.to_json() if result else None,
        ai_delays_since=pauses.delays_since(record, state, time.time()),
    )
    new_record.decoded = state
    new_record.clock = clocks.next_clock(record, new_record, seat, by_clock, time.time())
    stored = move_events(new_record.version, seat, action, [*notes, *events])
    # a seat's own move must land before its clock runs out (its timeout owns the version after the deadline); a
    # resignation loses at least as much as the timeout would, so leaving always works
    own_move = by_clock is None and action["type"] != "resign"
    deadline = clocks.deadlines(record).get(seat) if own_move else None
    store.save(new_record, record.version, stored, deadline=deadline, previous_status=record.status, claim=claim,
               seen=(seat, time.time()) if present else None)
    count_action(store.client, store.prefix, record.game, action["type"], notes, decision)
    wake_ai(store, queues, new_record)
    webhooks.notify(store, queues, record, new_record, None if by_clock else seat)
    return new_record


def play_in_arrival_order(
    store: GameStore,
    queues: Queues,
    records: RecordCache,
    record: GameRecord,
    seat: int,
    judge: Callable[[GameRecord], Action],
    idempotent: IdempotentRequest | None,
    judged_again: bool,
) -> GameRecord | dict[str, Any]:
    """A player's action for `seat`, played on `record`; judged again on the new state when another write won.

    Actions are applied in arrival order, each judged on the state at that moment (talmut.md §3.9): on
    `VersionConflict` the game is read again from `records` and `judge(record)` (the request's own checks against
    that state, returning the action, raising what they refuse) runs again, up to `ARRIVAL_RETRIES` times. With
    `judged_again` False (the request named the version it was meant for, `If-Match`) it is not retried, nor a
    move the seat's clock ran out before (its timeout comes next). The write that won may have applied a repeat of
    this very request (`idempotent`'s key then holds its claim): its first response is returned instead of a new
    record (service/idempotency.py). The move's write records the seat's presence (`play`'s `present`).

    Raises:
        VersionConflict: another write landed first and the action is not judged again (or lost every time).
        ClockRanOut, and what `judge`, `refuse_resigned_seat` and `play` raise.
    """
    for _ in range(ARRIVAL_RETRIES):
        try:
            return _play_judged(store, queues, record, seat, judge, idempotent)
        except ClockRanOut:
            raise  # the timeout owns the next version: judged again, the move would meet the timeout's state
        except VersionConflict:
            if not judged_again:
                raise
            if idempotent is None:
                record = records.load(record.game_id)
                continue
            record, remembered = records.load_with_response(record.game_id, idempotent.name)
            if (first := idempotent.first_response(remembered)) is not None:
                return first
    return _play_judged(store, queues, record, seat, judge, idempotent)


def _play_judged(store: GameStore, queues: Queues, record: GameRecord, seat: int,
                 judge: Callable[[GameRecord], Action], idempotent: IdempotentRequest | None) -> GameRecord:
    action = judge(record)
    return play(store, queues, record, seat, action, claim=idempotent.claim() if idempotent is not None else None,
                present=True)


def refuse_resigned_seat(record: GameRecord, seat: int, action: Action) -> None:
    """Refuse a player's `action` for a seat the AI plays now, unless it is a `resign`.

    A resigned player's seat is played by the AI (talmut.md §3.17); a second resign gets the engine's
    `illegal_action`.

    Raises:
        NotYourTurn: the seat is an AI's and `action` is not a resign (403 `not_your_turn`).
    """
    if record.seats[seat].kind == "ai" and action["type"] != "resign":
        raise NotYourTurn("you resigned: the AI plays this seat now")


def wake_ai(store: GameStore, queues: Queues, record: GameRecord) -> None:
    """Enqueue the AI turns (and clock timeouts) due after a write that is already stored, on the game's queue.

    A Redis failure now must not turn the committed move into a 503 ("nothing was changed" would be false): the
    view or the worker's sweep enqueues the turn later (`revive_ai_turns`).
    """
    try:
        enqueue_ai_turns(store, queues, record)
        clocks.schedule_timeouts(queues.for_game(record.game_id), store.prefix, record)
    except STORE_ERRORS:
        log.warning("game %s version %s: AI turn or timeout not enqueued, left to the sweep", record.game_id,
                    record.version, exc_info=True)


def handed_to_ai(record: GameRecord, state: object) -> list[SeatRecord]:
    """`record.seats` after the rules handed seats to an AI, per the game's `seats_handed_to_ai(state)` capability.

    E.g. a resigned Talmut seat plays on at `easy` (talmut.md §3.17): it becomes `kind` "ai" at that level and
    keeps its name and token, which still names the seat (`leave`, `rematch`) but reads only the spectator view
    from then on (service/auth.py `reading_seat`).
    """
    seats = [dataclasses.replace(entry) for entry in record.seats]
    for seat, level in capabilities(GAMES[record.game]).seats_handed_to_ai(state).items():
        seats[seat].kind, seats[seat].level = "ai", level
    return seats


def record_change(store: GameStore, queues: Queues, record: GameRecord, new_record: GameRecord, event: Event) -> None:
    """Store a change that is not a game action (a seat taken, the game started) and wake the AI if due.

    The clock of `new_record` is computed here (a game that starts starts its clock).

    Raises:
        VersionConflict: another write landed first; nothing was changed.
    """
    new_record.clock = clocks.next_clock(record, new_record, None, None, time.time())
    store.save(new_record, record.version, [stored_event(new_record.version, event)])
    wake_ai(store, queues, new_record)
    webhooks.notify(store, queues, record, new_record, None)


def ai_seats_to_act(record: GameRecord) -> list[int]:
    """The AI seats that may act now in an active game."""
    if record.status != Status.ACTIVE or all(seat.kind != "ai" for seat in record.seats):
        return []  # without an AI seat the state is not decoded: a 304 of a human game decodes nothing
    to_act = GAMES[record.game].to_act(record.engine_state())
    return [seat for seat in sorted(to_act) if record.seats[seat].kind == "ai"]


def enqueue_ai_turns(store: GameStore, queues: Queues, record: GameRecord, only: list[int] | None = None) -> None:
    """Enqueue one job per AI seat that is to act at `record.version` on the game's queue (`Queues.for_game`).

    Repeats are harmless (unique job ids).

    `only` limits it to those seats (`revive_ai_turns` re-enqueues one seat whose job died).

    A seat the game asks to wait (its `ai_delay_ms(state, seat)` capability > 0, e.g. Talmut's `match_pause_ms`
    before an AI closes a matching window, talmut.md §3.18) is scheduled with RQ's scheduler (`enqueue_at`; the
    worker runs `with_scheduler=True`), so no web or worker process ever sleeps. The wait counts from when it
    began (`record.ai_delays_since`; from now when the record has no entry for the seat), so a job for a later
    version of the same wait is due at the same time, and at once when that time has passed. If the game moves
    on meanwhile, the job finds a newer version and does nothing. RQ keeps scheduled times in whole seconds and
    polls once a second, so the due time is rounded up to a whole second (`pauses.pause_ends`, which the view's
    `ai_pauses` shows): the wait is never shorter than asked and at most about two seconds longer.

    A job keeps no result (`result_ttl=0`: the worker deletes it once it returns; its result is the game's next
    version, never read from RQ), and a failed one is kept `AI_JOB_FAILURE_TTL_SECONDS`.
    """
    # seats listed only for optional actions first: with a pause skipped (no human may match), a worker taking jobs
    # in order lets the AI seats that may match decide before the turn seat's draw closes the window
    seats = sorted((seat for seat in ai_seats_to_act(record) if only is None or seat in only),
                   key=lambda seat: not _optional_only(record, seat))
    queue, now = queues.for_game(record.game_id), time.time()
    ends = pauses.pause_ends(record, seats, now)
    for seat in seats:
        due = ends.get(seat, now)
        enqueue_once(
            queue, due, now, AI_JOB, ai_job_id(record.game_id, record.version, seat),
            args=(store.prefix, record.game_id, record.version, seat), job_timeout=AI_JOB_TIMEOUT_SECONDS,
            on_failure=Callback(AI_JOB_FAILED), result_ttl=0, failure_ttl=AI_JOB_FAILURE_TTL_SECONDS,
        )


def _ai_job(queue: Queue, record: GameRecord, seat: int) -> Job | None:
    try:
        return Job.fetch(ai_job_id(record.game_id, record.version, seat), queue.connection, queue.serializer)
    except NoSuchJobError:
        return None


def job_is_live(job: Job, queue: Queue, stale_seconds: float) -> bool:
    """Whether someone will still run `job`, an AI turn of `queue`, whatever state a dead worker left it in.

    - started: while its worker marks it (RQ's job heartbeat, every `AI_JOB_HEARTBEAT_SECONDS`); one not marked
      for `stale_seconds` was left by a worker that died (SIGKILL, lost machine). RQ itself notices that only
      after the job timeout plus a minute, at its next registry cleaning (every 10 minutes).
    - queued: while it waits in the queue. A worker's dequeue moves it to RQ's intermediate list, still
      "queued", until the work horse starts it a few milliseconds later; a worker that dies in between (or loses
      Redis right after the dequeue) leaves it there for ever. So a queued job in no queue is live only until it
      is `stale_seconds` old (counted from `enqueued_at`: a job that waited longer in the queue and is met in
      those milliseconds may run twice, and the version check makes the second run a no-op).
    - scheduled (a delay such as Talmut's match pause): until `stale_seconds` past its due time, by when RQ's
      scheduler should have queued it; the worker holding the scheduler's lock may have died.
    - finished, failed, stopped, canceled, or anything else: not live.
    """
    status = job.get_status(refresh=False)

    def age(moment: datetime | None) -> float:
        return math.inf if moment is None else (rq_now() - moment).total_seconds()

    if status == JobStatus.STARTED:
        return age(job.last_heartbeat or job.started_at) < stale_seconds
    if status == JobStatus.QUEUED:  # the age first: it needs no command
        return age(job.enqueued_at) < stale_seconds or queue.get_job_position(job.id) is not None
    if status == JobStatus.SCHEDULED:
        try:
            due = ScheduledJobRegistry(queue=queue).get_scheduled_time(job)
        except NoSuchJobError:
            return False
        return age(due) < stale_seconds
    return status == JobStatus.DEFERRED


def pending_ai(queues: Queues, record: GameRecord, stale_seconds: float | None = None) -> list[int]:
    """AI seats to act whose job for the current version is queued or run by a live worker (`pending_ai`).

    docs/API.md "The view"; a job left by a dead worker is not pending (`job_is_live`), nor a missing one once
    the version is `stale_seconds` old (`_turn_is_live`).
    """
    stale = stale_seconds if stale_seconds is not None else lifetimes()["AI_JOB_STALE_SECONDS"]
    queue = queues.for_game(record.game_id)
    return [
        seat for seat in ai_seats_to_act(record) if _turn_is_live(queue, record, _ai_job(queue, record, seat), stale)
    ]


def _turn_is_live(queue: Queue, record: GameRecord, job: Job | None, stale_seconds: float) -> bool:
    """Whether someone will still play the AI turn of `record` whose job is `job` (None: no such job).

    A missing job is not lost while the version is younger than `stale_seconds`: its writer enqueues it just
    after the write (`wake_ai`), and a view or sweep may read the version in between.
    """
    if job is None:
        return time.time() - record.written_at < stale_seconds
    return job_is_live(job, queue, stale_seconds)


def revive_ai_turns(
    store: GameStore, queues: Queues, record: GameRecord, stale_seconds: float | None = None
) -> list[int]:
    """Enqueue again the AI turns of `record` whose job is gone: failed, left by a dead worker, or missing.

    A missing job counts as gone only once the version is `stale_seconds` old (`GameRecord.written_at`): before,
    its writer may be about to enqueue it.

    The worker's sweep (worker/sweeper.py) runs this over every active game, and a view of the game runs it for
    that game. The move is still made exactly once: the new job, like any, applies its move with the version
    check, so a job that was only slow loses the compare-and-set. A finished job is not revived (it played, or
    found nothing to do; an AI turn, which keeps no result, is gone once it ends), nor a seat listed only for
    optional actions (a Talmut match nobody waits for); each turn is revived at most `MAX_REVIVES` times, at most
    once per `stale_seconds`, so a job that always fails stops. Returns the seats enqueued again.
    """
    stale = stale_seconds if stale_seconds is not None else lifetimes()["AI_JOB_STALE_SECONDS"]
    queue, revived = queues.for_game(record.game_id), []
    for seat in ai_seats_to_act(record):
        if _optional_only(record, seat):
            continue
        job = _ai_job(queue, record, seat)
        finished = job is not None and job.get_status(refresh=False) == JobStatus.FINISHED
        if finished or _turn_is_live(queue, record, job, stale):
            continue
        name = store.revive_key(record.game_id, record.version, seat)
        if not store.client.set(name + ":lock", 1, nx=True, ex=max(1, math.ceil(stale))):
            continue  # another process revives it right now
        if store.count(name) > MAX_REVIVES:
            continue
        log.warning("AI turn of game %s version %s seat %s: job %s, enqueued again", record.game_id,
                    record.version, seat, "missing" if job is None else job.get_status(refresh=False))
        if job is not None:
            job.delete()
            # a job a dead worker took stays in RQ's intermediate list, where RQ's own cleaning would later fail
            # the new job of the same id
            queue.connection.lrem(queue.intermediate_queue_key, 0, job.id)
        enqueue_ai_turns(store, queues, record, only=[seat])
        revived.append(seat)
    return revived


def _optional_only(record: GameRecord, seat: int) -> bool:
    return not clocks.must_act(record, seat)

