"""Talmut's matches: the window a thrown card opens and the out-of-turn claims on it (talmut.md §3.9-§3.11).

The window itself is opened by the end of a turn and closed by the next draw or call
(engine/games/talmut/rules/rounds.py); here are who may match (§3.9), a correct match (§3.10) and a wrong one with its
penalty card (§3.11), after which the seat may not match again in that window.
"""

from __future__ import annotations

from dataclasses import replace

from engine.games.talmut.rules.rounds import take_from_stock
from engine.games.talmut.rules.state import (
    Place,
    Slot,
    TalmutState,
    everyone,
    filled_positions,
    holds_cards,
    set_slot,
)
from engine.protocol import JSON, Action, Event, Seat


def may_match(state: TalmutState, seat: Seat) -> bool:
    """Whether `seat` may match now (talmut.md §3.9, §3.11).

    A window is open, `seat` holds a card, did not throw last, and has not made its wrong match in this window.
    """
    window = state.window
    return (
        window is not None
        and seat != window.last_thrower
        and seat not in window.wrong_matchers
        and holds_cards(state, seat)
    )


def matchers(state: TalmutState) -> set[Seat]:
    """The seats that may match now (`may_match`), for `to_act` (§4.1)."""
    return {seat for seat in everyone(state) if may_match(state, seat)}


def match_actions(state: TalmutState, seat: Seat) -> list[Action]:
    """`seat`'s matches, one per non-empty position (§4.2), when it may match (`may_match`)."""
    if not may_match(state, seat):
        return []
    return [{"type": "match", "position": position} for position in filled_positions(state, seat)]


def match(state: TalmutState, seat: Seat, position: int) -> tuple[TalmutState, list[Event]]:
    """§3.10, §3.11: `seat` claims its card at `position` has the window's rank.

    Right, the card goes onto the pile and the window stays open with `seat` the last thrower; wrong, the card is
    shown to every seat and stays, `seat` takes an unseen penalty card from the stock and joins the window's
    `wrong_matchers`: one wrong match per seat per window (§7.23).
    """
    assert state.window is not None
    place = Place(seat, position)
    slot = state.layouts[seat][position]
    assert slot.card is not None
    public: dict[str, JSON] = {"seat": seat, "position": position}
    if slot.card.rank == state.window.rank:  # §3.10
        public["card"] = slot.card.code
        new = replace(
            state,
            layouts=set_slot(state, place, Slot(None)),
            discard=(*state.discard, slot.card),
            window=replace(state.window, last_thrower=seat),
        )
        return new, [Event("matched", {**public, "correct": True, "penalty_position": None})]
    # §3.11: shown to everyone, stays in place; an unseen penalty card from the stock
    wrong_matchers = tuple(sorted((*state.window.wrong_matchers, seat)))
    new = replace(
        state,
        layouts=set_slot(state, place, replace(slot, seen_by=everyone(state))),
        window=replace(state.window, wrong_matchers=wrong_matchers),
    )
    new, penalty, events = take_from_stock(new)
    penalty_position = None
    if penalty is not None:
        empties = [p for p, other in enumerate(new.layouts[seat]) if other.card is None]
        penalty_position = empties[0] if empties else len(new.layouts[seat])
        new = replace(new, layouts=set_slot(new, Place(seat, penalty_position), Slot(penalty)))
    # every seat now knows the card; a spectator sees no layout card during a round (§6.2)
    shown = {other: {"card": slot.card.code} for other in everyone(state)}
    public.update(correct=False, penalty_position=penalty_position)
    return new, [*events, Event("matched", public, shown)]
