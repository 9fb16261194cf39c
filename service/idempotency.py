"""The `Idempotency-Key` protocol of `POST /v1/games/{game_id}/actions` (docs/API.md "Actions and errors").

A key belongs to one player token, so to one seat of one game: a repeat from the same token with the same body gets
the first response and applies nothing; the same key from another seat is another request (keys are scoped per
token, so one seat can never block another with a guessable key). The key is read with the game and claimed by the
very write that applies the request (service/store.py `GameStore.save`), so a repeat that arrives while the first
is being applied never applies it a second time, and a rejected request leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from flask_smorest import abort

from service.redis_clients import STORE_ERRORS
from service.store import GameStore, KeyClaim

log = logging.getLogger(__name__)

CLAIM_SECONDS = 60
"""How long a key stays claimed without its first response (the process that applied the request died first)."""


@dataclass
class IdempotentRequest:
    """One action request sent with an `Idempotency-Key`.

    `name` is the key's name in Redis (`GameStore.idempotency_key`), `seat` the token's, `body` the parsed JSON
    body, as sent.
    """

    store: GameStore
    name: str
    seat: int
    body: Any

    @property
    def fingerprint(self) -> str:
        """What makes two requests the same: hex SHA-256 of the seat and the body."""
        return hashlib.sha256(json.dumps([self.seat, self.body], sort_keys=True).encode()).hexdigest()

    def first_response(self, remembered: dict[str, Any] | None) -> dict[str, Any] | None:
        """The first response to replay, from `remembered`, what the key held when the game was read; None: none.

        The first response is `{"status": 200, "body": view}`.

        Aborts:
            422 idempotency_key_reused: the seat used the key for another body.
            409 version_conflict: the first request with this key is still being answered.
        """
        if remembered is None:
            return None
        if remembered["request"] != self.fingerprint:
            abort(422, message="this Idempotency-Key was used with another request", error="idempotency_key_reused")
        if remembered.get("body") is None:
            abort(409, message="a request with this Idempotency-Key is being applied: read the game again",
                  error="version_conflict")
        return remembered

    def claim(self) -> KeyClaim:
        """The claim the write applying this request makes of its key, until `remember` keeps its response."""
        return KeyClaim(self.name, json.dumps({"request": self.fingerprint, "status": None, "body": None}),
                        CLAIM_SECONDS)

    def remember(self, view: dict[str, Any], ttl_seconds: int) -> None:
        """Keep the 200 response `view` for `ttl_seconds`; a Redis failure only loses the replay, never the move."""
        response = {"request": self.fingerprint, "status": 200, "body": view}
        try:
            self.store.remember_response(self.name, response, ttl_seconds)
        except STORE_ERRORS:
            log.warning("the response to an Idempotency-Key of %s was not kept", self.name, exc_info=True)
