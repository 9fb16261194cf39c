"""`options.clock` of a create request (docs/API.md; the clock itself is service/clocks.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.clocks import OPTION, ClockConfig

MAX_SECONDS = 86400


class ClockSchema(ma.Schema):
    """`options.clock`: `turn_seconds` and/or `bank_seconds` (+ `increment_seconds`), and what a timeout does.

    Whole seconds: RQ's scheduler, which enforces the deadlines, keeps times in whole seconds.
    """

    turn_seconds = fields.Integer(
        strict=True, validate=validate.Range(1, MAX_SECONDS),
        metadata={"description": "a seat that must act longer than this times out", "example": 30},
    )
    bank_seconds = fields.Integer(
        strict=True, validate=validate.Range(1, MAX_SECONDS),
        metadata={"description": "each seat's time bank, running only while the seat must act", "example": 300},
    )
    increment_seconds = fields.Integer(
        strict=True, validate=validate.Range(0, 3600), load_default=0,
        metadata={"description": "added to the seat's bank after each of its moves (bank clocks only)", "example": 5},
    )
    on_timeout = fields.String(
        validate=validate.OneOf(["autoplay", "forfeit"]), load_default="autoplay",
        metadata={"description": "autoplay: the easy AI plays the seat's turn; forfeit: the seat resigns"},
    )
    autoplay_limit = fields.Integer(
        strict=True, validate=validate.Range(2, 100), load_default=3,
        metadata={"description": "autoplay only: this many timeouts in a row forfeit (the last is a resignation)"},
    )

    @ma.validates_schema
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "turn_seconds" not in data and "bank_seconds" not in data:
            raise ma.ValidationError("give turn_seconds, bank_seconds or both")
        if data.get("increment_seconds") and "bank_seconds" not in data:
            raise ma.ValidationError("increment_seconds needs bank_seconds", "increment_seconds")

    @ma.post_load
    def _stored(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The stored form (`ClockConfig`): the defaults filled, an absent limit left out."""
        return {name: value for name, value in asdict(ClockConfig(**data)).items() if value is not None}


def with_clock_checked(options: dict[str, Any]) -> dict[str, Any]:
    """A create request's `options` with `options.clock` validated and in its stored form (`ClockSchema`).

    Raises:
        ValidationError: the clock is not valid, reported under `options.clock`.
    """
    if OPTION not in options:
        return options
    try:
        clock = ClockSchema().load(options[OPTION])
    except ma.ValidationError as error:
        raise ma.ValidationError({"options": {OPTION: error.messages}}) from error
    return {**options, OPTION: clock}
