"""The `Idempotency-Key` protocol of `POST /v1/games/{game_id}/actions` (docs/API.md "Actions and errors").

A key belongs to one seat of one game: a repeat from the same seat with the same body gets the first response and
applies nothing; the same key from another seat is another request (keys are scoped per seat, so one seat can
never block another with a guessable key). The key is claimed before the action is applied, so a repeat that
arrives while the first is still being applied never applies it a second time.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from flask_smorest import abort

from service.store import STORE_ERRORS, GameStore

log = logging.getLogger(__name__)


@dataclass
class IdempotentRequest:
    """One action request sent with an `Idempotency-Key`: `body` is the parsed JSON body, as sent."""

    store: GameStore
    game_id: str
    seat: int
    key: str
    body: Any

    @property
    def fingerprint(self) -> str:
        """What makes two requests the same: hex SHA-256 of the seat and the body."""
        return hashlib.sha256(json.dumps([self.seat, self.body], sort_keys=True).encode()).hexdigest()

    def claim(self) -> dict[str, Any] | None:
        """Claim the key for this request; None when claimed now, else the first response to replay.

        The first response is `{"status": 200, "body": view}`.

        Aborts:
            422 idempotency_key_reused: the seat used the key for another body.
            409 version_conflict: the first request with this key is still being applied.
        """
        remembered = self.store.reserve_response(self.game_id, self.seat, self.key, self.fingerprint)
        if remembered is None:
            return None
        if remembered["request"] != self.fingerprint:
            abort(422, message="this Idempotency-Key was used with another request", error="idempotency_key_reused")
        if remembered.get("body") is None:
            abort(409, message="a request with this Idempotency-Key is being applied: read the game again",
                  error="version_conflict")
        return remembered

    def release(self) -> None:
        """Free the key of a request that was rejected (it applied nothing), so it may be used again."""
        self.store.release_response(self.game_id, self.seat, self.key)

    def remember(self, view: dict[str, Any], ttl_seconds: int) -> None:
        """Keep the 200 response `view` for `ttl_seconds`; a Redis failure only loses the replay, never the move."""
        response = {"request": self.fingerprint, "status": 200, "body": view}
        try:
            self.store.remember_response(self.game_id, self.seat, self.key, response, ttl_seconds)
        except STORE_ERRORS:
            log.warning("game %s: the response to an Idempotency-Key was not kept", self.game_id, exc_info=True)
