"""`lowest`: the simplest bot there is, a baseline for bench/ai_strength.py (never an offered level).

It plays from the seat's view and legal actions only, like every level (engine/ai/view.py `SeatView`):
- Durak: attacks, throws in and defends with its lowest legal card, every trump counting above every plain card
  (durak.md §3.1); takes only when it cannot beat; never says `done` while it can still add a card.
- Svoi Koziri: chooses as its trump the suit it holds most of; leads, beats and plays its lowest legal card, its
  own trump counting above every plain card (svoi_koziri.md §3.1); takes only when it cannot beat.
- Tadmur: places its lowest placeable card (in hand order, tadmur.md §2.7); passes when it cannot place; never
  guesses.
Talmut has no such one-line policy: its decisions are about the values of face-down cards, not the lowest one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from engine.ai.costs import trump_cost
from engine.ai.view import SeatView
from engine.games.durak.players import lowest_rules_move
from engine.games.tadmur import RANKS
from engine.protocol import Action


def _cheapest(actions: Sequence[Action], cost: Callable[[Action], int]) -> Action:
    return min(actions, key=cost)


def durak(view: SeatView) -> Action:
    """The lowest legal attack or defence; `take` only when nothing beats; `done` only when nothing can be added.

    The engine's statement of this way (engine/games/durak/players.py `lowest_rules_move`), which `hard` reads an
    opponent by (engine/games/durak/reading.py `LOWEST`).
    """
    return lowest_rules_move([action for action in view["legal_actions"] if action["type"] != "resign"],
                             view["state"]["trump_suit"])


def svoi_koziri(view: SeatView) -> Action:
    """Its most-held suit as trump, then the lowest legal card; `take` only when nothing beats."""
    legal = view["legal_actions"]
    state = view["state"]
    choices = [action for action in legal if action["type"] == "choose_trump"]
    if choices:
        held = Counter(code[-1] for code in state["hand"])
        return max(choices, key=lambda action: (held[action["suit"]], action["suit"]))
    trump = state["trumps"][view["you"]]
    cards = [action for action in legal if action["type"] in ("lead", "beat", "play")]
    if cards:
        return _cheapest(cards, lambda action: trump_cost(action["card"], trump))
    return next(action for action in legal if action["type"] == "take")


def tadmur(view: SeatView) -> Action:
    """The lowest placeable card, else a pass; never a guess."""
    legal = view["legal_actions"]
    places = [action for action in legal if action["type"] == "place"]
    if places:
        return _cheapest(places, lambda action: RANKS.index(action["card"][:-1]))
    return next(action for action in legal if action["type"] == "pass")


POLICIES: dict[str, Callable[[SeatView], Action]] = {"durak": durak, "svoi_koziri": svoi_koziri, "tadmur": tadmur}
"""The games `lowest` plays."""


def lowest(view: SeatView, rng: random.Random) -> Action:
    """The `lowest` move of the view's game (a `Chooser`, like the levels of engine/ai; `rng` is unused).

    Raises:
        KeyError: a game `lowest` does not play (Talmut).
    """
    return POLICIES[view["game"]](view)
