"""Rematch (docs/API.md `POST /v1/games/{game_id}/rematch`): the same setup again, created once per finished game.

The first seated player to ask creates the new game, then links it from the old one with a compare-and-set write
(`rematch: {game_id}` and a `rematch` event); a player whose link lost that race deletes the game it made and
joins the winner's. So however many players ask at once they all land in one new game, each in its own seat.

The new game is private with no invitation codes: its human seats are kept for the old game's players, who take
them only through this call (`POST /seats` answers 403 `invite_required`); a player who never asks never takes
the seat. AI seats keep their levels. Each player's token for the new game is derived from the old one
(`rematch_token`), so asking again returns the same seat and the same token although only hashes are stored.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import logging

from engine.games import DECLARED
from engine.protocol import Event
from service.records import GameRecord, SeatRecord, Status, hash_token
from service.refusals import Refusal
from service.scheduling import Queues
from service.seating import SeatTaken, sit
from service.store import GameStore, VersionConflict
from service.turns import create_game, record_change

log = logging.getLogger(__name__)

ATTEMPTS = 8
"""How often a rematch call reads the games again after losing a race before it answers 409 `version_conflict`."""

class NotFinished(Refusal):
    """A rematch of a game that is not finished (409 `not_finished`)."""

    status = 409
    error = "not_finished"


def rematch_seat(record: GameRecord, seat: int) -> int:
    """The seat that `seat` of finished game `record` takes in its rematch: one on if its game's rematch rotates.

    Whether it does is the game's declaration (engine/declaration.py `GameDeclaration.rematch_rotates`).
    """
    return (seat + 1) % len(record.seats) if DECLARED[record.game].rematch_rotates else seat


def rematch_token(token: str, game_id: str) -> str:
    """The caller's token for the rematch of `game_id`: HMAC-SHA256 of the game id keyed by its old `token`.

    As secret as the old token (whoever holds that may ask for the rematch anyway), 256 bits, URL-safe, and the
    same on every call, so a repeated call can answer the same token though the server keeps only its hash.
    """
    digest = hmac.new(token.encode(), f"rematch:{game_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def join_rematch(
    store: GameStore, queues: Queues, old: GameRecord, seat: int, token: str, seed: int | None = None
) -> tuple[GameRecord, int, str, bool]:
    """Seat `seat` of finished game `old` (its player holds `token`) in the game's rematch, creating it if none.

    Returns `(the new game's record, the caller's seat there, its token, whether this call changed anything)`;
    False: the caller had its seat already (a repeated call). `seed` fixes the new deal of the call that creates
    the game; later calls ignore it.

    Raises:
        NotFinished: `old` is not finished.
        GameNotFound: the rematch game expired.
        SeatTaken: the caller's seat in the rematch holds someone else (it cannot happen while only this module
            seats players there).
        VersionConflict: the games kept changing for `ATTEMPTS` reads.
    """
    if old.status != Status.FINISHED:
        raise NotFinished("only a finished game can be played again")
    new_token = rematch_token(token, old.game_id)
    new_hash = hash_token(new_token)
    place = rematch_seat(old, seat)
    for _ in range(ATTEMPTS):
        if old.rematch is None:
            created = _create(store, queues, old, seat, new_hash, seed)
            linked = dataclasses.replace(old, version=old.version + 1, rematch={"game_id": created.game_id})
            try:
                record_change(store, queues, old, linked, Event("rematch", {"game_id": created.game_id, "seat": seat}))
            except VersionConflict:  # another player's rematch was linked first: join that one
                _discard(store, created)
                old = store.load(old.game_id)
                continue
            return created, place, new_token, True
        record = store.load(old.rematch["game_id"])
        if record.seats[place].token_hash == new_hash:
            return record, place, new_token, False
        if not record.seats[place].is_open:
            raise SeatTaken(f"seat {place} of the rematch is taken")
        try:
            joined = sit(store, queues, record, place, old.seats[seat].name, new_hash)
        except VersionConflict:
            continue  # another player joined meanwhile: read the rematch again
        return joined, place, new_token, True
    raise VersionConflict(old.game_id)


def _create(
    store: GameStore, queues: Queues, old: GameRecord, seat: int, token_hash: str, seed: int | None
) -> GameRecord:
    seats: list[SeatRecord | None] = [None] * len(old.seats)
    for number, entry in enumerate(old.seats):
        # a seat a human player took is theirs again; the other seats are AIs of the same level
        again = SeatRecord(kind="human") if entry.had_player else dataclasses.replace(entry)
        seats[rematch_seat(old, number)] = again
    mine = seats[rematch_seat(old, seat)]
    assert mine is not None
    mine.token_hash, mine.name = token_hash, old.seats[seat].name
    return create_game(
        store, queues, old.game, [entry for entry in seats if entry is not None], old.options, seed=seed,
        visibility="private", rematch_of=old.game_id,
    )


def _discard(store: GameStore, record: GameRecord) -> None:
    """Delete a rematch game that lost the race to be linked; one that already moved on is left to expire."""
    try:
        store.delete(record.game_id, record.version)
    except VersionConflict:
        log.info("game %s: unlinked rematch left to expire", record.game_id)
