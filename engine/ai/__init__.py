"""AI players: `choose_action` is the worker's one entry point.

An AI sees exactly what its seat's player would see over HTTP: the `SeatView` (the seat's view and its legal
actions), never the game state. That is the type-level guarantee that no level can peek at hidden cards.
A level may return None only for a seat listed just for actions it is never waited for (Talmut's `match` and
`withdraw`, talmut.md §4.1): the seat chooses to do nothing and the game moves on without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from engine.ai import durak, svoi_koziri, tadmur, talmut
from engine.protocol import Action, Seat


class SeatView(TypedDict):
    """The API view of one seat, as JSON: `state` is the game's view for `you`, `legal_actions` its moves."""

    game: str
    you: Seat
    state: Any
    legal_actions: Sequence[Action]


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


LEVELS: Mapping[str, Mapping[str, Chooser]] = {
    "durak": {"random": random_action, "easy": durak.easy},
    "svoi_koziri": {"random": random_action, "easy": svoi_koziri.easy},
    "tadmur": {"random": random_action, "easy": tadmur.easy},
    "talmut": {"random": talmut.random_level, "easy": talmut.easy},
}


def choose_action(view: SeatView, level: str, rng: random.Random) -> Action | None:
    """The action the AI of `level` plays from `view` (one of `view["legal_actions"]`), or None to do nothing.

    None comes only from a seat listed just for optional actions (the module docstring).

    Raises:
        KeyError: no such game or level (see `LEVELS`).
        ValueError: the seat has nothing to play.
    """
    return LEVELS[view["game"]][level](view, rng)
