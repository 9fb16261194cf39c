"""The one map from failures to HTTP errors, and the error envelope (docs/API.md "Actions and errors").

Every error body is flask-smorest's envelope plus a stable machine-readable `error`:
`{"code": 422, "status": "Unprocessable Entity", "error": "illegal_action", "message": "6H does not beat 9H"}`.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import redis
from flask import Flask

from engine.errors import GameError, GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from service.dispatcher import TooManyWaiters
from service.matchmaking import TicketMatched, TicketNotFound
from service.redis_clients import is_out_of_memory
from service.rematch import NotFinished
from service.seating import GameFull, InviteRequired, SeatTaken
from service.store import ClockRanOut, GameNotFound, UnsafeEviction, VersionConflict
from service.turns import GameNotStarted, InvalidSetup, UnknownGame

log = logging.getLogger(__name__)

STATUS_OF_GAME_ERROR: dict[type[GameError], int] = {
    IllegalAction: 422,
    InvalidDeck: 422,
    InvalidOptions: 422,
    NotYourTurn: 403,
    GameFinished: 409,
}

REFUSALS: dict[type[Exception], tuple[int, str]] = {
    GameNotStarted: (409, "game_not_started"),
    UnknownGame: (404, "unknown_game"),
    InvalidSetup: (422, "invalid_request"),
    NotFinished: (409, "not_finished"),
    SeatTaken: (409, "seat_taken"),
    GameFull: (409, "game_full"),
    InviteRequired: (403, "invite_required"),
    TicketNotFound: (404, "ticket_not_found"),
    TicketMatched: (409, "ticket_matched"),
}
"""The service's refusals of a request (status, `error`); their message is the exception's."""

# `Retry-After` of a 503 `store_unavailable`: Redis restarts or fails over within seconds.
RETRY_AFTER_SECONDS = 1
# `Retry-After` of a 503 `store_full`: memory comes back as games expire or an operator adds some, not at once.
STORE_FULL_RETRY_AFTER_SECONDS = 10

# The `error` of an HTTP error raised without one (routing, webargs validation, body size).
DEFAULT_ERROR_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    414: "invalid_request",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    431: "invalid_request",
}


def envelope(status: int, error: str, message: str, **extra: Any) -> dict[str, Any]:
    """The error body for `status` with machine code `error` and human `message`."""
    return {"code": status, "status": HTTPStatus(status).phrase, "error": error, "message": message, **extra}


def register(app: Flask) -> None:
    """Register the handlers of engine errors, store errors, Redis outages and a full Redis on `app`."""

    @app.errorhandler(GameError)
    def game_error(error: GameError):  # type: ignore[no-untyped-def]
        status = STATUS_OF_GAME_ERROR[type(error)]
        return envelope(status, error.error_code, str(error)), status

    @app.errorhandler(GameNotFound)
    def game_not_found(error: GameNotFound):  # type: ignore[no-untyped-def]
        return envelope(404, "game_not_found", f"no game {error}"), 404

    def refused(error: Exception):  # type: ignore[no-untyped-def]
        status, code = REFUSALS[type(error)]
        return envelope(status, code, str(error)), status

    for refusal in REFUSALS:
        app.register_error_handler(refusal, refused)

    @app.errorhandler(VersionConflict)
    def version_conflict(error: VersionConflict):  # type: ignore[no-untyped-def]
        return envelope(409, "version_conflict", "the game changed meanwhile: read it again and retry"), 409

    @app.errorhandler(ClockRanOut)
    def clock_ran_out(error: ClockRanOut):  # type: ignore[no-untyped-def]
        message = "your clock ran out before this move: the timeout is applied instead; read the game again"
        return envelope(409, "version_conflict", message), 409

    @app.errorhandler(TooManyWaiters)
    def server_busy(error: TooManyWaiters):  # type: ignore[no-untyped-def]
        body = envelope(503, "server_busy", f"too many clients are waiting: {error}; retry later")
        return body, 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    @app.errorhandler(redis.exceptions.RedisClusterException)  # a Redis Cluster: no node answers, a slot uncovered
    def store_unavailable(error: Exception):  # type: ignore[no-untyped-def]
        # The body names no cause; the operator's log does, or a 503 on a live node cannot be told from an outage
        log.warning("503 store_unavailable: %s: %s", type(error).__name__, error)
        body = envelope(503, "store_unavailable", "the game store is unreachable: nothing was changed")
        return body, 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}

    @app.errorhandler(redis.ResponseError)  # OutOfMemoryError, and an OOM inside a Lua script (`is_out_of_memory`)
    def store_full(error: redis.ResponseError):  # type: ignore[no-untyped-def]
        if isinstance(error, redis.exceptions.ClusterDownError | redis.exceptions.TryAgainError):
            return store_unavailable(error)  # a Redis Cluster failing over, or moving a slot: retry in a moment
        if not is_out_of_memory(error):
            raise error  # any other error reply is a bug: 500, as for any unhandled exception
        # maxmemory with noeviction: Redis refuses every write, each atomic (service/store.py), so none is half done
        body = envelope(503, "store_full", "the game store is out of memory: nothing was changed; retry later")
        return body, 503, {"Retry-After": str(STORE_FULL_RETRY_AFTER_SECONDS)}

    @app.errorhandler(UnsafeEviction)
    def unsafe_eviction(error: UnsafeEviction):  # type: ignore[no-untyped-def]
        return envelope(503, "store_unavailable", str(error)), 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}
