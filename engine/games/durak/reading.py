"""What a Durak opponent's moves tell of its hidden hand, if it plays by the rules of a cheap-card bot (players.py).

`easy` is deterministic: it opens with its cheapest card (of equal ones, the first in hand order), throws in its
cheapest plain card of a rank on the table while it has one, beats with its cheapest card unless that is a trump it
keeps, and takes otherwise. So each of its moves says which cards it did not hold then: opening with 9H it held
nothing cheaper, nor 9S; ending a bout it held no plain card of a rank on the table; taking 8S it held no plain
spade above 8. A player of the plainest way (bench/lowest.py's `lowest`) spares no trump: it throws in and beats
with its cheapest legal card, trumps counted, so ending a bout it held no card of a rank on the table and taking a
plain 8S it held no trump at all. `RuleBot` names the two ways (`EASY`, `LOWEST`). The deal says more, by the rules
themselves: the first attacker held the lowest trump (durak.md §2.6).

A card held at a move was dealt or drawn before it, so a card the opponent holds now may break a rule of an
earlier move only if it was drawn after that move. `read_opponent` works out, for every card the seat has not
seen, the last move that rules it out (it must have been drawn later), and the draws the opponent made;
`Reading.sample_hand` draws a hidden hand for which the opponent's dealt and drawn cards can be put in order, the
cards it later played included (durak.md §3.8: each draw fills its hand in turn). A hand drawn so is a guess the
history cannot refute if the opponent plays that way; an opponent that broke its rules in a move the seat can see
is not read that way (`read_opponent` answers None).

Only moves made while the stock held cards count: with an empty stock `easy` solves the endgame instead, and the
seat knows every card anyway (players.py `exact_state`).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.ai.costs import trump_cost
from engine.beating import beats
from engine.cards import FRENCH_36, FRENCH_SUITS, Card
from engine.games.durak.playout import keeps_trump
from engine.games.durak.rules import HAND_SIZE
from engine.protocol import JSON

_DEAL = -1
"""The time of the deal: before the first move (moves are numbered by their place in the history)."""
_NOW = 1 << 30
"""A time after every move: a card still in the opponent's hand is held until then."""
SAMPLE_TRIES = 20
"""How many hands `Reading.sample_hand` draws before it gives up (the caller then draws one without the reading)."""


@dataclass(frozen=True, slots=True)
class RuleBot:
    """A cheap-card way of playing Durak whose moves `read_opponent` reads (module docstring).

    Attributes:
        name: the level or bot that plays this way ("easy", "lowest").
        spares_trumps: while the stock holds cards, it throws in no trump and takes rather than beat with a trump
            `keeps_trump` keeps (`easy`); False: every legal card counts, trumps included, by its cost (`lowest`).
    """

    name: str
    spares_trumps: bool


EASY = RuleBot("easy", spares_trumps=True)
LOWEST = RuleBot("lowest", spares_trumps=False)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the history says of the opponent's hidden cards, if it plays a `RuleBot`'s way (module docstring).

    Attributes:
        moves: how many of the opponent's moves (while the stock held cards) ruled out a card the seat has not
            seen or saw only when the opponent played it later.
        need: how many of the opponent's cards the seat has not seen (its hidden hand).
        candidates: the cards that may be among them, with `weights` (how many of its draws each could have come
            in), in the same order.
        ruled_out: per candidate, the last move at which it was not in the opponent's hand (`_DEAL` if none):
            it came in a later draw.
        played: per card the opponent played from its hidden hand, (last move it was ruled out, move it was
            played at): it came in a draw between the two.
        draws: the time of each card the opponent drew (the deal's six at `_DEAL`), ascending.
    """

    moves: int
    need: int
    candidates: tuple[str, ...]
    weights: tuple[int, ...]
    ruled_out: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    draws: tuple[int, ...]

    def sample_hand(self, rng: random.Random) -> list[str] | None:
        """`need` distinct candidates, drawn by weight, that `fits`; None after `SAMPLE_TRIES` hands that do not.

        Weighting by the draws a card could have come in approximates the uniform deal given the moves: a card
        ruled out late could only be one of the last few draws.
        """
        index = range(len(self.candidates))
        for _ in range(SAMPLE_TRIES):
            chosen: list[int] = []
            weights = list(self.weights)
            while len(chosen) < self.need:
                if not any(weights):
                    return None
                pick = rng.choices(index, weights)[0]
                chosen.append(pick)
                weights[pick] = 0
            if self._fits(self.ruled_out[i] for i in chosen):
                return [self.candidates[i] for i in sorted(chosen)]
        return None

    def fits(self, hand: Iterable[str]) -> bool:
        """Whether the opponent may hold the unseen cards `hand` (codes) now, if it plays the way it was read by.

        True when each of them, and each card it played from its hidden hand, can have come in a draw of its own
        after the last move that ruled it out (and, a played card, before its play); False also for a hand of
        the wrong size or with a card that is not a candidate.
        """
        position = {code: i for i, code in enumerate(self.candidates)}
        codes = set(hand)
        if len(codes) != self.need or not codes <= position.keys():
            return False
        return self._fits(self.ruled_out[position[code]] for code in codes)

    def _fits(self, ruled_out: Iterable[int]) -> bool:
        # Earliest deadline first, draw by draw: an exact test for such interval matchings.
        cards = sorted([*self.played, *((after, _NOW) for after in ruled_out)])
        waiting: list[int] = []
        next_card = 0
        for time in self.draws:
            while next_card < len(cards) and cards[next_card][0] < time:
                heapq.heappush(waiting, cards[next_card][1])
                next_card += 1
            if not waiting or waiting[0] <= time:
                return False
            heapq.heappop(waiting)
        return next_card == len(cards) and not waiting


_CARDS = {card.code: card for card in FRENCH_36}
_SUITS = {suit.letter: suit for suit in FRENCH_SUITS}
_ORDER = {code: index for index, code in enumerate(_CARDS)}
"""A card's place in hand order (durak.md §2.2), which `FRENCH_36`'s order is."""
_FIELDS = {
    "attacked": ("card",),
    "defended": ("card", "against"),
    "took": (),
    "bout_ended": (),
    "drew": ("count",),
    "trump_card_drawn": ("card",),
}
"""The events `read_opponent` follows (durak.md §6.1), each with the fields it reads besides `seat`."""


def read_opponent(view: JSON, history: Sequence[JSON], unseen: Sequence[str], rules: RuleBot = EASY) -> Reading | None:
    """The reading of the opponent of `view["you"]` as a player of `rules`' way (module docstring), or None.

    `view` is the seat's view (durak.md §6.4 `state` under `view["state"]`), `history` its events from the deal,
    `unseen` the cards the seat has not seen (the opponent's hidden hand is among them, the rest in the stock).
    None when the opponent broke the rules of that way in a move the seat saw, when a card it holds for sure broke one,
    when no hidden hand fits its moves (`Reading.sample_hand` finds none), when the history does not account
    for the stock and the hands of the view (an incomplete history), or when it holds an event the rules do not
    write (a crafted one: a field missing, or not a seat, a card code or a count): no list of event objects
    makes it raise.
    """
    state = view["state"]
    me = view["you"]
    opponent = 1 - me
    trump = state["trump_suit"]
    spares = rules.spares_trumps
    rules_out: list[tuple[int, frozenset[str]]] = []
    first = state["first_attack"]
    if first["card"] is not None:
        # durak.md §2.6: the first attacker held the lowest trump dealt
        lowest = _CARDS[first["card"]]
        rules_out.append(
            (
                _DEAL,
                frozenset(
                    code for code, card in _CARDS.items() if card.suit == lowest.suit and card.rank < lowest.rank
                ),
            )
        )
    known_held: dict[str, int] = {}
    held_known: list[tuple[str, int, int]] = []  # (code, since, until): a known card it held, then played
    played: list[tuple[str, int]] = []
    draws: list[int] = [_DEAL] * HAND_SIZE
    if first["seat"] == opponent and first["card"] is not None:
        known_held[first["card"]] = _DEAL
        draws.pop()  # one dealt card was shown
    stock = len(FRENCH_36) - 2 * HAND_SIZE  # durak.md §2.5: 24, the indicator included
    table: list[list[str | None]] = []
    took = False
    bout_limit = HAND_SIZE
    sizes = [HAND_SIZE, HAND_SIZE]
    for time, event in enumerate(history):
        kind = event.get("type")
        if kind not in _FIELDS:
            continue  # not a move or a draw
        if not _well_formed(event, _FIELDS[kind]):
            return None  # not a history the rules wrote (a crafted one)
        seat = event["seat"]
        mine = seat == opponent and stock > 0
        if kind == "attacked":
            code = event["card"]
            if not table:
                bout_limit = min(HAND_SIZE, sizes[1 - seat])
                if mine:
                    rules_out.append((time, frozenset(c for c in _CARDS if _cheaper(c, code, trump))))
            elif mine:
                if spares and code[-1] == trump:
                    return None  # `easy` throws in no trump while the stock holds cards
                ranks = _ranks(table)
                rules_out.append(
                    (
                        time,
                        frozenset(
                            c
                            for c, card in _CARDS.items()
                            if (not spares or c[-1] != trump) and card.rank in ranks and _cheaper(c, code, trump)
                        ),
                    )
                )
            table.append([code, None])
        elif kind == "defended":
            code = event["card"]
            if mine:
                if spares and code[-1] == trump and keeps_trump(_CARDS[code].rank, stock):
                    return None  # `easy` takes rather than spend this trump now
                against = _CARDS[event["against"]]
                rules_out.append(
                    (
                        time,
                        frozenset(
                            c for c, card in _CARDS.items() if _cheaper(c, code, trump) and _beats(card, against, trump)
                        ),
                    )
                )
            for row in table:
                if row[0] == event["against"]:
                    row[1] = code
        elif kind == "took":
            took = True
            if mine:
                open_row = next((row[0] for row in table if row[1] is None), None)
                if open_row is None:
                    return None  # not a history the rules wrote: nothing to take
                against = _CARDS[open_row]
                rules_out.append(
                    (
                        time,
                        frozenset(
                            c
                            for c, card in _CARDS.items()
                            if _beats(card, against, trump)
                            and (not spares or c[-1] != trump or not keeps_trump(card.rank, stock))
                        ),
                    )
                )
        elif kind == "bout_ended":
            if mine and len(table) < bout_limit:
                ranks = _ranks(table)
                rules_out.append((time, frozenset(
                    c for c, card in _CARDS.items() if (not spares or c[-1] != trump) and card.rank in ranks)))
            if took:
                defender = 1 - seat
                cards = [code for row in table for code in row if code is not None]
                sizes[defender] += len(cards)
                if defender == opponent:
                    known_held.update(dict.fromkeys(cards, time))
            table = []
            took = False
        elif kind == "drew":
            stock -= event["count"]
            sizes[seat] += event["count"]
            if seat == opponent:
                draws.extend([time] * event["count"])
        elif kind == "trump_card_drawn" and seat == opponent:
            if not draws:
                return None  # not a history the rules wrote: the indicator comes in a draw
            draws.pop()  # the indicator was the draw's last card, and public (durak.md §6.1)
            known_held[event["card"]] = time
        if kind in ("attacked", "defended"):
            sizes[seat] -= 1
            if seat == opponent:
                code = event["card"]
                if code in known_held:
                    held_known.append((code, known_held.pop(code), time))
                else:
                    played.append((code, time))

    def last_ruled_out(code: str, until: int) -> int:
        return max((time for time, cards in rules_out if time < until and code in cards), default=_DEAL - 1)

    held_known.extend((code, since, _NOW) for code, since in known_held.items())
    for code, since, until in held_known:
        if last_ruled_out(code, until) > since:
            return None  # a card it held for sure (shown, taken or drawn, until it played it) broke a rule
    if stock != state["stock_size"] or sizes != state["hand_sizes"]:
        return None  # the history does not account for the view: an incomplete one
    need = state["hand_sizes"][opponent] - len(known_held)
    if need < 0 or len(draws) != need + len(played):
        return None
    candidates = [code for code in unseen if code not in known_held]
    ruled_out = [last_ruled_out(code, _NOW) for code in candidates]
    weights = [sum(time > after for time in draws) for after in ruled_out]
    hidden = set(candidates) | {code for code, _ in played}
    reading = Reading(
        # A move tells only if it ruled out a card whose place the seat does not know (the rest it could see)
        moves=sum(1 for time, cards in rules_out if time != _DEAL and not hidden.isdisjoint(cards)),
        need=need,
        candidates=tuple(candidates),
        weights=tuple(weights),
        ruled_out=tuple(ruled_out),
        played=tuple((last_ruled_out(code, time), time) for code, time in played),
        draws=tuple(sorted(draws)),
    )
    return reading if reading.sample_hand(random.Random(0)) is not None else None


def _well_formed(event: JSON, fields: tuple[str, ...]) -> bool:
    """Whether `event` has a seat 0 or 1 and each of `fields` as the rules write it: a card code, a count >= 0."""
    seat = event.get("seat")
    if type(seat) is not int or seat not in (0, 1):
        return False
    for field in fields:
        value = event.get(field)
        if field == "count":
            if type(value) is not int or value < 0:
                return False
        elif not isinstance(value, str) or value not in _CARDS:
            return False
    return True


def _cheaper(code: str, than: str, trump: str) -> bool:
    """Whether a cheap-card bot plays `code` rather than `than` (players.py `_cheapest`), both being legal.

    `code` costs less (`trump_cost`), or as much and comes first in hand order (durak.md §2.2): equal costs are
    plain cards of one rank, and `_cheapest` keeps the first.
    """
    return (trump_cost(code, trump), _ORDER[code]) < (trump_cost(than, trump), _ORDER[than])


def _beats(card: Card, against: Card, trump: str) -> bool:
    return beats(card, against, _SUITS[trump])


def _ranks(table: list[list[str | None]]) -> set[int]:
    return {_CARDS[code].rank for row in table for code in row if code is not None}
