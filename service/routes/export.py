"""A finished game's export, `GET /v1/games/{game_id}/export`, and its replay's answer.

docs/api-additions.md "Finished-game export and replay". HTTP only: the export and the replay are
service/export.py's; the replay's route is `POST /v1/games` (service/routes/games.py), which hands a body with
`replay` to `replay_response` here. The route is on the games blueprint (service/routes/game_blueprint.py).
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView

from service.auth import reader
from service.export import export_of, move_list_text, replayed_game
from service.extensions import services
from service.routes.game_blueprint import blp
from service.schemas.export import ExportQuerySchema, ExportSchema
from service.turns import store_finished
from service.views import game_view, with_presence


@blp.route("/<game_id>/export")
class Export(MethodView):
    """The whole of a finished game."""

    @blp.doc(operationId="exportGame")
    @blp.arguments(ExportQuerySchema, location="query")
    @blp.response(200, ExportSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(406, schema="Error", description="not_acceptable")
    @blp.alt_response(409, schema="Error", description="not_finished, not_exportable")
    @blp.doc(
        security=[{}, {"bearer": []}],
        responses={
            200: {
                "content": {
                    "text/plain": {
                        "schema": {"type": "string"},
                        "example": "Durak, Cardroom game 9b2f4c0e\nP0: Ann\nP1: AI easy\n...",
                    }
                }
            }
        },
    )
    def get(self, query: dict[str, Any], game_id: str):  # type: ignore[no-untyped-def]
        """Export a finished game: everything, nothing hidden (every deal, hand and move, in order).

        Anyone who may read the game may export it once it is finished (a token of no seat gets 401, as on
        `GET /v1/games/{game_id}`); before, 409 `not_finished`. `POST /v1/games` with `{"replay": <export>}` plays
        it again. `format=text` gives a Durak game as a plain-text move list people read (406 for other games).
        """
        record = services().records.load(game_id)
        reader(record)  # credentials of no seat answer 401, as every read of the game does
        export = export_of(record, services().store.events(game_id))
        if query["format"] == "text":
            return current_app.response_class(move_list_text(export), mimetype="text/plain")
        return export


def replay_response(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """`POST /v1/games` with `replay`: the new finished game stored, its spectator view with `player_token` null.

    `body` is `CreateGameSchema`'s load with `replay` (the export, checked by `ExportSchema`) and `visibility`.
    Returns the view, 201 and its `Location`.

    Raises:
        UnknownGame: the export's game is not offered (404).
        InvalidSetup, InvalidOptions: its seats or options are not the game's (422).
        InvalidDeck: its deck is not the game's, or not `seed`'s shuffle though `shuffled` (422).
        ReplayMismatch: an action does not apply, or the result differs (422, `action_index`).
    """
    record, events = replayed_game(body["replay"], body["visibility"])
    store_finished(services().store, record, events)
    # a new finished game: no AI turn pending, no seat ever seen
    view = with_presence(game_view(record, None, []), {})
    return {**view, "player_token": None}, 201, {"Location": f"/v1/games/{record.game_id}"}
