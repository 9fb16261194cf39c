"""A Talmut round from the deal to the score: talmut.md §2.5-§2.8, §3.1-§3.3, §3.8, §3.12-§3.17 and §5.

The deal (§2.5-§2.8), a turn's draw and swap (§3.1-§3.3), the end of a turn and the window it opens (§3.8), the
stock rebuild (§3.12), calling and the last turns (§3.13-§3.16), resigning (§3.17), and the end of a round and of
the game with its result (§5). A discard and the powers it may give are engine/games/talmut/rules/powers.py; matches are
engine/games/talmut/rules/matching.py.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import replace

from engine.cards import Card, shuffled
from engine.games.talmut.rules.state import (
    LAYOUT_SIZE,
    Call,
    Drawn,
    Phase,
    Place,
    Reason,
    RoundRecord,
    Slot,
    TalmutState,
    Window,
    everyone,
    filled_positions,
    set_slot,
    value,
)
from engine.protocol import JSON, Action, Event, Result, Seat
from engine.seats import next_seat, seats_from

CALL_LIMIT = 5
"""A call is false when the caller's `call_total` is above this (talmut.md §5.3, §7.16)."""


def layout_total(slots: Iterable[Slot]) -> int:
    """The points of a layout; empty positions count 0 (talmut.md §5.3)."""
    return sum(value(slot.card) for slot in slots if slot.card is not None)


# ---------------------------------------------------------------------------------------------------------------
# The deal (§2.5-§2.8)


def deal(state: TalmutState, round_number: int, deck: Sequence[Card]) -> TalmutState:
    """The state at the start of round `round_number`, dealt from `deck` by talmut.md §2.6, no knowledge (§2.8)."""
    seats = state.seats
    first = (round_number - 1) % seats
    layouts: list[list[Slot]] = [[] for _ in range(seats)]
    for k in range(LAYOUT_SIZE * seats):  # one card at a time around the table from the first player
        layouts[(first + k) % seats].append(Slot(deck[k]))
    up = LAYOUT_SIZE * seats
    return replace(
        state,
        round=round_number,
        turn=first,
        phase=Phase.DRAW,
        layouts=tuple(tuple(layout) for layout in layouts),
        stock=tuple(deck[up + 1 :]),
        discard=(deck[up],),
        drawn=None,
        power=None,
        window=None,
        call=None,
        call_barred=None,
        reshuffles=0,
    )


# ---------------------------------------------------------------------------------------------------------------
# A turn: draw, then swap or discard (§3.1-§3.3), its end (§3.8), the stock (§3.12)


def turn_actions(state: TalmutState, seat: Seat) -> list[Action]:
    """The turn seat's actions in phases `draw` and `decide`, in the order of talmut.md §4.2."""
    actions: list[Action] = []
    if state.phase == Phase.DRAW:
        if state.stock or len(state.discard) >= 2:
            actions.append({"type": "draw", "source": "stock"})
        actions.append({"type": "draw", "source": "discard"})
        if state.call is None and state.call_barred != seat:
            actions.append({"type": "call"})
    elif state.phase == Phase.DECIDE:
        actions.extend({"type": "swap", "position": position} for position in filled_positions(state, seat))
        actions.append({"type": "discard"})
    return actions


def take_from_stock(state: TalmutState) -> tuple[TalmutState, Card | None, list[Event]]:
    """The top stock card (rebuilding the stock first if it is empty, talmut.md §3.12), or None if none can be had."""
    events: list[Event] = []
    if not state.stock:
        if len(state.discard) < 2:
            return state, None, events
        rest, top = list(state.discard[:-1]), state.discard[-1]
        if not state.fixed_deck:
            random.Random(f"{state.seed}:{state.round}:{state.reshuffles}").shuffle(rest)
        # turned over: the lowest card of the pile becomes the top of the stock (§3.12)
        state = replace(state, stock=tuple(rest), discard=(top,), reshuffles=state.reshuffles + 1)
        events.append(Event("stock_rebuilt", {"stock_size": len(rest), "shuffled": not state.fixed_deck}))
    return replace(state, stock=state.stock[1:]), state.stock[0], events


def draw(state: TalmutState, seat: Seat, source: str) -> tuple[TalmutState, list[Event]]:
    """§3.2: take the top card of the stock or of the discard pile; either closes the window (§3.9)."""
    if source == "discard":
        card = state.discard[-1]
        new = replace(state, discard=state.discard[:-1], drawn=Drawn(source, card), phase=Phase.DECIDE, window=None)
        return new, [Event("drew", {"seat": seat, "source": source, "card": card.code})]
    new, taken, events = take_from_stock(state)
    assert taken is not None  # listed only when a card can be had (§3.2)
    new = replace(new, drawn=Drawn(source, taken), phase=Phase.DECIDE, window=None)
    return new, [*events, Event("drew", {"seat": seat, "source": source}, {seat: {"card": taken.code}})]


def swap(state: TalmutState, seat: Seat, position: int) -> tuple[TalmutState, list[Event]]:
    """§3.3: the drawn card goes face down into `position`, the card there onto the discard pile."""
    assert state.drawn is not None
    place = Place(seat, position)
    thrown = state.layouts[seat][position].card
    assert thrown is not None
    from_stock = state.drawn.source == "stock"
    seen_by = (seat,) if from_stock else everyone(state)
    new = replace(
        state,
        layouts=set_slot(state, place, Slot(state.drawn.card, seen_by)),
        discard=(*state.discard, thrown),
        drawn=None,
    )
    public: dict[str, JSON] = {"seat": seat, "position": position, "discarded": thrown.code}
    private: dict[Seat, dict[str, JSON]] = {}
    if from_stock:
        private[seat] = {"card": state.drawn.card.code}
    else:
        public["card"] = state.drawn.card.code
    return end_turn(new, [Event("swapped", public, private)])


def end_turn(state: TalmutState, events: list[Event]) -> tuple[TalmutState, list[Event]]:
    """talmut.md §3.8: end the round after the last of the last turns, else pass the turn and open a window."""
    assert state.turn is not None
    turn = state.turn
    if state.call is not None:
        last_turns = tuple(seat for seat in state.call.last_turns if seat != turn)
        if not last_turns:
            return _end_round(state, events)
        state = replace(state, call=replace(state.call, last_turns=last_turns))
    window = Window(state.discard[-1].rank, turn)
    return replace(state, turn=next_seat(turn, state.seats), phase=Phase.DRAW, window=window), events


# ---------------------------------------------------------------------------------------------------------------
# Calling (§3.13-§3.15) and resigning (§3.17)


def call(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    """§3.13, §3.14: every other seat takes one last turn, in order from the caller's left."""
    others = tuple(other for other in seats_from(next_seat(seat, state.seats), state.seats) if other != seat)
    standing = Call(caller=seat, last_turns=others, call_total=layout_total(state.layouts[seat]))
    # a call by another seat lifts the bar (§3.15); the barred seat cannot call, so any call lifts it
    new = replace(state, call=standing, call_barred=None, window=None, turn=others[0], phase=Phase.DRAW)
    return new, [Event("called", {"seat": seat})]


def withdraw(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    """§3.15: the call is gone and its caller may not call again until another seat has."""
    return replace(state, call=None, call_barred=seat), [Event("withdrew", {"seat": seat})]


def may_resign(state: TalmutState, seat: Seat) -> bool:
    """§3.17: a human seat resigns once; a seat an AI played from the start never does."""
    return seat not in state.resigned and seat not in state.ai_seats


def resign(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    """talmut.md §3.17: the seat plays on as an `easy` AI.

    The game ends (§5.6) when one seat is left unresigned, or only seats an AI played from the start.
    """
    resigned = tuple(sorted({*state.resigned, seat}))
    new = replace(state, resigned=resigned)
    events = [Event("resigned", {"seat": seat})]
    standing = [other for other in range(state.seats) if other not in resigned]
    if len(standing) > 1 and not all(other in state.ai_seats for other in standing):
        return new, events
    # a drawn card stays where it is, unshown (§6.5): the round is neither scored nor revealed (§5.6)
    finished = replace(new, turn=None, phase=None, window=None, reason=Reason.RESIGN)
    return finished, [*events, _game_ended(finished)]


# ---------------------------------------------------------------------------------------------------------------
# The end of a round and of the game (§5)


def _end_round(state: TalmutState, events: list[Event]) -> tuple[TalmutState, list[Event]]:
    """talmut.md §5.1-§5.4: reveal, score, then deal the next round or end the game."""
    assert state.call is not None
    called = state.call
    false_call = called.call_total > CALL_LIMIT
    points = [layout_total(layout) for layout in state.layouts]
    if false_call:
        points[called.caller] += state.options.call_penalty
    record = RoundRecord(
        round=state.round,
        caller=called.caller,
        call_total=called.call_total,
        false_call=false_call,
        cards=tuple(tuple(slot.card for slot in layout) for layout in state.layouts),
        points=tuple(points),
        discard=state.discard,
    )
    totals = tuple(total + gained for total, gained in zip(state.totals, points, strict=True))
    scored = replace(state, totals=totals, history=(*state.history, record), window=None, call=None)
    events = [*events, Event("round_ended", {**round_json(record), "totals": by_seat(totals)})]
    if any(total >= state.options.target for total in totals):
        finished = replace(scored, turn=None, phase=None, reason=Reason.TARGET_REACHED)
        return finished, [*events, _game_ended(finished)]
    next_round = state.round + 1
    deck = state.deck if state.fixed_deck else shuffled(state.deck, f"{state.seed}:deal:{next_round}")
    dealt = deal(scored, next_round, deck)
    started = {"round": next_round, "dealer": dealt.dealer, "turn": dealt.turn, "discard": dealt.discard[0].code}
    return dealt, [*events, Event("round_started", started)]


def result(state: TalmutState) -> Result | None:
    """The outcome by talmut.md §5.5 (target reached) or §5.6 (resignations), or None while active.

    `scores` is `{"totals": {seat: total}, "rounds": [history entry, ...]}` (§5.7).
    """
    if state.reason is None:
        return None
    standing = [seat for seat in range(state.seats) if seat not in state.resigned]
    lowest = min(state.totals[seat] for seat in standing)
    winners = tuple(seat for seat in standing if state.totals[seat] == lowest)
    draw = state.reason == Reason.TARGET_REACHED and len(winners) == state.seats
    losers = () if draw else tuple(seat for seat in range(state.seats) if seat not in winners)
    scores = {"totals": by_seat(state.totals), "rounds": [round_json(record) for record in state.history]}
    return Result(winners=winners, losers=losers, draw=draw, scores=scores, reason=state.reason)


def by_seat(values: Sequence[JSON]) -> dict[str, JSON]:
    """`values` keyed by seat number as a string, as `totals` and `points` are shown (§5.7)."""
    return {str(seat): item for seat, item in enumerate(values)}


def round_json(record: RoundRecord) -> dict[str, JSON]:
    """One history entry as `state.history`, `round_ended` and `scores.rounds` show it (talmut.md §5.7)."""
    return {
        "round": record.round,
        "caller": record.caller,
        "call_total": record.call_total,
        "false_call": record.false_call,
        "cards": by_seat([[None if card is None else card.code for card in layout] for layout in record.cards]),
        "points": by_seat(record.points),
    }


def _game_ended(state: TalmutState) -> Event:
    outcome = result(state)
    assert outcome is not None
    return Event("game_ended", outcome.to_json())
