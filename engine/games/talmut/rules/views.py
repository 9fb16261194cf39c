"""What each seat sees of a Talmut game: talmut.md §6.

Layout cards only to the seats that know them (§6.1, §6.2), the drawn card to its drawer or when it came from the
pile (§6.3), the public rest (§6.4), never the stock order nor a standing call's total (§6.5).
"""

from __future__ import annotations

import dataclasses

from engine.cards import Card
from engine.games.talmut.rules.rounds import by_seat, round_json
from engine.games.talmut.rules.state import Phase, Reason, Slot, TalmutState, place_json
from engine.protocol import JSON, Seat, View


def _knows(state: TalmutState, slot: Slot, viewer: Seat | None) -> bool:
    """Whether `viewer` may see `slot`'s card: it knows it (§6.2), or the game ended at the target (§6.5)."""
    if state.reason == Reason.TARGET_REACHED:
        return True
    return viewer is not None and viewer in slot.seen_by


def view(state: TalmutState, seat: Seat | None) -> View:
    """What `seat` may see (None, or a number that is no seat: a spectator), as talmut.md §6.7 `state`.

    Layout cards only to seats in their `seen_by` (§6.2), the drawn card to the drawer or when it came from the
    pile (§6.3), never `call_total` nor the stock order (§6.5). `options` are the game's options (§2.3), which
    every player knows: an AI reads the deck size and the target there. `seats[i]` is `{"hand_size": cards in the
    layout, "resigned": bool}`.
    """
    viewer = seat if seat in range(state.seats) else None
    drawn = None
    if state.drawn is not None and state.phase == Phase.DECIDE:
        shown = viewer == state.turn or state.drawn.source == "discard"
        drawn = {"source": state.drawn.source, "card": state.drawn.card.code if shown else None}
    power = None
    if state.power is not None and state.phase in (Phase.POWER, Phase.EXCHANGE):
        peeked = None if state.power.peeked is None else place_json(state.power.peeked)
        power = {"kind": state.power.kind, "card": state.power.card.code, "peeked": peeked}
    layouts = [
        {
            "seat": owner,
            "slots": [
                {
                    "position": position,
                    "empty": slot.card is None,
                    "card": slot.card.code if slot.card is not None and _knows(state, slot, viewer) else None,
                    "seen_by": list(slot.seen_by),
                }
                for position, slot in enumerate(layout)
            ],
        }
        for owner, layout in enumerate(state.layouts)
    ]
    shown_state: dict[str, JSON] = {
        "round": state.round,
        "dealer": state.dealer,
        "turn": state.turn,
        "phase": state.phase,
        "drawn": drawn,
        "power": power,
        "layouts": layouts,
        "stock_size": len(state.stock),
        "discard": [card.code for card in state.discard],
        "window": None
        if state.window is None
        else {
            "rank": str(state.window.rank),
            "last_thrower": state.window.last_thrower,
            "wrong_matchers": list(state.window.wrong_matchers),
        },
        "talmut": None
        if state.call is None
        else {"caller": state.call.caller, "last_turns": list(state.call.last_turns)},
        "call_barred": state.call_barred,
        "totals": by_seat(state.totals),
        "history": [round_json(record) for record in state.history],
        "options": dataclasses.asdict(state.options),
    }
    seats = [
        {"hand_size": sum(slot.card is not None for slot in layout), "resigned": owner in state.resigned}
        for owner, layout in enumerate(state.layouts)
    ]
    return View(state=shown_state, seats=seats)


def hidden_from(state: TalmutState, seat: Seat | None) -> set[Card]:
    """The cards `seat` (None: a spectator) may not see now (talmut.md §6.2-§6.5).

    The stock, a stock-drawn card (but for the drawer) and every layout card `seat` does not know. A card shown
    face up when a round ended (revealed in a layout, §5.2, or on the pile) is public record, so it is left out
    even when it lies unseen in a layout again: which position holds it stays secret, and tests/engine/talmut
    check that position by position.
    """
    viewer = seat if seat in range(state.seats) else None
    hidden = set(state.stock)
    if state.drawn is not None and state.drawn.source == "stock" and viewer != state.turn:
        hidden.add(state.drawn.card)
    for layout in state.layouts:
        hidden.update(slot.card for slot in layout if slot.card is not None and not _knows(state, slot, viewer))
    revealed = {card for record in state.history for layout in record.cards for card in layout}
    revealed.update(card for record in state.history for card in record.discard)
    return hidden - revealed
