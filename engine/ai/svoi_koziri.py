"""Svoi Koziri AI levels; each reads only the seat's JSON view (shared/rules/svoi_koziri.md §6.4), never the state."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from engine.protocol import Action

if TYPE_CHECKING:  # engine.ai imports this module, so the type is only needed for checking
    from engine.ai import SeatView

_RANKS = {"6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}


def beat_cost(code: str, own_trump: str) -> int:
    """How much beating with `code` costs: its rank (6..14), plus 100 for a card of the player's own trump suit.

    Own trumps beat any card of another suit (svoi_koziri.md §3.1), so they are the last to spend.

    >>> beat_cost("9S", "H"), beat_cost("6H", "H"), beat_cost("AH", "H")
    (9, 106, 114)
    """
    return _RANKS[code[:-1]] + (100 if code[-1] == own_trump else 0)


def lay_value(code: str, own_trump: str, their_trump: str) -> int:
    """How hard `code` is for the opponent to beat, when laid on the pile (higher is better to lay).

    A card of the opponent's own trump suit is beaten only by a higher card of that suit, and its ace never
    (svoi_koziri.md §3.1), and the opponent takes 5 cards or the whole pile when it cannot (§3.6): those come
    first, highest first. Plain cards follow, highest first. The player's own trumps come last, lowest first: the
    opponent beats them like a plain suit, and they are the player's best beating cards.

    >>> lay_value("AS", "H", "S") > lay_value("6S", "H", "S") > lay_value("AD", "H", "S") > lay_value("6H", "H", "S")
    True
    """
    rank = _RANKS[code[:-1]]
    if code[-1] == their_trump:
        return 200 + rank
    if code[-1] == own_trump:
        return -rank
    return 100 + rank


def easy(view: SeatView, rng: random.Random) -> Action:
    """Level `easy`: a rule bot that lays hard cards and beats cheaply.

    Choosing a trump (blind, before the deal, §7.2) it picks a free suit at random. Leading or playing, it lays the
    card the opponent can least easily beat (`lay_value`). Responding, it beats with the cheapest card
    (`beat_cost`); when it cannot, `take` is its only move. It never resigns. Reads only `view["state"]`
    (svoi_koziri.md §6.4) and `view["legal_actions"]`.

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    actions = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not actions:
        raise ValueError("no legal action to choose from")
    kind = actions[0]["type"]
    if kind in ("choose_trump", "take"):
        return rng.choice(actions)
    trumps = view["state"]["trumps"]
    own, theirs = trumps[view["you"]], trumps[1 - view["you"]]
    if kind == "beat":
        return _best(actions, lambda code: -beat_cost(code, own))
    return _best(actions, lambda code: lay_value(code, own, theirs))


def _best(actions: Sequence[Action], value: Callable[[str], int]) -> Action:
    # max keeps the first of equal values, i.e. the rules' hand order: deterministic.
    return max(actions, key=lambda action: value(action["card"]))
