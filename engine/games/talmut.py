"""Talmut for 3 to 8 players, Spanish deck, scored over rounds: shared/rules/talmut.md.

The state is a frozen dataclass over tuples; `apply` returns a new state and the events the action caused.
Every layout card carries `seen_by`, the seats that legitimately know it (talmut.md §6.1); views show a card only
to those seats. Several seats may act at once: the turn seat, every seat that may `match` while a window is open,
and a standing caller (talmut.md §4.1).

Events (type: public fields; private fields per seat in brackets):

- `drew`: seat, source, card (public for the discard pile) [the drawer: card, for the stock]
- `stock_rebuilt`: stock_size, shuffled (talmut.md §3.12; the cards were public on the pile)
- `swapped`: seat, position, discarded (the card sent to the pile), card when drawn from the pile [the drawer:
  card, when drawn from the stock]
- `discarded`: seat, card, power (`sota`, `caballo`, `rey` or null)
- `peeked`: seat, target {seat, position} [the peeker: card]
- `blind_swapped`: seat, a, b (each {seat, position})
- `exchanged`: seat, a (the peeked card's place), b
- `power_skipped`: seat
- `matched`: seat, position, correct, penalty_position (null: no penalty card; the penalty card itself is unseen),
  card (public when correct: it is on the pile) [every seat: card, when wrong: shown to the players, §3.11]
- `called`, `withdrew`, `resigned`: seat
- `round_ended`: round, caller, call_total, false_call, cards, points, totals (every layout revealed, §5.2)
- `round_started`: round, dealer, turn, discard
- `game_ended`: winners, losers, draw, scores, reason
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from engine import serialize
from engine.actions import ActionShapes, ChoiceField, IntegerField, ObjectField, check_listed
from engine.cards import Card, code_map, shuffled, spanish_deck
from engine.errors import IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.protocol import JSON, Action, Capabilities, Event, Result, Seat, View
from engine.seats import next_seat, seats_from

ID = "talmut"
TITLE = "Talmut"
SEATS = range(3, 9)
_POSITION = IntegerField(0, 99)
_SEAT = IntegerField(0, SEATS.stop - 2)
_PLACE = ObjectField({"seat": _SEAT, "position": _POSITION})
ACTIONS: ActionShapes = {
    "draw": {"source": ChoiceField(("stock", "discard"))},
    "call": {},
    "swap": {"position": _POSITION},
    "discard": {},
    "peek": {"seat": _SEAT, "position": _POSITION},
    "blind_swap": {"a": _PLACE, "b": _PLACE},
    "exchange": {"seat": _SEAT, "position": _POSITION},
    "skip_power": {},
    "match": {"position": _POSITION},
    "withdraw": {},
    "resign": {},
}
"""The action bodies of talmut.md §4."""

OPTIONAL_ACTIONS = frozenset({"match", "withdraw"})
"""Action types a seat may post but is never waited for (talmut.md §4.1): an AI may choose to do nothing."""

LAYOUT_SIZE = 4
"""Cards dealt to each seat (talmut.md §2.6)."""

CALL_LIMIT = 5
"""A call is false when the caller's `call_total` is above this (talmut.md §5.3, §7.16)."""

POWERS = {10: "sota", 11: "caballo", 12: "rey"}
"""Rank -> the power it gives when drawn from the stock and discarded (talmut.md §3.4-§3.7)."""

_RANKS = {40: (1, 2, 3, 4, 5, 6, 7, 10, 11, 12), 48: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)}
_DECKS = {size: spanish_deck(ranks) for size, ranks in _RANKS.items()}
_CARDS = code_map(_DECKS[48])
_OPTION_RANGES = {"target": (1, 1000), "call_penalty": (0, 100), "match_pause_ms": (0, 10000)}


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

    kind: str
    card: Card
    peeked: Place | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """An open matching window (talmut.md §3.9): the rank to match and the seat that threw last."""

    rank: int
    last_thrower: Seat


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
    phase: str | None
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
    reason: str | None

    @property
    def dealer(self) -> Seat:
        """The seat before the round's first player (talmut.md §2.5)."""
        return (self.round - 2) % self.seats


# ---------------------------------------------------------------------------------------------------------------
# Value helpers


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


def layout_total(slots: Iterable[Slot]) -> int:
    """The points of a layout; empty positions count 0 (talmut.md §5.3)."""
    return sum(value(slot.card) for slot in slots if slot.card is not None)


# ---------------------------------------------------------------------------------------------------------------
# Game description


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
# Creating states


def new_game(seats: int, options: Options, deck: Sequence[Card], seed: int) -> TalmutState:
    """Deal round 1 from `deck` (top first), seat 0 playing first (talmut.md §2.5, §2.6).

    The service deals `engine.cards.shuffled(full_deck, seed)` when the request has no `deck`, so a deck equal to
    that shuffle marks a seeded game: its later rounds deal fresh shuffles and its stock rebuilds are shuffled.
    Any other deck was sent by the client and is reused for every round, never shuffled (§2.7, §3.12, §7.20).

    Raises:
        InvalidOptions: `seats` is not 3..8.
        InvalidDeck: `deck` is not a permutation of the deck chosen by `deck_size`.
    """
    if seats not in SEATS:
        raise InvalidOptions(f"talmut is played by 3 to 8 seats, not {seats}")
    deck = tuple(deck)
    expected = full_deck(options)
    if len(deck) != len(expected) or set(deck) != set(expected):
        raise InvalidDeck(f"deck must be a permutation of the {len(expected)} cards of this game")
    empty = TalmutState(
        options=options,
        seats=seats,
        deck=deck,
        fixed_deck=deck != shuffled(expected, seed),
        seed=seed,
        round=1,
        turn=0,
        phase="draw",
        layouts=(),
        stock=(),
        discard=(),
        drawn=None,
        power=None,
        window=None,
        call=None,
        call_barred=None,
        totals=(0,) * seats,
        history=(),
        reshuffles=0,
        resigned=(),
        ai_seats=(),
        reason=None,
    )
    return _deal(empty, 1, deck)


def with_ai_seats(state: TalmutState, seats: Iterable[Seat]) -> TalmutState:
    """`state` told which seats an AI plays from the start (the service calls this once, at creation).

    They cannot resign, and when only such seats are left unresigned the game ends (talmut.md §3.17).
    """
    return replace(state, ai_seats=tuple(sorted(set(seats))))


def _deal(state: TalmutState, round_number: int, deck: Sequence[Card]) -> TalmutState:
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
        phase="draw",
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
# Queries


def _holds_cards(state: TalmutState, seat: Seat) -> bool:
    return any(slot.card is not None for slot in state.layouts[seat])


def _places(state: TalmutState) -> list[Place]:
    """Every non-empty layout position in ascending (seat, position) order."""
    return [
        Place(seat, position)
        for seat, layout in enumerate(state.layouts)
        for position, slot in enumerate(layout)
        if slot.card is not None
    ]


def to_act(state: TalmutState) -> frozenset[Seat]:
    """The seats that may act now (talmut.md §4.1); empty once finished.

    The turn seat; while a window is open, every other seat holding a card but the last thrower; a standing caller.
    """
    if state.reason is not None or state.turn is None:
        return frozenset()
    seats = {state.turn}
    if state.window is not None:
        seats.update(
            seat for seat in range(state.seats) if seat != state.window.last_thrower and _holds_cards(state, seat)
        )
    if state.call is not None:
        seats.add(state.call.caller)
    return frozenset(seats)


def _place_json(place: Place) -> dict[str, int]:
    return {"seat": place.seat, "position": place.position}


def _turn_actions(state: TalmutState, seat: Seat) -> list[Action]:
    """The turn seat's actions in the order of talmut.md §4.2."""
    actions: list[Action] = []
    if state.phase == "draw":
        if state.stock or len(state.discard) >= 2:
            actions.append({"type": "draw", "source": "stock"})
        actions.append({"type": "draw", "source": "discard"})
        if state.call is None and state.call_barred != seat:
            actions.append({"type": "call"})
    elif state.phase == "decide":
        layout = state.layouts[seat]
        actions.extend({"type": "swap", "position": p} for p, slot in enumerate(layout) if slot.card is not None)
        actions.append({"type": "discard"})
    elif state.phase == "power":
        assert state.power is not None
        places = _places(state)
        if state.power.kind == "caballo":
            actions.extend(
                {"type": "blind_swap", "a": _place_json(a), "b": _place_json(b)}
                for a in places
                for b in places
                if a.seat < b.seat
            )
        else:
            actions.extend({"type": "peek", **_place_json(place)} for place in places)
        actions.append({"type": "skip_power"})
    else:  # exchange
        assert state.power is not None and state.power.peeked is not None
        owner = state.power.peeked.seat
        actions.extend({"type": "exchange", **_place_json(place)} for place in _places(state) if place.seat != owner)
        actions.append({"type": "skip_power"})
    return actions


def legal_actions(state: TalmutState, seat: Seat) -> list[Action]:
    """The actions `seat` may post now, in the order of talmut.md §4.2.

    Turn actions (turn seat), then `match` by position (open window, not the last thrower), then `withdraw` (the
    standing caller), then `resign` (a seat that has not resigned and is not an AI from the start). A seat not in
    `to_act` gets `[]`, though its `resign` is still accepted by `apply`.
    """
    if seat not in to_act(state):
        return []
    actions = _turn_actions(state, seat) if seat == state.turn else []
    if state.window is not None and seat != state.window.last_thrower:
        layout = state.layouts[seat]
        actions.extend({"type": "match", "position": p} for p, slot in enumerate(layout) if slot.card is not None)
    if state.call is not None and state.call.caller == seat:
        actions.append({"type": "withdraw"})
    if _may_resign(state, seat):
        actions.append({"type": "resign"})
    return actions


def _may_resign(state: TalmutState, seat: Seat) -> bool:
    return seat not in state.resigned and seat not in state.ai_seats


def result(state: TalmutState) -> Result | None:
    """The outcome by talmut.md §5.5 (target reached) or §5.6 (resignations), or None while active.

    `scores` is `{"totals": {seat: total}, "rounds": [history entry, ...]}` (§5.7).
    """
    if state.reason is None:
        return None
    standing = [seat for seat in range(state.seats) if seat not in state.resigned]
    lowest = min(state.totals[seat] for seat in standing)
    winners = tuple(seat for seat in standing if state.totals[seat] == lowest)
    draw = state.reason == "target_reached" and len(winners) == state.seats
    losers = () if draw else tuple(seat for seat in range(state.seats) if seat not in winners)
    return Result(winners=winners, losers=losers, draw=draw, scores=_scores(state), reason=state.reason)


def _by_seat(values: Sequence[JSON]) -> dict[str, JSON]:
    return {str(seat): item for seat, item in enumerate(values)}


def _scores(state: TalmutState) -> dict[str, JSON]:
    return {"totals": _by_seat(state.totals), "rounds": [_round_json(record) for record in state.history]}


def _round_json(record: RoundRecord) -> dict[str, JSON]:
    return {
        "round": record.round,
        "caller": record.caller,
        "call_total": record.call_total,
        "false_call": record.false_call,
        "cards": _by_seat([[None if card is None else card.code for card in layout] for layout in record.cards]),
        "points": _by_seat(record.points),
    }


def _knows(state: TalmutState, slot: Slot, viewer: Seat | None) -> bool:
    """Whether `viewer` may see `slot`'s card: it knows it (§6.2), or the game ended at the target (§6.5)."""
    if state.reason == "target_reached":
        return True
    return viewer is not None and viewer in slot.seen_by


def view(state: TalmutState, seat: Seat | None) -> View:
    """What `seat` may see (None, or a number that is no seat: a spectator), as talmut.md §6.7 `state`.

    Layout cards only to seats in their `seen_by` (§6.2), the drawn card to the drawer or when it came from the
    pile (§6.3), never `call_total` nor the stock order (§6.5). `seats[i]` is `{"hand_size": cards in the
    layout, "resigned": bool}`.
    """
    viewer = seat if seat in range(state.seats) else None
    drawn = None
    if state.drawn is not None and state.phase == "decide":
        shown = viewer == state.turn or state.drawn.source == "discard"
        drawn = {"source": state.drawn.source, "card": state.drawn.card.code if shown else None}
    power = None
    if state.power is not None and state.phase in ("power", "exchange"):
        peeked = None if state.power.peeked is None else _place_json(state.power.peeked)
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
        else {"rank": str(state.window.rank), "last_thrower": state.window.last_thrower},
        "talmut": None
        if state.call is None
        else {"caller": state.call.caller, "last_turns": list(state.call.last_turns)},
        "call_barred": state.call_barred,
        "totals": _by_seat(state.totals),
        "history": [_round_json(record) for record in state.history],
    }
    seats = [
        {"hand_size": sum(slot.card is not None for slot in layout), "resigned": owner in state.resigned}
        for owner, layout in enumerate(state.layouts)
    ]
    return View(state=shown_state, seats=seats)


def cards_in_play(state: TalmutState) -> list[Card]:
    """Every card: layouts, stock, discard pile and the drawn card."""
    layout_cards = [slot.card for layout in state.layouts for slot in layout if slot.card is not None]
    drawn = [] if state.drawn is None else [state.drawn.card]
    return [*layout_cards, *state.stock, *state.discard, *drawn]


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


def dump_state(state: TalmutState) -> dict[str, JSON]:
    """A JSON-safe dict of `state` (cards as codes), tagged with `engine.serialize.FORMAT`."""
    return {"format": serialize.FORMAT, **serialize.dump(state)}


def load_state(data: Mapping[str, JSON]) -> TalmutState:
    """Inverse of `dump_state`.

    Raises:
        ValueError: `data` was written in another format version.
        KeyError, TypeError: `data` does not have the shape of a state.
    """
    if data.get("format") != serialize.FORMAT:
        raise ValueError(f"unsupported state format {data.get('format')!r}")
    state: TalmutState = serialize.load(TalmutState, data, parse_card)
    return state


def ai_delay_ms(state: TalmutState, seat: Seat) -> int:
    """How long an AI in `seat` waits before acting now, in milliseconds (talmut.md §3.18).

    `match_pause_ms` when its next action would close an open window (the turn seat in phase `draw`), else 0.
    Timing only, never legality. It stays > 0 through matches, withdrawals and resignations while the window is
    open, and a draw or a call, which closes it, makes it 0: so the wait, counted from the first state with it
    (engine/protocol.py), starts at the discard that opened the window.
    """
    if state.window is not None and seat == state.turn and state.phase == "draw":
        return state.options.match_pause_ms
    return 0


def seats_handed_to_ai(state: TalmutState) -> dict[Seat, str]:
    """Seats the rules hand to an AI, with its level: each resigned seat plays on at `easy` (talmut.md §3.17)."""
    return {seat: "easy" for seat in state.resigned}


CAPABILITIES: Capabilities[TalmutState] = Capabilities(
    optional_actions=OPTIONAL_ACTIONS,
    with_ai_seats=with_ai_seats,
    seats_handed_to_ai=seats_handed_to_ai,
    ai_delay_ms=ai_delay_ms,
)
"""Talmut's optional parts: matches and withdrawals nobody waits for, AI seats from the start and by resignation,
the pause before an AI closes a matching window (`engine.protocol.Capabilities`)."""


# ---------------------------------------------------------------------------------------------------------------
# Playing


def apply(state: TalmutState, seat: Seat, action: Action) -> tuple[TalmutState, list[Event]]:
    """Play one action for `seat`; return the new state and the events it caused, in order.

    `state` is not modified. Errors are checked in the order of talmut.md §4.3. A turn that ends the round gives
    e.g. [discarded(...), round_ended(...), round_started(...)]; events can hold private cards (a stock draw, a
    peek), so redact them per viewer (`engine.redaction.event_for`).

    Rules: shared/rules/talmut.md §3.2-§3.17, §5.

    Raises:
        GameFinished: the game already has a result.
        IllegalAction: a malformed action, a seat that does not exist, or a well-formed action that is not legal
            now; the message names only what the actor may see, e.g. "position 1 is empty".
        NotYourTurn: `seat` is not in `to_act(state)` and the action is not `resign`.
    """
    parsed, listed = check_listed(
        action, seat, lambda seat: legal_actions(state, seat), ACTIONS, parse_card, finished=state.reason is not None,
        seats=state.seats,
    )
    kind = parsed["type"]
    if not listed:
        if kind == "resign" and not _may_resign(state, seat):
            raise IllegalAction("this seat cannot resign: it resigned already or is an AI seat")
        if kind != "resign":  # a seat that may resign does so at any time (§3.17)
            if seat not in to_act(state):
                raise NotYourTurn("you may not act now")
            raise IllegalAction(_why_illegal(state, seat, parsed))
    if kind == "resign":
        return _resign(state, seat)
    if kind == "draw":
        return _draw(state, seat, parsed["source"])
    if kind == "call":
        return _call(state, seat)
    if kind == "swap":
        return _swap(state, seat, parsed["position"])
    if kind == "discard":
        return _discard(state, seat)
    if kind == "peek":
        return _peek(state, seat, Place(parsed["seat"], parsed["position"]))
    if kind == "blind_swap":
        a, b = (Place(parsed[end]["seat"], parsed[end]["position"]) for end in ("a", "b"))
        return _exchange_cards(state, a, b, Event("blind_swapped", {"seat": seat, "a": parsed["a"], "b": parsed["b"]}))
    if kind == "exchange":
        assert state.power is not None and state.power.peeked is not None
        a, b = state.power.peeked, Place(parsed["seat"], parsed["position"])
        event = Event("exchanged", {"seat": seat, "a": _place_json(a), "b": _place_json(b)})
        return _exchange_cards(state, a, b, event)
    if kind == "skip_power":
        return _end_turn(replace(state, power=None), [Event("power_skipped", {"seat": seat})])
    if kind == "match":
        return _match(state, seat, parsed["position"])
    return _withdraw(state, seat)


def _why_illegal(state: TalmutState, seat: Seat, action: Mapping[str, JSON]) -> str:
    """A reason naming only public facts: phases, positions, whose turn, the window."""
    kind = action["type"]
    if kind == "match":
        if state.window is None:
            return "no matching window is open"
        if seat == state.window.last_thrower:
            return "you threw the last card: wait for another seat to throw"
    if kind in ("match", "swap") and action["position"] not in _nonempty_positions(state, seat):
        return f"your position {action['position']} is empty or does not exist"
    if kind == "withdraw":
        return "you have no standing call to withdraw"
    if seat != state.turn:
        return f"{kind} is for the turn seat; you may only match or withdraw now"
    if kind == "call":
        if state.call is not None:
            return "a call stands already"
        return "you withdrew a call: another seat must call first"
    if kind == "draw" and state.phase == "draw":
        return "the stock is empty and the discard pile has one card"
    if kind in ("peek", "blind_swap", "exchange"):
        return f"{kind} is not one of the places you may choose now (phase {state.phase})"
    return f"{kind} is not legal in phase {state.phase}"


def _nonempty_positions(state: TalmutState, seat: Seat) -> set[int]:
    return {position for position, slot in enumerate(state.layouts[seat]) if slot.card is not None}


def _everyone(state: TalmutState) -> tuple[Seat, ...]:
    return tuple(range(state.seats))


def _set_slot(state: TalmutState, place: Place, slot: Slot) -> tuple[tuple[Slot, ...], ...]:
    layouts = list(state.layouts)
    layout = list(layouts[place.seat])
    if place.position == len(layout):
        layout.append(slot)
    else:
        layout[place.position] = slot
    layouts[place.seat] = tuple(layout)
    return tuple(layouts)


def _take_from_stock(state: TalmutState) -> tuple[TalmutState, Card | None, list[Event]]:
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


def _draw(state: TalmutState, seat: Seat, source: str) -> tuple[TalmutState, list[Event]]:
    if source == "discard":
        card = state.discard[-1]
        new = replace(state, discard=state.discard[:-1], drawn=Drawn(source, card), phase="decide", window=None)
        return new, [Event("drew", {"seat": seat, "source": source, "card": card.code})]
    new, taken, events = _take_from_stock(state)
    assert taken is not None  # listed only when a card can be had (§3.2)
    new = replace(new, drawn=Drawn(source, taken), phase="decide", window=None)
    return new, [*events, Event("drew", {"seat": seat, "source": source}, {seat: {"card": taken.code}})]


def _swap(state: TalmutState, seat: Seat, position: int) -> tuple[TalmutState, list[Event]]:
    assert state.drawn is not None
    place = Place(seat, position)
    thrown = state.layouts[seat][position].card
    assert thrown is not None
    from_stock = state.drawn.source == "stock"
    seen_by = (seat,) if from_stock else _everyone(state)
    new = replace(
        state,
        layouts=_set_slot(state, place, Slot(state.drawn.card, seen_by)),
        discard=(*state.discard, thrown),
        drawn=None,
    )
    public: dict[str, JSON] = {"seat": seat, "position": position, "discarded": thrown.code}
    private: dict[Seat, dict[str, JSON]] = {}
    if from_stock:
        private[seat] = {"card": state.drawn.card.code}
    else:
        public["card"] = state.drawn.card.code
    return _end_turn(new, [Event("swapped", public, private)])


def _power_has_target(state: TalmutState, kind: str) -> bool:
    holders = [seat for seat in range(state.seats) if _holds_cards(state, seat)]
    return len(holders) >= 2 if kind == "caballo" else bool(holders)


def _discard(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    assert state.drawn is not None
    card = state.drawn.card
    new = replace(state, discard=(*state.discard, card), drawn=None)
    kind = POWERS.get(card.rank) if state.drawn.source == "stock" else None
    if kind is not None and not _power_has_target(new, kind):
        kind = None
    event = Event("discarded", {"seat": seat, "card": card.code, "power": kind})
    if kind is None:
        return _end_turn(new, [event])
    return replace(new, phase="power", power=Power(kind, card)), [event]


def _peek(state: TalmutState, seat: Seat, place: Place) -> tuple[TalmutState, list[Event]]:
    assert state.power is not None
    slot = state.layouts[place.seat][place.position]
    assert slot.card is not None
    seen_by = tuple(sorted({*slot.seen_by, seat}))
    new = replace(state, layouts=_set_slot(state, place, replace(slot, seen_by=seen_by)))
    event = Event("peeked", {"seat": seat, "target": _place_json(place)}, {seat: {"card": slot.card.code}})
    others_hold = any(_holds_cards(new, other) for other in range(state.seats) if other != place.seat)
    if state.power.kind == "rey" and others_hold:
        return replace(new, phase="exchange", power=replace(state.power, peeked=place)), [event]
    return _end_turn(replace(new, power=None), [event])


def _exchange_cards(state: TalmutState, a: Place, b: Place, event: Event) -> tuple[TalmutState, list[Event]]:
    """Trade the slots at `a` and `b`; what any seat knew moves with each card (talmut.md §3.6, §3.7, §6.1)."""
    slot_a, slot_b = state.layouts[a.seat][a.position], state.layouts[b.seat][b.position]
    moved = replace(state, layouts=_set_slot(state, a, slot_b))
    moved = replace(moved, layouts=_set_slot(moved, b, slot_a), power=None)
    return _end_turn(moved, [event])


def _match(state: TalmutState, seat: Seat, position: int) -> tuple[TalmutState, list[Event]]:
    assert state.window is not None
    place = Place(seat, position)
    slot = state.layouts[seat][position]
    assert slot.card is not None
    public: dict[str, JSON] = {"seat": seat, "position": position}
    if slot.card.rank == state.window.rank:  # §3.10
        public["card"] = slot.card.code
        new = replace(
            state,
            layouts=_set_slot(state, place, Slot(None)),
            discard=(*state.discard, slot.card),
            window=Window(state.window.rank, seat),
        )
        return new, [Event("matched", {**public, "correct": True, "penalty_position": None})]
    # §3.11: shown to everyone, stays in place; an unseen penalty card from the stock
    new = replace(state, layouts=_set_slot(state, place, replace(slot, seen_by=_everyone(state))))
    new, penalty, events = _take_from_stock(new)
    penalty_position = None
    if penalty is not None:
        empties = [p for p, other in enumerate(new.layouts[seat]) if other.card is None]
        penalty_position = empties[0] if empties else len(new.layouts[seat])
        new = replace(new, layouts=_set_slot(new, Place(seat, penalty_position), Slot(penalty)))
    # every seat now knows the card; a spectator sees no layout card during a round (§6.2)
    shown = {other: {"card": slot.card.code} for other in _everyone(state)}
    public.update(correct=False, penalty_position=penalty_position)
    return new, [*events, Event("matched", public, shown)]


def _call(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    others = tuple(other for other in seats_from(next_seat(seat, state.seats), state.seats) if other != seat)
    call = Call(caller=seat, last_turns=others, call_total=layout_total(state.layouts[seat]))
    # a call by another seat lifts the bar (§3.15); the barred seat cannot call, so any call lifts it
    new = replace(state, call=call, call_barred=None, window=None, turn=others[0], phase="draw")
    return new, [Event("called", {"seat": seat})]


def _withdraw(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
    return replace(state, call=None, call_barred=seat), [Event("withdrew", {"seat": seat})]


def _end_turn(state: TalmutState, events: list[Event]) -> tuple[TalmutState, list[Event]]:
    """talmut.md §3.8: end the round after the last of the last turns, else pass the turn and open a window."""
    assert state.turn is not None
    turn = state.turn
    if state.call is not None:
        last_turns = tuple(seat for seat in state.call.last_turns if seat != turn)
        if not last_turns:
            return _end_round(state, events)
        state = replace(state, call=replace(state.call, last_turns=last_turns))
    window = Window(state.discard[-1].rank, turn)
    return replace(state, turn=next_seat(turn, state.seats), phase="draw", window=window), events


def _end_round(state: TalmutState, events: list[Event]) -> tuple[TalmutState, list[Event]]:
    """talmut.md §5.1-§5.4: reveal, score, then deal the next round or end the game."""
    assert state.call is not None
    call = state.call
    false_call = call.call_total > CALL_LIMIT
    points = [layout_total(layout) for layout in state.layouts]
    if false_call:
        points[call.caller] += state.options.call_penalty
    record = RoundRecord(
        round=state.round,
        caller=call.caller,
        call_total=call.call_total,
        false_call=false_call,
        cards=tuple(tuple(slot.card for slot in layout) for layout in state.layouts),
        points=tuple(points),
        discard=state.discard,
    )
    totals = tuple(total + gained for total, gained in zip(state.totals, points, strict=True))
    scored = replace(state, totals=totals, history=(*state.history, record), window=None, call=None)
    events = [*events, Event("round_ended", {**_round_json(record), "totals": _by_seat(totals)})]
    if any(total >= state.options.target for total in totals):
        finished = replace(scored, turn=None, phase=None, reason="target_reached")
        return finished, [*events, _game_ended(finished)]
    next_round = state.round + 1
    deck = state.deck if state.fixed_deck else shuffled(state.deck, f"{state.seed}:deal:{next_round}")
    dealt = _deal(scored, next_round, deck)
    started = {"round": next_round, "dealer": dealt.dealer, "turn": dealt.turn, "discard": dealt.discard[0].code}
    return dealt, [*events, Event("round_started", started)]


def _resign(state: TalmutState, seat: Seat) -> tuple[TalmutState, list[Event]]:
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
    finished = replace(new, turn=None, phase=None, window=None, reason="resign")
    return finished, [*events, _game_ended(finished)]


def _game_ended(state: TalmutState) -> Event:
    outcome = result(state)
    assert outcome is not None
    return Event("game_ended", outcome.to_json())
