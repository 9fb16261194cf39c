"""Durak AI levels; each reads only the seat's JSON view (shared/rules/durak.md §6.4), never the state."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.protocol import Action

if TYPE_CHECKING:  # engine.ai imports this module, so the type is only needed for checking
    from engine.ai import SeatView

_RANKS = {"6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
_HIGH = 11
"""Jacks and above count as high cards: kept back while the stock is large."""
_EARLY = 6
"""While the stock holds more cards than this the game is early: trumps and high cards are worth saving."""


def card_cost(code: str, trump: str) -> int:
    """How much playing `code` costs the player: its rank (6..14), plus 100 for a trump.

    >>> card_cost("9S", "H"), card_cost("6H", "H"), card_cost("AH", "H")
    (9, 106, 114)
    """
    return _RANKS[code[:-1]] + (100 if code[-1] == trump else 0)


def easy(view: SeatView, rng: random.Random) -> Action:
    """Level `easy`: a cheap-card rule bot.

    Attacking, it opens with its lowest non-trump and adds cards only while they are cheap (no trump, and no card
    of rank J or above while the stock is large), else ends the bout. Defending, it beats with the cheapest card,
    but takes rather than spend a trump of rank Q or above while the stock is large. It never resigns. Reads only
    `view["state"]` (durak.md §6.4) and `view["legal_actions"]`; `rng` breaks no ties (the choice is
    deterministic) and is accepted for the common signature.

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    actions = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not actions:
        raise ValueError("no legal action to choose from")
    state = view["state"]
    trump: str = state["trump_suit"]
    early = state["stock_size"] > _EARLY
    by_type: dict[str, list[Action]] = {}
    for action in actions:
        by_type.setdefault(action["type"], []).append(action)

    if "take" in by_type:  # defending
        defences = by_type.get("defend", [])
        if not defences:
            return by_type["take"][0]
        cheapest = _cheapest(defences, trump)
        code = cheapest["card"]
        if early and code[-1] == trump and _RANKS[code[:-1]] >= 12:
            return by_type["take"][0]  # a high trump is worth more than a few cards now
        return cheapest

    attacks = by_type.get("attack", [])
    if "done" not in by_type:  # opening a bout: an attack is the only move
        return _cheapest(attacks, trump)
    cheap = [
        action
        for action in attacks
        if action["card"][-1] != trump and not (early and _RANKS[action["card"][:-1]] >= _HIGH)
    ]
    if cheap:
        return _cheapest(cheap, trump)
    return by_type["done"][0]


def _cheapest(actions: Sequence[Action], trump: str) -> Action:
    # min keeps the first of equal costs, i.e. the rules' hand order: deterministic.
    return min(actions, key=lambda action: card_cost(action["card"], trump))
