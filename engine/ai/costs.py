"""Card values the rule bots of the two 36-card French games share (Durak, Svoi Koziri).

Both weigh a card by its rank and keep trumps back: Durak's one trump suit (durak.md §3.1) and a Svoi Koziri
player's own trump suit (svoi_koziri.md §3.1) beat any card of another suit.
"""

from __future__ import annotations

from engine.cards import parse_french_36


def rank(code: str) -> int:
    """The rank of a 36-card code: 6..10, J 11, Q 12, K 13, A 14 (durak.md §2.2, svoi_koziri.md §2.2).

    >>> rank("10H"), rank("QS"), rank("AC")
    (10, 12, 14)
    """
    return parse_french_36(code).rank


def trump_cost(code: str, trump: str) -> int:
    """How much playing `code` costs its player: its rank (6..14), plus 100 for a card of the suit `trump`.

    >>> trump_cost("9S", "H"), trump_cost("6H", "H"), trump_cost("AH", "H")
    (9, 106, 114)
    """
    card = parse_french_36(code)
    return card.rank + (100 if card.suit.letter == trump else 0)
