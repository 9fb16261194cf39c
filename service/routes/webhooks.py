"""A seat's webhook: its URL and latest delivery, for the token that holds the seat (service/webhooks.py).

HTTP only, on the games blueprint (service/routes/game_blueprint.py); registering a webhook is part of
`POST /v1/games` and `POST /seats` (service/routes/games.py, service/routes/seats.py).
"""

from __future__ import annotations

from flask.views import MethodView

from service.auth import player_seat, unauthorized
from service.extensions import services
from service.routes.game_blueprint import blp
from service.schemas.webhooks import WebhookStatusSchema
from service.webhooks import webhook_status


@blp.route("/<game_id>/seats/<int:seat>/webhook")
class SeatWebhook(MethodView):
    """One seat's webhook."""

    @blp.doc(operationId="getSeatWebhook", security=[{"bearer": []}])
    @blp.response(
        200,
        WebhookStatusSchema,
        example={
            "url": "https://bots.example.com/cardroom",
            "last_delivery": {
                "event": "your_turn",
                "version": 7,
                "status": "delivered",
                "http_status": 200,
                "attempts": 1,
                "at": "2026-12-07T10:00:00.000Z",
            },
        },
    )
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found, webhook_not_found")
    def get(self, game_id: str, seat: int):  # type: ignore[no-untyped-def]
        """Your seat's webhook: its URL and the latest delivery attempt (never its secret).

        Only the token that holds the seat reads it (401 otherwise); 404 `webhook_not_found` when the seat has
        none, or only one its previous holder registered. `last_delivery` is null before the first attempt.
        """
        record = services().records.load(game_id)
        if player_seat(record) != seat:
            unauthorized(f"this token does not hold seat {seat} of this game")
        return webhook_status(services().store, record, seat)
