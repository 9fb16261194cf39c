"""The toy game's rules: two seats, three cards each from six; each turn a seat lays one card face up; once all six
lie, the higher total of ranks wins (equal totals: a draw). A seat may resign at any time.

Its state's view: `hand` (the viewer's cards; null for a spectator), `hand_sizes`, `laid` (each seat's laid cards,
in order) and `turn` (null at the end).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import serialize
from engine.actions import ActionShapes, CardField
from engine.cards import Card, Suit, code_map, codes
from engine.hands import Hands, hidden_hands, lay_card, missing_from_hand
from engine.legality import ActionCheck
from engine.options import NoOptions, check_table, describe_no_options, no_options_parser
from engine.protocol import JSON, Action, Capabilities, Event, Result, Seat, View
from engine.seats import other_seat

ID = "toy"
TITLE = "Toy"
SEATS = range(2, 3)
ACTIONS: ActionShapes = {"lay": {"card": CardField()}, "resign": {}}
DECK = tuple(Card(rank, suit) for suit in (Suit.SPADES, Suit.HEARTS) for rank in (2, 3, 4))
"""2S 3S 4S 2H 3H 4H."""
HAND_SIZE = 3
parse_card = code_map(DECK).__getitem__


@dataclass(frozen=True, slots=True)
class ToyState:
    """The hands, the cards each seat has laid, the seat to lay next, and the seat that resigned (if one did)."""

    hands: Hands
    laid: Hands
    turn: Seat
    resigned: Seat | None = None


CAPABILITIES: Capabilities[ToyState] = Capabilities()
describe_options = describe_no_options
parse_options = no_options_parser(ID)


def full_deck(options: NoOptions) -> tuple[Card, ...]:
    """The six cards, in `DECK`'s order."""
    return DECK


def new_game(seats: int, options: NoOptions, deck: Sequence[Card] | None = None, *, seed: int) -> ToyState:
    """Seat 0 gets the deck's first three cards, seat 1 the next three; seat 0 lays first."""
    cards = check_table(ID, seats, SEATS, deck, DECK, seed)
    return ToyState(hands=(cards[:HAND_SIZE], cards[HAND_SIZE:]), laid=((), ()), turn=0)


def finished(state: ToyState) -> bool:
    """Whether a seat resigned or every card is laid."""
    return state.resigned is not None or not any(state.hands)


def to_act(state: ToyState) -> frozenset[Seat]:
    """The seat to lay, until the end."""
    return frozenset() if finished(state) else frozenset({state.turn})


def legal_actions(state: ToyState, seat: Seat) -> list[Action]:
    """Lay any card of the hand, or resign; nothing out of turn."""
    if seat not in to_act(state):
        return []
    return [*({"type": "lay", "card": card.code} for card in state.hands[seat]), {"type": "resign"}]


def _why_illegal(state: ToyState, seat: Seat, parsed: dict[str, Any]) -> str:
    return missing_from_hand(state.hands[seat], parsed["card"]) or "not now"


_check: ActionCheck[ToyState] = ActionCheck(ACTIONS, parse_card, legal_actions, to_act, _why_illegal)


def apply(state: ToyState, seat: Seat, action: Action) -> tuple[ToyState, list[Event]]:
    """Lay a card (`laid`) or resign (`resigned`); raises `GameFinished`, `NotYourTurn`, `IllegalAction`."""
    parsed = _check(state, seat, action, finished=finished(state), seats=2)
    if parsed["type"] == "resign":
        return replace(state, resigned=seat), [Event("resigned", {"seat": seat})]
    card: Card = parsed["card"]
    laid = tuple((*cards, card) if owner == seat else cards for owner, cards in enumerate(state.laid))
    new = replace(state, hands=lay_card(state.hands, seat, card), laid=laid, turn=other_seat(seat))
    return new, [Event("laid", {"seat": seat, "card": card.code})]


def totals(state: ToyState) -> list[int]:
    """Each seat's total of the ranks it has laid."""
    return [sum(card.rank for card in cards) for cards in state.laid]


def result(state: ToyState) -> Result | None:
    """The resigner loses; else the higher total wins, equal totals draw; None while cards are left."""
    if state.resigned is not None:
        return Result.heads_up(other_seat(state.resigned), "resign")
    if not finished(state):
        return None
    first, second = totals(state)
    return Result.heads_up(None if first == second else int(second > first), "total")


def view(state: ToyState, seat: Seat | None) -> View:
    """What `seat` sees: its own hand, every hand's size and every laid card."""
    table = {
        "hand": None if seat is None else codes(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "laid": [codes(cards) for cards in state.laid],
        "turn": None if finished(state) else state.turn,
    }
    return View(state=table, seats=[{"hand_size": len(hand)} for hand in state.hands])


def cards_in_play(state: ToyState) -> list[Card]:
    """Both hands and both laid rows."""
    return [card for cards in (*state.hands, *state.laid) for card in cards]


def hidden_from(state: ToyState, seat: Seat | None) -> set[Card]:
    """The hands but `seat`'s own."""
    return hidden_hands(state.hands, seat)


def dump_state(state: ToyState) -> dict[str, JSON]:
    """A JSON-safe dict of the state."""
    return serialize.dump_state(state)


def load_state(data: Mapping[str, JSON]) -> ToyState:
    """Inverse of `dump_state`."""
    return serialize.load_state(ToyState, data, parse_card)
