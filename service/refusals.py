"""`Refusal`: the base of every failure the service answers with a 4xx or 503 of its own (docs/API.md errors).

A refusal is declared where it is raised, with its status and `error` code: the domain module that refuses says
how, and service/errors.py maps every `Refusal` with one handler, importing no domain module. The engine's
`GameError`s and the Redis client's errors are mapped there too.

Flask-free: the worker raises and catches refusals too.
"""

from __future__ import annotations

from typing import Any, ClassVar

RETRY_AFTER_SECONDS = 1
"""`Retry-After` of a 503 the service can serve again in a moment: Redis restarts or fails over within seconds."""


class Refusal(Exception):
    """A request the service refuses: HTTP `status`, machine code `error`, human `message`.

    `retry_after` (seconds) is sent as `Retry-After` when set, by the class or by one refusal (service/presence.py
    `ClaimTooEarly`). `message` is `str(self)`, the text the refusal was raised with, unless a subclass words it
    itself (e.g. `VersionConflict`, raised with the game's id).
    """

    status: ClassVar[int]
    error: ClassVar[str]
    retry_after: int | None = None  # not a ClassVar: one refusal may set its own (a claim's seconds left)

    @property
    def message(self) -> str:
        """The human `message` of the error body."""
        return str(self)

    @property
    def extra(self) -> dict[str, Any]:
        """Fields of the error body beyond the envelope's (a replay's `action_index`); none unless a subclass says."""
        return {}
