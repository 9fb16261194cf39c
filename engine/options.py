"""What a create request gives a game besides the seats' players: options, the seat count and the deck.

Shared by the games that offer no options (Durak, Svoi Koziri): their `Options`, `describe_options` and
`parse_options` are the ones here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.cards import Card, shuffled
from engine.errors import InvalidDeck, InvalidOptions
from engine.protocol import JSON


@dataclass(frozen=True, slots=True)
class NoOptions:
    """The options of a game that offers none (e.g. durak.md §2.3, svoi_koziri.md §2.3)."""


def describe_no_options() -> dict[str, JSON]:
    """`GET /v1/rules/{game}` `options` of a game that offers none: `{}`."""
    return {}


def no_options_parser(game_id: str) -> Callable[[Mapping[str, JSON]], NoOptions]:
    """The `parse_options` of a game that offers none: it accepts only an empty `options` object.

    The parser raises `InvalidOptions` when `raw` is not an object or has any key.

    >>> no_options_parser("durak")({})
    NoOptions()
    >>> no_options_parser("svoi_koziri")({"trumps": ["S", "H"]})
    Traceback (most recent call last):
    engine.errors.InvalidOptions: svoi_koziri has no options (got trumps)
    """

    def parse_options(raw: Mapping[str, JSON]) -> NoOptions:
        if not isinstance(raw, Mapping):
            raise InvalidOptions("options must be an object")
        if raw:
            raise InvalidOptions(f"{game_id} has no options (got {', '.join(sorted(map(str, raw)))})")
        return NoOptions()

    parse_options.__doc__ = f"Accept only an empty `options` object: {game_id} offers none (raises InvalidOptions)."
    return parse_options


def check_table(
    game_id: str, seats: int, allowed: range, deck: Sequence[Card] | None, full: Sequence[Card], seed: int
) -> tuple[Card, ...]:
    """Check a new game's seat count and `deck` (top first); return the deck to deal, top first.

    `deck` None is the usual case: the game deals `full` (its full deck) shuffled by `random.Random(seed)`
    (`engine.cards.shuffled`), so a game's seed alone fixes its deal.

    Raises:
        InvalidOptions: `seats` is not in `allowed`.
        InvalidDeck: `deck` is not a permutation of `full`.
    """
    if seats not in allowed:
        counts = str(allowed.start) if len(allowed) == 1 else f"{allowed.start}-{allowed.stop - 1}"
        raise InvalidOptions(f"{game_id} is played by {counts} seats, not {seats}")
    if deck is None:
        return shuffled(full, seed)
    if len(deck) != len(full) or set(deck) != set(full):
        raise InvalidDeck(f"deck must be a permutation of the game's {len(full)} cards")
    return tuple(deck)
