"""Exact deals for tests: `cards("6H 9H")` and `stacked_deck("durak", top="9H 7S ...")` (STYLE.md §5)."""

from __future__ import annotations

from engine.cards import Card, code_map
from engine.games import GAMES


def _deck(game_id: str) -> tuple[Card, ...]:
    game = GAMES[game_id]
    return game.full_deck(game.parse_options({}))


def cards(text: str, game_id: str = "durak") -> list[Card]:
    """The cards of space-separated codes, parsed with the game's deck (`C` is clubs in a French deck)."""
    known = code_map(_deck(game_id))
    return [known[code] for code in text.split()]


def stacked_deck(game_id: str, top: str = "") -> list[str]:
    """The codes of `top` first, then the rest of the game's deck in canonical order: always a permutation."""
    first = [card.code for card in cards(top, game_id)]
    if len(set(first)) != len(first):
        raise ValueError(f"a card appears twice in {top!r}")
    return first + [card.code for card in _deck(game_id) if card.code not in set(first)]
