"""Card values of the rule bots of the two 36-card French games (Durak, Svoi Koziri) and of their playouts.

Both weigh a card by its rank and keep trumps back: Durak's one trump suit (durak.md §3.1) and a Svoi Koziri
player's own trump suit (svoi_koziri.md §3.1) beat any card of another suit. Svoi Koziri's `easy` and its search's
playouts (engine/games/svoi_koziri/playout.py, which tabulates these functions by card number) share `trump_cost`
and `lay_value`.
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


def lay_value(code: str, own_trump: str, their_trump: str) -> int:
    """How hard `code` is for the opponent to beat in Svoi Koziri, when laid on the pile (higher is better to lay).

    A card of the opponent's own trump suit is beaten only by a higher card of that suit, and its ace never
    (svoi_koziri.md §3.1), and the opponent takes 5 cards or the whole pile when it cannot (§3.6): those come
    first, highest first. Plain cards follow, highest first. The player's own trumps come last, lowest first: the
    opponent beats them like a plain suit, and they are the player's best beating cards.

    >>> lay_value("AS", "H", "S") > lay_value("6S", "H", "S") > lay_value("AD", "H", "S") > lay_value("6H", "H", "S")
    True
    """
    value = rank(code)
    if code[-1] == their_trump:
        return 200 + value
    if code[-1] == own_trump:
        return -value
    return 100 + value
