"""Player tokens on the wire: `Authorization: Bearer <token>` to a seat of one game (docs/API.md "Identity").

The server keeps only each token's hash (`service.records.hash_token`); a request without an `Authorization`
header is a spectator. A seat's access is the token that holds it now (issue 43, docs/api-additions.md): a token
reads its seat's view while it holds that seat as its human player, and a stream or a long-poll checks that again
against every record it answers with (`Reader.still_reads`).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from typing import NamedTuple, NoReturn

from flask import request
from flask_smorest import abort

from service.extensions import services
from service.records import GameRecord, hash_token, seat_for_hash

PRESENCE_SECONDS = 10
"""A seat's `last_seen` is written at most once per this many seconds (docs/API.md presence)."""
MARKS_KEPT = 10_000
"""How many seats' latest presence marks one process remembers (`mark_present`), the oldest dropped first."""
_marked: OrderedDict[tuple[str, str, int, str | None], float] = OrderedDict()


def bearer_token() -> str | None:
    """The token of `Authorization: Bearer <token>`, or None without one."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class Reader(NamedTuple):
    """Who reads a game, as a request showed it.

    `seat` is whose view it gets (None: the spectator view); `token_hash` the hash of the request's token (None:
    no `Authorization` header, a spectator).
    """

    seat: int | None
    token_hash: str | None

    def still_reads(self, record: GameRecord) -> bool:
        """Whether this reader's token still reads `seat`'s view in `record`, a later version of the game.

        False once the seat changed hands (freed while the game waits, then perhaps taken by another player) or was
        handed to the AI (`reading_seat`): a stream then ends with `event: revoked`, a long-poll answers 401. A
        spectator always reads the spectator view. No Redis read: the seats' token hashes are in `record`.
        """
        if self.token_hash is None:
            return True
        seat = seat_for_hash(record, self.token_hash)
        return seat is not None and reading_seat(record, seat) == self.seat


def reader(record: GameRecord) -> Reader:
    """The request's reader of `record`: a spectator with no `Authorization` header, else its token's.

    Aborts 401 for any other credentials, a token of no seat or a scheme other than Bearer, as `player_seat` does:
    a client that sent credentials meant to be seated, and must not get a spectator's view without being told.
    """
    if "Authorization" not in request.headers:
        return Reader(None, None)
    seat, token_hash = _token_seat(record)
    return Reader(reading_seat(record, seat), token_hash)


def reading_seat(record: GameRecord, seat: int) -> int | None:
    """Whose view the token of `seat` reads: `seat` while it is a human seat, else None (the spectator view).

    A seat the rules handed to the AI (talmut.md §3.17: its player left, resigned or forfeited on the clock) is
    the AI's now: its old token still names the seat (`leave` changes nothing, `rematch` seats the player again)
    but never reads what the AI sees from then on, in any state of the game (a finished one included).
    """
    return seat if record.seats[seat].kind == "human" else None


def player_seat(record: GameRecord, mark: bool = True) -> int:
    """The seat of the request's token, whose presence it records; 401 `unauthorized` without one or of no seat.

    The 401's message says which: no bearer token (none sent, or another scheme), or a token of no seat.

    Every authenticated request counts as the seat being present (`mark_present`): the view's `last_seen`, so
    clients can show that a player went away. `mark` False leaves the mark to the caller: a move records it in
    its own write (service/turns.py `play`'s `present`), and a refused one with `mark_present`.
    """
    return _token_seat(record, mark)[0]


def unauthorized(message: str) -> NoReturn:
    """Abort with 401 `unauthorized` and `WWW-Authenticate: Bearer` (RFC 9110 §11.6.1: the scheme accepted)."""
    abort(401, message=message, error="unauthorized", headers={"WWW-Authenticate": "Bearer"})
    raise AssertionError("abort() raised")  # never reached: flask-smorest publishes no type hints to tell mypy so


def _token_seat(record: GameRecord, mark: bool = True) -> tuple[int, str]:
    token = bearer_token()
    token_hash = None if token is None else hash_token(token)
    seat = None if token_hash is None else seat_for_hash(record, token_hash)
    if seat is None or token_hash is None:
        # no token is not a wrong token: the client must learn what to send
        unauthorized("this token holds no seat of this game" if token is not None else
                     "a bearer token is required: send Authorization: Bearer <player_token>")
    if mark:
        mark_present(record, seat)
    return seat, token_hash


def mark_present(record: GameRecord, seat: int) -> None:
    """Record that `seat`'s player is here now (`last_seen`), at most once per `PRESENCE_SECONDS`.

    Redis refuses a second write within the interval whichever process asks (`GameStore.touch_seen`); this
    process does not even ask again within it, nor when the record it read shows a mark that recent (another
    process's), so a seat's steady polling costs no extra round trip. The marks are
    kept per player (the seat's token hash): the next player of a freed seat is seen at its first request.
    """
    store, now = services().store, time.time()
    key = (store.prefix, record.game_id, seat, record.seats[seat].token_hash)
    if now - _marked.get(key, -math.inf) < PRESENCE_SECONDS:
        return
    seen = record.last_seen.get(seat, -math.inf)
    # another process's mark, read with the record: Redis would refuse this one (at 2,000 players, half the marks
    # asked were such refusals, a script call each)
    marked_elsewhere = now - seen < PRESENCE_SECONDS
    _marked[key] = seen if marked_elsewhere else now
    _marked.move_to_end(key)
    while len(_marked) > MARKS_KEPT:
        _marked.popitem(last=False)
    if marked_elsewhere:
        return
    if not store.touch_seen(record, seat, now, PRESENCE_SECONDS):
        # another process wrote it within the interval: time the next ask from that write (as read with the record),
        # not from this refused one, which would let `last_seen` lag the seat's requests by twice the interval
        _marked[key] = record.last_seen.get(seat, -math.inf)
