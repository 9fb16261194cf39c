"""Games: create, lobby, view (ETag, long-poll), stream, actions and events; seats are service/routes/seats.py.

Actions take If-Match and Idempotency-Key. HTTP concerns only: the rules of creating and playing live in
service/turns.py, clocks in service/clocks.py, identity and presence in
service/auth.py, the `Idempotency-Key` protocol in service/idempotency.py, reading and following a game in
service/streams.py (waiting in service/dispatcher.py).
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import abort
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from engine import GAMES
from engine.errors import GameError
from engine.protocol import Action
from service.auth import bearer_token, mark_present, player_seat, reader, reading_seat, unauthorized
from service.extensions import services
from service.idempotency import IdempotentRequest
from service.records import GameRecord, Status, hash_token
from service.redis_clients import STORE_ERRORS
from service.refusals import Refusal
from service.routes.export import replay_response
from service.routes.game_blueprint import blp, etag_of, not_modified, view_of, view_response
from service.schemas.actions import ACTION_LOADERS, action_request_body
from service.schemas.games import (
    CREATE_GAME_EXAMPLE,
    ETAG_HEADER,
    IDEMPOTENCY_KEY,
    IF_MATCH,
    LINKS_OF_A_VIEW,
    NOT_MODIFIED_HEADERS,
    NOTHING_NEW,
    STREAM_EVENT,
    CreateGameSchema,
    EventListSchema,
    EventsQuerySchema,
    GameListQuerySchema,
    GameListSchema,
    SeatedViewSchema,
    StreamHeadersSchema,
    StreamQuerySchema,
    ViewHeadersSchema,
    ViewQuerySchema,
    ViewSchema,
)
from service.seating import invitations, new_seats
from service.store import ClockRanOut
from service.streams import reading_extras, view_events, wait_for_version
from service.turns import create_game, play_in_arrival_order, refuse_resigned_seat, revive_ai_turns
from service.views import event_view, game_view, json_text, with_presence
from service.webhooks import attach, registration

_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false"}


def _what_the_body_is(body: Any) -> str:
    """What an action body that is not a JSON object is, in JSON's words, for the 422 that refuses it.

    `body` is `request.get_json(silent=True)`: None for an empty body, malformed JSON and `null` alike, so the raw
    bytes tell them apart.
    """
    if body is not None:
        return _JSON_TYPES[type(body)]
    raw = request.get_data(cache=True).strip()
    return "empty" if not raw else "null" if raw == b"null" else "not valid JSON"


@blp.route("")
class Games(MethodView):
    """Create games and list the lobby."""

    @blp.doc(operationId="createGame")
    @blp.arguments(CreateGameSchema, example=CREATE_GAME_EXAMPLE)
    @blp.response(201, SeatedViewSchema, headers={"Location": {
        "description": "the new game's URL", "schema": {"type": "string", "example": "/v1/games/9b2f4c0e"},
    }})
    @blp.alt_response(404, schema="Error", description="unknown_game")
    @blp.alt_response(
        422, schema="Error", description="invalid_request, invalid_deck, replay_mismatch, webhook_not_allowed"
    )
    @blp.doc(responses={201: {"links": LINKS_OF_A_VIEW}})
    def post(self, body: dict[str, Any]):  # type: ignore[no-untyped-def]
        """Create a game.

        The creator takes the first human seat and gets its `player_token`. The game starts once every human
        seat is taken; a game of AI seats only starts at once and plays itself. A `private` game is never listed
        in the lobby: its creator gets one `invites` code per other open seat, to share (`POST /seats` with it).
        `options.clock` (every game) adds a turn limit and/or a time bank per seat. A `webhook` is the creator's
        seat's: signed events when it must act and when the game ends. `{"replay": <export>}` plays a finished
        game's export again as a new finished game (201, the spectator view, `player_token` null; 422
        `replay_mismatch` when an action does not apply or the result differs).
        """
        if "replay" in body:
            return replay_response(body)
        webhook = registration(body.get("webhook"), current_app.config["WEBHOOK_ALLOWED_HOSTS"])
        seats, creator, token = new_seats(body["seats"])
        if creator is not None:
            attach(seats[creator], webhook)
        private = body["visibility"] == "private"
        codes = invitations(seats) if private else []
        record = create_game(
            services().store, services().queues, body["game"], seats, body["options"], body.get("deck"),
            body.get("seed"), body["visibility"], codes,
        )
        response = {**view_of(record, creator), "player_token": token}
        if private:
            response["invites"] = [code for code, _ in codes]
            response["invite"] = codes[0][0] if codes else None
        return response, 201, {"Location": f"/v1/games/{record.game_id}"}

    @blp.doc(operationId="listGames")
    @blp.arguments(GameListQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    def get(self, query: dict[str, Any]):  # type: ignore[no-untyped-def]
        """List games: by default those waiting for players (the lobby).

        Filter by `game` and `status`; page with `offset` and `limit` (at most 100). Private games are never
        listed.
        """
        page: list[GameRecord] = []
        has_more = False
        if query.get("game") is None or query["game"] in GAMES:
            page, has_more = services().records.listing(query["status"], query.get("game"), query["offset"],
                                                        query["limit"])
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


@blp.route("/<game_id>")
class GameResource(MethodView):
    """One game as the viewer may see it."""

    @blp.doc(operationId="getGame")
    @blp.arguments(ViewQuerySchema, location="query")
    @blp.response(200, ViewSchema, headers={"ETag": ETAG_HEADER})
    @blp.alt_response(304, description=NOTHING_NEW, headers=NOT_MODIFIED_HEADERS)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.arguments(ViewHeadersSchema, location="headers", as_kwargs=True)  # documents If-None-Match
    @blp.doc(security=[{}, {"bearer": []}], responses={200: {"links": LINKS_OF_A_VIEW}})
    def get(self, query: dict[str, Any], game_id: str, **headers: str):  # type: ignore[no-untyped-def]
        """View a game: your seat's view with a token, the spectator view without.

        The `ETag` is the version. With `after_version=N&wait=S` the request is held up to S seconds (max 30)
        until the version exceeds N; if none came it answers 304, the normal "nothing new yet": poll again. A
        token reads its seat's view while it holds the seat: once its player left (or the seat was handed to
        the AI) a held long-poll answers 401, and the token then gets 401 (a seat freed) or the spectator view
        (a seat the AI plays).
        """
        after = query.get("after_version")
        # a long-poll names the version it has: a copy of that very version vouched for by this process's
        # subscription stands for the read (a write whose message is on its way then wakes the wait, as any later
        # write would); a later copy might be older than what the client was shown elsewhere
        copy = services().records.vouched_copy(game_id, version=after) if after is not None else None
        record = copy or services().records.load(game_id)
        who = reader(record)  # credentials of no seat answer 401 now, not after a long-poll
        # an AI turn whose job died (worker killed) is enqueued again when someone looks (worker/sweeper.py too)
        revive_ai_turns(services().store, services().queues, record, current_app.config["AI_JOB_STALE_SECONDS"])
        if after is not None and query["wait"] > 0 and record.version <= after:
            wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"])
            record = services().records.load(game_id, at_least=wait_for_version(record, after, wait))
            if not who.still_reads(record):  # the seat changed hands while this request was held
                unauthorized(f"this token no longer holds seat {who.seat} of this game")
        # If-None-Match compares weakly (RFC 9110 §13.1.2): W/"17" names version 17 too
        if request.if_none_match.contains_weak(str(record.version)) or (after is not None and record.version <= after):
            return not_modified(record)
        return view_response(record, who.seat)


@blp.route("/<game_id>/stream")
class Stream(MethodView):
    """Push."""

    @blp.doc(operationId="streamGame")
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.arguments(StreamHeadersSchema, location="headers")
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.doc(
        security=[{}, {"bearer": []}],
        responses={
            200: {
                "description": "Server-Sent Events: one `view` event per version (`id:` the version, `data:` the "
                "view as JSON), comment lines to keep the connection open; ends after the finished view, or with "
                "a `revoked` event once the token no longer holds its seat",
                "content": {"text/event-stream": {"schema": STREAM_EVENT}},
            },
        },
    )
    def get(self, query: dict[str, Any], headers: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """Follow a game as Server-Sent Events (`text/event-stream`).

        The first event is your view now (with `after_version`, or `Last-Event-ID` on a reconnection, only
        versions after that one); then one `view` event per new version, `id:` being the version. Versions that
        follow each other quickly may come as one event of the latest view. A comment line every 15 s keeps
        proxies from closing the connection. The stream ends after the event that shows `status: finished`.
        Same authentication and redaction as `GET /v1/games/{game_id}`; once the token no longer holds its seat
        (its player left, the seat changed hands or the AI plays it) the stream ends with an `event: revoked`
        whose `data:` is the 401 error body with the `version` it happened at, before any view of that version.
        """
        record = services().records.load(game_id)
        who = reader(record)  # credentials of no seat answer 401 before the stream starts
        revive_ai_turns(services().store, services().queues, record, current_app.config["AI_JOB_STALE_SECONDS"])
        services().dispatcher.check_room()  # a full process answers 503 now, not an empty stream
        after = headers.get("last_event_id", query.get("after_version"))
        events = stream_with_context(view_events(record, who, after))
        return Response(events, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@blp.route("/<game_id>/actions")
class Actions(MethodView):
    """Play."""

    @blp.doc(operationId="playAction")
    @blp.doc(requestBody=action_request_body())
    @blp.response(200, ViewSchema, headers={"ETag": ETAG_HEADER})
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(403, schema="Error", description="not_your_turn")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="game_finished, game_not_started, version_conflict")
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
        store, token, key = services().store, bearer_token(), request.headers.get("Idempotency-Key")
        name = store.idempotency_key(game_id, hash_token(token), key) if key and token else None
        # no round trip before the move when this process's subscription vouches for its copy of the game; a copy a
        # write has just overtaken (its message on the way) loses the version check, or refuses what the game now
        # allows: then the game itself is read and the action judged on it. Not with If-Match, whose 412 and 409
        # speak of the stored version, nor with an Idempotency-Key, whose first response is read with the game.
        copy = None if name or request.if_match else services().records.vouched_copy(game_id)
        played = None
        if copy is not None:
            try:
                played = self.act(copy, None, None)
            except ClockRanOut:
                raise  # the script checks the version first: the copy was current, and the timeout owns what follows
            except (HTTPException, GameError, Refusal):
                played = None
        if played is None:
            if name is None:
                record, remembered = services().records.load(game_id), None
            else:
                record, remembered = services().records.load_with_response(game_id, name)
            played = self.act(record, remembered, name)
        new_record, seat, idempotent = played
        if not isinstance(new_record, GameRecord):  # the first response, of this request or of a repeat that won
            return new_record["body"], new_record["status"], {"ETag": f'"{new_record["body"]["version"]}"'}
        # the game's next read in this process (its players' next move and view, on their kept-alive connections)
        # then finds this text in Redis and decodes neither the record nor its state again
        services().records.keep(new_record)
        reads = reading_seat(new_record, seat)  # a Talmut resignation hands the seat to the AI: no longer yours
        keep = current_app.config["IDEMPOTENCY_TTL_SECONDS"]
        try:
            pending, seen = reading_extras(new_record)
        except STORE_ERRORS:  # the move is stored: answer it, without `pending_ai` and presence
            view = game_view(new_record, reads, [])
            if idempotent is not None:
                idempotent.remember(view, keep)
            return view, 200, etag_of(new_record)
        if idempotent is not None:
            idempotent.remember(with_presence(game_view(new_record, reads, pending), seen), keep)
        return view_response(new_record, reads, (pending, seen))

    def act(
        self, record: GameRecord, remembered: dict[str, Any] | None, name: str | None
    ) -> tuple[GameRecord | dict[str, Any], int, IdempotentRequest | None]:
        """The request's action played on `record`, or the first response `remembered` for its `Idempotency-Key`.

        `name` is that key's Redis key. Returns what `play_in_arrival_order` returns, the token's seat and the
        idempotent request. Raises what `player_seat`, `judge` and `play_in_arrival_order` raise, all before any
        write (`play` refuses before it stores), so a caller may ask again on another record.

        The seat's presence is written with the move (no round trip of its own); a request that writes no move
        (refused, or a repeat) marks it as any other request does (`mark_present`).
        """
        store, seat, body = services().store, player_seat(record, mark=False), request.get_json(silent=True)
        idempotent = IdempotentRequest(store, name, seat, body) if name else None
        try:
            first = idempotent.first_response(remembered) if idempotent is not None else None
            played = first or play_in_arrival_order(
                store, services().queues, services().records, record, seat,
                lambda current: self.judge(current, seat, body), idempotent, judged_again=not request.if_match,
            )
        except Exception:
            mark_present(record, seat)
            raise
        # after a move, its record shows the mark just written: this process notes it and asks Redis nothing
        mark_present(played if isinstance(played, GameRecord) else record, seat)
        return played, seat, idempotent

    @staticmethod
    def judge(record: GameRecord, seat: int, body: Any) -> Action:
        """`body` checked against `record` (finished, action shape, resigned seat, If-Match): the action to play."""
        if record.status == Status.FINISHED:
            abort(409, message="the game is finished", error="game_finished")
        if not isinstance(body, dict):
            abort(422, message="the body must be a JSON object: one of your legal_actions",
                  errors={"body": [_what_the_body_is(body)]}, error="invalid_request")
        try:
            action: Action = ACTION_LOADERS[record.game].load(body)
        except ValidationError as error:
            abort(422, message=f"not a valid {record.game} action", errors=error.messages, error="invalid_request")
        refuse_resigned_seat(record, seat, action)
        if request.if_match and not request.if_match.contains(str(record.version)):
            abort(412, message=f"the game is at version {record.version}", error="precondition_failed")
        return action


@blp.route("/<game_id>/events")
class Events(MethodView):
    """History."""

    @blp.doc(operationId="listEvents")
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.doc(security=[{}, {"bearer": []}])
    def get(self, query: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """The game's events after version `after`, redacted for the viewer.

        Oldest first, each `{version, type, ...}`; a seat sees its own private fields, a spectator only public ones.
        """
        record = services().records.load(game_id)
        seat = reader(record).seat
        stored_events = services().store.events(game_id)
        # only up to the version whose seats were checked: a later one may have handed the seat to someone else
        events = [event_view(stored, seat) for stored in stored_events
                  if query["after"] < stored["version"] <= record.version]
        # the schema's dump would copy each event unchanged (`Dict` fields): written as Flask would, faster
        body = json_text({"game_id": game_id, "version": record.version, "events": events})
        return current_app.response_class(body + b"\n", mimetype="application/json")


