"""AI players of every game offered: `choose_action` is the worker's one entry point.

An AI sees exactly what its seat's player would see over HTTP: the `SeatView` (engine/ai/view.py), never the game
state. A level may return None only for a seat listed just for actions it is never waited for (Talmut's `match`
and `withdraw`, talmut.md §4.1): the seat chooses to do nothing and the game moves on without it. Every table here
is derived from the games' declarations (`engine.games.DECLARED`, each game's `players.PLAYERS`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai.levels import LEVEL_DESCRIPTIONS, Chooser, random_action
from engine.ai.search import SearchHooks
from engine.ai.view import SeatView, history_entry
from engine.games import DECLARED, GAMES
from engine.protocol import JSON, Action, Seat

__all__ = ["DETERMINIZERS", "LEVELS", "LEVEL_DESCRIPTIONS", "SEARCH_HOOKS", "Chooser", "SeatView", "choose_action",
           "history_entry", "random_action", "reads_history", "seat_view"]


def seat_view(game_id: str, state: Any, seat: Seat, history: Sequence[JSON] = ()) -> SeatView:
    """The `SeatView` of `seat` in an active game's `state`, exactly as the worker builds it from the API view.

    For engine-only callers (the benchmark, tests); the worker uses `service.views.ai_seat_view`.
    """
    game = GAMES[game_id]
    legal = [dict(action) for action in game.legal_actions(state, seat)] if seat in game.to_act(state) else []
    return SeatView(
        game=game_id, you=seat, state=game.view(state, seat).state, legal_actions=legal, history=list(history)
    )


SEARCH_HOOKS: Mapping[str, SearchHooks[Any]] = {game_id: game.players.search for game_id, game in DECLARED.items()}
"""Per game, the hooks its search levels use (`SEARCH` of engine/games/<game>/players.py)."""
DETERMINIZERS: Mapping[str, Callable[[SeatView, Sequence[JSON], random.Random], Any]] = {
    game_id: hooks.sample_state for game_id, hooks in SEARCH_HOOKS.items()
}
"""Per game, `sample_state(view, history, rng)`: a full state consistent with what the seat knows."""
LEVELS: Mapping[str, Mapping[str, Chooser]] = {game_id: game.players.levels() for game_id, game in DECLARED.items()}
"""Per game, its AI levels from weakest to strongest: `GET /v1/rules/{game}` lists them in this order."""


def reads_history(game_id: str, level: str) -> bool:
    """Whether `level` of `game_id` reads `view["history"]`: the worker loads the events only for those that do.

    >>> reads_history("durak", "easy"), reads_history("tadmur", "easy"), reads_history("tadmur", "hard")
    (True, False, True)
    """
    return DECLARED[game_id].players.reads_history(level)


def choose_action(view: SeatView, level: str, rng: random.Random) -> Action | None:
    """The action the AI of `level` plays from `view` (one of `view["legal_actions"]`), or None to do nothing.

    None comes only from a seat listed just for optional actions (the module docstring).

    Raises:
        KeyError: no such game or level (see `LEVELS`).
        ValueError: the seat has nothing to play.
    """
    return LEVELS[view["game"]][level](view, rng)
