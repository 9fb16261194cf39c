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
from service.redis_clients import is_out_of_memory
from service.refusals import RETRY_AFTER_SECONDS, Refusal

log = logging.getLogger(__name__)

STATUS_OF_GAME_ERROR: dict[type[GameError], int] = {
    IllegalAction: 422,
    InvalidDeck: 422,
    InvalidOptions: 422,
    NotYourTurn: 403,
    GameFinished: 409,
}

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
    """Register the handlers of engine errors, the service's refusals, Redis outages and a full Redis on `app`."""

    @app.errorhandler(GameError)
    def game_error(error: GameError):  # type: ignore[no-untyped-def]
        status = STATUS_OF_GAME_ERROR[type(error)]
        return envelope(status, error.error_code, str(error)), status

    @app.errorhandler(Refusal)  # every service refusal, declared where it is raised (service/refusals.py)
    def refused(error: Refusal):  # type: ignore[no-untyped-def]
        headers = {} if error.retry_after is None else {"Retry-After": str(error.retry_after)}
        return envelope(error.status, error.error, error.message, **error.extra), error.status, headers

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
