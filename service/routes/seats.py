"""Seats: take one, leave one, and the rematch's, which its players take through the finished game.

HTTP concerns only: the rules of seating live in service/seating.py, rematches in service/rematch.py, identity in
service/auth.py. The routes are on the games blueprint (service/routes/game_blueprint.py).
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView

from service.auth import bearer_token, player_seat
from service.extensions import services
from service.records import GameRecord
from service.rematch import join_rematch
from service.routes.game_blueprint import blp, view_of
from service.schemas.games import JOIN_EXAMPLE, LINKS_OF_A_VIEW, JoinSchema, LeftSchema, RematchSchema, SeatedViewSchema
from service.seating import leave, retried, take_seat
from service.webhooks import registration


@blp.route("/<game_id>/seats")
class Seats(MethodView):
    """Take a seat."""

    @blp.doc(operationId="joinGame")
    @blp.arguments(JoinSchema, example=JOIN_EXAMPLE)
    @blp.response(201, SeatedViewSchema)
    @blp.alt_response(403, schema="Error", description="invite_required")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="seat_taken, game_full")
    @blp.alt_response(422, schema="Error", description="invalid_request, webhook_not_allowed")
    @blp.doc(responses={201: {"links": LINKS_OF_A_VIEW}})
    def post(self, body: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """Take an open human seat.

        The lowest open seat unless `seat` is given. The game starts when every human seat is taken. A private
        game's seat needs one of its `invite` codes, and each code seats one player once (403 `invite_required`).
        A `webhook` is your seat's: signed events when it must act and when the game ends.
        """
        webhook = registration(body.get("webhook"), current_app.config["WEBHOOK_ALLOWED_HOSTS"])

        def attempt() -> tuple[GameRecord, int, str]:
            record = services().records.load(game_id)
            return take_seat(
                services().store,
                services().queues,
                record,
                body["name"],
                body.get("seat"),
                body.get("invite"),
                webhook,
            )

        record, seat, token = retried(attempt)
        return {**view_of(record, seat), "player_token": token}


@blp.route("/<game_id>/leave")
class Leave(MethodView):
    """Leave."""

    @blp.response(200, LeftSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="game_finished, version_conflict")
    @blp.doc(
        operationId="leaveGame",
        security=[{"bearer": []}],
        responses={
            200: {
                "content": {
                    "application/json": {
                        "examples": {
                            "waiting": {
                                "summary": "a waiting game: the seat is open again",
                                "value": {"game_id": "9b2f4c0e", "seat": 1, "outcome": "seat_freed", "version": 3},
                            },
                            "active": {
                                "summary": "an active game: a resignation",
                                "value": {"game_id": "9b2f4c0e", "seat": 1, "outcome": "resigned", "version": 18},
                            },
                        }
                    }
                }
            }
        },
    )
    def post(self, game_id: str):  # type: ignore[no-untyped-def]
        """Leave a game.

        While it is waiting, your seat is open again and your token stops working (a private game's seat gets
        back the invitation code that took it; the creator's seat, which no code took, a fresh one; the views of
        the players still seated show every unused code as `invites`); if you were its last seated player, the
        game is deleted. While it is active, leaving is resigning (Talmut: the easy AI plays your seat on,
        talmut.md §3.17, and your token reads only the spectator view). Leaving again once your Talmut seat is the
        AI's changes nothing. Your streams and long-polls held meanwhile end (`event: revoked`, 401).
        """

        def attempt() -> dict[str, Any]:
            record = services().records.load(game_id)
            return leave(services().store, services().queues, record, player_seat(record))

        return retried(attempt)


@blp.route("/<game_id>/rematch")
class Rematch(MethodView):
    """Play again."""

    @blp.arguments(RematchSchema, required=False, example={"seed": 7})
    @blp.response(201, SeatedViewSchema)
    @blp.alt_response(200, schema=SeatedViewSchema, description="repeated: your seat in the rematch, as before")
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(409, schema="Error", description="not_finished, version_conflict")
    @blp.doc(operationId="rematchGame", security=[{"bearer": []}], responses={201: {"links": LINKS_OF_A_VIEW}})
    def post(self, body: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """Play a finished game again: the same game, options and seats in one new game.

        The first call creates the rematch (with `seed`, a reproducible deal) and the old game's view and events
        show `rematch: {game_id}`; every seated player who calls gets a seat and a token in that one game
        (201), and calling again returns the same seat and token (200). Players move one seat on where the
        rules let the first seat start (so the starting player changes), and keep their seats in Durak, where
        the lowest trump decides. AI seats keep their levels. The rematch is private: only the old game's
        players take its seats, each through this call; the game starts once all of them have.
        """
        record = services().records.load(game_id)
        seat = player_seat(record)
        token = bearer_token()
        assert token is not None  # player_seat found the token's seat
        new_record, new_seat, new_token, created = join_rematch(
            services().store, services().queues, record, seat, token, (body or {}).get("seed")
        )
        return {**view_of(new_record, new_seat), "player_token": new_token}, 201 if created else 200
