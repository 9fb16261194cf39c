"""The `easy` Durak AI: cheap-card rules that press the defender, reading only the JSON view
(engine/games/durak/players.py).

Its endgame solving is tested with the search levels' in test_endgame.py."""

from __future__ import annotations

import random

from engine.cards import Suit
from engine.games import durak
from engine.games.durak import DurakState
from engine.players import choose_action, seat_view
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


def test_easy_takes_rather_than_spend_a_trump_while_the_stock_is_large() -> None:
    """durak.md §3.6: taking is a free choice. With 10 cards in the stock any trump is kept back; with 7 to 9 a 7 of
    trumps beats, a queen of trumps is still kept."""
    def defence(stock: str, hand: str) -> dict:
        state = durak.position(Suit.HEARTS, cards(stock + " 6H"), (cards("8C 9D"), cards(hand)), 0)
        state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
        return easy(state, 1)

    assert defence(FILLER, "7H 10D") == {"type": "take"}  # 10 in the stock
    assert defence("6S 7S 8S 9S 10S JS", "7H 10D") == {"type": "defend", "card": "7H", "against": "8C"}  # 7
    assert defence("6S 7S 8S 9S 10S JS", "QH 10D") == {"type": "take"}


def test_easy_throws_in_every_plain_card_and_keeps_its_trumps_until_the_stock_is_empty() -> None:
    """durak.md §3.4: any card of a rank on the table may be added; an ace presses the defender as well as an 8."""
    state = durak.position(Suit.HEARTS, cards(FILLER + " 7H"), (cards("8C 8D AC 9H"), cards("9C 10D AD QC")), 0)
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
    state, _ = durak.apply(state, 1, {"type": "defend", "card": "9C", "against": "8C"})
    assert easy(state, 0) == {"type": "attack", "card": "8D"}
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8D"})
    state, _ = durak.apply(state, 1, {"type": "defend", "card": "AD", "against": "8D"})
    assert easy(state, 0) == {"type": "attack", "card": "AC"}  # an ace is on the table
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "AC"})
    state, _ = durak.apply(state, 1, {"type": "take"})
    assert easy(state, 0) == {"type": "done"}  # 9H is a trump and the stock is not empty


def test_easy_throws_in_a_trump_once_the_stock_is_empty() -> None:
    """With no stock a trump kept back is only a card still to shed (durak.md §5.1: the last to hold cards loses)."""
    state = durak.position(Suit.HEARTS, [], (cards("8C 9H 6D 7D"), cards("9C 10D JD QC AS")), 0)
    state, _ = durak.apply(state, 0, {"type": "attack", "card": "8C"})
    state, _ = durak.apply(state, 1, {"type": "defend", "card": "9C", "against": "8C"})
    assert easy(state, 0) == {"type": "attack", "card": "9H"}
