"""Talmut's powers: a discarded sota, caballo or rey drawn from the stock (talmut.md §3.4-§3.7).

Whether a discard gives a power (§3.4), each power's actions as `legal_actions` lists them (§4.2), and what they
do: the sota's peek (§3.5), the caballo's blind swap (§3.6), the rey's peek then exchange (§3.7); any of them may
be skipped. Knowledge moves with the cards (§6.1).
"""

from __future__ import annotations

from dataclasses import replace

from engine.games.talmut.rules.rounds import end_turn
from engine.games.talmut.rules.state import (
    Phase,
    Place,
    Power,
    PowerKind,
    TalmutState,
    everyone,
    holds_cards,
    place_json,
    places,
    set_slot,
)
from engine.protocol import JSON, Action, Event, Seat

POWERS = {10: PowerKind.SOTA, 11: PowerKind.CABALLO, 12: PowerKind.REY}
"""Rank -> the power it gives when drawn from the stock and discarded (talmut.md §3.4-§3.7)."""


def discard(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    """§3.3, §3.4: the drawn card onto the pile; a power card from the stock opens its power if it has a target.

    A caballo needs cards of two seats, a sota or rey any card (§3.4): with none, the discard just ends the turn.
    """
    assert state.drawn is not None
    card = state.drawn.card
    new = replace(state, discard=(*state.discard, card), drawn=None)
    kind = POWERS.get(card.rank) if state.drawn.source == "stock" else None
    holders = [other for other in everyone(new) if holds_cards(new, other)]
    if kind is not None and len(holders) < (2 if kind == PowerKind.CABALLO else 1):
        kind = None
    event = Event("discarded", {"seat": seat, "card": card.code, "power": kind})
    if kind is None:
        return end_turn(new, [event])
    return replace(new, phase=Phase.POWER, power=Power(kind, card)), [event]


def power_actions(state: TalmutState) -> list[Action]:
    """The turn seat's actions in phases `power` and `exchange`, in the order of talmut.md §4.2."""
    assert state.power is not None
    filled = places(state)
    if state.phase == Phase.EXCHANGE:  # the rey's second step: the peeked card with one of another seat (§3.7)
        assert state.power.peeked is not None
        owner = state.power.peeked.seat
        actions: list[Action] = [{"type": "exchange", **place_json(place)} for place in filled if place.seat != owner]
    elif state.power.kind == PowerKind.CABALLO:  # two cards of two different seats (§3.6)
        actions = [
            {"type": "blind_swap", "a": place_json(a), "b": place_json(b)}
            for a in filled
            for b in filled
            if a.seat < b.seat
        ]
    else:  # sota or rey: any one card (§3.5, §3.7)
        actions = [{"type": "peek", **place_json(place)} for place in filled]
    actions.append({"type": "skip_power"})
    return actions


def peek(state: TalmutState, seat: Seat, place: Place) -> tuple[TalmutState, list[Event]]:
    """§3.5, §3.7: `seat` learns the card at `place`; a rey then goes on to its exchange if another seat holds one."""
    assert state.power is not None
    slot = state.layouts[place.seat][place.position]
    assert slot.card is not None
    seen_by = tuple(sorted({*slot.seen_by, seat}))
    new = replace(state, layouts=set_slot(state, place, replace(slot, seen_by=seen_by)))
    event = Event("peeked", {"seat": seat, "target": place_json(place)}, {seat: {"card": slot.card.code}})
    others_hold = any(holds_cards(new, other) for other in everyone(state) if other != place.seat)
    if state.power.kind == PowerKind.REY and others_hold:
        return replace(new, phase=Phase.EXCHANGE, power=replace(state.power, peeked=place)), [event]
    return end_turn(replace(new, power=None), [event])


def blind_swap(state: TalmutState, seat: Seat, a: dict[str, JSON], b: dict[str, JSON]) -> tuple[
    TalmutState, list[Event]
]:
    """§3.6: the caballo trades the cards at `a` and `b` (each `{"seat", "position"}`) unseen."""
    event = Event("blind_swapped", {"seat": seat, "a": a, "b": b})
    return _exchange_cards(state, Place(a["seat"], a["position"]), Place(b["seat"], b["position"]), event)


def exchange(state: TalmutState, seat: Seat, place: Place) -> tuple[TalmutState, list[Event]]:
    """§3.7: the rey trades the card it peeked at with the card at `place`."""
    assert state.power is not None and state.power.peeked is not None
    peeked = state.power.peeked
    event = Event("exchanged", {"seat": seat, "a": place_json(peeked), "b": place_json(place)})
    return _exchange_cards(state, peeked, place, event)


def skip_power(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    """§3.4: the turn seat leaves the power unused, and the turn ends."""
    return end_turn(replace(state, power=None), [Event("power_skipped", {"seat": seat})])


def _exchange_cards(state: TalmutState, a: Place, b: Place, event: Event) -> tuple[TalmutState, list[Event]]:
    """Trade the slots at `a` and `b`; what any seat knew moves with each card (talmut.md §3.6, §3.7, §6.1)."""
    slot_a, slot_b = state.layouts[a.seat][a.position], state.layouts[b.seat][b.position]
    moved = replace(state, layouts=set_slot(state, a, slot_b))
    moved = replace(moved, layouts=set_slot(moved, b, slot_a), power=None)
    return end_turn(moved, [event])
