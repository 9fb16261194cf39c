"""Schemas of games, seats, views and events (docs/API.md "Resources", "The view")."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from engine import GAMES
from service.records import STATUSES
from service.schemas.actions import ACTION_SCHEMAS
from service.schemas.clock import ClockSchema
from service.schemas.export import ExportSchema
from service.schemas.names import name_field
from service.schemas.options import GameOptionsSchema, options_field
from service.schemas.states import state_field
from service.schemas.webhooks import webhook_field

VISIBILITIES = ("public", "private")


class SeatSpecSchema(ma.Schema):
    """One seat of a new game: a human (named when taken) or an AI of some level."""

    kind = fields.String(required=True, validate=validate.OneOf(["human", "ai"]))
    name = name_field()
    level = fields.String(
        metadata={"description": "AI level, for kind ai: see GET /v1/rules/{game}", "example": "easy"}
    )


class CreateGameSchema(GameOptionsSchema):
    """Create a game (the creator takes the first human seat), or replay an export (`replay` alone)."""

    game = fields.String(metadata={"example": "durak", "description": "required unless `replay`"})
    seats = fields.List(fields.Nested(SeatSpecSchema), validate=validate.Length(min=1, max=8),
                        metadata={"description": "required unless `replay`"})
    options = options_field()
    deck = fields.Raw(
        metadata={
            "type": "array",
            "items": {"type": "string"},
            "description": "the whole deck as card codes, top card first; must be a permutation of the game's deck",
        }
    )
    seed = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "makes the shuffle reproducible (above 2^53 JavaScript clients lose digits)",
                  "example": 42},
    )
    visibility = fields.String(
        load_default="public",
        validate=validate.OneOf(VISIBILITIES),
        metadata={"description": "private: never listed in the lobby; its seats are taken with the invite codes "
                  "returned to the creator", "example": "public"},
    )
    webhook = webhook_field()

    replay = fields.Nested(ExportSchema, metadata={
        "description": "a finished game's export (GET /v1/games/{game_id}/export) to play again move for move as a "
        "new finished game; with it, only `visibility` may be given"})

    @ma.validates_schema
    def _a_game_or_a_replay(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "replay" in data:
            given = {"game", "seats", "deck", "seed", "webhook"} & data.keys()
            given |= {"options"} if data["options"] else set()
            if given:  # a replay's setup is its export's, and it holds no seat a webhook could name
                message = f"a replay takes no {', '.join(sorted(given))}"
                raise ma.ValidationError(message, "replay")
            return
        for name in ("game", "seats"):
            if name not in data:
                raise ma.ValidationError("Missing data for required field.", name)
        if "webhook" in data and all(seat["kind"] != "human" for seat in data["seats"]):
            raise ma.ValidationError("needs a human seat: a game of AI seats only has none of yours", "webhook")


# Swagger UI's "Try it out" sends the example unchanged: it must be a valid request (a game against the AI).
CREATE_GAME_EXAMPLE = {
    "game": "durak", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], "seed": 42,
}


class JoinSchema(ma.Schema):
    """Take an open human seat (the lowest open one unless `seat` is given)."""

    name = name_field(required=True)
    seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=7), metadata={"example": 1})
    invite = fields.String(
        validate=validate.Length(min=1, max=100),
        metadata={"description": "a private game's invitation code (each seats one player once)",
                  "example": "pXq3v1oW8Zr5bN2kYc7d0A"},
    )
    webhook = webhook_field()


class RematchSchema(ma.Schema):
    """Ask for a rematch of a finished game; `seed` makes the new deal reproducible."""

    seed = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "the new game's shuffle (used by the call that creates it)", "example": 7},
    )


class LeftSchema(ma.Schema):
    """What leaving did."""

    game_id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "the seat you left"})
    outcome = fields.String(
        required=True,
        validate=validate.OneOf(["seat_freed", "game_deleted", "resigned"]),
        metadata={"description": "seat_freed: a waiting game's seat is open again (your token no longer works); "
                  "game_deleted: you were its last player; resigned: an active game (Talmut: the AI plays on)",
                  "example": "resigned"},
    )
    version = fields.Integer(
        required=True, allow_none=True, metadata={"description": "the game's version now; null once deleted"}
    )


class SeatClockSchema(ma.Schema):
    """One seat's clock (service/clocks.py): absolute times, so a client counts down with its own clock."""

    running = fields.Boolean(required=True, metadata={"description": "the seat must act now and its clock runs"})
    since = fields.String(
        required=True, allow_none=True,
        metadata={"format": "date-time", "description": "when its clock started running",
                  "example": "2025-12-01T10:00:00.000Z"},
    )
    bank_seconds = fields.Float(
        required=True, allow_none=True,
        metadata={"description": "seconds left in its bank when its clock started (now, if not running); null "
                  "without bank_seconds", "example": 295.5},
    )
    deadline = fields.String(
        required=True, allow_none=True,
        metadata={"format": "date-time", "description": "when it times out, while running",
                  "example": "2025-12-01T10:00:30.000Z"},
    )
    timeouts = fields.Integer(required=True, metadata={"description": "timeouts in a row", "example": 0})


JOIN_EXAMPLE = {"name": "Bob"}


class SeatViewSchema(ma.Schema):
    """One seat as everyone sees it."""

    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    name = fields.String(allow_none=True)
    level = fields.String(metadata={"description": "AI seats only"})
    open = fields.Boolean(metadata={"description": "human seats only: nobody has taken it yet"})
    hand_size = fields.Integer(metadata={"description": "once dealt, in games with hands"})
    resigned = fields.Boolean(metadata={"description": "Talmut: the player resigned and the AI plays the seat"})
    last_seen = fields.String(
        allow_none=True,
        metadata={"description": "ISO 8601 UTC time of the seat's last authenticated request, at most 10 s old when "
                  "it made one then; null: never (a seat the AI plays from the start); a Talmut seat its player "
                  "resigned to the AI keeps the time of that player's requests, which its token still makes",
                  "example": "2025-12-01T10:00:20.000Z", "format": "date-time"},
    )
    clock = fields.Nested(SeatClockSchema, metadata={"description": "with options.clock only: this seat's clock"})


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


class ClockViewSchema(ClockSchema):
    """The game's clock settings and the current deadline (the earliest of the running seats')."""

    turn_seconds = fields.Integer(allow_none=True)
    bank_seconds = fields.Integer(allow_none=True)
    deadline = fields.String(
        required=True, allow_none=True,
        metadata={"format": "date-time", "description": "the earliest deadline of a running seat, or null",
                  "example": "2025-12-01T10:00:30.000Z"},
    )


class AiPauseSchema(ma.Schema):
    """Why an AI seat to act has not moved yet, and until when (service/pauses.py): an absolute time, as clocks."""

    seat = fields.Integer(required=True)
    reason = fields.String(
        required=True,
        metadata={"description": "match_window (Talmut, talmut.md §3.18): the seat would close the matching window, "
                  "and waits so that a human seat may match", "example": "match_window"},
    )
    until = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "when the wait ends and the seat's move is due (it comes "
                  "within about a second after); a time past means the move is on its way",
                  "example": "2025-12-01T10:00:02.000Z"},
    )


class ClaimSeatSchema(ma.Schema):
    """A human seat the game waits for, and from when the other players may claim its absence."""

    seat = fields.Integer(required=True)
    from_ = fields.String(
        required=True, data_key="from", attribute="from",
        metadata={"format": "date-time", "description": "the seat's last_seen (or, never seen, the game's creation) "
                  "plus after_seconds: from then on the others may claim; moves on when the seat is seen again",
                  "example": "2025-12-01T10:05:20.000Z"},
    )


class ClaimSchema(ma.Schema):
    """A game with `options.claim_after_seconds`: who may be claimed against, from when (service/presence.py)."""

    after_seconds = fields.Integer(required=True, metadata={"example": 300})
    seats = fields.List(
        fields.Nested(ClaimSeatSchema), required=True,
        metadata={"description": "the human seats the game waits for (not those only offered optional actions); "
                  "empty while it waits for an AI seat or is over"},
    )


class RematchLinkSchema(ma.Schema):
    """Where a finished game's rematch is."""

    game_id = fields.String(required=True, metadata={"example": "5c1d7e2a"})


class GameViewSchema(ma.Schema):
    """What the views of every game share; `game_views` adds the game's own `legal_actions` and `state`."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    you = fields.Integer(allow_none=True, required=True, metadata={"description": "your seat; null: spectator"})
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    to_act = fields.List(fields.Integer(), required=True)
    pending_ai = fields.List(fields.Integer(), required=True)
    ai_pauses = fields.List(
        fields.Nested(AiPauseSchema), required=True,
        metadata={"description": "AI seats to act that wait before they move, with why and until when; empty when "
                  "none waits"},
    )
    result = fields.Nested(ResultSchema, allow_none=True, required=True)
    visibility = fields.String(required=True, validate=validate.OneOf(VISIBILITIES))
    clock = fields.Nested(
        ClockViewSchema, allow_none=True, required=True, metadata={"description": "null without options.clock"}
    )
    rematch = fields.Nested(
        RematchLinkSchema, allow_none=True, required=True,
        metadata={"description": "once a seated player asked for a rematch of this finished game: its game_id "
                  "(the other players join it with POST /rematch here)"},
    )
    claim = fields.Nested(
        ClaimSchema,
        metadata={"description": "only in games created with options.claim_after_seconds: the seats the game waits "
                  "for and when their absence may be claimed (POST /v1/games/{game_id}/claim)"},
    )
    invites = fields.List(
        fields.String(),
        metadata={"description": "a private game's invitation codes, each seating one player once (in the seat "
                  "that player asks for or the lowest open one). Creating the game: one per open seat. In a seated "
                  "player's view while the game waits (absent from other views and a rematch's): every unused "
                  "code, one per open seat, to share (those of creation, a leaver's given back, a fresh one for "
                  "the seat of a creator who left)"},
    )


PLAYER_TOKEN = fields.String(
    required=True,
    allow_none=True,
    metadata={"description": "send as Authorization: Bearer <token>; null when every seat is an AI"},
)


def _game_views(game_id: str) -> tuple[type[ma.Schema], type[ma.Schema]]:
    """`<Game>ViewSchema` and `<Game>SeatedViewSchema` (the view with the new seat's token) of one game."""
    camel = "".join(part.capitalize() for part in game_id.split("_"))
    view = type(f"{camel}ViewSchema", (GameViewSchema,), {
        "__doc__": f"A {game_id} game as one viewer (a seat, or a spectator) may see it.",
        "game": fields.String(required=True, validate=validate.OneOf([game_id]), metadata={"example": game_id}),
        "legal_actions": fields.List(
            fields.Nested(ACTION_SCHEMAS[game_id]), required=True,
            metadata={"description": "each the exact body to POST to /actions"},
        ),
        "state": state_field(game_id),
    })
    seated = type(f"{camel}SeatedViewSchema", (view,), {
        "__doc__": f"The view of a {game_id} game for a new seat, with the seat's secret token (shown once).",
        "player_token": PLAYER_TOKEN,
        "invite": fields.String(
            allow_none=True,
            metadata={"description": "creating a private game only: the first of `invites` (a game with one open "
                      "seat has one)", "example": "pXq3v1oW8Zr5bN2kYc7d0A"},
        ),
    })
    return view, seated


_VIEWS = {game_id: _game_views(game_id) for game_id in sorted(GAMES)}


class ViewSchema(OneOfSchema):
    """A game as one viewer (a seat, or a spectator) may see it: one schema per game, told apart by `game`."""

    type_field = "game"
    type_field_remove = False
    # instances, not classes: marshmallow-oneofschema builds a class's instance (and its nested schemas) anew on
    # every dump, which cost more than the rest of a GET
    type_schemas = {game_id: views[0]() for game_id, views in _VIEWS.items()}

    def get_obj_type(self, obj: dict[str, Any]) -> str:
        """The game of the view being sent."""
        return obj["game"]

    def dump(self, obj: Any, *, many: bool | None = None, **kwargs: Any) -> Any:
        """The view as sent; `{}` for the empty body of a 304, which flask-smorest passes through the schema too."""
        if obj == "":
            return {}
        return super().dump(obj, many=many, **kwargs)


class SeatedViewSchema(ViewSchema):
    """The view for a new seat, with the seat's secret token (shown once): one schema per game, by `game`."""

    type_schemas = {game_id: views[1]() for game_id, views in _VIEWS.items()}


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
    # a rank in a Redis sorted set, whose offset plus count must fit its 64-bit integers (offset 2**63 - 20 was a 500)
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=10**12))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class ViewQuerySchema(ma.Schema):
    """Long-poll: with `after_version`, hold the request up to `wait` seconds until the version exceeds it."""

    after_version = fields.Integer(validate=validate.Range(min=0))
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=30))


NOTHING_NEW = (
    "not modified: nothing new yet. The normal answer of a long-poll when no version above `after_version` came "
    "within `wait` seconds, or of a GET whose If-None-Match names the current version; no body. Keep your view and "
    "poll again. docs/playing.md \"Nothing new yet: 304\" shows how clients see it."
)
NOT_MODIFIED_HEADERS = {
    "ETag": {"description": "the version you already have, quoted", "schema": {"type": "string", "example": '"17"'}},
}


# Headers in the spec (docs/API.md): ETag is the version, quoted; If-Match / If-None-Match name one.
ETAG_HEADER = {"description": "the game's version, quoted", "schema": {"type": "string", "example": '"17"'}}
IF_MATCH = {
    "in": "header", "name": "If-Match", "required": False, "schema": {"type": "string", "example": '"17"'},
    "description": "the ETag (version) you saw: 412 precondition_failed if the game has moved on",
}
IDEMPOTENCY_KEY = {
    "in": "header", "name": "Idempotency-Key", "required": False,
    "schema": {"type": "string", "example": "3f0c2b8e-move-12"},
    "description": "a key of your choice: repeating it with the same body returns the first response (kept 24 h)",
}
STREAM_EXAMPLE = (
    'retry: 1000\n\nid: 17\nevent: view\ndata: {"game_id": "9b2f4c0e", "version": 17, "status": "active"}\n\n'
)
# The schema of one event of the stream, as SSE-aware tools (schemathesis, linters) read a text/event-stream
# schema; the text on the wire is STREAM_EXAMPLE's
STREAM_EVENT = {
    "type": "object",
    "description": f"one event; on the wire: {STREAM_EXAMPLE!r}",
    "example": {"id": "17", "event": "view", "data": '{"game_id": "9b2f4c0e", "version": 17, "status": "active"}'},
    "properties": {
        "event": {"type": "string", "enum": ["view", "revoked"]},
        "id": {"type": "string", "description": "the version (`view` events only)", "example": "17"},
        "data": {"type": "string", "description": "`view`: the view, as JSON (the View schema); `revoked`: the "
                 "401 error body, as JSON, with the `version` at which the token stopped reading the seat"},
        "retry": {"type": "integer", "description": "milliseconds before reconnecting", "example": 1000},
    },
}


# OpenAPI links (stateful clients and the fuzzer follow them): a new game or seat -> its view -> a legal move.
VIEW_LINK = {"operationId": "getGame", "parameters": {"game_id": "$response.body#/game_id"}}
LINKS_OF_A_VIEW = {
    "ViewGame": VIEW_LINK,
    "Events": {"operationId": "listEvents", "parameters": {"game_id": "$response.body#/game_id"}},
    "PlayFirstLegalAction": {
        "operationId": "playAction",
        "parameters": {"game_id": "$response.body#/game_id"},
        "requestBody": "$response.body#/legal_actions/0",
    },
}


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


class AiLevelSchema(ma.Schema):
    """One AI level of a game: what it does and how strong it measured."""

    level = fields.String(required=True, metadata={"example": "hard"})
    description = fields.String(required=True)
    rating = fields.Integer(
        required=True, allow_none=True,
        metadata={"description": "rating on the Elo scale, `random` = 1000 (400 more: 10:1 odds of ending a game "
                                 "ahead of the other; Bradley-Terry, and in Talmut Luce's model of the best "
                                 "total at a table); null where not measured", "example": 1350},
    )
    rating_interval = fields.List(
        fields.Integer(), required=True, allow_none=True,
        metadata={"description": "the rating's 95% interval, [low, high], relative to `random` (whose own is "
                                 "a single point)", "example": [1250, 1460]},
    )


class RulesSchema(ma.Schema):
    """A game Cardroom offers."""

    id = fields.String(required=True)
    title = fields.String(required=True)
    seats = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    options = fields.Dict(required=True)
    action_types = fields.List(fields.String(), required=True)
    ai_levels = fields.List(fields.String(), required=True)
    ai_level_details = fields.List(
        fields.Nested(AiLevelSchema), required=True,
        metadata={"description": "the levels of `ai_levels`, in the same order (weakest first), each with what it "
                                 "does and its measured rating"},
    )
    rules = fields.String(
        required=True,
        metadata={"description": "the specification's file in the Cardroom repository (the guide: /guide/rules/...)",
                  "example": "docs/rules/durak.md"},
    )
    rules_page = fields.String(
        required=True,
        metadata={"description": "the players' rules page on this server (`?lang=en|ru|es|ta`)",
                  "example": "/rules/durak"},
    )
