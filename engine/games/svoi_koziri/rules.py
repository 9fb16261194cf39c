"""Svoi Koziri ("own trumps") for two players: shared/rules/svoi_koziri.md.

Each seat chooses its own trump suit before the deal (both choices are public, svoi_koziri.md §6.1); all 36 cards
are dealt, and the players beat onto one face-up pile. The state is a frozen dataclass over tuples; `apply` returns
a new state and the events the action caused. Actions are the JSON bodies of svoi_koziri.md §4.

Events (type: public fields; private fields per seat in brackets):

- `trump_chosen`: seat, suit
- `dealt`: hand_sizes (18 each) [each seat: cards, its own 18 in hand order] (§2.6, §6.2)
- `sixes_passed`: cards (indexed by the giving seat: the six it handed over, or null) (§2.7, §6.1)
- `led`: seat, card
- `beat`: seat, card, against (the top card it beat)
- `played`: seat, card (the second card after a beat, §3.5)
- `took`: seat, cards (bottom first; they were face up on the pile, §6.1)
- `resigned`: seat
- `game_ended`: winners, losers, draw, scores, reason, revealed_hands
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from engine import serialize
from engine.actions import ActionShapes, CardField, ChoiceField
from engine.beating import beats
from engine.cards import FRENCH_36, FRENCH_SUITS, Card, Suit, codes, parse_french_36, suit_then_rank
from engine.hands import Hands, add_cards, hidden_hands, lay_card, missing_from_hand
from engine.legality import ActionCheck
from engine.options import NoOptions, check_table, describe_no_options, no_options_parser
from engine.protocol import JSON, Action, Capabilities, Event, Result, Seat, View
from engine.seats import other_seat

ID = "svoi_koziri"
TITLE = "Svoi Koziri (own trumps)"
SEATS = range(2, 3)
_SUIT_LETTERS = tuple(suit.letter for suit in FRENCH_SUITS)
ACTIONS: ActionShapes = {
    "choose_trump": {"suit": ChoiceField(_SUIT_LETTERS)},
    "lead": {"card": CardField()},
    "beat": {"card": CardField()},
    "play": {"card": CardField()},
    "take": {},
    "resign": {},
}
"""The action bodies of svoi_koziri.md §4."""
CAPABILITIES: Capabilities[SvoiKoziriState] = Capabilities()
"""None of the optional parts of a game's rules (`engine.protocol.Capabilities`)."""

TAKE = 3
"""Cards taken from the top of the pile when it is not of the taker's own trump suit (svoi_koziri.md §3.6)."""
TAKE_OWN_TRUMP = 5
"""Cards taken when the top card is of the taker's own trump suit but not its ace (svoi_koziri.md §3.6)."""
REPEATS_TO_DRAW = 3
"""A post-take position recorded this many times draws the game (svoi_koziri.md §3.9)."""
_ACE = 14
_SUITS = {suit.letter: suit for suit in FRENCH_SUITS}


class Step(StrEnum):
    """What the seat to act does next (svoi_koziri.md §3.2): the view's `step`."""

    CHOOSE_TRUMP = "choose_trump"
    LEAD = "lead"
    RESPOND = "respond"
    PLAY = "play"


_STEP_ACTIONS = {Step.CHOOSE_TRUMP: {"choose_trump"}, Step.LEAD: {"lead"}, Step.RESPOND: {"beat", "take"},
                 Step.PLAY: {"play"}}
"""The action types (besides `resign`) each step allows (svoi_koziri.md §3.2, §4)."""


class Reason(StrEnum):
    """Why a Svoi Koziri game ended (svoi_koziri.md §5.1): the `reason` of its result."""

    OUT_OF_CARDS = "out_of_cards"
    DRAW = "draw"
    REPETITION = "repetition"
    RESIGN = "resign"


Options = NoOptions
"""Svoi Koziri has no options; trumps are chosen in play, so `{"trumps": [...]}` is refused (§2.3, §8.12)."""
describe_options = describe_no_options
parse_options = no_options_parser(ID)
parse_card = parse_french_36
"""The card of a Svoi Koziri code (svoi_koziri.md §2.2); raises KeyError for any other string."""


def full_deck(options: Options) -> tuple[Card, ...]:
    """The 36 cards in canonical order `6S … AS, 6H … AH, 6D … AD, 6C … AC` (svoi_koziri.md §2.2)."""
    return FRENCH_36


@dataclass(frozen=True, slots=True)
class SvoiKoziriState:
    """A Svoi Koziri game in play or finished.

    Attributes:
        deck: the cards not dealt yet, top first: all 36 during the trump choice, then none (no stock, §2.6).
        trumps: per seat, its own trump suit, None until chosen (§2.5).
        sixes_passed: per giving seat, the six it handed to the other seat at the deal, or None (§2.7).
        hands: per seat, in hand order (§2.2).
        pile: the face-up pile, bottom first; the last card is the top (§3).
        step: `choose_trump`, `lead`, `respond` or `play`; None once finished (§3.2).
        turn: the seat to act (or that was to act when the game ended).
        positions: a digest of each position recorded after a take, in order, repeats included (§3.9).
        reason: None while active, else `out_of_cards`, `draw`, `repetition` or `resign` (§5.1).
        winner: the seat that won (None while active or in a draw).
        seed: the game's seed; there is no chance after the deal, it is kept for replays.
    """

    deck: tuple[Card, ...]
    trumps: tuple[Suit | None, ...]
    sixes_passed: tuple[Card | None, ...]
    hands: Hands
    pile: tuple[Card, ...]
    step: Step | None
    turn: Seat
    positions: tuple[str, ...]
    reason: Reason | None
    winner: Seat | None
    seed: int


dump_state = serialize.dump_state
"""A state as a JSON-safe dict, cards as codes (`engine.serialize.dump_state`)."""
load_state = serialize.state_loader(SvoiKoziriState, parse_card)
"""Inverse of `dump_state`; raises ValueError, KeyError or TypeError for data that is not such a state."""




# ---------------------------------------------------------------------------------------------------------------
# Creating states


def new_game(seats: int, options: Options, deck: Sequence[Card] | None = None, *, seed: int) -> SvoiKoziriState:
    """A game at the trump choice: `deck` (top first; None: shuffled by `seed`) is dealt after both choices.

    Rules: svoi_koziri.md §2.4 (the order is fixed at creation), §2.5 (seat 0 chooses first), §2.6 (deal).

    Raises:
        InvalidOptions: `seats` is not 2.
        InvalidDeck: `deck` is not a permutation of the 36 cards.
    """
    return SvoiKoziriState(
        deck=check_table(ID, seats, SEATS, deck, FRENCH_36, seed),
        trumps=(None, None),
        sixes_passed=(None, None),
        hands=((), ()),
        pile=(),
        step=Step.CHOOSE_TRUMP,
        turn=0,
        positions=(),
        reason=None,
        winner=None,
        seed=seed,
    )


def position(
    trumps: tuple[Suit, Suit],
    hands: Sequence[Sequence[Card]],
    pile: Sequence[Card],
    to_act: Seat,
    *,
    seed: int = 0,
) -> SvoiKoziriState:
    """A state in play as the "Positions" of svoi_koziri.md §8 describe it.

    `pile` is bottom first; the step is `respond` when it holds cards, else `lead`. No six is shown as passed and
    no position has been recorded yet.

    Raises:
        ValueError: the hands and the pile do not hold each of the 36 cards exactly once, the trumps are equal,
            not two hands, a seat to act other than 0 or 1, or an empty hand for the seat to act.
    """
    if len(hands) != 2 or to_act not in (0, 1) or trumps[0] == trumps[1]:
        raise ValueError("a position has two hands, two different trumps and a seat 0 or 1 to act")
    listed = [*hands[0], *hands[1], *pile]
    if sorted(listed) != sorted(FRENCH_36):
        raise ValueError("the hands and the pile must hold each of the 36 cards exactly once")
    if not hands[to_act]:
        raise ValueError("the seat to act must hold cards")
    return SvoiKoziriState(
        deck=(),
        trumps=tuple(trumps),
        sixes_passed=(None, None),
        hands=(suit_then_rank(hands[0]), suit_then_rank(hands[1])),
        pile=tuple(pile),
        step=Step.RESPOND if pile else Step.LEAD,
        turn=to_act,
        positions=(),
        reason=None,
        winner=None,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------------------------------
# Queries


def _own_trump(state: SvoiKoziriState, seat: Seat) -> Suit | None:
    return state.trumps[seat]


def _beating_cards(state: SvoiKoziriState, seat: Seat) -> list[Card]:
    """The cards of `seat`'s hand that beat the top card for `seat` (§3.1), in hand order."""
    top = state.pile[-1]
    return [card for card in state.hands[seat] if beats(card, top, _own_trump(state, seat))]


def to_act(state: SvoiKoziriState) -> frozenset[Seat]:
    """`{turn}` while the game is active, empty once finished (svoi_koziri.md §4.1)."""
    if state.reason is not None:
        return frozenset()
    return frozenset({state.turn})


def legal_actions(state: SvoiKoziriState, seat: Seat) -> list[Action]:
    """The actions `seat` may post now, in the order of svoi_koziri.md §4.2.

    `choose_trump`: one per suit the other seat has not chosen, `S H D C`. `lead` and `play`: one per card in hand
    order. `respond`: one `beat` per card that beats the top card (§3.1), or `take` when none does (§3.4, §7.5),
    never both. Then `resign`. Any other seat (or a finished game): `[]`, though that seat's `resign` is still
    accepted by `apply` (§3.10, §7.14).
    """
    if seat not in to_act(state):
        return []
    actions: list[Action]
    if state.step == Step.CHOOSE_TRUMP:
        taken = state.trumps[other_seat(seat)]
        actions = [{"type": "choose_trump", "suit": suit.letter} for suit in FRENCH_SUITS if suit != taken]
    elif state.step == Step.RESPOND:
        beating = _beating_cards(state, seat)
        actions = [{"type": "beat", "card": card.code} for card in beating] if beating else [{"type": "take"}]
    else:  # `lead` or `play`: any card of the hand (§3.3, §3.5)
        assert state.step is not None
        actions = [{"type": state.step.value, "card": card.code} for card in state.hands[seat]]
    actions.append({"type": "resign"})
    return actions


def result(state: SvoiKoziriState) -> Result | None:
    """The outcome by svoi_koziri.md §5.1 and §5.2, or None while the game is active."""
    return None if state.reason is None else Result.heads_up(state.winner, state.reason)


def view(state: SvoiKoziriState, seat: Seat | None) -> View:
    """What `seat` may see (None, or any number that is not a seat: a spectator), as svoi_koziri.md §6.4 `state`.

    Public: both trump suits, the sixes passed, the whole pile, hand sizes, the step (§6.1). Private: the viewer's
    own hand (§6.2). After the end both hands are revealed to everyone (§6.3).
    """
    shown: dict[str, JSON] = {
        "step": state.step,
        "trumps": [None if suit is None else suit.letter for suit in state.trumps],
        "sixes_passed": codes(state.sixes_passed),
        "pile": codes(state.pile),
        "hand": codes(state.hands[seat]) if seat in (0, 1) else None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "revealed_hands": [codes(hand) for hand in state.hands] if state.reason is not None else None,
    }
    return View(state=shown, seats=[{"hand_size": len(hand)} for hand in state.hands])


def cards_in_play(state: SvoiKoziriState) -> list[Card]:
    """All 36 cards: the undealt deck (during the trump choice only), both hands and the pile."""
    return [*state.deck, *state.hands[0], *state.hands[1], *state.pile]


def hidden_from(state: SvoiKoziriState, seat: Seat | None) -> set[Card]:
    """The cards `seat` (None: a spectator) may not see now (svoi_koziri.md §6.2, §6.3).

    The undealt deck is hidden from everyone. While active, the other hand (both for a spectator) is hidden, except
    the sixes passed at the deal: the rules show them, so where they went is public (§2.7, §6.1).
    """
    hidden = set(state.deck)
    if state.reason is None:
        hidden.update(hidden_hands(state.hands, seat))
    hidden.difference_update(state.sixes_passed)
    return hidden


# ---------------------------------------------------------------------------------------------------------------
# Playing


def apply(state: SvoiKoziriState, seat: Seat, action: Action) -> tuple[SvoiKoziriState, list[Event]]:
    """Play one action for `seat`; return the new state and the events it caused, in order.

    `state` is not modified. Errors are checked in the order of svoi_koziri.md §4.3. E.g. seat 1's choice in §8.1
    gives [trump_chosen(seat=1, suit=H), dealt, sixes_passed(cards=[6H, null])]; `dealt` holds each seat's cards
    privately, so redact events per viewer (`engine.redaction.event_for`).

    Rules: svoi_koziri.md §2.5-§2.7 (trumps, deal, sixes), §3.3-§3.7 (lead, respond, play, take), §3.8 (going
    out), §3.9 (repetition), §3.10 (resign), §5 (result).

    Raises:
        GameFinished: the game already has a result (§5.3).
        IllegalAction: a malformed action (unknown type, missing or extra field, unknown card code or suit), a seat
            that does not exist, or a well-formed action that is not legal now; the message says why, naming only
            the actor's own cards and public ones, e.g. "8C does not beat 10C".
        NotYourTurn: `seat` is not to act and the action is not `resign`.
    """
    parsed = _check(state, seat, action, finished=state.reason is not None, seats=2)
    kind = parsed["type"]
    if kind == "resign":
        return _finish(state, Reason.RESIGN, winner=other_seat(seat), events=[Event("resigned", {"seat": seat})])
    if kind == "choose_trump":
        return _choose_trump(state, seat, _SUITS[parsed["suit"]])
    if kind == "take":
        return _take(state, seat)
    return _lay(state, seat, kind, parsed["card"])


def _why_illegal(state: SvoiKoziriState, seat: Seat, parsed: dict[str, Any]) -> str:
    """Why a well-formed action of the seat to act is not in its `legal_actions`, naming only cards it may see.

    Only for the message: `legal_actions` alone decides (svoi_koziri.md §4.2, §4.3).
    """
    kind = parsed["type"]
    assert state.step is not None  # a game in play has a step
    if kind not in _STEP_ACTIONS[state.step]:
        return f"the step is {state.step}: {_step_hint(state)}"
    if kind == "choose_trump":
        return f"{parsed['suit']} is your opponent's trump suit: choose another"
    if kind == "take":
        return f"you can beat {state.pile[-1]}: a player who can beat must beat"
    card: Card = parsed["card"]
    return missing_from_hand(state.hands[seat], card) or f"{card} does not beat {state.pile[-1]}"


_check: ActionCheck[SvoiKoziriState] = ActionCheck(ACTIONS, parse_card, legal_actions, to_act, _why_illegal)
"""`apply`'s check of a body: listed, or a resign from either seat at any time (§3.10)."""


def _step_hint(state: SvoiKoziriState) -> str:
    if state.step == Step.RESPOND:
        return f"beat {state.pile[-1]} or, if you cannot, take"
    if state.step == Step.CHOOSE_TRUMP:
        return "choose a trump suit"
    if state.step == Step.LEAD:
        return "lead a card onto the empty pile"
    return "lay one more card after your beat"


def _choose_trump(state: SvoiKoziriState, seat: Seat, suit: Suit) -> tuple[SvoiKoziriState, list[Event]]:
    trumps = tuple(suit if owner == seat else chosen for owner, chosen in enumerate(state.trumps))
    events = [Event("trump_chosen", {"seat": seat, "suit": suit.letter})]
    if seat == 0:
        return replace(state, trumps=trumps, turn=1), events
    return _deal(replace(state, trumps=trumps), events)


def _deal(state: SvoiKoziriState, events: list[Event]) -> tuple[SvoiKoziriState, list[Event]]:
    """§2.6: `deck[k]` to seat `k mod 2`; §2.7: each seat hands over the six of the other's trump suit, at once."""
    dealt = (suit_then_rank(state.deck[0::2]), suit_then_rank(state.deck[1::2]))
    events.append(
        Event(
            "dealt",
            {"hand_sizes": [len(hand) for hand in dealt]},
            {seat: {"cards": codes(hand)} for seat, hand in enumerate(dealt)},
        )
    )
    sixes = tuple(_six_to_pass(dealt[seat], state.trumps[other_seat(seat)]) for seat in (0, 1))
    hands: Hands = dealt
    for giver, six in enumerate(sixes):
        if six is not None:
            hands = add_cards(lay_card(hands, giver, six), other_seat(giver), [six], suit_then_rank)
    events.append(Event("sixes_passed", {"cards": codes(sixes)}))
    new = replace(state, deck=(), hands=hands, sixes_passed=sixes, step=Step.LEAD, turn=0)
    return new, events


def _six_to_pass(hand: tuple[Card, ...], suit: Suit | None) -> Card | None:
    return next((card for card in hand if card.rank == 6 and card.suit == suit), None)


def _lay(state: SvoiKoziriState, seat: Seat, kind: str, card: Card) -> tuple[SvoiKoziriState, list[Event]]:
    """`lead`, `beat` or `play` `card` from `seat`'s hand onto the pile (§3.3-§3.5), then §3.8 if it was the last."""
    fields: dict[str, JSON] = {"seat": seat, "card": card.code}
    if kind == "beat":
        fields["against"] = state.pile[-1].code
    event = Event({"lead": "led", "beat": "beat", "play": "played"}[kind], fields)
    hands = lay_card(state.hands, seat, card)
    new = replace(state, hands=hands, pile=(*state.pile, card))
    if not hands[seat]:
        return _went_out(new, seat, [event])
    if kind == "beat":
        return replace(new, step=Step.PLAY), [event]
    return replace(new, step=Step.RESPOND, turn=other_seat(seat)), [event]


def _went_out(state: SvoiKoziriState, seat: Seat, events: list[Event]) -> tuple[SvoiKoziriState, list[Event]]:
    """§3.8: both out is a draw; a single last card that beats the top must answer; otherwise `seat` wins."""
    opponent = other_seat(seat)
    last = state.hands[opponent]
    if not last:
        return _finish(state, Reason.DRAW, winner=None, events=events)
    if len(last) == 1 and beats(last[0], state.pile[-1], _own_trump(state, opponent)):
        return replace(state, step=Step.RESPOND, turn=opponent), events
    return _finish(state, Reason.OUT_OF_CARDS, winner=seat, events=events)


def _take(state: SvoiKoziriState, seat: Seat) -> tuple[SvoiKoziriState, list[Event]]:
    """§3.6 (how many, judged from the taker's own trump), §3.7 (the other seat goes on), §3.9 (repetition)."""
    top, trump = state.pile[-1], _own_trump(state, seat)
    if top.suit != trump:
        count = TAKE
    elif top.rank != _ACE:
        count = TAKE_OWN_TRUMP
    else:
        count = len(state.pile)
    split = max(0, len(state.pile) - count)
    pile, taken = state.pile[:split], state.pile[split:]
    new = replace(
        state,
        hands=add_cards(state.hands, seat, taken, suit_then_rank),
        pile=pile,
        step=Step.RESPOND if pile else Step.LEAD,
        turn=other_seat(seat),
    )
    events = [Event("took", {"seat": seat, "cards": codes(taken)})]
    digest = position_digest(new.hands, new.pile, new.turn)
    new = replace(new, positions=(*new.positions, digest))
    if new.positions.count(digest) >= REPEATS_TO_DRAW:
        return _finish(new, Reason.REPETITION, winner=None, events=events)
    return new, events


def position_digest(hands: Sequence[Sequence[Card]], pile: Sequence[Card], turn: Seat) -> str:
    """A short digest of a position as svoi_koziri.md §3.9 compares it: the hands, the pile, the seat to act.

    Hands in hand order, the pile bottom first. The one form of a recorded position (`SvoiKoziriState.positions`),
    also for the search's fast path (playout.py); stored instead of the position itself so
    that the record stays small in every saved state.

    >>> from engine.cards import parse_french_36 as card
    >>> position_digest([[card("6S")], [card("7S"), card("AH")]], [card("9D")], 1)
    '6300bbe78b593fa4'
    """
    text = "/".join(" ".join(card.code for card in cards) for cards in (*hands, pile))
    return hashlib.blake2b(f"{text}/{turn}".encode(), digest_size=8).hexdigest()


def _finish(
    state: SvoiKoziriState, reason: Reason, winner: Seat | None, events: list[Event]
) -> tuple[SvoiKoziriState, list[Event]]:
    new = replace(state, step=None, reason=reason, winner=winner)
    outcome = result(new)
    assert outcome is not None
    revealed: JSON = [codes(hand) for hand in new.hands]  # revealed to all at the end (§6.3)
    return new, [*events, Event("game_ended", {**outcome.to_json(), "revealed_hands": revealed})]
