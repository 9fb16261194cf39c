"""Tadmur, the two-player chain-building bluffing game: shared/rules/tadmur.md.

Each seat builds a chain of cyclically adjacent ranks from its face-up starter towards its face-down target, and
may guess the rank of the opponent's target once per turn. The state is a frozen dataclass over tuples; `apply`
returns a new state and the events the action caused. Actions are the JSON bodies of tadmur.md §4
(`{"type": "place", "card": "6H"}`, `{"type": "guess", "rank": "Q"}`, `{"type": "pass"}`).

Events (type: public fields; no event carries a private part):

- `placed`: seat, card, empty (the seat's empty spaces after the placement)
- `guessed`: seat, rank, correct, spaces (the guesser's spaces after the guess)
- `passed`: seat
- `resigned`: seat
- `game_ended`: winners, losers, draw, scores, reason, targets (both targets, revealed to all, tadmur.md §6.3)

Targets never appear in an event before `game_ended`, nor in an error message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from engine import serialize
from engine.actions import ActionShapes, CardField, ChoiceField
from engine.cards import Card, code_map, french_deck
from engine.hands import hidden_hands, lay_card, missing_from_hand
from engine.legality import ActionCheck
from engine.options import NoOptions, check_table, describe_no_options, no_options_parser
from engine.protocol import JSON, Action, Capabilities, Event, Result, Seat, View
from engine.seats import other_seat

ID = "tadmur"
TITLE = "Tadmur"
SEATS = range(2, 3)

_DECK = french_deck(2)
_CARDS = code_map(_DECK)

RANKS: tuple[str, ...] = tuple(card.rank_code for card in _DECK[:13])
"""The 13 ranks in the order `legal_actions` lists guesses: `2 … 10 J Q K A` (tadmur.md §4.2)."""

ACTIONS: ActionShapes = {
    "place": {"card": CardField()},
    "guess": {"rank": ChoiceField(RANKS)},
    "pass": {},
    "resign": {},
}
"""The action bodies of tadmur.md §4."""
CAPABILITIES: Capabilities[TadmurState] = Capabilities()
"""None of the optional parts of a game's rules (`engine.protocol.Capabilities`)."""

INITIAL_SPACES = 7
"""Spaces in each row at the start (tadmur.md §2.3, §3.2)."""

DEALER: Seat = 1
"""Seat 1 deals, seat 0 moves first (tadmur.md §2.1, §7.12)."""

Options = NoOptions
"""Tadmur has no options; the number of spaces is always 7 at the start (tadmur.md §2.3)."""
describe_options = describe_no_options
parse_options = no_options_parser(ID)

_CYCLE = 13


class Reason(StrEnum):
    """Why a Tadmur game ended (tadmur.md §5.1): the `reason` of its result."""

    CHAIN_COMPLETE = "chain_complete"
    CORRECT_GUESS = "correct_guess"
    STALEMATE = "stalemate"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class Row:
    """One seat's row (tadmur.md §3.2).

    Attributes:
        starter: the face-up first card.
        target: the face-down card the chain must link to; only the owner sees it while the game is active.
        chain: the placed cards, in placement order.
        spaces: 7 plus one per wrong guess of the owner (tadmur.md §3.6).
        wrong_guesses: the owner's wrong guesses, rank codes in guess order.
    """

    starter: Card
    target: Card
    chain: tuple[Card, ...]
    spaces: int
    wrong_guesses: tuple[str, ...]

    @property
    def empty(self) -> int:
        """Spaces still to fill: `spaces - len(chain)`."""
        return self.spaces - len(self.chain)

    @property
    def chain_end(self) -> Card:
        """The last placed card, or the starter when nothing is placed yet."""
        return self.chain[-1] if self.chain else self.starter


@dataclass(frozen=True, slots=True)
class TadmurState:
    """A Tadmur game in play or finished.

    Attributes:
        rows: per seat (tadmur.md §3.2).
        hands: per seat, in hand order (tadmur.md §2.7).
        turn: the seat whose turn it is (or whose turn it was when the game ended).
        guessed_this_turn: the seat to act has already guessed in this turn (tadmur.md §3.6).
        idle_turns: idle turns in a row just before the current turn, 0 or 1 (tadmur.md §3.11).
        reason: None while active, else `chain_complete`, `correct_guess`, `stalemate` or `resign` (§5.1).
        winner: the seat that won (None while active or in a draw).
        seed: the game's seed; Tadmur has no chance after the deal, it is kept for replays.
    """

    rows: tuple[Row, ...]
    hands: tuple[tuple[Card, ...], ...]
    turn: Seat
    guessed_this_turn: bool
    idle_turns: int
    reason: Reason | None
    winner: Seat | None
    seed: int


# ---------------------------------------------------------------------------------------------------------------
# Value helpers


def parse_card(code: str) -> Card:
    """The card of a Tadmur code (tadmur.md §2.2).

    Raises:
        KeyError: not one of the 52 codes (exact spelling).

    >>> parse_card("10H")
    Card(10H)
    """
    return _CARDS[code]


def hand_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """`cards` by rank `2 … 10 J Q K A`, then suit `S H D C` (tadmur.md §2.7).

    >>> [card.code for card in hand_order(parse_card(c) for c in ["AD", "2C", "10S", "2H", "KD"])]
    ['2H', '2C', '10S', 'KD', 'AD']
    """
    return tuple(sorted(cards))  # Card orders by (rank, suit), suits S H D C: exactly §2.7


def adjacent(card: Card, other: Card) -> bool:
    """Whether the ranks of two cards are neighbours on the cycle `A 2 … K A` (tadmur.md §3.1); suits never matter.

    The ace is rank 14, which is 1 modulo 13, so the plain difference modulo 13 gives the cycle.

    >>> adjacent(parse_card("AS"), parse_card("2H")), adjacent(parse_card("KC"), parse_card("AD"))
    (True, True)
    >>> adjacent(parse_card("KC"), parse_card("JD")), adjacent(parse_card("5H"), parse_card("5D"))
    (False, False)
    """
    return (card.rank - other.rank) % _CYCLE in (1, _CYCLE - 1)


def full_deck(options: Options) -> tuple[Card, ...]:
    """The 52 cards in canonical order `2S … AS, 2H … AH, 2D … AD, 2C … AC` (tadmur.md §2.2)."""
    return _DECK


# ---------------------------------------------------------------------------------------------------------------
# Creating states


def new_game(seats: int, options: Options, deck: Sequence[Card] | None = None, *, seed: int) -> TadmurState:
    """Deal `deck` (top first; None: shuffled by `seed`) by tadmur.md §2.5: starters, targets, then hands.

    Raises:
        InvalidOptions: `seats` is not 2.
        InvalidDeck: `deck` is not a permutation of the 52 cards.
    """
    deck = check_table(ID, seats, SEATS, deck, _DECK, seed)
    rows = tuple(
        Row(starter=deck[seat], target=deck[2 + seat], chain=(), spaces=INITIAL_SPACES, wrong_guesses=())
        for seat in (0, 1)
    )
    hands = (hand_order(deck[4::2]), hand_order(deck[5::2]))
    return TadmurState(
        rows=rows,
        hands=hands,
        turn=other_seat(DEALER),
        guessed_this_turn=False,
        idle_turns=0,
        reason=None,
        winner=None,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------------------------------
# Queries


def placeable(row: Row, cards: Iterable[Card]) -> list[Card]:
    """The cards of `cards` that may go into the next space of `row`, in their order (tadmur.md §3.4).

    A card must be adjacent to the chain end and, when it fills the last empty space, to the row's target too
    (§3.5).
    """
    end, last = row.chain_end, row.empty == 1
    return [card for card in cards if adjacent(card, end) and (not last or adjacent(card, row.target))]


def guessing_locked(state: TadmurState) -> bool:
    """No seat may guess while either row has exactly one empty space (tadmur.md §3.8, §7.4)."""
    return any(row.empty == 1 for row in state.rows)


def _guessable(state: TadmurState, seat: Seat) -> list[str]:
    if state.guessed_this_turn or guessing_locked(state):
        return []
    return [rank for rank in RANKS if rank not in state.rows[seat].wrong_guesses]


def to_act(state: TadmurState) -> frozenset[Seat]:
    """`{turn}` while the game is active, empty once finished (tadmur.md §4.1)."""
    if state.reason is not None:
        return frozenset()
    return frozenset({state.turn})


def legal_actions(state: TadmurState, seat: Seat) -> list[Action]:
    """The actions `seat` may post now, in the order of tadmur.md §4.2.

    For the seat to act: one `place` per legal card in hand order (§3.4), one `guess` per guessable rank in the
    order `2 … A` (§3.6-§3.8), `pass` when no `place` is listed (§3.9), then `resign`. Any other seat (or a
    finished game): `[]`, though that seat's `resign` is still accepted by `apply` (§3.14).
    """
    if seat not in to_act(state):
        return []
    places = placeable(state.rows[seat], state.hands[seat])
    actions: list[Action] = [{"type": "place", "card": card.code} for card in places]
    actions.extend({"type": "guess", "rank": rank} for rank in _guessable(state, seat))
    if not places:
        actions.append({"type": "pass"})
    actions.append({"type": "resign"})
    return actions


def result(state: TadmurState) -> Result | None:
    """The outcome by tadmur.md §5.1 and §5.2, or None while the game is active."""
    return None if state.reason is None else Result.heads_up(state.winner, state.reason)


def view(state: TadmurState, seat: Seat | None) -> View:
    """What `seat` may see (None, or any number that is not a seat: a spectator), as tadmur.md §6.4 `state`.

    Public: both rows without targets, whose turn it is, the guess flag, the lock, `idle_turns` (§6.1). Private:
    the viewer's own hand and own target (§6.2). At the end both targets are shown to everyone, hands are not
    (§6.3); `turn` is then null.
    """
    finished = state.reason is not None
    rows = []
    for owner, row in enumerate(state.rows):
        rows.append({
            "seat": owner,
            "starter": row.starter.code,
            "chain": [card.code for card in row.chain],
            "spaces": row.spaces,
            "empty": row.empty,
            "target": row.target.code if finished or owner == seat else None,
            "wrong_guesses": list(row.wrong_guesses),
        })
    shown: dict[str, JSON] = {
        "dealer": DEALER,
        "turn": None if finished else state.turn,
        "guessed_this_turn": state.guessed_this_turn,
        "guessing_locked": guessing_locked(state),
        "idle_turns": state.idle_turns,
        "rows": rows,
        "hand": [card.code for card in state.hands[seat]] if seat in (0, 1) else None,
    }
    return View(state=shown, seats=[{"hand_size": len(hand)} for hand in state.hands])


def cards_in_play(state: TadmurState) -> list[Card]:
    """All 52 cards: hands, starters, chains and targets (there is no stock or discard pile, tadmur.md §2.5)."""
    placed = [card for row in state.rows for card in (row.starter, *row.chain, row.target)]
    return [*state.hands[0], *state.hands[1], *placed]


def hidden_from(state: TadmurState, seat: Seat | None) -> set[Card]:
    """The cards `seat` (None: a spectator) may not see now (tadmur.md §6.2, §6.3).

    Always the other hands; while the game is active also the other targets.
    """
    hidden = hidden_hands(state.hands, seat)
    if state.reason is None:
        hidden.update(row.target for owner, row in enumerate(state.rows) if owner != seat)
    return hidden


dump_state = serialize.dump_state
"""A JSON-safe dict of a state (cards as codes), tagged with `engine.serialize.FORMAT`."""
load_state = serialize.state_loader(TadmurState, parse_card)
"""Inverse of `dump_state`; raises ValueError (another format version), KeyError or TypeError (not a state)."""


# ---------------------------------------------------------------------------------------------------------------
# Playing


def apply(state: TadmurState, seat: Seat, action: Action) -> tuple[TadmurState, list[Event]]:
    """Play one action for `seat`; return the new state and the events it caused, in order.

    `state` is not modified. Errors are checked in the order of tadmur.md §4.3. E.g. a wrong guess gives
    [guessed(seat=0, rank="Q", correct=False, spaces=8)] and leaves seat 0 to act; a completing placement gives
    [placed(...), game_ended(..., targets=[...])].

    Rules: shared/rules/tadmur.md §3.3 (turns), §3.4-§3.5 (placing, completing), §3.6-§3.8 (guessing, lock),
    §3.9 (passing), §3.11 (stalemate), §3.14 (resign), §5 (result).

    Raises:
        GameFinished: the game already has a result (§5.3).
        IllegalAction: a malformed action (unknown type, missing or extra field, unknown card code or rank), a
            seat that does not exist, or a well-formed action that is not legal now; the message says why and
            never names the target, e.g. "QD is not adjacent to the chain end 5H".
        NotYourTurn: `seat` is not in `to_act(state)` and the action is not `resign`.
    """
    parsed = _check(state, seat, action, finished=state.reason is not None, seats=2)
    kind = parsed["type"]
    if kind == "resign":
        new = replace(state, reason=Reason.RESIGN, winner=other_seat(seat))
        return new, [Event("resigned", {"seat": seat}), _game_ended(new)]
    if kind == "place":
        return _place(state, seat, parsed["card"])
    if kind == "guess":
        return _guess(state, seat, parsed["rank"])
    return _pass(state, seat)


def _why_illegal(state: TadmurState, seat: Seat, parsed: dict[str, Any]) -> str:
    """Why a well-formed action of the seat to act is not in its `legal_actions`; never naming a target.

    Only for the message: `legal_actions` alone decides (tadmur.md §4.2, §4.3).
    """
    row = state.rows[seat]
    if parsed["type"] == "place":
        card: Card = parsed["card"]
        if (missing := missing_from_hand(state.hands[seat], card)) is not None:
            return missing
        if not adjacent(card, row.chain_end):
            return f"{card} is not adjacent to the chain end {row.chain_end}"
        # Only the owner gets this message and knows the target; it still names the rule, not the card.
        return f"{card} fills your last space, so it must also be adjacent to your target"
    if parsed["type"] == "guess":
        if state.guessed_this_turn:
            return "you have already guessed in this turn"
        if guessing_locked(state):
            return "no guessing while a row has exactly one empty space"
        return f"you already guessed {parsed['rank']}"
    return "you have a card you can place: a pass is only for a player who cannot"


_check: ActionCheck[TadmurState] = ActionCheck(ACTIONS, parse_card, legal_actions, to_act, _why_illegal)
"""`apply`'s check of a body: listed, or a resign from either seat at any time (§3.14)."""


def _place(state: TadmurState, seat: Seat, card: Card) -> tuple[TadmurState, list[Event]]:
    row = state.rows[seat]
    new_row = replace(row, chain=(*row.chain, card))
    new = replace(state, rows=_with_row(state.rows, seat, new_row), hands=lay_card(state.hands, seat, card))
    events = [Event("placed", {"seat": seat, "card": card.code, "empty": new_row.empty})]
    if new_row.empty == 0:  # tadmur.md §3.5
        new = replace(new, reason=Reason.CHAIN_COMPLETE, winner=seat)
        return new, [*events, _game_ended(new)]
    return _next_turn(new, idle_turns=0), events


def _guess(state: TadmurState, seat: Seat, rank: str) -> tuple[TadmurState, list[Event]]:
    row = state.rows[seat]
    if state.rows[other_seat(seat)].target.rank_code == rank:  # tadmur.md §3.6: suit ignored (§7.2)
        new = replace(state, reason=Reason.CORRECT_GUESS, winner=seat)
        event = Event("guessed", {"seat": seat, "rank": rank, "correct": True, "spaces": row.spaces})
        return new, [event, _game_ended(new)]
    # The penalty lengthens the guesser's own row (§7.3); the same seat goes on with this turn.
    new_row = replace(row, spaces=row.spaces + 1, wrong_guesses=(*row.wrong_guesses, rank))
    new = replace(state, rows=_with_row(state.rows, seat, new_row), guessed_this_turn=True)
    return new, [Event("guessed", {"seat": seat, "rank": rank, "correct": False, "spaces": new_row.spaces})]


def _pass(state: TadmurState, seat: Seat) -> tuple[TadmurState, list[Event]]:
    events = [Event("passed", {"seat": seat})]
    if state.guessed_this_turn:  # a turn with a wrong guess is not idle (§3.11, §7.10)
        return _next_turn(state, idle_turns=0), events
    if state.idle_turns == 1:
        new = replace(state, reason=Reason.STALEMATE, winner=None)
        return new, [*events, _game_ended(new)]
    return _next_turn(state, idle_turns=1), events


def _next_turn(state: TadmurState, idle_turns: int) -> TadmurState:
    return replace(state, turn=other_seat(state.turn), guessed_this_turn=False, idle_turns=idle_turns)


def _with_row(rows: tuple[Row, ...], seat: Seat, row: Row) -> tuple[Row, ...]:
    return tuple(row if owner == seat else other for owner, other in enumerate(rows))


def _game_ended(state: TadmurState) -> Event:
    outcome = result(state)
    assert outcome is not None
    targets: JSON = [row.target.code for row in state.rows]  # revealed to all at the end (tadmur.md §6.3)
    return Event("game_ended", {**outcome.to_json(), "targets": targets})
