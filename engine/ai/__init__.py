"""AI players: `choose_action` is the worker's one entry point.

An AI sees exactly what its seat's player would see over HTTP: the `SeatView` (the seat's view and its legal
actions), never the game state. That is the type-level guarantee that no level can peek at hidden cards.
A level may return None only for a seat listed just for actions it is never waited for (Talmut's `match` and
`withdraw`, talmut.md §4.1): the seat chooses to do nothing and the game moves on without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any, NotRequired, TypedDict

from engine.protocol import JSON, Action, Event, Seat
from engine.redaction import event_for


class SeatView(TypedDict):
    """The API view of one seat, as JSON: `state` is the game's view for `you`, `legal_actions` its moves.

    `history` (optional) is the game's event list as `you` may see it over `GET /events` (`{"version": v,
    "type": ..., fields}`, oldest first); the search levels read it, the rule bots do not.
    """

    game: str
    you: Seat
    state: Any
    legal_actions: Sequence[Action]
    history: NotRequired[Sequence[JSON]]


def seat_view(game_id: str, state: Any, seat: Seat, history: Sequence[JSON] = ()) -> SeatView:
    """The `SeatView` of `seat` in an active game's `state`, exactly as the worker builds it from the API view.

    For engine-only callers (the benchmark, tests); the worker uses `service.views.ai_seat_view`.
    """
    from engine.games import GAMES

    game = GAMES[game_id]
    legal = [dict(action) for action in game.legal_actions(state, seat)] if seat in game.to_act(state) else []
    return SeatView(
        game=game_id, you=seat, state=game.view(state, seat).state, legal_actions=legal, history=list(history)
    )


def history_entry(version: int, event: Event, seat: Seat) -> dict[str, JSON]:
    """One event as `seat` sees it in `GET /events`: what `service.views.event_view` returns for it."""
    return {"version": version, **event_for(event, seat)}


from engine.ai import durak, search, svoi_koziri, tadmur, talmut  # noqa: E402 - they import SeatView from here

Chooser = Callable[[SeatView, random.Random], Action | None]


def random_action(view: SeatView, rng: random.Random) -> Action:
    """Level `random`: uniform over the legal actions other than `resign` (a baseline that always plays on).

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    playable = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not playable:
        raise ValueError("no legal action to choose from")
    return rng.choice(playable)


SEARCH_HOOKS: Mapping[str, ModuleType] = {
    "durak": durak, "svoi_koziri": svoi_koziri, "tadmur": tadmur, "talmut": talmut
}
"""Per game, the module holding its determinizer `sample_state` and playout hooks (engine.ai.search)."""
DETERMINIZERS: Mapping[str, Callable[[SeatView, Sequence[JSON], random.Random], Any]] = {
    game_id: module.sample_state for game_id, module in SEARCH_HOOKS.items()
}
"""Per game, `sample_state(view, history, rng)`: a full state consistent with what the seat knows."""

LEVELS: Mapping[str, Mapping[str, Chooser]] = {
    "durak": {"random": random_action, "easy": durak.easy, "medium": search.level("medium"),
              "hard": search.level("hard")},
    "svoi_koziri": {"random": random_action, "easy": svoi_koziri.easy, "medium": search.level("medium"),
                    "hard": search.level("hard")},
    "tadmur": {"random": random_action, "easy": tadmur.easy, "medium": search.level("medium"),
               "hard": search.level("hard")},
    "talmut": {"random": talmut.random_level, "easy": talmut.easy,
               "medium": search.level("medium", talmut.search_first),
               "hard": search.level("hard", talmut.search_first)},
}
"""Per game, its AI levels from weakest to strongest: `GET /v1/rules/{game}` lists them in this order."""


def choose_action(view: SeatView, level: str, rng: random.Random) -> Action | None:
    """The action the AI of `level` plays from `view` (one of `view["legal_actions"]`), or None to do nothing.

    None comes only from a seat listed just for optional actions (the module docstring).

    Raises:
        KeyError: no such game or level (see `LEVELS`).
        ValueError: the seat has nothing to play.
    """
    return LEVELS[view["game"]][level](view, rng)
