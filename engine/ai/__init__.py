"""AI players: `choose_action` is the worker's one entry point.

An AI sees exactly what its seat's player would see over HTTP: the `SeatView` (the seat's view and its legal
actions), never the game state. That is the type-level guarantee that no level can peek at hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from engine.ai import durak
from engine.protocol import Action, Seat


class SeatView(TypedDict):
    """The API view of one seat, as JSON: `state` is the game's view for `you`, `legal_actions` its moves."""

    game: str
    you: Seat
    state: Any
    legal_actions: Sequence[Action]


Chooser = Callable[[SeatView, random.Random], Action]


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
}


def choose_action(view: SeatView, level: str, rng: random.Random) -> Action:
    """The action the AI of `level` plays from `view` (one of `view["legal_actions"]`).

    Raises:
        KeyError: no such game or level (see `LEVELS`).
        ValueError: the seat has nothing to play.
    """
    return LEVELS[view["game"]][level](view, rng)
