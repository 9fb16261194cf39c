"""Games: create, lobby, take a seat, view (ETag, long-poll), actions (If-Match, Idempotency-Key), events."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis
from flask import current_app, request
from flask.views import MethodView
from flask_smorest import abort
from marshmallow import ValidationError
from rq import Queue

from engine import GAMES
from engine.ai import LEVELS
from engine.cards import parse_deck, shuffled
from engine.protocol import Event, capabilities
from service.extensions import Blueprint
from service.schemas.actions import ACTION_SCHEMAS, action_request_body
from service.schemas.games import (
    CreateGameSchema,
    EventListSchema,
    EventsQuerySchema,
    GameListQuerySchema,
    GameListSchema,
    JoinSchema,
    SeatedViewSchema,
    ViewHeadersSchema,
    ViewQuerySchema,
    ViewSchema,
)
from service.store import GameRecord, GameStore, SeatRecord, VersionConflict, hash_token, seat_for_token
from service.turns import enqueue_ai_turns, pending_ai, play, record_change, revive_ai_turns
from service.views import event_view, game_view, stored_event

log = logging.getLogger(__name__)
blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games, seats, views, actions and events")

JOIN_ATTEMPTS = 8

# Headers in the spec (shared/API.md): ETag is the version, quoted; If-Match / If-None-Match name one.
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


# OpenAPI links (stateful clients and the fuzzer follow them): a new game or seat -> its view -> a legal move.
VIEW_LINK = {"operationRef": "#/paths/~1v1~1games~1{game_id}/get", "parameters": {"game_id": "$response.body#/game_id"}}
LINKS_OF_A_VIEW = {
    "ViewGame": VIEW_LINK,
    "Events": {
        "operationRef": "#/paths/~1v1~1games~1{game_id}~1events/get",
        "parameters": {"game_id": "$response.body#/game_id"},
    },
    "PlayFirstLegalAction": {
        "operationRef": "#/paths/~1v1~1games~1{game_id}~1actions/post",
        "parameters": {"game_id": "$response.body#/game_id"},
        "requestBody": "$response.body#/legal_actions/0",
    },
}


ARRIVAL_RETRIES = 3
"""How often an action that lost a compare-and-set race is judged again before the client gets 409."""


@dataclass
class Services:
    """What the routes need, kept in `app.extensions["cardroom"]`: the store, the AI queue, the long-poll slots."""

    store: GameStore
    queue: Queue
    long_polls: threading.BoundedSemaphore


def services() -> Services:
    """The current app's store and queue."""
    return current_app.extensions["cardroom"]


def bearer_token() -> str | None:
    """The token of `Authorization: Bearer <token>`, or None without one."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def viewer_seat(record: GameRecord) -> int | None:
    """The seat of the request's token, or None with no `Authorization` header (a spectator).

    Aborts 401 for any other credentials, a token of no seat or a scheme other than Bearer, as `player_seat` does:
    a client that sent credentials meant to be seated, and must not get a spectator's view without being told.
    """
    return None if "Authorization" not in request.headers else player_seat(record)


def player_seat(record: GameRecord) -> int:
    """The seat of the request's token; aborts 401 without a token or for a token of no seat."""
    token = bearer_token()
    seat = None if token is None else seat_for_token(record, token)
    if seat is None:
        # RFC 9110 §11.6.1: a 401 names the scheme that would be accepted
        abort(401, message="this token holds no seat of this game", error="unauthorized",
              headers={"WWW-Authenticate": "Bearer"})
    return seat  # type: ignore[return-value]  # abort() raises; flask-smorest has no type hints to say so


def view_of(record: GameRecord, seat: int | None) -> dict[str, Any]:
    """The API view of `record` for `seat`, with `pending_ai` read from the queue."""
    return game_view(record, seat, pending_ai(services().queue, record, current_app.config["AI_JOB_STALE_SECONDS"]))


def new_token() -> tuple[str, str]:
    """A fresh player token (256 random bits, URL-safe) and its stored hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


@blp.route("")
class Games(MethodView):
    """Create games and list the lobby."""

    @blp.arguments(CreateGameSchema)
    @blp.response(201, SeatedViewSchema, headers={"Location": {
        "description": "the new game's URL", "schema": {"type": "string", "example": "/v1/games/9b2f4c0e"},
    }})
    @blp.alt_response(404, schema="Error", description="unknown_game")
    @blp.alt_response(422, schema="Error", description="invalid_request, invalid_deck")
    @blp.doc(responses={201: {"links": LINKS_OF_A_VIEW}})
    def post(self, body: dict[str, Any]):  # type: ignore[no-untyped-def]
        """Create a game.

        The creator takes the first human seat and gets its `player_token`. The game starts once every human
        seat is taken; a game of AI seats only starts at once and plays itself.
        """
        if body["game"] not in GAMES:
            abort(404, message=f"no game called {body['game']!r}", error="unknown_game")
        game = GAMES[body["game"]]
        options = game.parse_options(body["options"])
        if len(body["seats"]) not in game.SEATS:
            abort(422, message=f"{game.ID} is played by {game.SEATS.start}-{game.SEATS.stop - 1} seats",
                  error="invalid_request")
        seats = []
        for number, spec in enumerate(body["seats"]):
            if spec["kind"] == "ai":
                if spec.get("level") not in LEVELS[game.ID]:
                    abort(422, message=f"seat {number}: AI level must be one of {', '.join(LEVELS[game.ID])}",
                          error="invalid_request")
                seats.append(SeatRecord(kind="ai", name=f"AI ({spec['level']})", level=spec["level"]))
            else:
                seats.append(SeatRecord(kind="human"))
        full_deck = game.full_deck(options)
        seed = body.get("seed", secrets.randbits(63))
        deck = parse_deck(body["deck"], full_deck) if "deck" in body else shuffled(full_deck, seed)
        state = game.new_game(len(seats), options, deck, seed)
        ai_seats = [number for number, seat in enumerate(seats) if seat.kind == "ai"]
        state = capabilities(game).with_ai_seats(state, ai_seats)

        token = None
        humans = [number for number, seat in enumerate(seats) if seat.kind == "human"]
        creator = humans[0] if humans else None
        if creator is not None:
            token, seats[creator].token_hash = new_token()
            seats[creator].name = body["seats"][creator].get("name", f"Player {creator}")
        record = GameRecord(
            game_id=uuid.uuid4().hex,
            game=game.ID,
            version=1,
            status="waiting",
            created_at=time.time(),
            seats=seats,
            options=body["options"],
            state=game.dump_state(state),
        )
        if not record.open_seats():
            record.status = "active"
        event = Event("created", {"game": game.ID, "seats": len(seats), "status": record.status})
        store = services().store
        store.create(record, [stored_event(record.version, event)])
        enqueue_ai_turns(store, services().queue, record)
        response = {**view_of(record, creator), "player_token": token}
        return response, 201, {"Location": f"/v1/games/{record.game_id}"}

    @blp.arguments(GameListQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    def get(self, query: dict[str, Any]):  # type: ignore[no-untyped-def]
        """List games: by default those waiting for players (the lobby).

        Filter by `game` and `status`; page with `offset` and `limit` (at most 100).
        """
        games = []
        for record in services().store.listing(query["status"], 0, query["limit"]):
            if query.get("game") not in (None, record.game):
                continue
            games.append(record)
            if len(games) == query["offset"] + query["limit"] + 1:
                break
        page = games[query["offset"] : query["offset"] + query["limit"]]
        has_more = len(games) > query["offset"] + query["limit"]
        return {
            "games": [
                {
                    "game_id": record.game_id,
                    "game": record.game,
                    "status": record.status,
                    "version": record.version,
                    "seats": game_view(record, None, [])["seats"],
                    "open_seats": record.open_seats(),
                }
                for record in page
            ],
            "next_offset": query["offset"] + query["limit"] if has_more else None,
        }


@blp.route("/<game_id>/seats")
class Seats(MethodView):
    """Take a seat."""

    @blp.arguments(JoinSchema)
    @blp.response(201, SeatedViewSchema)
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="seat_taken, game_full")
    @blp.doc(responses={201: {"links": LINKS_OF_A_VIEW}})
    def post(self, body: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """Take an open human seat.

        The lowest open seat unless `seat` is given. The game starts when every human seat is taken.
        """
        store = services().store
        for _ in range(JOIN_ATTEMPTS):
            record = store.load(game_id)
            open_seats = record.open_seats()
            if not open_seats:
                abort(409, message="every seat of this game is taken", error="game_full")
            seat = body.get("seat", open_seats[0])
            if seat not in open_seats:
                abort(409, message=f"seat {seat} is not an open human seat", error="seat_taken")
            token, token_hash = new_token()
            seats = [SeatRecord(**vars(entry)) for entry in record.seats]
            seats[seat].token_hash = token_hash
            seats[seat].name = body["name"]
            started = len(open_seats) == 1
            new_record = dataclasses.replace(
                record, seats=seats, version=record.version + 1, status="active" if started else "waiting"
            )
            event = Event("seat_taken", {"seat": seat, "name": body["name"], "started": started})
            try:
                record_change(store, services().queue, record, new_record, event)
            except VersionConflict:
                continue  # someone else joined meanwhile: look at the seats again
            return {**view_of(new_record, seat), "player_token": token}
        abort(409, message="the game kept changing: try again", error="version_conflict")


@blp.route("/<game_id>")
class GameResource(MethodView):
    """One game as the viewer may see it."""

    @blp.arguments(ViewQuerySchema, location="query")
    @blp.response(200, ViewSchema, headers={"ETag": ETAG_HEADER})
    @blp.alt_response(
        304, description="not modified: If-None-Match names the version, or no newer version came",
        headers={"ETag": ETAG_HEADER},
    )
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.arguments(ViewHeadersSchema, location="headers", as_kwargs=True)  # documents If-None-Match
    @blp.doc(security=[{}, {"bearer": []}], responses={200: {"links": LINKS_OF_A_VIEW}})
    def get(self, query: dict[str, Any], game_id: str, **headers: str):  # type: ignore[no-untyped-def]
        """View a game: your seat's view with a token, the spectator view without.

        The `ETag` is the version. With `after_version=N&wait=S` the request is held up to S seconds (max 30)
        until the version exceeds N; if none came it answers 304.
        """
        store = services().store
        after = query.get("after_version")
        record = store.load(game_id)
        seat = viewer_seat(record)  # credentials of no seat answer 401 now, not after a long-poll
        # an AI turn whose job died (worker killed) is enqueued again when someone looks (worker/sweeper.py too)
        revive_ai_turns(store, services().queue, record, current_app.config["AI_JOB_STALE_SECONDS"])
        headers = {}
        if after is not None and query["wait"] > 0:
            if services().long_polls.acquire(blocking=False):
                try:
                    wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"])
                    store.wait_for_version(game_id, after, wait)
                finally:
                    services().long_polls.release()
                record = store.load(game_id)
            else:  # every slot is held: answer now, and ask the client to come back in a second
                headers["Retry-After"] = "1"
        headers["ETag"] = f'"{record.version}"'
        # If-None-Match compares weakly (RFC 9110 §13.1.2): W/"17" names version 17 too
        if request.if_none_match.contains_weak(str(record.version)) or (after is not None and record.version <= after):
            return "", 304, headers
        return view_of(record, seat), 200, headers


@blp.route("/<game_id>/actions")
class Actions(MethodView):
    """Play."""

    @blp.doc(requestBody=action_request_body())
    @blp.response(200, ViewSchema, headers={"ETag": ETAG_HEADER})
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(403, schema="Error", description="not_your_turn")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="game_finished, version_conflict")
    @blp.alt_response(412, schema="Error", description="precondition_failed")
    @blp.alt_response(422, schema="Error", description="invalid_request, illegal_action, idempotency_key_reused")
    @blp.doc(
        security=[{"bearer": []}], parameters=[IF_MATCH, IDEMPOTENCY_KEY], responses={200: {"links": LINKS_OF_A_VIEW}}
    )
    def post(self, game_id: str):  # type: ignore[no-untyped-def]
        """Play one action: one of your view's `legal_actions`, verbatim.

        `If-Match` (optional) names the version you saw: an older one gets 412, and a write that lands first
        409. Without it, an action that loses a race to another write is judged again on the new state (arrival
        order). A repeated `Idempotency-Key` with the same body returns the first response and applies nothing.
        """
        store = services().store
        record = store.load(game_id)
        seat = player_seat(record)
        body = request.get_json(silent=True)
        key = request.headers.get("Idempotency-Key")
        fingerprint = hashlib.sha256(json.dumps([seat, body], sort_keys=True).encode()).hexdigest()
        if key:
            # reserve the key before playing: a concurrent repeat sees the reservation, never plays a second time
            remembered = store.reserve_response(game_id, key, fingerprint)
            if remembered is not None:
                if remembered["request"] != fingerprint:
                    abort(422, message="this Idempotency-Key was used with another request",
                          error="idempotency_key_reused")
                if remembered.get("body") is None:
                    abort(409, message="a request with this Idempotency-Key is being applied: read the game again",
                          error="version_conflict")
                return remembered["body"], remembered["status"], {"ETag": f'"{remembered["body"]["version"]}"'}
        try:
            new_record = self.play_in_arrival_order(store, record, seat, body)
        except BaseException:
            if key:
                store.release_response(game_id, key)  # rejected: nothing applied, the key may be used again
            raise
        try:
            view = view_of(new_record, seat)
        except redis.RedisError:  # the move is stored: answer it, without `pending_ai`
            view = game_view(new_record, seat, [])
        if key:
            try:
                store.remember_response(
                    game_id, key, {"request": fingerprint, "status": 200, "body": view},
                    current_app.config["IDEMPOTENCY_TTL_SECONDS"],
                )
            except redis.RedisError:
                log.warning("game %s: the response to an Idempotency-Key was not kept", game_id, exc_info=True)
        return view, 200, {"ETag": f'"{new_record.version}"'}

    def play_in_arrival_order(self, store: GameStore, record: GameRecord, seat: int, body: Any) -> GameRecord:
        """`play`, judged again on the new state when another write won the race, up to `ARRIVAL_RETRIES` times.

        Actions are applied in arrival order, each judged on the state at that moment (talmut.md §3.9). A
        request with `If-Match` named the version it was meant for: it is not retried (409 / 412).
        """
        for _ in range(ARRIVAL_RETRIES):
            try:
                return self.play(store, record, seat, body)
            except VersionConflict:
                if request.if_match:
                    raise
                record = store.load(record.game_id)
        return self.play(store, record, seat, body)

    @staticmethod
    def play(store: GameStore, record: GameRecord, seat: int, body: Any) -> GameRecord:
        """Check the request against the game (finished, action shape, resigned seat, If-Match), then play it."""
        if record.status == "finished":
            abort(409, message="the game is finished", error="game_finished")
        try:
            action = ACTION_SCHEMAS[record.game]().load(body)
        except ValidationError as error:
            abort(422, message=f"not a valid {record.game} action", errors=error.messages, error="invalid_request")
        if record.seats[seat].kind == "ai" and action["type"] != "resign":
            # a resigned player's seat is played by the AI now (talmut.md §3.17); a second resign gets the
            # engine's illegal_action
            abort(403, message="you resigned: the AI plays this seat now", error="not_your_turn")
        if request.if_match and not request.if_match.contains(str(record.version)):
            abort(412, message=f"the game is at version {record.version}", error="precondition_failed")
        return play(store, services().queue, record, seat, action)


@blp.route("/<game_id>/events")
class Events(MethodView):
    """History."""

    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.doc(security=[{}, {"bearer": []}])
    def get(self, query: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """The game's events after version `after`, redacted for the viewer."""
        store = services().store
        record = store.load(game_id)
        seat = viewer_seat(record)
        events = [event_view(stored, seat) for stored in store.events(game_id) if stored["version"] > query["after"]]
        return {"game_id": game_id, "version": record.version, "events": events}
