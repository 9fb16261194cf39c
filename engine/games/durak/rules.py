"""Durak (podkidnoy) for two players: shared/rules/durak.md.

The state is a frozen dataclass over tuples; `apply` returns a new state and the events the action caused.
Actions are the JSON bodies of durak.md §4 (`{"type": "defend", "card": "10C", "against": "8C"}`).

Events (type: public fields; private fields per seat in brackets):

- `attacked`: seat, card
- `defended`: seat, card, against
- `took`: seat
- `bout_ended`: seat (the attacker, who ended it with `done`), beaten_off (false after a take)
- `drew`: seat, count [the drawer: cards]; one per seat that drew at least one card, attacker first
- `trump_card_drawn`: seat, card (the indicator, named because it was public, durak.md §6.1)
- `resigned`: seat
- `game_ended`: winners, losers, draw, scores, reason, revealed_hands
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from engine import serialize
from engine.actions import ActionShapes, CardField
from engine.beating import beats
from engine.cards import FRENCH_36, Card, Suit, parse_french_36, suit_then_rank
from engine.hands import hidden_hands, lay_card, missing_from_hand
from engine.legality import ActionCheck
from engine.options import NoOptions, check_table, describe_no_options, no_options_parser
from engine.protocol import JSON, Action, Capabilities, Event, Result, Seat, View
from engine.seats import other_seat

ID = "durak"
TITLE = "Durak (podkidnoy)"
SEATS = range(2, 3)
ACTIONS: ActionShapes = {
    "attack": {"card": CardField()},
    "defend": {"card": CardField(), "against": CardField()},
    "take": {},
    "done": {},
    "resign": {},
}
"""The action bodies of durak.md §4."""
CAPABILITIES: Capabilities[DurakState] = Capabilities()
"""None of the optional parts of a game's rules (`engine.protocol.Capabilities`)."""

HAND_SIZE = 6
"""Cards a hand is refilled to, and the most attack cards a bout can hold (durak.md §3.5, §3.8)."""

_DECK = FRENCH_36


class Reason(StrEnum):
    """Why a Durak game ended (durak.md §5.1): the `reason` of its result."""

    DRAW = "draw"
    DURAK = "durak"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class Row:
    """One table row: an attack card and the card that beat it, if any (durak.md §6.4 `table`)."""

    attack: Card
    defense: Card | None = None


@dataclass(frozen=True, slots=True)
class DurakState:
    """A Durak game in play or finished.

    Attributes:
        trump: the trump suit (durak.md §2.5).
        stock: draw order, top first; while not empty its last card is the face-up trump indicator.
        hands: per seat, in hand order (durak.md §2.2).
        discard: cards beaten off, in the order they left the table.
        table: the current bout's rows, in the order the attack cards were played.
        attacker: A of the current (or last) bout; the defender is the other seat.
        bout: 1 for the first bout.
        bout_limit: L = min(6, H0), fixed when the bout started (durak.md §3.5).
        defender_took: D has taken in this bout (durak.md §3.6).
        first_attack_seat, first_attack_card: who attacked the first bout and the trump that decided it, or
            None when no hand held a trump (durak.md §2.6).
        trump_card_drawn_by: the seat that drew the indicator, or None while it is in the stock.
        reason: None while active, else `draw`, `durak` or `resign` (durak.md §5.1).
        loser: the seat that lost (None while active or in a draw).
        seed: the game's seed; Durak has no chance after the deal, it is kept for replays.
    """

    trump: Suit
    stock: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    discard: tuple[Card, ...]
    table: tuple[Row, ...]
    attacker: Seat
    bout: int
    bout_limit: int
    defender_took: bool
    first_attack_seat: Seat
    first_attack_card: Card | None
    trump_card_drawn_by: Seat | None
    reason: Reason | None
    loser: Seat | None
    seed: int

    @property
    def defender(self) -> Seat:
        """D of the current (or last) bout."""
        return other_seat(self.attacker)


# ---------------------------------------------------------------------------------------------------------------
# Value helpers


parse_card = parse_french_36
"""The card of a Durak code (durak.md §2.2); raises KeyError for any other string."""

hand_order = suit_then_rank
"""Durak's hand order: by suit `S H D C`, then rank ascending; trumps get no special place (durak.md §2.2)."""


def _lowest_trump(hand: Iterable[Card], trump: Suit) -> Card | None:
    return min((card for card in hand if card.suit == trump), key=lambda card: card.rank, default=None)


# ---------------------------------------------------------------------------------------------------------------
# Game description


Options = NoOptions
"""Durak has no options (durak.md §2.3, §7.6)."""
describe_options = describe_no_options
parse_options = no_options_parser(ID)


def full_deck(options: Options) -> tuple[Card, ...]:
    """The 36 cards 6..A in canonical order `6S … AS, 6H … AH, 6D … AD, 6C … AC` (durak.md §2.2)."""
    return _DECK


# ---------------------------------------------------------------------------------------------------------------
# Creating states


def new_game(seats: int, options: Options, deck: Sequence[Card] | None = None, *, seed: int) -> DurakState:
    """Deal `deck` (top first; None: the 36 cards shuffled by `seed`) and pick the first attacker.

    Rules: shared/rules/durak.md §2.5 (deal: alternately from seat 0, `deck[12]` is the indicator and the last
    card of the stock), §2.6 (the lower lowest trump attacks first; no trump in hand: seat 0).

    Raises:
        InvalidOptions: `seats` is not 2.
        InvalidDeck: `deck` is not a permutation of the 36 cards.
    """
    deck = check_table(ID, seats, SEATS, deck, _DECK, seed)
    hands = (hand_order(deck[0:12:2]), hand_order(deck[1:12:2]))
    indicator = deck[12]
    trump = indicator.suit
    lowest = [_lowest_trump(hand, trump) for hand in hands]
    if lowest[0] is None and lowest[1] is None:
        first: Seat = 0  # nobody holds a trump: the creator attacks (durak.md §7.3)
    elif lowest[1] is None or (lowest[0] is not None and lowest[0].rank < lowest[1].rank):
        first = 0
    else:
        first = 1
    return DurakState(
        trump=trump,
        stock=deck[13:] + (indicator,),
        hands=hands,
        discard=(),
        table=(),
        attacker=first,
        bout=1,
        bout_limit=min(HAND_SIZE, len(hands[other_seat(first)])),
        defender_took=False,
        first_attack_seat=first,
        first_attack_card=lowest[first],
        trump_card_drawn_by=None,
        reason=None,
        loser=None,
        seed=seed,
    )


def position(
    trump: Suit,
    stock: Sequence[Card],
    hands: Sequence[Sequence[Card]],
    attacker: Seat,
    *,
    seed: int = 0,
) -> DurakState:
    """A state at the start of a bout, as the "Positions" of durak.md §8 describe it.

    The table is empty, `bout` is 1, H0 and L come from the defender's hand, and the discard pile holds every
    card not listed (canonical order). `stock` is top first; when it is not empty its last card is the indicator
    and must be a trump; an empty stock means the indicator was drawn earlier (`trump_card_drawn_by` is then
    unknown and shown as None). `first_attack` is `{"seat": attacker, "card": None}`.

    Raises:
        ValueError: a card listed twice, not two hands, an attacker other than 0 or 1, an empty hand, or an
            indicator that is not a trump.
    """
    if len(hands) != 2 or attacker not in (0, 1):
        raise ValueError("a position has two hands and an attacker 0 or 1")
    listed = [*stock, *hands[0], *hands[1]]
    if len(set(listed)) != len(listed) or not set(listed) <= set(_DECK):
        raise ValueError("every card of a position must be a distinct card of the 36")
    if stock and stock[-1].suit != trump:
        raise ValueError(f"the indicator {stock[-1]} is not a trump")
    if not hands[0] or not hands[1]:
        raise ValueError("a bout starts only with cards in both hands (durak.md §3.10)")
    return DurakState(
        trump=trump,
        stock=tuple(stock),
        hands=(hand_order(hands[0]), hand_order(hands[1])),
        discard=tuple(card for card in _DECK if card not in set(listed)),
        table=(),
        attacker=attacker,
        bout=1,
        bout_limit=min(HAND_SIZE, len(hands[other_seat(attacker)])),
        defender_took=False,
        first_attack_seat=attacker,
        first_attack_card=None,
        trump_card_drawn_by=None,
        reason=None,
        loser=None,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------------------------------
# Queries


def _undefended(state: DurakState) -> Row | None:
    # One card at a time (durak.md §3.3): before a take at most one row is open, and it is the last one.
    if state.defender_took or not state.table or state.table[-1].defense is not None:
        return None
    return state.table[-1]


def _ranks_on_table(state: DurakState) -> set[int]:
    ranks = {row.attack.rank for row in state.table}
    ranks.update(row.defense.rank for row in state.table if row.defense is not None)
    return ranks


def to_act(state: DurakState) -> frozenset[Seat]:
    """`{D}` while an undefended card waits and D has not taken, else `{A}`; empty once finished (durak.md §4.1)."""
    if state.reason is not None:
        return frozenset()
    if _undefended(state) is not None:
        return frozenset({state.defender})
    return frozenset({state.attacker})


def legal_actions(state: DurakState, seat: Seat) -> list[Action]:
    """The actions `seat` may post now, in the order of durak.md §4.2.

    A: one `attack` per legal card in hand order (§3.2 opening, §3.4 ranks on the table, §3.5 limit), then `done`
    if the table is not empty (§3.7), then `resign`. D: one `defend` per card that beats the undefended card
    (§3.1), in hand order, then `take`, then `resign`. Any other seat (or a finished game): `[]`, though that seat's
    `resign` is still accepted by `apply` (§7.17).
    """
    if seat not in to_act(state):
        return []
    hand = state.hands[seat]
    actions: list[Action] = []
    open_row = _undefended(state)
    if open_row is not None:
        against = open_row.attack.code
        for card in hand:
            if beats(card, open_row.attack, state.trump):
                actions.append({"type": "defend", "card": card.code, "against": against})
        actions.append({"type": "take"})
    else:
        if not state.table:
            actions.extend({"type": "attack", "card": card.code} for card in hand)
        else:
            if len(state.table) < state.bout_limit:
                ranks = _ranks_on_table(state)
                actions.extend({"type": "attack", "card": card.code} for card in hand if card.rank in ranks)
            actions.append({"type": "done"})
    actions.append({"type": "resign"})
    return actions


def result(state: DurakState) -> Result | None:
    """The outcome by durak.md §5.1 and §5.2, or None while the game is active."""
    if state.reason is None:
        return None
    return Result.heads_up(None if state.loser is None else other_seat(state.loser), state.reason)


def view(state: DurakState, seat: Seat | None) -> View:
    """What `seat` may see (None, or any number that is not a seat: a spectator), as durak.md §6.4 `state`.

    Public: everything on the table, sizes, roles, the indicator while in the stock (§6.1). Private: the viewer's
    own hand (§6.2). After the end both hands are revealed to everyone, the stock is not (§6.3).
    """
    finished = state.reason is not None
    shown: dict[str, JSON] = {
        "trump_suit": state.trump.letter,
        "trump_card": state.stock[-1].code if state.stock else None,
        "trump_card_drawn_by": state.trump_card_drawn_by,
        "first_attack": {
            "seat": state.first_attack_seat,
            "card": None if state.first_attack_card is None else state.first_attack_card.code,
        },
        "stock_size": len(state.stock),
        "discard_size": len(state.discard),
        "bout": state.bout,
        "attacker": state.attacker,
        "defender": state.defender,
        "bout_limit": state.bout_limit,
        "table": [
            {"attack": row.attack.code, "defense": None if row.defense is None else row.defense.code}
            for row in state.table
        ],
        "defender_took": state.defender_took,
        "hand": [card.code for card in state.hands[seat]] if seat in (0, 1) else None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "revealed_hands": [[card.code for card in hand] for hand in state.hands] if finished else None,
    }
    return View(state=shown, seats=[{"hand_size": len(hand)} for hand in state.hands])


def cards_in_play(state: DurakState) -> list[Card]:
    """All 36 cards: hands, table (attack and defence), stock, discard pile.

    A game that ended at a `done` still shows its last `table` (durak.md §6.4), but those cards already went to
    the discard pile or a hand, so they are counted there only.
    """
    live_table = state.reason in (None, Reason.RESIGN)
    table = [card for row in state.table if live_table for card in (row.attack, row.defense) if card is not None]
    return [*state.hands[0], *state.hands[1], *table, *state.stock, *state.discard]


def hidden_from(state: DurakState, seat: Seat | None) -> set[Card]:
    """The cards `seat` (None: a spectator) may not see now (durak.md §6.2, §6.3).

    While active: the other hand (both hands for a spectator) and the stock except the indicator. After the end:
    only the stock except the indicator, which `trump_card` still shows. The `first_attack` card was shown to
    both players (§2.6), so it is never hidden, even while it stays in its holder's hand.
    """
    hidden = set(state.stock[:-1])
    if state.reason is None:
        hidden.update(hidden_hands(state.hands, seat))
    hidden.discard(state.first_attack_card)
    return hidden


dump_state = serialize.dump_state
"""A JSON-safe dict of a state (cards as codes), tagged with `engine.serialize.FORMAT`."""
load_state = serialize.state_loader(DurakState, parse_card)
"""Inverse of `dump_state`; raises ValueError (another format version), KeyError or TypeError (not a state)."""


# ---------------------------------------------------------------------------------------------------------------
# Playing


def apply(state: DurakState, seat: Seat, action: Action) -> tuple[DurakState, list[Event]]:
    """Play one action for `seat`; return the new state and the events it caused, in order.

    `state` is not modified. Errors are checked in the order of durak.md §4.3. A `done` runs the end of the bout:
    e.g. a successful defence in §8.1 gives [bout_ended(seat=0, beaten_off=True), drew(seat=0, count=6),
    drew(seat=1, count=6)]; events can hold private cards, so redact them per viewer
    (`engine.redaction.event_for`).

    Rules: shared/rules/durak.md §3.2-§3.7 (the bout), §3.8 (refill, A first), §3.9 (roles), §3.10 (end check),
    §3.12 (resign at any time), §5 (result).

    Raises:
        GameFinished: the game already has a result (§5.3).
        IllegalAction: a malformed action (unknown type, missing or extra field, unknown card code), a seat that
            does not exist, or a well-formed action that is not legal now; the message says why, naming only
            what the actor can see, e.g. "6H does not beat 9H", "no 8 on the table".
        NotYourTurn: `seat` is not in `to_act(state)` and the action is not `resign`.
    """
    parsed = _check(state, seat, action, finished=state.reason is not None, seats=2)
    kind = parsed["type"]
    if kind == "resign":
        return _resign(state, seat)
    if kind == "attack":
        return _attack(state, seat, parsed["card"])
    if kind == "defend":
        open_row = _undefended(state)
        assert open_row is not None  # D defends only while a card is undefended
        return _defend(state, seat, parsed["card"], open_row)
    if kind == "take":
        return replace(state, defender_took=True), [Event("took", {"seat": seat})]
    return _end_bout(state)  # `done`


def _why_illegal(state: DurakState, seat: Seat, parsed: dict[str, Any]) -> str:
    """Why a well-formed action of the seat to act is not in its `legal_actions`, naming only what it can see.

    Only for the message: `legal_actions` alone decides (durak.md §4.2, §4.3).
    """
    kind, card, against = parsed["type"], parsed.get("card"), parsed.get("against")
    attacking = seat == state.attacker
    if kind == "attack":
        assert card is not None
        if not attacking:
            return "you are defending: defend or take"
        if (missing := missing_from_hand(state.hands[seat], card)) is not None:
            return missing
        if len(state.table) >= state.bout_limit:
            return f"the bout already holds {state.bout_limit} attack cards, its limit"
        return f"no {card.rank_code} on the table"
    if kind in ("defend", "take") and attacking:
        return f"only the defender {'defends' if kind == 'defend' else 'takes'}"
    if kind == "defend":
        assert card is not None
        if (missing := missing_from_hand(state.hands[seat], card)) is not None:
            return missing
        open_row = _undefended(state)
        if open_row is None or against != open_row.attack:
            if any(row.attack == against for row in state.table):
                return f"{against} is already beaten"
            return f"{against} is not an attack card on the table"
        return f"{card} does not beat {against}"
    if kind == "done" and attacking:
        return "the table is empty: a bout opens with an attack"
    return "only the attacker ends a bout"


_check: ActionCheck[DurakState] = ActionCheck(ACTIONS, parse_card, legal_actions, to_act, _why_illegal)
"""`apply`'s check of a body: listed, or a resign from either seat at any time (§3.12)."""


def _attack(state: DurakState, seat: Seat, card: Card) -> tuple[DurakState, list[Event]]:
    hands = lay_card(state.hands, seat, card)
    new = replace(state, hands=hands, table=(*state.table, Row(card)))
    return new, [Event("attacked", {"seat": seat, "card": card.code})]


def _defend(state: DurakState, seat: Seat, card: Card, open_row: Row) -> tuple[DurakState, list[Event]]:
    hands = lay_card(state.hands, seat, card)
    table = (*state.table[:-1], replace(open_row, defense=card))
    new = replace(state, hands=hands, table=table)
    return new, [Event("defended", {"seat": seat, "card": card.code, "against": open_row.attack.code})]


def _end_bout(state: DurakState) -> tuple[DurakState, list[Event]]:
    attacker, defender = state.attacker, state.defender
    beaten_off = not state.defender_took
    table_cards = [card for row in state.table for card in (row.attack, row.defense) if card is not None]
    events = [Event("bout_ended", {"seat": attacker, "beaten_off": beaten_off})]
    hands = list(state.hands)
    discard = state.discard
    if beaten_off:
        discard = (*discard, *table_cards)
    else:  # D picks up every table card, those he had beaten too (durak.md §7.7)
        hands[defender] = hand_order((*hands[defender], *table_cards))

    stock = list(state.stock)
    drawn_by = state.trump_card_drawn_by
    for seat in (attacker, defender):  # A refills first; a short stock serves A first (durak.md §7.9)
        count = min(max(0, HAND_SIZE - len(hands[seat])), len(stock))
        if count == 0:
            continue
        drawn, stock = stock[:count], stock[count:]
        hands[seat] = hand_order((*hands[seat], *drawn))
        events.append(Event("drew", {"seat": seat, "count": count}, {seat: {"cards": [c.code for c in drawn]}}))
        if not stock:  # the indicator is the last stock card and was public (durak.md §3.8, §6.1)
            drawn_by = seat
            events.append(Event("trump_card_drawn", {"seat": seat, "card": drawn[-1].code}))

    next_attacker = defender if beaten_off else attacker  # durak.md §3.9
    new = replace(
        state,
        stock=tuple(stock),
        hands=tuple(hands),
        discard=discard,
        trump_card_drawn_by=drawn_by,
    )
    if not stock and not all(hands):  # end check only here, after the refill (durak.md §3.10, §7.10)
        empty = [seat for seat in (0, 1) if not hands[seat]]
        loser = None if len(empty) == 2 else other_seat(empty[0])
        new = replace(new, reason=Reason.DRAW if loser is None else Reason.DURAK, loser=loser)
        return new, [*events, _game_ended(new)]
    new = replace(
        new,
        table=(),
        attacker=next_attacker,
        bout=state.bout + 1,
        bout_limit=min(HAND_SIZE, len(hands[other_seat(next_attacker)])),
        defender_took=False,
    )
    return new, events


def _resign(state: DurakState, seat: Seat) -> tuple[DurakState, list[Event]]:
    new = replace(state, reason=Reason.RESIGN, loser=seat)
    return new, [Event("resigned", {"seat": seat}), _game_ended(new)]


def _game_ended(state: DurakState) -> Event:
    outcome = result(state)
    assert outcome is not None
    revealed: Any = [[card.code for card in hand] for hand in state.hands]  # revealed to all (durak.md §6.3)
    return Event("game_ended", {**outcome.to_json(), "revealed_hands": revealed})
