"""Talmut for 3 to 8 players, Spanish deck, scored over rounds: shared/rules/talmut.md.

The state is a frozen dataclass over tuples; `apply` returns a new state and the events the action caused.
Every layout card carries `seen_by`, the seats that legitimately know it (talmut.md §6.1); views show a card only
to those seats. Several seats may act at once: the turn seat, every seat that may `match` while a window is open,
and a standing caller (talmut.md §4.1).

Where each section of talmut.md lives:

- §2.1-§2.4 seats, deck, options, §2.9 positions: `state.py` (with the state's types); §2.5-§2.8 the deal and
  the creation of a game: `rounds.py` and `new_game` here.
- §3.1-§3.3 a turn's draw and swap, §3.8 its end, §3.12 the stock, §3.13-§3.16 calling, §3.17 resigning:
  `rounds.py`. §3.4-§3.7 the discard and the powers: `powers.py`. §3.9-§3.11 matching: `matching.py`.
  §3.18 the AI's pause: `ai_delay_ms` here.
- §4 actions (who may act, the legal list, applying and refusing): here.
- §5 the end of a round and of the game, the result: `rounds.py`.
- §6 what each seat sees: `views.py`.

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from engine import serialize
from engine.actions import ActionShapes, ChoiceField, IntegerField, ObjectField
from engine.cards import Card
from engine.games.talmut.rules import matching, powers, rounds
from engine.games.talmut.rules.matching import matchers
from engine.games.talmut.rules.powers import POWERS
from engine.games.talmut.rules.rounds import CALL_LIMIT, layout_total, may_resign, result
from engine.games.talmut.rules.state import (
    LAYOUT_SIZE,
    Call,
    Drawn,
    Options,
    Phase,
    Place,
    Power,
    PowerKind,
    Reason,
    RoundRecord,
    Slot,
    TalmutState,
    Window,
    describe_options,
    filled_positions,
    full_deck,
    parse_card,
    parse_options,
    value,
)
from engine.games.talmut.rules.views import hidden_from, view
from engine.legality import ActionCheck
from engine.options import check_table
from engine.protocol import JSON, Action, Capabilities, Event, Seat

__all__ = [
    "ACTIONS", "CALL_LIMIT", "CAPABILITIES", "ID", "LAYOUT_SIZE", "OPTIONAL_ACTIONS", "POWERS", "SEATS", "TITLE",
    "Call", "Drawn", "Options", "Phase", "Place", "Power", "PowerKind", "Reason", "RoundRecord", "Slot", "TalmutState",
    "Window", "ai_delay_ms", "apply", "cards_in_play", "describe_options", "dump_state", "full_deck", "hidden_from",
    "layout_total", "legal_actions", "load_state", "new_game", "parse_card", "parse_options", "result",
    "seats_handed_to_ai", "to_act", "value", "view", "with_ai_seats",
]

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


# ---------------------------------------------------------------------------------------------------------------
# Creating states (talmut.md §2)


def new_game(seats: int, options: Options, deck: Sequence[Card] | None = None, *, seed: int) -> TalmutState:
    """Deal round 1 from `deck` (top first), seat 0 playing first (talmut.md §2.5, §2.6).

    With `deck` None the game is seeded: round 1 deals the full deck shuffled by `seed`, later rounds deal fresh
    shuffles and stock rebuilds are shuffled. A `deck` given (a client's) is reused for every round and never
    shuffled (§2.7, §3.12, §7.20).

    Raises:
        InvalidOptions: `seats` is not 3..8.
        InvalidDeck: `deck` is not a permutation of the deck chosen by `deck_size`.
    """
    fixed_deck = deck is not None
    deck = check_table(ID, seats, SEATS, deck, full_deck(options), seed)
    empty = TalmutState(
        options=options,
        seats=seats,
        deck=deck,
        fixed_deck=fixed_deck,
        seed=seed,
        round=1,
        turn=0,
        phase=Phase.DRAW,
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
    return rounds.deal(empty, 1, deck)


def with_ai_seats(state: TalmutState, seats: Iterable[Seat]) -> TalmutState:
    """`state` told which seats an AI plays from the start (the service calls this once, at creation).

    They cannot resign, and when only such seats are left unresigned the game ends (talmut.md §3.17).
    """
    return replace(state, ai_seats=tuple(sorted(set(seats))))


# ---------------------------------------------------------------------------------------------------------------
# Actions (talmut.md §4)


def to_act(state: TalmutState) -> frozenset[Seat]:
    """The seats that may act now (talmut.md §4.1); empty once finished.

    The turn seat; while a window is open, every other seat holding a card but the last thrower and the seats
    that matched wrong in it (§3.11); a standing caller.
    """
    if state.reason is not None or state.turn is None:
        return frozenset()
    seats = {state.turn, *matchers(state)}
    if state.call is not None:
        seats.add(state.call.caller)
    return frozenset(seats)


def legal_actions(state: TalmutState, seat: Seat) -> list[Action]:
    """The actions `seat` may post now, in the order of talmut.md §4.2.

    Turn actions (turn seat), then `match` by position (open window, not the last thrower, no wrong match in this
    window yet), then `withdraw` (the standing caller), then `resign` (a seat that has not resigned and is not an
    AI from the start). A seat not in `to_act` gets `[]`, though its `resign` is still accepted by `apply`.
    """
    if seat not in to_act(state):
        return []
    actions: list[Action] = []
    if seat == state.turn:
        in_power = state.phase in (Phase.POWER, Phase.EXCHANGE)
        actions.extend(powers.power_actions(state) if in_power else rounds.turn_actions(state, seat))
    actions.extend(matching.match_actions(state, seat))
    if state.call is not None and state.call.caller == seat:
        actions.append({"type": "withdraw"})
    if may_resign(state, seat):
        actions.append({"type": "resign"})
    return actions


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
    parsed = _check(state, seat, action, finished=state.reason is not None, seats=state.seats)
    kind = parsed["type"]
    if kind == "resign":
        return rounds.resign(state, seat)
    if kind == "draw":
        return rounds.draw(state, seat, parsed["source"])
    if kind == "call":
        return rounds.call(state, seat)
    if kind == "swap":
        return rounds.swap(state, seat, parsed["position"])
    if kind == "discard":
        return powers.discard(state, seat)
    if kind == "peek":
        return powers.peek(state, seat, Place(parsed["seat"], parsed["position"]))
    if kind == "blind_swap":
        return powers.blind_swap(state, seat, parsed["a"], parsed["b"])
    if kind == "exchange":
        return powers.exchange(state, seat, Place(parsed["seat"], parsed["position"]))
    if kind == "skip_power":
        return powers.skip_power(state, seat)
    if kind == "match":
        return matching.match(state, seat, parsed["position"])
    return rounds.withdraw(state, seat)


def _why_illegal(state: TalmutState, seat: Seat, action: Mapping[str, JSON]) -> str:
    """A reason naming only public facts: phases, positions, whose turn, the window.

    Only for the message: `legal_actions` alone decides (talmut.md §4.2, §4.3).
    """
    kind = action["type"]
    if kind == "resign":
        return "this seat cannot resign: it resigned already or is an AI seat"
    if kind == "match":
        if state.window is None:
            return "no matching window is open"
        if seat == state.window.last_thrower:
            return "you threw the last card: wait for another seat to throw"
        if seat in state.window.wrong_matchers:
            return "you matched wrong in this window already: one wrong match per window"
    if kind in ("match", "swap") and action["position"] not in filled_positions(state, seat):
        return f"your position {action['position']} is empty or does not exist"
    if kind == "withdraw":
        return "you have no standing call to withdraw"
    if seat != state.turn:
        return f"{kind} is for the turn seat; you may only match or withdraw now"
    if kind == "call":
        if state.call is not None:
            return "a call stands already"
        return "you withdrew a call: another seat must call first"
    if kind == "draw" and state.phase == Phase.DRAW:
        return "the stock is empty and the discard pile has one card"
    if kind in ("peek", "blind_swap", "exchange"):
        return f"{kind} is not one of the places you may choose now (phase {state.phase})"
    return f"{kind} is not legal in phase {state.phase}"


_check: ActionCheck[TalmutState] = ActionCheck(
    ACTIONS, parse_card, legal_actions, to_act, _why_illegal, not_your_turn="you may not act now", may_resign=may_resign
)
"""`apply`'s check of a body: listed, or a resign from a seat that may still resign, at any time (§3.17)."""


# ---------------------------------------------------------------------------------------------------------------
# The rest of the protocol, and Talmut's capabilities


def cards_in_play(state: TalmutState) -> list[Card]:
    """Every card: layouts, stock, discard pile and the drawn card."""
    layout_cards = [slot.card for layout in state.layouts for slot in layout if slot.card is not None]
    drawn = [] if state.drawn is None else [state.drawn.card]
    return [*layout_cards, *state.stock, *state.discard, *drawn]


dump_state = serialize.dump_state
"""A JSON-safe dict of a state (cards as codes), tagged with `engine.serialize.FORMAT`."""
load_state = serialize.state_loader(TalmutState, parse_card)
"""Inverse of `dump_state`; raises ValueError (another format version), KeyError or TypeError (not a state)."""


def ai_delay_ms(state: TalmutState, seat: Seat) -> int:
    """How long an AI in `seat` waits before acting now, in milliseconds (talmut.md §3.18).

    `match_pause_ms` when its next action would close an open window (the turn seat in phase `draw`) and a seat
    played by a human may match in it (`_human_may_match`), else 0. Timing only, never legality. The wait, counted
    from the first state with it (engine/protocol.py), starts at the discard that opened the window: matches,
    withdrawals and resignations keep it while a human may still match; a draw or a call, which closes the
    window, ends it. A pause nobody can use is skipped: when every other seat that may match is played by an AI,
    which decides at once, at the version that let it match (its own delay is 0), or when no other seat may match
    at all (none holds a card, §3.16; each threw last or made its wrong match, §3.11). A human seat that may
    match again later in the window (another seat's correct match made it no longer the last thrower) starts a
    pause of its own. All of this is public (§6.4), so when an AI moves tells nothing of any hidden card.
    """
    if state.window is not None and seat == state.turn and state.phase == Phase.DRAW and _human_may_match(state):
        return state.options.match_pause_ms
    return 0


def _human_may_match(state: TalmutState) -> bool:
    """Whether a seat other than the turn seat that is played by a human may match now (talmut.md §3.9, §3.11).

    Seats played by an AI: those from the start (`with_ai_seats`) and those that resigned (§3.17).
    """
    return any(
        other != state.turn and other not in state.ai_seats and other not in state.resigned
        for other in matchers(state)
    )


def seats_handed_to_ai(state: TalmutState) -> dict[Seat, str]:
    """Seats the rules hand to an AI, with its level: each resigned seat plays on at `easy` (talmut.md §3.17)."""
    return {seat: "easy" for seat in state.resigned}


CAPABILITIES: Capabilities[TalmutState] = Capabilities(
    optional_actions=OPTIONAL_ACTIONS,
    with_ai_seats=with_ai_seats,
    seats_handed_to_ai=seats_handed_to_ai,
    ai_delay_ms=ai_delay_ms,
    ai_delay_reason="match_window",
)
"""Talmut's optional parts: matches and withdrawals nobody waits for, AI seats from the start and by resignation,
the pause before an AI closes a matching window while a human may match in it (`engine.protocol.Capabilities`)."""
