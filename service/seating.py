"""Who sits where: the seats of a new game, taking an open seat (with a private game's invitation), and leaving.

docs/API.md "Seats", "Leaving" and "Private games". Each step is one compare-and-set write through
`turns.record_change` (or `turns.play` for a resignation); `retried` runs it again on a state that changed
meanwhile. Flask-free: the routes map the exceptions here to HTTP errors (service/errors.py).
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from engine import GameFinished
from engine.protocol import Event
from service.records import GameRecord, SeatRecord, Status, hash_token
from service.refusals import Refusal
from service.scheduling import Queues
from service.store import GameStore, VersionConflict
from service.turns import play, record_change
from service.webhooks import attach

ATTEMPTS = 8
"""How often a seat change is judged again on a game that changed meanwhile before the caller gets 409."""

T = TypeVar("T")


class GameFull(Refusal):
    """Every human seat of the game is taken (409 `game_full`)."""

    status = 409
    error = "game_full"


class SeatTaken(Refusal):
    """The asked seat is not an open human seat (409 `seat_taken`)."""

    status = 409
    error = "seat_taken"


class InviteRequired(Refusal):
    """A private game's seat asked for without an unused invitation code of it (403 `invite_required`)."""

    status = 403
    error = "invite_required"


def new_token() -> tuple[str, str]:
    """A fresh player token or invitation code (256 random bits, URL-safe) and its stored hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def seat_name(name: str | None, seat: int) -> str:
    """A human seat's name: `name` as the player gave it, else `Player N` for seat N (from 0)."""
    return name or f"Player {seat}"


def new_seats(specs: list[dict[str, Any]]) -> tuple[list[SeatRecord], int | None, str | None]:
    """The seats of a new game from the request's `seats`, the creator's seat (the first human one) and its token.

    `specs` items are `{"kind": "ai", "level": ...}` or `{"kind": "human", "name"?: ...}`; a game of AI seats
    only has no creator seat and no token (None, None).
    """
    seats = [
        SeatRecord(kind="ai", name=f"AI ({spec.get('level')})", level=spec.get("level"))
        if spec["kind"] == "ai" else SeatRecord(kind="human")
        for spec in specs
    ]
    humans = [number for number, seat in enumerate(seats) if seat.kind == "human"]
    if not humans:
        return seats, None, None
    creator = humans[0]
    token, seats[creator].token_hash = new_token()
    seats[creator].name = seat_name(specs[creator].get("name"), creator)
    return seats, creator, token


def invitations(seats: list[SeatRecord]) -> list[tuple[str, str]]:
    """One (code, stored hash) per open seat of a new private game."""
    return [new_token() for seat in seats if seat.is_open]


def invite_of(record: GameRecord, code: str | None) -> str | None:
    """The stored hash of `code` if it is an unused invitation of private game `record` (None for a public game).

    Raises:
        InviteRequired: a private game, and no code, or one that is wrong or used already.
    """
    if record.visibility != "private":
        return None
    presented = hash_token(code) if code else ""
    found = None
    for stored in record.invites:
        if hmac.compare_digest(stored, presented):  # constant time, like tokens (service/store.py)
            found = stored
    if found is None:
        raise InviteRequired("this game is private: its seats are taken with an unused invitation code from its "
                             "creator or a player seated in it")
    return found


def take_seat(
    store: GameStore, queues: Queues, record: GameRecord, name: str, seat: int | None = None, invite: str | None = None,
    webhook: dict[str, str] | None = None,
) -> tuple[GameRecord, int, str]:
    """Seat `name` at `seat` (default: the lowest open seat) of `record`; returns (new record, seat, token).

    The game starts when its last open seat is taken. `webhook` is the seat's, allowed already
    (service/webhooks.py `registration`), held by the new token.

    Raises:
        InviteRequired, GameFull, SeatTaken: as their names say; nothing is written.
        VersionConflict: another write landed first (`retried` judges the request again).
    """
    invite_hash = invite_of(record, invite)
    open_seats = record.open_seats()
    if not open_seats:
        raise GameFull("every seat of this game is taken")
    seat = open_seats[0] if seat is None else seat
    if seat not in open_seats:
        raise SeatTaken(f"seat {seat} is not an open human seat")
    token, token_hash = new_token()
    return sit(store, queues, record, seat, name, token_hash, invite_hash, webhook), seat, token


def sit(
    store: GameStore, queues: Queues, record: GameRecord, seat: int, name: str | None, token_hash: str,
    invite_hash: str | None = None, webhook: dict[str, str] | None = None,
) -> GameRecord:
    """Write open seat `seat` of `record` as taken by `name`, holding the token of `token_hash`; the new record.

    An `invite_hash` is the private game's invitation that seated the player, used up now. The game starts with
    its last open seat (a rematch seats its players through this too, service/rematch.py). `webhook`: the
    seat's (service/webhooks.py `attach`).

    Raises:
        VersionConflict: another write landed first.
    """
    seats = [dataclasses.replace(entry) for entry in record.seats]
    seats[seat].token_hash, seats[seat].name, seats[seat].invite_hash = token_hash, name, invite_hash
    seats[seat].taken_at = time.time()
    attach(seats[seat], webhook)
    started = len(record.open_seats()) == 1
    new_record = dataclasses.replace(
        record, seats=seats, version=record.version + 1, status=Status.ACTIVE if started else Status.WAITING,
        invites=[code for code in record.invites if code != invite_hash],
    )
    record_change(store, queues, record, new_record, Event("seat_taken", {"seat": seat, "name": name,
                                                                         "started": started}))
    return new_record


def leave(store: GameStore, queues: Queues, record: GameRecord, seat: int) -> dict[str, Any]:
    """`seat` leaves `record`: `{"game_id", "seat", "outcome", "version"}` (docs/API.md "Leaving").

    Waiting: the seat is open again, or the game is deleted when no other player sits in it (`outcome`
    "seat_freed" / "game_deleted", `version` None). A private game's seat gives back the invitation code that
    took it; the creator's, which no code took, gets a fresh one, kept as it is in `invite_codes`. The players
    still seated are shown every unused code (`GameRecord.shown_invites`), so that every open seat has a code a
    seated player holds. A rematch's seats stay its players' (service/rematch.py): a freed one gets none.
    Active: a resignation (Talmut: the easy AI plays the seat on, talmut.md §3.17; leaving again changes nothing).

    Raises:
        GameFinished: the game is over.
        VersionConflict: another write landed first (`retried` judges the request again).
    """
    outcome = {"game_id": record.game_id, "seat": seat}
    if record.status == Status.FINISHED:
        raise GameFinished("the game is finished")
    if record.status == Status.ACTIVE:
        if record.seats[seat].kind == "ai":  # resigned already: the AI plays the seat (talmut.md §3.17)
            return {**outcome, "outcome": "resigned", "version": record.version}
        left = play(store, queues, record, seat, {"type": "resign"}, [Event("left", {"seat": seat})])
        return {**outcome, "outcome": "resigned", "version": left.version}
    others = [number for number, entry in enumerate(record.seats)
              if number != seat and entry.kind == "human" and not entry.is_open]
    if not others:
        store.delete(record.game_id, record.version)
        return {**outcome, "outcome": "game_deleted", "version": None}
    seats = [dataclasses.replace(entry) for entry in record.seats]
    seats[seat] = SeatRecord(kind="human")
    code, codes = record.seats[seat].invite_hash, record.invite_codes
    if code is None and record.by_invitation:
        fresh, code = new_token()
        codes = [*codes, fresh]
    invites = record.invites + ([code] if code is not None else [])
    freed = dataclasses.replace(record, seats=seats, version=record.version + 1, invites=invites, invite_codes=codes)
    record_change(store, queues, record, freed, Event("left", {"seat": seat}))
    store.forget_seen(record.game_id, seat)
    return {**outcome, "outcome": "seat_freed", "version": freed.version}


def retried(attempt: Callable[[], T]) -> T:
    """`attempt()`, run again (it reads the game afresh) while another write lands first, `ATTEMPTS` times at most.

    Raises:
        VersionConflict: the game kept changing (409 `version_conflict`).
    """
    for _ in range(ATTEMPTS - 1):
        try:
            return attempt()
        except VersionConflict:
            continue
    return attempt()
