"""Cards, suits, decks and card codes (shared/API.md "Cards").

A card is a frozen `Card(rank, suit)`. French ranks run 2..14 (J=11, Q=12, K=13, A=14) and Spanish ranks 1..12.
On the wire a card is a code, rank then suit letter: `10H`, `QS`, `AC`; Spanish `12O`, `1B`. The letter `C` is
clubs in a French deck and copas in a Spanish one, so codes are parsed with the game's deck.
Rank order and adjacency are rules and live in the game modules, not here.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import total_ordering

from engine.errors import InvalidDeck


@total_ordering
class Suit(Enum):
    """A suit; `letter` is its code letter, `spanish` tells the deck family.

    Suits order by declaration (`S H D C O C E B`) only so that `Card`'s ordering works for cards of equal
    rank; like `Card`'s ordering it serves stable sorting, never a rule.

    >>> sorted([Suit.CLUBS, Suit.SPADES]) == [Suit.SPADES, Suit.CLUBS]
    True
    """

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"
    OROS = "O"
    COPAS = "Cs"
    ESPADAS = "E"
    BASTOS = "B"

    @property
    def letter(self) -> str:
        """The one-letter code: `S H D C` (French) or `O C E B` (Spanish)."""
        return self.value[0]

    @property
    def spanish(self) -> bool:
        """True for the Spanish suits."""
        return self in SPANISH_SUITS

    def __lt__(self, other: object) -> bool:
        # Without this, sorting two cards of one rank raised TypeError (Enum members are unordered).
        if not isinstance(other, Suit):
            return NotImplemented
        return _SUIT_INDEX[self] < _SUIT_INDEX[other]


FRENCH_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
SPANISH_SUITS = (Suit.OROS, Suit.COPAS, Suit.ESPADAS, Suit.BASTOS)
_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}
_FRENCH_FACES = {11: "J", 12: "Q", 13: "K", 14: "A"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. Ordering is by (rank, suit) and only serves stable sorting, never a rule.

    `code` is the wire code, e.g. `10H`, `QS`, `12O`; worked out once, when the card is made, because views,
    legal actions, events and stored states ask for it all the time.

    >>> Card(12, Suit.SPADES).code, Card(12, Suit.OROS).code, Card(10, Suit.COPAS).code
    ('QS', '12O', '10C')
    """

    rank: int
    suit: Suit
    code: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        face = str(self.rank) if self.suit.spanish else _FRENCH_FACES.get(self.rank, str(self.rank))
        object.__setattr__(self, "code", f"{face}{self.suit.letter}")

    @property
    def rank_code(self) -> str:
        """The rank part of the code, as rules and messages name a rank: `10`, `Q`, `A`, `12`.

        >>> Card(10, Suit.HEARTS).rank_code, Card(12, Suit.SPADES).rank_code, Card(12, Suit.OROS).rank_code
        ('10', 'Q', '12')
        """
        return self.code[:-1]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


def french_deck(lowest_rank: int = 2) -> tuple[Card, ...]:
    """The French deck in canonical order: suits `S H D C`, each rank `lowest_rank`..A ascending.

    `lowest_rank` 6 gives the 36-card deck of Durak (shared/rules/durak.md §2.2), 2 the 52-card deck.

    >>> [c.code for c in french_deck(6)[:3]], len(french_deck(6)), french_deck()[-1].code
    (['6S', '7S', '8S'], 36, 'AC')
    """
    return tuple(Card(rank, suit) for suit in FRENCH_SUITS for rank in range(lowest_rank, 15))


FRENCH_36 = french_deck(6)
"""The 36-card French deck 6..A in canonical order (durak.md §2.2, svoi_koziri.md §2.2)."""
_FRENCH_36_CODES = {card.code: card for card in FRENCH_36}
FRENCH_36_NUMBER = {card: number for number, card in enumerate(FRENCH_36)}
"""Each card's index in `FRENCH_36`, the card numbers of the Durak and Svoi Koziri fast paths (engine/ai/*_playout.py):
numbers sort in hand order, a card's suit is `number // 9` and its rank `6 + number % 9`."""
FRENCH_36_NUMBER_OF_CODE = {card.code: number for number, card in enumerate(FRENCH_36)}
"""`FRENCH_36_NUMBER` by code: a code's hash is kept by the string, a card's is worked out anew each time."""


def parse_french_36(code: str) -> Card:
    """The card of a code of the 36-card deck (6..A), exact spelling.

    Raises:
        KeyError: not one of the 36 codes (`5H`, `10h` and Spanish codes are not).

    >>> parse_french_36("10H")
    Card(10H)
    """
    return _FRENCH_36_CODES[code]


def suit_then_rank(cards: Iterable[Card]) -> tuple[Card, ...]:
    """`cards` by suit (`S H D C`, then the Spanish suits), then rank ascending; trumps get no special place.

    The hand order of Durak and Svoi Koziri (durak.md §2.2, svoi_koziri.md §2.2).

    >>> [card.code for card in suit_then_rank(map(parse_french_36, ["JC", "6H", "10S", "8C", "7S", "9D"]))]
    ['7S', '10S', '6H', '9D', '8C', 'JC']
    """
    return tuple(sorted(cards, key=lambda card: (card.suit, card.rank)))


def spanish_deck(ranks: Iterable[int]) -> tuple[Card, ...]:
    """The Spanish deck of the given ranks in canonical order: suits `O C E B`, ranks ascending.

    >>> [c.code for c in spanish_deck([1, 2, 10, 11, 12])[:6]]
    ['1O', '2O', '10O', '11O', '12O', '1C']
    """
    ranks = sorted(ranks)
    return tuple(Card(rank, suit) for suit in SPANISH_SUITS for rank in ranks)


def code_map(deck: Iterable[Card]) -> dict[str, Card]:
    """Code -> card for every card of `deck`: the parser for one game's codes."""
    return {card.code: card for card in deck}


def parse_deck(codes: object, full_deck: Sequence[Card]) -> tuple[Card, ...]:
    """Parse a client's `deck`: a list of codes that must be a permutation of `full_deck`.

    Returns the cards top first (shared/API.md "Resources").

    Raises:
        InvalidDeck: not a list, a non-string or unknown code (exact spelling: `10h` is unknown), a duplicate,
            a missing card, or the wrong length.

    >>> [c.code for c in parse_deck(["7S", "6S"], (Card(6, Suit.SPADES), Card(7, Suit.SPADES)))]
    ['7S', '6S']
    """
    if not isinstance(codes, list):
        raise InvalidDeck("deck must be a list of card codes")
    if len(codes) != len(full_deck):
        raise InvalidDeck(f"deck must have {len(full_deck)} cards, got {len(codes)}")
    known = code_map(full_deck)
    cards: list[Card] = []
    for code in codes:
        if not isinstance(code, str) or code not in known:
            raise InvalidDeck(f"{code!r} is not a card of this game's deck")
        cards.append(known[code])
    if len(set(cards)) != len(cards):
        duplicate = next(card for card in cards if cards.count(card) > 1)
        raise InvalidDeck(f"{duplicate} appears more than once")
    return tuple(cards)


def shuffled(full_deck: Sequence[Card], seed: int | str) -> tuple[Card, ...]:
    """`full_deck` shuffled by `random.Random(seed)`: the same seed always gives the same order.

    A string seed (e.g. `f"{seed}:deal:{round}"`) derives a stable stream per purpose, the same in every process.
    """
    order = list(full_deck)
    random.Random(seed).shuffle(order)
    return tuple(order)


def codes(cards: Iterable[Card | None]) -> list[str | None]:
    """Wire codes of `cards`, keeping `None` (a hidden card) as `None`."""
    return [None if card is None else card.code for card in cards]
