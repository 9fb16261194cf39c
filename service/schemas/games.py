"""Schemas of games, seats, views and events (shared/API.md "Resources", "The view")."""

from __future__ import annotations

import unicodedata
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.schemas.actions import any_action
from service.store import STATUSES

NAME_MAX_LENGTH = 40


def printable_name(value: str, **kwargs: object) -> None:
    """A player's name: 1-40 characters, not only spaces, no control characters or unpaired surrogates.

    Any other Unicode is kept as sent (emoji, any script, joiners). Raises `ValidationError` (422) otherwise.
    """
    if not value.strip():
        raise ma.ValidationError("must not be blank")
    for character in value:
        category = unicodedata.category(character)
        if category == "Cc":
            raise ma.ValidationError(f"must not contain control characters (U+{ord(character):04X})")
        if category == "Cs":
            raise ma.ValidationError(f"must not contain unpaired surrogates (U+{ord(character):04X})")


def name_field(**kwargs: Any) -> fields.String:
    """The `name` of a seat: any printable Unicode, 1-40 characters (`printable_name`)."""
    return fields.String(
        validate=[validate.Length(min=1, max=NAME_MAX_LENGTH), printable_name],
        metadata={"example": "Ann", "description": "1-40 characters; no control characters"},
        **kwargs,
    )


class SeatSpecSchema(ma.Schema):
    """One seat of a new game: a human (named when taken) or an AI of some level."""

    kind = fields.String(required=True, validate=validate.OneOf(["human", "ai"]))
    name = name_field()
    level = fields.String(metadata={"description": "AI level, for kind ai: see GET /v1/rules/{game}"})


class CreateGameSchema(ma.Schema):
    """Create a game; the creator takes the first human seat."""

    game = fields.String(required=True, metadata={"example": "durak"})
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(min=1, max=8))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    deck = fields.Raw(
        metadata={
            "type": "array",
            "items": {"type": "string"},
            "description": "the whole deck as card codes, top card first; must be a permutation of the game's deck",
        }
    )
    seed = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=2**63 - 1), metadata={"description": "makes the shuffle reproducible"}
    )


class JoinSchema(ma.Schema):
    """Take an open human seat (the lowest open one unless `seat` is given)."""

    name = name_field(required=True)
    seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=7))


class SeatViewSchema(ma.Schema):
    """One seat as everyone sees it."""

    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    name = fields.String(allow_none=True)
    level = fields.String(metadata={"description": "AI seats only"})
    open = fields.Boolean(metadata={"description": "human seats only: nobody has taken it yet"})
    hand_size = fields.Integer(metadata={"description": "once dealt, in games with hands"})
    resigned = fields.Boolean(metadata={"description": "Talmut: the player resigned and the AI plays the seat"})


class ResultSchema(ma.Schema):
    """The outcome of a finished game."""

    winners = fields.List(fields.Integer(), required=True)
    losers = fields.List(fields.Integer(), required=True)
    draw = fields.Boolean(required=True)
    scores = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        required=True,
        metadata={"description": "seat -> score, or the game's own object (Talmut: totals and rounds)"},
    )
    reason = fields.String(required=True, metadata={"example": "durak"})


class ViewSchema(ma.Schema):
    """A game as one viewer (a seat, or a spectator) may see it."""

    game_id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    you = fields.Integer(allow_none=True, required=True, metadata={"description": "your seat; null: spectator"})
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    to_act = fields.List(fields.Integer(), required=True)
    pending_ai = fields.List(fields.Integer(), required=True)
    legal_actions = fields.List(
        fields.Raw(metadata=any_action()),
        required=True,
        metadata={"description": "each the exact body to POST to /actions"},
    )
    state = fields.Raw(
        allow_none=True, required=True, metadata={"type": "object", "description": "game-specific table"}
    )
    result = fields.Nested(ResultSchema, allow_none=True, required=True)


class SeatedViewSchema(ViewSchema):
    """The view for a new seat, with the seat's secret token (shown once)."""

    player_token = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "send as Authorization: Bearer <token>; null when every seat is an AI"},
    )


class GameSummarySchema(ma.Schema):
    """A game in the lobby."""

    game_id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    open_seats = fields.List(fields.Integer(), required=True)


class GameListSchema(ma.Schema):
    """One page of the lobby; `next_offset` is null on the last page."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_offset = fields.Integer(allow_none=True, required=True)


class GameListQuerySchema(ma.Schema):
    """Lobby filters and paging."""

    game = fields.String()
    status = fields.String(load_default="waiting", validate=validate.OneOf(STATUSES))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class ViewQuerySchema(ma.Schema):
    """Long-poll: with `after_version`, hold the request up to `wait` seconds until the version exceeds it."""

    after_version = fields.Integer(validate=validate.Range(min=0))
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=30))


class ViewHeadersSchema(ma.Schema):
    """Conditional GET: the route compares If-None-Match itself (request.if_none_match)."""

    if_none_match = fields.String(
        data_key="If-None-Match",
        metadata={"description": "the ETag you hold: 304 while the game is still at that version", "example": '"17"'},
    )


class StreamQuerySchema(ma.Schema):
    """Resume a stream after the version you hold (as `Last-Event-ID` does)."""

    after_version = fields.Integer(
        validate=validate.Range(min=0),
        metadata={"description": "send only versions after this one (else the current view first)"},
    )


class StreamHeadersSchema(ma.Schema):
    """An SSE client's reconnection header."""

    last_event_id = fields.Integer(
        data_key="Last-Event-ID", validate=validate.Range(min=0),
        metadata={"description": "the `id` (version) of the last event received: resume after it", "example": 17},
    )


class EventsQuerySchema(ma.Schema):
    """Events after version `after` (0: all)."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0))


class EventListSchema(ma.Schema):
    """Events of a game, oldest first."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "each {version, type, ...fields of that type}, redacted for the viewer"},
    )


class RulesSchema(ma.Schema):
    """A game Cardroom offers."""

    id = fields.String(required=True)
    title = fields.String(required=True)
    seats = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    options = fields.Dict(required=True)
    action_types = fields.List(fields.String(), required=True)
    ai_levels = fields.List(fields.String(), required=True)
    rules = fields.String(required=True, metadata={"description": "where the full rules are"})
