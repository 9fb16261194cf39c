"""A new game's `options` as every way of starting one checks them: a create, a quick match, a replay.

The game's own options are its rules' to parse (service/turns.py `rules_options`); the service's, `clock`
(service/schemas/clock.py) and `claim_after_seconds` (service/presence.py), are checked here with the request, so
that nothing stored holds one a later read cannot use. Its own module so that the schemas of games
(service/schemas/games.py) and of an export (service/schemas/export.py), which games.py nests, both take it.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.clocks import OPTION as CLOCK
from service.presence import MAX_SECONDS as MAX_CLAIM_SECONDS
from service.presence import MIN_SECONDS as MIN_CLAIM_SECONDS
from service.presence import OPTION as CLAIM
from service.schemas.clock import with_clock_checked

CLAIM_AFTER = fields.Integer(strict=True, validate=validate.Range(MIN_CLAIM_SECONDS, MAX_CLAIM_SECONDS))
"""`options.claim_after_seconds`, checked by `GameOptionsSchema` (the options are a free object, each game's own)."""


def options_field() -> fields.Dict:
    """A new game's `options`: each game's own by name, and the service's `clock` and `claim_after_seconds`."""
    return fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={
            "description": "the game's options by name (GET /v1/rules/{game}); {}: the defaults; and `clock` for "
            "every game (ClockOptions), or `claim_after_seconds`",
            "properties": {
                "clock": {"$ref": "#/components/schemas/ClockOptions"},
                CLAIM: {
                    "type": "integer",
                    "minimum": MIN_CLAIM_SECONDS,
                    "maximum": MAX_CLAIM_SECONDS,
                    "example": 300,
                    "description": "every game without a clock: once a human seat the game waits for has not been "
                    "seen for this many seconds, the other players may claim (POST /v1/games/{game_id}/claim); "
                    "absent: no claims",
                },
            },
            "example": {},
        },
    )


class GameOptionsSchema(ma.Schema):
    """The checks of a new game's `options` (`options_field`), for every way of starting one.

    `POST /v1/games`, a quick match and a replay (its export's `options`, required there): a subclass declares
    `options = options_field()` where its fields' order (the spec's, and a generated client's positional
    arguments) wants it.
    """

    @ma.post_load
    def _clock(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """`options.clock` validated and in its stored form (`ClockSchema`); the game checks its own options."""
        if "options" in data:
            data["options"] = with_clock_checked(data["options"])
        return data

    @ma.validates_schema
    def _claim(self, data: dict[str, Any], **kwargs: Any) -> None:
        """`options.claim_after_seconds` (service/presence.py): whole seconds in range, and never with a clock."""
        options = data.get("options", {})
        if CLAIM not in options:
            return
        try:
            CLAIM_AFTER.deserialize(options[CLAIM])
        except ma.ValidationError as error:
            raise ma.ValidationError({"options": {CLAIM: error.messages}}) from error
        if CLOCK in options:
            raise ma.ValidationError({"options": {CLAIM: ["claim needs a game without a clock"]}})
