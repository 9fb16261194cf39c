"""Schemas of quick-match tickets (docs/api-additions.md "Quick match")."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.matchmaking import CANCELLED, EXPIRED, FALLBACK_MAX_SECONDS, MATCHED, WAITING
from service.schemas.names import name_field
from service.schemas.options import GameOptionsSchema, options_field


class FallbackSchema(ma.Schema):
    """AI seats for a table nobody else comes to in time."""

    after_seconds = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=0, max=FALLBACK_MAX_SECONDS),
        metadata={"description": "seconds after the ticket was made", "example": 30},
    )
    level = fields.String(required=True, metadata={"description": "the AI seats' level (GET /v1/rules/{game})",
                                                   "example": "easy"})


class MatchRequestSchema(GameOptionsSchema):
    """Ask for a seat at the next table of this game and options; `options` are checked as `POST /v1/games` does."""

    game = fields.String(required=True, metadata={"example": "durak"})
    options = options_field()
    players = fields.Integer(
        strict=True, validate=validate.Range(min=1, max=8),
        metadata={"description": "the table's seat count (default: the game's fewest, GET /v1/rules/{game})",
                  "example": 2},
    )
    name = name_field()
    fallback = fields.Nested(FallbackSchema, metadata={
        "description": "when nobody completes the table within `after_seconds`, its free seats are AI seats"})


QUICK_MATCH_EXAMPLE = {"game": "durak", "fallback": {"after_seconds": 30, "level": "easy"}}


class TicketSchema(ma.Schema):
    """A quick-match ticket: `waiting`, then `matched` (with your game, seat and token), `expired` or `cancelled`."""

    ticket_id = fields.String(required=True, metadata={"example": "3f1c0a9e5d7b2c4a8e6f0b1d2c3a4b5c"})
    status = fields.String(required=True, validate=validate.OneOf([WAITING, MATCHED, EXPIRED, CANCELLED]),
                           metadata={"example": WAITING})
    game = fields.String(required=True, metadata={"example": "durak"})
    options = options_field()
    options = fields.Dict(required=True, metadata={"description": "the options, the game's defaults filled in"})
    players = fields.Integer(required=True, metadata={"example": 2})
    fallback = fields.Nested(FallbackSchema, required=True, allow_none=True)
    created_at = fields.String(required=True, metadata={"format": "date-time", "example": "2026-12-07T02:00:00.000Z"})
    expires_at = fields.String(required=True, metadata={
        "format": "date-time", "description": "when a ticket still waiting expires",
        "example": "2026-12-07T02:10:00.000Z"})
    game_id = fields.String(required=True, allow_none=True, metadata={"description": "matched: your game"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "matched: your seat"})
    player_token = fields.String(required=True, allow_none=True, metadata={
        "description": "matched: your seat's token (the ticket's token: send it as Authorization: Bearer)"})


class NewTicketSchema(TicketSchema):
    """A new ticket, with the token that reads and cancels it (and, once matched, plays its seat)."""

    ticket_token = fields.String(required=True, metadata={"example": "q9T2mXc4vP0bL7nR1sK8dF3hJ6gW5yZa"})


class TicketQuerySchema(ma.Schema):
    """Long-poll: hold the request up to `wait` seconds while the ticket waits."""

    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=30))


TICKET_STREAM_EVENT = {
    "type": "object",
    "description": "one event: `event: ticket`, `data:` the ticket as JSON (the Ticket schema)",
    "example": {"event": "ticket", "data": '{"ticket_id": "3f1c0a9e5d7b2c4a8e6f0b1d2c3a4b5c", "status": "waiting"}'},
    "properties": {
        "event": {"type": "string", "enum": ["ticket"]},
        "data": {"type": "string", "description": "the ticket, as JSON (the Ticket schema)"},
        "retry": {"type": "integer", "description": "milliseconds before reconnecting", "example": 1000},
    },
}
