"""Talmut's state and its parts, the deck and the options: talmut.md §2.1-§2.4, §2.9 and the `seen_by` of §6.1.

Data and the small queries every other part asks; the rules that change a state live in the modules beside this
one (engine/games/talmut/rules/__init__.py maps each rules section to its file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import Card, code_map, spanish_deck
from engine.errors import InvalidOptions
from engine.protocol import JSON, Seat

LAYOUT_SIZE = 4
"""Cards dealt to each seat (talmut.md §2.6)."""

_RANKS = {40: (1, 2, 3, 4, 5, 6, 7, 10, 11, 12), 48: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)}
_DECKS = {size: spanish_deck(ranks) for size, ranks in _RANKS.items()}
_CARDS = code_map(_DECKS[48])
_OPTION_RANGES = {"target": (1, 1000), "call_penalty": (0, 100), "match_pause_ms": (0, 10000)}


class Phase(StrEnum):
    """Where the turn seat is in its turn (talmut.md §3.1): the view's `phase`."""

    DRAW = "draw"
    """Draw from the stock or the discard pile, or call (§3.2)."""
    DECIDE = "decide"
    """Swap the drawn card into a position or discard it (§3.3)."""
    POWER = "power"
    """Use the discarded card's power or skip it (§3.4-§3.7)."""
    EXCHANGE = "exchange"
    """The rey's second step: exchange the peeked card or skip (§3.7)."""


class PowerKind(StrEnum):
    """The power a card drawn from the stock and discarded gives (talmut.md §3.4)."""

    SOTA = "sota"
    """10: look at one card (§3.5)."""
    CABALLO = "caballo"
    """11: blind swap of two cards of two seats (§3.6)."""
    REY = "rey"
    """12: look at one card, then exchange it (§3.7)."""


class Reason(StrEnum):
    """Why a Talmut game ended (talmut.md §5.5, §5.6): the `reason` of its result."""

    TARGET_REACHED = "target_reached"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class Options:
    """The options of talmut.md §2.3."""

    deck_size: int = 40
    target: int = 50
    call_penalty: int = 5
    match_pause_ms: int = 1500


@dataclass(frozen=True, slots=True)
class Slot:
    """One layout position: its card (None: empty, talmut.md §2.9) and the seats that know it, ascending."""

    card: Card | None
    seen_by: tuple[Seat, ...] = ()


@dataclass(frozen=True, slots=True)
class Drawn:
    """The card the turn seat drew this turn, and from where (`stock` or `discard`)."""

    source: str
    card: Card


@dataclass(frozen=True, slots=True)
class Place:
    """A layout position: `seat` and `position`."""

    seat: Seat
    position: int


@dataclass(frozen=True, slots=True)
class Power:
    """A pending power (talmut.md §3.4): its kind, the discarded card that gave it, the rey's peeked place."""

    kind: PowerKind
    card: Card
    peeked: Place | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """An open matching window (talmut.md §3.9): its rank, its last thrower, the seats that matched wrong in it.

    `wrong_matchers` (ascending) have made their one wrong match of this window and may not match again until it
    closes (§3.11, §7.23). It defaults to none: a state stored before it existed loads with nobody in it.
    """

    rank: int
    last_thrower: Seat
    wrong_matchers: tuple[Seat, ...] = ()


@dataclass(frozen=True, slots=True)
class Call:
    """A standing call (talmut.md §3.13, §3.14): `last_turns` lists the seats still to play, in order."""

    caller: Seat
    last_turns: tuple[Seat, ...]
    call_total: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One scored round (talmut.md §5.7): every seat's positions in order (None: empty) and its points.

    `discard` is the pile as the round ended: public then, kept so `hidden_from` knows those cards were seen.
    """

    round: int
    caller: Seat
    call_total: int
    false_call: bool
    cards: tuple[tuple[Card | None, ...], ...]
    points: tuple[int, ...]
    discard: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TalmutState:
    """A Talmut game in play or finished.

    Attributes:
        options: the game's options (talmut.md §2.3).
        seats: N, 3..8.
        deck: the list round 1 was dealt from; with `fixed_deck` every round is dealt from it (§2.7).
        fixed_deck: created with `deck` (no shuffles at all, §3.12) rather than from `seed`.
        seed: drives every later shuffle; never shown.
        round: 1 for the first round.
        turn: the turn seat (None once finished).
        phase: `draw`, `decide`, `power`, `exchange` (None once finished).
        layouts: per seat, its slots by position.
        stock: top first.
        discard: the discard pile, bottom to top.
        drawn, power, window, call: see their classes; None when there is none.
        call_barred: the seat that withdrew its call and may not call again yet (§3.15).
        totals: per seat, the sum of its round points.
        history: the scored rounds, oldest first.
        reshuffles: stock rebuilds so far in this round (seeds the next shuffle).
        resigned: seats that resigned, ascending (§3.17).
        ai_seats: seats played by an AI from the start (`with_ai_seats`), ascending.
        reason: None while active, else `target_reached` or `resign`.
    """

    options: Options
    seats: int
    deck: tuple[Card, ...]
    fixed_deck: bool
    seed: int
    round: int
    turn: Seat | None
    phase: Phase | None
    layouts: tuple[tuple[Slot, ...], ...]
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    drawn: Drawn | None
    power: Power | None
    window: Window | None
    call: Call | None
    call_barred: Seat | None
    totals: tuple[int, ...]
    history: tuple[RoundRecord, ...]
    reshuffles: int
    resigned: tuple[Seat, ...]
    ai_seats: tuple[Seat, ...]
    reason: Reason | None

    @property
    def dealer(self) -> Seat:
        """The seat before the round's first player (talmut.md §2.5)."""
        return (self.round - 2) % self.seats


# ---------------------------------------------------------------------------------------------------------------
# The deck and the options (talmut.md §2.2, §2.3)


def parse_card(code: str) -> Card:
    """The card of a Talmut code (talmut.md §2.2), from the 48-card deck.

    Raises:
        KeyError: not a Spanish code (exact spelling).

    >>> parse_card("12O"), parse_card("1B")
    (Card(12O), Card(1B))
    """
    return _CARDS[code]


def value(card: Card) -> int:
    """A card's points: its rank (talmut.md §2.2).

    >>> value(parse_card("12B")), value(parse_card("1O"))
    (12, 1)
    """
    return card.rank


def describe_options() -> dict[str, JSON]:
    """The options of talmut.md §2.3 with their defaults and ranges."""
    return {
        "deck_size": {"type": "integer", "default": 40, "enum": [40, 48]},
        "target": {"type": "integer", "default": 50, "minimum": 1, "maximum": 1000},
        "call_penalty": {"type": "integer", "default": 5, "minimum": 0, "maximum": 100},
        "match_pause_ms": {"type": "integer", "default": 1500, "minimum": 0, "maximum": 10000},
    }


def parse_options(raw: Mapping[str, JSON]) -> Options:
    """Validate a create request's `options` (talmut.md §2.3).

    Raises:
        InvalidOptions: not an object, an unknown key, or a value outside its range.
    """
    if not isinstance(raw, Mapping):
        raise InvalidOptions("options must be an object")
    unknown = sorted(set(map(str, raw)) - {"deck_size", *_OPTION_RANGES})
    if unknown:
        raise InvalidOptions(f"talmut has no option {', '.join(unknown)}")
    for key, given in raw.items():
        if type(given) is not int:
            raise InvalidOptions(f"{key} must be an integer")
        if key == "deck_size" and given not in _DECKS:
            raise InvalidOptions("deck_size must be 40 or 48")
        if key in _OPTION_RANGES and not _OPTION_RANGES[key][0] <= given <= _OPTION_RANGES[key][1]:
            low, high = _OPTION_RANGES[key]
            raise InvalidOptions(f"{key} must be from {low} to {high}")
    return Options(**raw)


def full_deck(options: Options) -> tuple[Card, ...]:
    """The 40 or 48 Spanish cards in canonical order, suits `O C E B` (talmut.md §2.2)."""
    return _DECKS[options.deck_size]


# ---------------------------------------------------------------------------------------------------------------
# Queries and edits of layouts (talmut.md §2.9)


def everyone(state: TalmutState) -> tuple[Seat, ...]:
    """Every seat, ascending."""
    return tuple(range(state.seats))


def holds_cards(state: TalmutState, seat: Seat) -> bool:
    """Whether `seat` has a card in at least one position."""
    return any(slot.card is not None for slot in state.layouts[seat])


def filled_positions(state: TalmutState, seat: Seat) -> list[int]:
    """The non-empty positions of `seat`'s layout, ascending."""
    return [position for position, slot in enumerate(state.layouts[seat]) if slot.card is not None]


def places(state: TalmutState) -> list[Place]:
    """Every non-empty layout position in ascending (seat, position) order."""
    return [Place(seat, position) for seat in everyone(state) for position in filled_positions(state, seat)]


def place_json(place: Place) -> dict[str, int]:
    """`place` as the actions and events write it: `{"seat": 1, "position": 2}`."""
    return {"seat": place.seat, "position": place.position}


def set_slot(state: TalmutState, place: Place, slot: Slot) -> tuple[tuple[Slot, ...], ...]:
    """The layouts with `slot` at `place`; a position one past the layout's end is added (a penalty card)."""
    layouts = list(state.layouts)
    layout = list(layouts[place.seat])
    if place.position == len(layout):
        layout.append(slot)
    else:
        layout[place.position] = slot
    layouts[place.seat] = tuple(layout)
    return tuple(layouts)
