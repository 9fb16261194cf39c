"""Game clocks (docs/API.md `options.clock`): a per-turn limit and a Fischer time bank, the same for every game.

No rules file has a clock, so the service keeps them, outside the game modules. A clock runs only for the seats
that **must** act (`charged_seats`): a human seat in `to_act` with a legal action it is waited for. A seat listed
only for optional actions (Talmut's `match` and `withdraw`, talmut.md §4.1) and AI seats are never charged.

The clock's state is part of each stored version (`GameRecord.clock`, written by `next_clock` in the same
compare-and-set as the move): `since` holds, per charged seat, the Unix time its clock started running, carried
over the versions in which the seat stays charged without moving itself (a Talmut match by another seat does not
restart it); `banks` the seconds left in each seat's bank at that moment; `timeouts` how many timeouts in a row
each seat has had. Every value is an absolute time or a stored amount, so a version's view of the clock never
changes and may be memoised (service/views.py); the current time enters only when a deadline is enforced.

A seat's deadline is `since + min(turn_seconds, bank)`. The web process schedules one RQ job per charged seat and
version at its deadline (`schedule_timeouts`, with RQ's scheduler like the delayed AI turns); the worker's job
(worker/timeouts.py) applies the timeout with the same version check as any move, so a move that lands first
wins and a timeout never applies twice; the worker's sweep schedules again a timeout whose job is gone.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from rq import Queue

from engine import GAMES
from engine.protocol import capabilities
from service.records import GameRecord, Status
from service.scheduling import enqueue_once

OPTION = "clock"
"""The key of `options` that holds the clock: it is the service's, never passed to a game's `parse_options`."""
TIMEOUT_JOB = "worker.timeouts.play_timeout"
TIMEOUT_JOB_TIMEOUT_SECONDS = 30
"""RQ's hard limit on one timeout job: an `easy` move or a resignation, a few milliseconds."""

ClockMove = Literal["timeout", "autoplay"]
"""How a move was made when not by the seat itself: the first move of a timeout, or the rest of that turn."""


@dataclass(frozen=True)
class ClockConfig:
    """A game's `options.clock`, as validated by service/schemas/clock.py `ClockSchema` and stored in its options.

    Stored with the defaults filled and an absent limit left out (so a rematch copies it as it is).
    """

    turn_seconds: int | None = None
    bank_seconds: int | None = None
    increment_seconds: int = 0
    on_timeout: str = "autoplay"
    autoplay_limit: int = 3

    def limit(self, bank: float | None) -> float:
        """Seconds a seat that starts to act with `bank` seconds in its bank may take before it times out."""
        return min(math.inf if self.turn_seconds is None else self.turn_seconds, math.inf if bank is None else bank)


def config_of(record: GameRecord) -> ClockConfig | None:
    """The game's clock, None when it has none."""
    raw = record.options.get(OPTION)
    return None if raw is None else ClockConfig(**raw)


def must_act(record: GameRecord, seat: int) -> bool:
    """Whether the game waits for `seat`: it has a legal action other than `resign` and the optional ones.

    A seat listed in `to_act` only for its game's optional actions (`capabilities(game).optional_actions`;
    talmut.md §4.1: a match nobody waits for) need not act.
    """
    game = GAMES[record.game]
    optional = {"resign", *capabilities(game).optional_actions}
    return any(action["type"] not in optional for action in game.legal_actions(record.engine_state(), seat))


def charged_seats(record: GameRecord) -> list[int]:
    """The seats whose clock runs at `record`: human seats of an active game that must act (`must_act`)."""
    if record.status != Status.ACTIVE or config_of(record) is None:
        return []
    to_act = GAMES[record.game].to_act(record.engine_state())
    return [seat for seat in sorted(to_act) if record.seats[seat].kind == "human" and must_act(record, seat)]


def next_clock(
    before: GameRecord | None, after: GameRecord, actor: int | None, by_clock: ClockMove | None, now: float
) -> dict[str, Any] | None:
    """The clock state of `after`, the version written at `now` after `before` (None: `after` is a new game).

    `actor` is the seat that moved (None for a change that is no move: a seat taken, the game started). Each seat
    charged at `before` that moved, or is no longer charged, is charged the seconds since its clock started; the
    mover gains `increment_seconds` if it was charged. A seat charged at `after` keeps its start time if it was
    charged at `before` and did not move, else starts now. The mover's count of timeouts in a row grows by one for
    a timeout, stays for the rest of a timed-out turn (`autoplay`) and is reset by a move of its own. None when
    the game has no clock.

    Returns:
        `{"since": {seat: Unix time}, "banks": {seat: seconds}, "timeouts": {seat: count}}`, seats as strings.
    """
    config = config_of(after)
    if config is None:
        return None
    if before is None or before.clock is None:
        bank = config.bank_seconds
        banks = {str(seat): float(bank) for seat in range(len(after.seats))} if bank else {}
        state: dict[str, Any] = {"since": {}, "banks": banks, "timeouts": {}}
    else:
        state = before.clock
    banks, timeouts = dict(state["banks"]), dict(state["timeouts"])
    charged = {str(seat) for seat in charged_seats(after)}
    mover = None if actor is None else str(actor)
    since = {}
    for seat, started in state["since"].items():
        if seat in charged and seat != mover:
            since[seat] = started  # still running: the bank is charged when it stops
        elif seat in banks:
            increment = config.increment_seconds if seat == mover else 0
            banks[seat] = max(0.0, banks[seat] - (now - started)) + increment
    for seat in charged:
        since.setdefault(seat, now)
    if mover is not None and by_clock is None:
        timeouts.pop(mover, None)
    elif mover is not None and by_clock == "timeout":
        timeouts[mover] = timeouts.get(mover, 0) + 1
    return {"since": since, "banks": banks, "timeouts": timeouts}


def deadlines(record: GameRecord) -> dict[int, float]:
    """The Unix time at which each charged seat of `record` times out: `since + min(turn_seconds, bank)`."""
    config = config_of(record)
    if config is None or record.clock is None or record.status != Status.ACTIVE:
        return {}
    return {
        int(seat): started + config.limit(record.clock["banks"].get(seat))
        for seat, started in record.clock["since"].items()
    }


def timeouts_in_a_row(record: GameRecord, seat: int) -> int:
    """How many timeouts in a row `seat` has had (reset by a move of its own)."""
    return 0 if record.clock is None else record.clock["timeouts"].get(str(seat), 0)


def utc_iso(moment: float) -> str:
    """A Unix time as ISO 8601 in UTC, to the millisecond: `2025-12-01T10:00:30.250Z`."""
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def clock_view(record: GameRecord) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The view's `clock` (the settings and the current `deadline`) and each seat's `clock` entry.

    A seat's entry: `running` (its clock runs now), `since` (when it started running, or null), `bank_seconds`
    (seconds left in its bank when it started running, or now if it is not running; null without a bank),
    `deadline` (when it times out, or null) and `timeouts` (in a row). Times are ISO 8601 in UTC, so a client
    counts down against its own clock; nothing here depends on when the view is read. `(None, [])` without a
    clock.
    """
    config = config_of(record)
    if config is None or record.clock is None:
        return None, []
    due = deadlines(record)
    since = record.clock["since"]
    seats = []
    for seat in range(len(record.seats)):
        bank = record.clock["banks"].get(str(seat))
        seats.append({
            "running": seat in due,
            "since": utc_iso(since[str(seat)]) if seat in due else None,
            "bank_seconds": None if bank is None else round(bank, 3),
            "deadline": utc_iso(due[seat]) if seat in due else None,
            "timeouts": timeouts_in_a_row(record, seat),
        })
    return {**asdict(config), "deadline": utc_iso(min(due.values())) if due else None}, seats


def timeout_job_id(game_id: str, version: int, seat: int) -> str:
    """The unique RQ job id of one seat's timeout at one version: enqueueing it twice is refused by RQ."""
    return f"clock-{game_id}-{version}-{seat}"


def schedule_timeouts(queue: Queue, key_prefix: str, record: GameRecord, only: list[int] | None = None) -> None:
    """Schedule, with RQ's scheduler, the timeout job of each charged seat of `record` at its deadline.

    The due time is rounded up to a whole second (RQ keeps scheduled times in whole seconds), so a timeout is
    never early and about a second late at most; a deadline already past is enqueued at once. A job of an older
    version finds a newer one and does nothing. `only` limits it to those seats (the sweep's `revive_timeouts`).
    """
    now = time.time()
    for seat, deadline in deadlines(record).items():
        if only is None or seat in only:
            enqueue_once(
                queue, math.ceil(deadline), now, TIMEOUT_JOB, timeout_job_id(record.game_id, record.version, seat),
                args=(key_prefix, record.game_id, record.version, seat), job_timeout=TIMEOUT_JOB_TIMEOUT_SECONDS,
            )
