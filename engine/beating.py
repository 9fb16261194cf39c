"""Beating one card with another: the rule Durak and Svoi Koziri share.

In both, a card beats another when it is a higher card of the same suit, or a trump on a card of another suit.
The games differ only in whose trump counts: Durak has one trump suit for both seats, Svoi Koziri one per seat.
"""

from __future__ import annotations

from engine.cards import Card, Suit


def beats(card: Card, other: Card, trump: Suit | None) -> bool:
    """Whether `card` beats `other` when `trump` is the trump suit of the player beating.

    Rules: shared/rules/durak.md §3.1; shared/rules/svoi_koziri.md §3.1 (`trump` is the player's own trump suit).
    A trump is beaten only by a higher trump; no trump (None) means only a higher card of the suit beats.

    >>> from engine.cards import parse_french_36 as card
    >>> beats(card("7H"), card("6H"), Suit.HEARTS), beats(card("6H"), card("AS"), Suit.HEARTS)
    (True, True)
    >>> beats(card("AS"), card("6H"), Suit.HEARTS), beats(card("9C"), card("7D"), Suit.HEARTS)
    (False, False)
    """
    if card.suit == other.suit:
        return card.rank > other.rank
    return card.suit == trump
