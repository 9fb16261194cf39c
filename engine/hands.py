"""Hands per seat, as tuples indexed by seat: laying a card from one, adding cards to one.

Games keep `hands: tuple[tuple[Card, ...], ...]` in their frozen states; these helpers return new tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.cards import Card
from engine.errors import IllegalAction
from engine.protocol import Seat

Hand = tuple[Card, ...]
Hands = tuple[Hand, ...]


def missing_from_hand(hand: Hand, card: Card) -> str | None:
    """Why the actor cannot play `card` from its `hand`, or None when it holds it.

    The reason names the actor's own card, never another's: "QS is not in your hand".
    """
    return None if card in hand else f"{card} is not in your hand"


def lay_card(hands: Hands, seat: Seat, card: Card) -> Hands:
    """`hands` with `card` gone from `seat`'s hand (the order of the rest is kept).

    Raises:
        IllegalAction: `card` is not in that hand (`missing_from_hand`).

    >>> from engine.cards import parse_french_36 as card
    >>> lay_card(((card("6S"), card("7S")), (card("8S"),)), 0, card("6S"))
    ((Card(7S),), (Card(8S),))
    """
    reason = missing_from_hand(hands[seat], card)
    if reason is not None:
        raise IllegalAction(reason)
    return _replace(hands, seat, tuple(other for other in hands[seat] if other != card))


def add_cards(hands: Hands, seat: Seat, cards: Iterable[Card], order: Callable[[Iterable[Card]], Hand]) -> Hands:
    """`hands` with `cards` added to `seat`'s hand, which is then sorted by `order` (the game's hand order).

    >>> from engine.cards import parse_french_36 as card, suit_then_rank
    >>> add_cards(((card("7S"),), ()), 0, [card("6H"), card("6S")], suit_then_rank)
    ((Card(6S), Card(7S), Card(6H)), ())
    """
    return _replace(hands, seat, order((*hands[seat], *cards)))


def hidden_hands(hands: Hands, viewer: Seat | None) -> set[Card]:
    """The cards of every hand but `viewer`'s (None, a spectator: all of them).

    >>> from engine.cards import parse_french_36 as card
    >>> sorted(hidden_hands(((card("6S"),), (card("7S"),)), 0))
    [Card(7S)]
    """
    return {card for owner, hand in enumerate(hands) if owner != viewer for card in hand}


def _replace(hands: Hands, seat: Seat, hand: Hand) -> Hands:
    return tuple(hand if owner == seat else other for owner, other in enumerate(hands))
