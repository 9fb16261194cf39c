"""`GET /v1/rules` and `GET /v1/rules/{game}`: the games offered."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import abort

from engine import GAMES
from engine.ai.ratings import RATINGS
from engine.players import LEVEL_DESCRIPTIONS, LEVELS
from service.extensions import Blueprint
from service.schemas.games import RulesSchema

blp = Blueprint("rules", __name__, url_prefix="/v1/rules", description="The games offered and their options")


def describe(game_id: str) -> dict[str, Any]:
    """The rules entry of one game: id, title, seat counts, options with defaults, action types, AI levels.

    Each AI level also comes with what it does and its measured rating (`ai_level_details`). `rules` names the
    developers' specification in the project; `rules_page` is the players' rules page this server serves
    (service/routes/web.py), in four languages.
    """
    game = GAMES[game_id]
    return {
        "id": game.ID,
        "title": game.TITLE,
        "seats": {"min": game.SEATS.start, "max": game.SEATS.stop - 1},
        "options": game.describe_options(),
        "action_types": list(game.ACTIONS),
        "ai_levels": list(LEVELS[game_id]),
        "ai_level_details": [level_details(game_id, level) for level in LEVELS[game_id]],
        "rules": f"docs/rules/{game_id}.md",
        "rules_page": f"/rules/{game_id}",
    }


def level_details(game_id: str, level: str) -> dict[str, Any]:
    """One AI level of a game: its description (engine/ai LEVEL_DESCRIPTIONS) and measured rating, if any."""
    measured = RATINGS.get(game_id, {}).get(level)
    return {
        "level": level,
        "description": LEVEL_DESCRIPTIONS[level],
        "rating": None if measured is None else measured[0],
        "rating_interval": None if measured is None else list(measured[1:]),
    }


@blp.route("")
class RulesList(MethodView):
    """The games offered."""

    @blp.doc(operationId="listRules")
    @blp.response(200, RulesSchema(many=True))
    def get(self):  # type: ignore[no-untyped-def]
        """List the games offered.

        Each with its seat counts, options and their defaults, action types and AI levels, sorted by id.
        """
        return [describe(game_id) for game_id in sorted(GAMES)]


@blp.route("/<game>")
class Rules(MethodView):
    """One game's rules entry."""

    @blp.doc(operationId="getRules")
    @blp.response(200, RulesSchema)
    @blp.alt_response(404, schema="Error", description="unknown_game")
    def get(self, game: str):  # type: ignore[no-untyped-def]
        """Describe one game: seats, options, action types, AI levels.

        `ai_levels` are the values a seat's `level` may take when creating a game; 404 `unknown_game` otherwise.
        """
        if game not in GAMES:
            abort(404, message=f"no game called {game!r}", error="unknown_game")
        return describe(game)
