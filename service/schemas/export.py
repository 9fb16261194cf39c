"""Schemas of a finished game's export (`GET /v1/games/{game_id}/export`) and of a replay's request body.

The format itself is docs/api-additions.md "Finished-game export and replay"; service/export.py writes and reads it.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.export import FORMAT, taking_turns
from service.schemas.actions import ACTION_SCHEMAS
from service.schemas.names import name_field
from service.schemas.options import GameOptionsSchema

MAX_SEED = 2**63 - 1


class ExportedSeatSchema(ma.Schema):
    """A seat as the game began: a human (with the name its player took) or an AI of a level; never a token."""

    seat = fields.Integer(strict=True, required=True, validate=validate.Range(min=0, max=7), metadata={"example": 0})
    kind = fields.String(required=True, validate=validate.OneOf(["human", "ai"]), metadata={"example": "human"})
    # the names rule of every seat (a replay's seats reach the lobby's finished games); null: a seat never named
    name = name_field(required=True, allow_none=True)
    level = fields.String(metadata={"description": "kind ai only: its level", "example": "easy"})


class ExportedActionSchema(ma.Schema):
    """One applied move: the seat and the action body exactly as it was applied, in the order they were."""

    seat = fields.Integer(strict=True, required=True, validate=validate.Range(min=0, max=7), metadata={"example": 0})
    action = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={"description": "one of the game's action bodies", "example": {"type": "attack", "card": "6H"}},
    )


class ExportSchema(GameOptionsSchema):
    """A finished game with nothing hidden: its setup, its deal and every move, in order, and its result.

    Its `options` are checked as a new game's (`GameOptionsSchema`: `clock`, `claim_after_seconds`), so a replay
    stores none that a later view cannot read.
    """

    format = fields.String(required=True, validate=validate.OneOf([FORMAT]), metadata={"example": FORMAT})
    game_id = fields.String(
        metadata={"description": "the exported game's id (a replay ignores it)", "example": "9b2f4c0e"}
    )
    game = fields.String(required=True, metadata={"example": "durak"})
    options = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={"description": "the game's options as created, `clock` included", "example": {}},
    )
    seats = fields.List(fields.Nested(ExportedSeatSchema), required=True, validate=validate.Length(min=1, max=8))
    seed = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={
            "description": "the game's seed (a Talmut game dealt from it shuffles its later rounds by it)",
            "example": 42,
        },
    )
    deck = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the deck dealt, top card first", "example": ["6H", "7H"]},
    )
    shuffled = fields.Boolean(
        required=True,
        metadata={
            "description": "true: `deck` is the game's deck shuffled by `seed`; false: the deck was given at creation"
        },
    )
    actions = fields.List(
        fields.Nested(ExportedActionSchema),
        required=True,
        metadata={"description": "every applied move, in the order applied"},
    )
    result = fields.Dict(required=True, metadata={"description": "the game's result, as the view's `result`"})

    @ma.validates_schema
    def _seats_in_order(self, data: dict[str, Any], **kwargs: Any) -> None:
        if [seat["seat"] for seat in data["seats"]] != list(range(len(data["seats"]))):
            raise ma.ValidationError("seats must be numbered 0, 1, ... in order", "seats")

    @ma.post_load
    def _actions_checked(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Each action checked against the game's action schema."""
        schema = ACTION_SCHEMAS.get(data["game"])
        if schema is None:  # no such game: the replay answers 404 unknown_game, as a create does
            return data
        errors: dict[int, Any] = {}
        for index, entry in enumerate(taking_turns(data["actions"])):
            try:
                entry["action"] = schema().load(entry["action"])
            except ma.ValidationError as error:
                errors[index] = {"action": error.messages}
        if errors:
            raise ma.ValidationError({"actions": errors})
        return data


class ExportQuerySchema(ma.Schema):
    """How the export is written: `json` (the format) or `text`, a Durak move list people read."""

    format = fields.String(
        load_default="json",
        validate=validate.OneOf(["json", "text"]),
        metadata={"description": "text: the plain-text move list (Durak only; other games 406)"},
    )
