"""The `easy` Durak AI: cheap-card rules, reading only the JSON view (engine/ai/durak.py)."""

from __future__ import annotations

import random

from engine.ai import choose_action, seat_view
from engine.cards import Suit
from engine.games import durak
from engine.games.durak import DurakState
from tests.decks import cards

FILLER = "6S 7S 8S 9S 10S JS QS KS AS"  # a large stock, so the game is early




def easy(state: DurakState, seat: int) -> dict:
    return dict(choose_action(seat_view("durak", state, seat), "easy", random.Random(0)))


def test_easy_opens_with_lowest_non_trump() -> None:
    """durak.md §3.2: any card may open; the bot keeps its trumps."""
    state = durak.position(Suit.HEARTS, cards(FILLER + " 7H"), (cards("6H 9D 8C JC"), cards("6D 7D 8D")), 0)
    assert easy(state, 0) == {"type": "attack", "card": "8C"}


def test_easy_defends_with_cheapest_beating_card() -> None:
    """durak.md §3.1: of the cards that beat, the lowest non-trump."""
    state = durak.position(Suit.HEARTS, cards(FILLER + " 7H"), (cards("8C 9D"), cards("6H 9C QC 10D")), 0)
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
    assert easy(state, 1) == {"type": "defend", "card": "9C", "against": "8C"}


def test_easy_takes_rather_than_spend_a_high_trump_early() -> None:
    """durak.md §3.6: taking is a free choice; a queen of trumps is worth more than one card early on."""
    state = durak.position(Suit.HEARTS, cards(FILLER + " 7H"), (cards("8C 9D"), cards("QH 10D")), 0)
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
    assert easy(state, 1) == {"type": "take"}


def test_easy_adds_cheap_cards_then_stops() -> None:
    """durak.md §3.4, §3.7: adds a matching low card, keeps high cards and trumps while the stock is large."""
    state = durak.position(Suit.HEARTS, cards(FILLER + " 7H"), (cards("8C 8D AC AD 9H"), cards("9C 10D JD QC")), 0)
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
    state, _ = durak.apply(state, 1, {"type": "defend", "card": "9C", "against": "8C"})
    assert easy(state, 0) == {"type": "attack", "card": "8D"}
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8D"})
    state, _ = durak.apply(state, 1, {"type": "defend", "card": "10D", "against": "8D"})
    assert easy(state, 0) == {"type": "done"}  # 9H is a trump, AC/AD are not on the table
