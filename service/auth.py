"""Player tokens on the wire: `Authorization: Bearer <token>` to a seat of one game (shared/API.md "Identity").

The server keeps only each token's hash (`service.store.hash_token`); a request without an `Authorization`
header is a spectator.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

from flask import request
from flask_smorest import abort

from service.extensions import services
from service.store import GameRecord, seat_for_token

PRESENCE_SECONDS = 10
"""A seat's `last_seen` is written at most once per this many seconds (shared/API.md presence)."""
MARKS_KEPT = 10_000
"""How many seats' latest presence marks one process remembers (`mark_present`), the oldest dropped first."""
_marked: OrderedDict[tuple[str, str, int], float] = OrderedDict()


def bearer_token() -> str | None:
    """The token of `Authorization: Bearer <token>`, or None without one."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def viewer_seat(record: GameRecord) -> int | None:
    """The seat of the request's token, or None with no `Authorization` header (a spectator).

    Aborts 401 for any other credentials, a token of no seat or a scheme other than Bearer, as `player_seat` does:
    a client that sent credentials meant to be seated, and must not get a spectator's view without being told.
    """
    return None if "Authorization" not in request.headers else player_seat(record)


def player_seat(record: GameRecord) -> int:
    """The seat of the request's token, whose presence it records; 401 `unauthorized` without one or of no seat.

    The 401's message says which: no bearer token (none sent, or another scheme), or a token of no seat.

    Every authenticated request counts as the seat being present (`mark_present`): the view's `last_seen`, so
    clients can show that a player went away.
    """
    token = bearer_token()
    seat = None if token is None else seat_for_token(record, token)
    if seat is None:
        # no token is not a wrong token: the client must learn what to send
        message = "this token holds no seat of this game" if token is not None else (
            "a bearer token is required: send Authorization: Bearer <player_token>")
        # RFC 9110 §11.6.1: a 401 names the scheme that would be accepted
        abort(401, message=message, error="unauthorized", headers={"WWW-Authenticate": "Bearer"})
    mark_present(record, seat)  # type: ignore[arg-type]
    return seat  # type: ignore[return-value]  # abort() raises; flask-smorest has no type hints to say so


def mark_present(record: GameRecord, seat: int) -> None:
    """Record that `seat`'s player is here now (`last_seen`), at most once per `PRESENCE_SECONDS`.

    Redis refuses a second write within the interval whichever process asks (`GameStore.touch_seen`); this
    process does not even ask again within it, so a seat's steady polling costs no extra round trip.
    """
    store, now = services().store, time.time()
    key = (store.prefix, record.game_id, seat)
    if now - _marked.get(key, -math.inf) < PRESENCE_SECONDS:
        return
    _marked[key] = now
    _marked.move_to_end(key)
    while len(_marked) > MARKS_KEPT:
        _marked.popitem(last=False)
    store.touch_seen(record, seat, now, PRESENCE_SECONDS)
