"""Player tokens on the wire: `Authorization: Bearer <token>` to a seat of one game (shared/API.md "Identity").

The server keeps only each token's hash (`service.store.hash_token`); a request without an `Authorization`
header is a spectator.
"""

from __future__ import annotations

import secrets

from flask import request
from flask_smorest import abort

from service.store import GameRecord, hash_token, seat_for_token


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
    """The seat of the request's token; aborts 401 `unauthorized` without a token or for a token of no seat."""
    token = bearer_token()
    seat = None if token is None else seat_for_token(record, token)
    if seat is None:
        # RFC 9110 §11.6.1: a 401 names the scheme that would be accepted
        abort(401, message="this token holds no seat of this game", error="unauthorized",
              headers={"WWW-Authenticate": "Bearer"})
    return seat  # type: ignore[return-value]  # abort() raises; flask-smorest has no type hints to say so


def new_token() -> tuple[str, str]:
    """A fresh player token (256 random bits, URL-safe) and its stored hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)
