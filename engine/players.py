"""AI players: `choose_action` is the worker's one entry point.

An AI sees exactly what its seat's player would see over HTTP: the `SeatView` (engine/ai/view.py), never the game
state. A level may return None only for a seat listed just for actions it is never waited for (Talmut's `match`
and `withdraw`, talmut.md §4.1): the seat chooses to do nothing and the game moves on without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai import search
from engine.ai.search import SearchHooks
from engine.ai.view import SeatView, history_entry
from engine.games import GAMES
from engine.games.durak import players as durak
from engine.games.svoi_koziri import players as svoi_koziri
from engine.games.tadmur import players as tadmur
from engine.games.talmut import players as talmut
from engine.protocol import JSON, Action, Seat

__all__ = ["DETERMINIZERS", "LEVELS", "LEVEL_DESCRIPTIONS", "SEARCH_HOOKS", "Chooser", "SeatView", "choose_action",
           "history_entry", "random_action", "reads_history", "seat_view"]

Chooser = Callable[[SeatView, random.Random], Action | None]


def random_action(view: SeatView, rng: random.Random) -> Action:
    """Level `random`: uniform over the legal actions other than `resign` (a baseline that always plays on).

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    playable = search.playable_actions(view)
    if not playable:
        raise ValueError("no legal action to choose from")
    return rng.choice(playable)


def seat_view(game_id: str, state: Any, seat: Seat, history: Sequence[JSON] = ()) -> SeatView:
    """The `SeatView` of `seat` in an active game's `state`, exactly as the worker builds it from the API view.

    For engine-only callers (the benchmark, tests); the worker uses `service.views.ai_seat_view`.
    """
    game = GAMES[game_id]
    legal = [dict(action) for action in game.legal_actions(state, seat)] if seat in game.to_act(state) else []
    return SeatView(
        game=game_id, you=seat, state=game.view(state, seat).state, legal_actions=legal, history=list(history)
    )


SEARCH_HOOKS: Mapping[str, SearchHooks[Any]] = {
    module.SEARCH.game.ID: module.SEARCH for module in (durak, svoi_koziri, tadmur, talmut)
}
"""Per game, the hooks its search levels use (`SEARCH` of engine/ai/<game>.py)."""
DETERMINIZERS: Mapping[str, Callable[[SeatView, Sequence[JSON], random.Random], Any]] = {
    game_id: hooks.sample_state for game_id, hooks in SEARCH_HOOKS.items()
}
"""Per game, `sample_state(view, history, rng)`: a full state consistent with what the seat knows."""


def _levels(random_level: Chooser, easy: Chooser, hooks: SearchHooks[Any]) -> dict[str, Chooser]:
    return {"random": random_level, "easy": easy, **{name: search.level(name, hooks) for name in search.SEARCH_LEVELS}}


LEVELS: Mapping[str, Mapping[str, Chooser]] = {
    "durak": _levels(random_action, durak.easy, durak.SEARCH),
    "svoi_koziri": _levels(random_action, svoi_koziri.easy, svoi_koziri.SEARCH),
    "tadmur": _levels(random_action, tadmur.easy, tadmur.SEARCH),
    "talmut": _levels(talmut.random_level, talmut.easy, talmut.SEARCH),
}
"""Per game, its AI levels from weakest to strongest: `GET /v1/rules/{game}` lists them in this order."""
_EASY_READS_HISTORY = frozenset({"durak"})
"""The games whose `easy` reads the history: Durak's solves endgames from the cards the history shows gone."""


def reads_history(game_id: str, level: str) -> bool:
    """Whether `level` of `game_id` reads `view["history"]`: the worker loads the events only for those that do.

    >>> reads_history("durak", "easy"), reads_history("tadmur", "easy"), reads_history("tadmur", "hard")
    (True, False, True)
    """
    return level in search.SEARCH_LEVELS or (level == "easy" and game_id in _EASY_READS_HISTORY)


LEVEL_DESCRIPTIONS: Mapping[str, str] = {
    "random": "Plays a legal move chosen at random and never resigns: a baseline, not an opponent.",
    "easy": "A rule bot: it plays by a few rules of thumb of the game, at once (in Durak it also plays the last "
            "few cards exactly).",
    "medium": "Searches the game tree over the hands its seat may face (information-set Monte Carlo tree search) "
              "with a tenth of hard's work, in well under a second; in a small Durak or Svoi Koziri endgame it "
              "first tries to solve the rest exactly. In Talmut it calls when a call, played out over those "
              "hands, gives it the round's lowest points at least half the time, and matches only cards it knows.",
    "hard": "The same search with ten times the work, up to about a second per move; once a Durak or Svoi Koziri "
            "endgame is small enough to solve within its budget, it plays a won position perfectly.",
}
"""What each level does, for players choosing one (`GET /v1/rules/{game}`); engine/ai/ratings.py measures them."""


def choose_action(view: SeatView, level: str, rng: random.Random) -> Action | None:
    """The action the AI of `level` plays from `view` (one of `view["legal_actions"]`), or None to do nothing.

    None comes only from a seat listed just for optional actions (the module docstring).

    Raises:
        KeyError: no such game or level (see `LEVELS`).
        ValueError: the seat has nothing to play.
    """
    return LEVELS[view["game"]][level](view, rng)
