"""`POST /v1/games/{game_id}/claim`: win (or draw, per the rules of resignation) against an absent player.

HTTP only: what may be claimed is service/presence.py's, the claim service/turns.py `claim`'s (the absent
seat's `resign` through the one write path, with a `claimed` event naming both seats). Contract:
docs/api-additions.md "Presence and claims". The route is on the games blueprint (service/routes/game_blueprint.py).
"""

from __future__ import annotations

import time

from flask.views import MethodView

from service.auth import player_seat, reading_seat
from service.extensions import services
from service.records import GameRecord
from service.routes.game_blueprint import blp, view_response
from service.schemas.games import ETAG_HEADER, LINKS_OF_A_VIEW, ViewSchema
from service.seating import retried
from service.turns import claim


@blp.route("/<game_id>/claim")
class Claim(MethodView):
    """Claim."""

    @blp.doc(operationId="claimGame")
    @blp.response(200, ViewSchema, headers={"ETag": ETAG_HEADER})
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(403, schema="Error", description="not_your_claim")
    @blp.alt_response(404, schema="Error", description="game_not_found")
    @blp.alt_response(
        409,
        schema="Error",
        description="claim_too_early (with Retry-After), claim_not_allowed, "
        "game_finished, game_not_started, version_conflict",
    )
    @blp.doc(security=[{"bearer": []}], responses={200: {"links": LINKS_OF_A_VIEW}})
    def post(self, game_id: str):  # type: ignore[no-untyped-def]
        """Claim against the player the game waits for, who has been away `options.claim_after_seconds`.

        Only in a game created with `options.claim_after_seconds` (never with a clock), by another seated player:
        the absent seat resigns, and the game's rules of resignation decide the rest (a two-seat game: you win;
        Talmut with three seats or more: the AI plays the seat on and the game goes on). Away means not seen (no
        request with the seat's token, no open stream; its `last_seen`) for that long; the view's `claim` says
        from when. Too early: 409 `claim_too_early` with `Retry-After`, the seconds left. The answer is your
        view of the new version, whose events hold `claimed` (`seat`, `by`) before the `resigned` one.
        """

        def attempt() -> tuple[GameRecord, int]:
            record = services().records.load(game_id)
            claimant = player_seat(record)
            return claim(services().store, services().queues, record, claimant, time.time()), claimant

        new_record, claimant = retried(attempt)
        return view_response(new_record, reading_seat(new_record, claimant))
