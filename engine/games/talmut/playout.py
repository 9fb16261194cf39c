"""Talmut playouts on a private, mutable position: the search's fast path (shared/STYLE.md §2).

A search plays thousands of playout moves per decision. Through the public rules each move builds a frozen state
and its events and checks the action against `legal_actions` (engine/legality.py), which the search never needs:
it only plays listed moves. `Position` holds the same game as lists (the layouts' cards, a bit mask of the seats
that know each card, the stock top last) and plays its moves unchecked, like python-chess's `push`;
`engine/games/talmut/` stays the one statement of the rules. tests/engine/talmut/test_playout.py plays thousands
of random games through both and checks, move by move, the same seats to act, the same legal moves in the same
order and the same state, so a playout here is the playout the public rules give.

Several seats may act at once (talmut.md §4.1), so a move is played for a seat: `play(seat, move)`. A move is an
int: `DRAW_STOCK`, `DRAW_DISCARD`, `CALL`, `DISCARD`, `SKIP_POWER`, `WITHDRAW`, or a base plus where it acts:
`SWAP` and `MATCH` + position, `PEEK` and `EXCHANGE` + place, `BLIND_SWAP` + 1000 × place a + place b, where a
place is `PLACE` × seat + position. `resign` is never a playout move. The playout policy and the rewards a playout
ends with live here too; players.py's `evaluate` scores public states with the same `rewards_since`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import Card, shuffled
from engine.games.talmut.rules import (
    CALL_LIMIT,
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
    full_deck,
)
from engine.protocol import Action, Seat

DRAW_STOCK = 0
"""The move `{"type": "draw", "source": "stock"}`."""
DRAW_DISCARD = 1
"""The move `{"type": "draw", "source": "discard"}`."""
CALL = 2
"""The move `{"type": "call"}`."""
DISCARD = 3
"""The move `{"type": "discard"}`."""
SKIP_POWER = 4
"""The move `{"type": "skip_power"}`."""
WITHDRAW = 5
"""The move `{"type": "withdraw"}`."""
SWAP = 100
"""`SWAP + position`: `{"type": "swap", "position": position}`."""
MATCH = 200
"""`MATCH + position`: `{"type": "match", "position": position}`."""
PEEK = 1000
"""`PEEK + place`: `{"type": "peek", "seat": place // PLACE, "position": place % PLACE}`."""
EXCHANGE = 2000
"""`EXCHANGE + place`: `{"type": "exchange", ...}` as `PEEK`."""
BLIND_SWAP = 10_000
"""`BLIND_SWAP + 1000 * a + b` for places a and b: `{"type": "blind_swap", "a": ..., "b": ...}`."""
PLACE = 100
"""A place is `PLACE * seat + position` (positions stay below 48: no layout holds more cards than the deck)."""

SCORE_SCALE = 24.0
"""Round points between a seat and the mean of the others that take its playout reward from even (½) to 0 or 1:
about the spread of a round's scores at 3 seats (four cards of mean 6.1, a caller's few)."""

# phases as ints, in the order of `_PHASES`; -1 once the game is over
_DRAW, _DECIDE, _POWER, _EXCHANGE = range(4)
_PHASES = (Phase.DRAW, Phase.DECIDE, Phase.POWER, Phase.EXCHANGE)
_PHASE_NUMBER = {phase: number for number, phase in enumerate(_PHASES)}
_KINDS = {10: PowerKind.SOTA, 11: PowerKind.CABALLO, 12: PowerKind.REY}
_KIND_RANK = {kind: rank for rank, kind in _KINDS.items()}
_CABALLO, _REY = 11, 12
_SEEN: dict[tuple[Seat, ...], int] = {}
"""seen_by tuples met so far -> their bit mask (at most 2**8 of them)."""
_SLOTS: dict[tuple[Card | None, int], Slot] = {}
"""(card, bit mask) -> its slot, for `Position.state` (at most 48 × 2**8 of them)."""
UNKNOWN_WORTH = {size: sum(card.rank for card in deck) / len(deck)
                 for size in (40, 48) for deck in [full_deck(Options(deck_size=size))]}
"""What the playout policy counts a card its seat does not know as: the deck's mean value (talmut.md §2.2), 6.1 in
the 40-card deck, 6.5 in the 48 (`easy` counts the mean of the cards it has not seen)."""


def rewards_since(start: TalmutState, totals: Sequence[int], *, over: bool) -> list[float]:
    """A playout's rewards once the round of `start` (the search's sampled root) ended with the game's `totals`.

    `final_rewards` if the game is `over` (talmut.md §5.5), else `round_rewards` of the points since `start` (§5.3).
    """
    if over:
        return final_rewards(totals)
    return round_rewards([total - before for total, before in zip(totals, start.totals, strict=True)])


def round_rewards(points: Sequence[float]) -> list[float]:
    """The rewards of a finished (or cut-off) round from each seat's round points (talmut.md §5.3, lower is better).

    ½ + (others' mean − own) / (2 × `SCORE_SCALE`) per seat, within 0..1, so that a round lost by 20 counts worse
    than one lost by 2.

    >>> round_rewards([5, 27, 22])
    [0.90625, 0.21875, 0.375]
    """
    seats = len(points)
    rewards = []
    for seat in range(seats):
        others = (sum(points) - points[seat]) / (seats - 1)
        rewards.append(min(1.0, max(0.0, 0.5 + (others - points[seat]) / (2 * SCORE_SCALE))))
    return rewards


def final_rewards(totals: Sequence[int]) -> list[float]:
    """The rewards of a finished game (talmut.md §5.5): per seat, the share of the other seats with a higher total.

    A tie counts half: only the result counts, not by how much.

    >>> final_rewards([60, 20, 20])
    [0.0, 0.75, 0.75]
    """
    seats = len(totals)
    return [
        sum(1.0 if totals[other] > totals[seat] else 0.5 if totals[other] == totals[seat] else 0.0
            for other in range(seats) if other != seat) / (seats - 1)
        for seat in range(seats)
    ]


def _slot(card: Card | None, mask: int) -> Slot:
    slot = _SLOTS.get((card, mask))
    if slot is None:
        slot = _SLOTS[card, mask] = Slot(card, _seats(mask))
    return slot


def _seats(mask: int) -> tuple[Seat, ...]:
    """The seats of a bit mask, ascending (the inverse of `_mask`)."""
    return tuple(seat for seat in range(mask.bit_length()) if mask >> seat & 1)


def _mask(seen_by: tuple[Seat, ...]) -> int:
    mask = _SEEN.get(seen_by)
    if mask is None:
        mask = _SEEN[seen_by] = sum(1 << seat for seat in seen_by)
    return mask


class Position:
    """A Talmut game in play as mutable lists (module docstring), built from a `TalmutState`.

    Attributes:
        options: the game's options (talmut.md §2.3).
        seats: N, 3..8.
        cards: per seat, its layout by position (None: empty, talmut.md §2.9).
        seen: per seat and position, the bit mask of the seats that know the card (§6.1; 0 for an empty one).
        held: per seat, how many cards its layout holds.
        stock: the stock, top card last (drawing pops from the end).
        discard: the discard pile, bottom to top.
        drawn: the card drawn this turn (None: none); `from_stock` where it came from.
        turn: the turn seat (None once over); `phase` 0..3 for `draw`, `decide`, `power`, `exchange`, -1 once
            over.
        power: the pending power's rank (10 sota, 11 caballo, 12 rey; 0: none), `power_card` its card and
            `peeked` the rey's peeked place (-1: none).
        rank, last_thrower, wrong: the open window's rank (0: no window), its last thrower (§3.9) and the bit mask
            of the seats that matched wrong in it (§3.11).
        caller, last_turns, call_total: the standing call (caller -1: none, §3.13-§3.14); `call_barred` the seat
            that withdrew (-1: none, §3.15).
        totals, round, reshuffles: as `TalmutState`'s.
        over: whether the game ended at its target (§5.4).
        deals: whether a round's end deals the next round (a playout, which stops there, needs no deal).
    """

    __slots__ = ("options", "seats", "cards", "seen", "held", "stock", "discard", "drawn", "from_stock", "turn",
                 "phase", "power", "power_card", "peeked", "rank", "last_thrower", "wrong", "caller", "last_turns",
                 "call_total", "call_barred", "totals", "round", "reshuffles", "over", "deals", "_everyone",
                 "_records", "_start")

    def __init__(self, state: TalmutState) -> None:
        self.options = state.options
        self.seats = state.seats
        self._everyone = (1 << state.seats) - 1
        self.cards = [[slot.card for slot in layout] for layout in state.layouts]
        self.seen = [[_mask(slot.seen_by) for slot in layout] for layout in state.layouts]
        self.held = [len(row) - row.count(None) for row in self.cards]
        self.stock = list(reversed(state.stock))
        self.discard = list(state.discard)
        drawn = state.drawn
        self.drawn: Card | None = None if drawn is None else drawn.card
        self.from_stock = drawn is not None and drawn.source == "stock"
        self.turn: Seat | None = state.turn
        self.phase = -1 if state.phase is None else _PHASE_NUMBER[state.phase]
        power = state.power
        self.power = 0 if power is None else _KIND_RANK[power.kind]
        self.power_card: Card | None = None if power is None else power.card
        peeked = None if power is None else power.peeked
        self.peeked = -1 if peeked is None else PLACE * peeked.seat + peeked.position
        window = state.window
        self.rank = 0 if window is None else window.rank
        self.last_thrower = -1 if window is None else window.last_thrower
        self.wrong = 0 if window is None else _mask(window.wrong_matchers)
        call = state.call
        self.caller = -1 if call is None else call.caller
        self.last_turns: list[Seat] = [] if call is None else list(call.last_turns)
        self.call_total = 0 if call is None else call.call_total
        self.call_barred = -1 if state.call_barred is None else state.call_barred
        self.totals = list(state.totals)
        self.round = state.round
        self.reshuffles = state.reshuffles
        self.over = state.reason is not None
        self.deals = True
        self._records: list[RoundRecord] = []
        self._start = state

    # -- who may act and what (talmut.md §4.1, §4.2) -------------------------------------------------------------

    def mover(self) -> Seat:
        """The turn seat: the one seat that must act (the others in `to_act` may only match or withdraw, §4.1).

        Only asked while the game is not over.
        """
        assert self.turn is not None
        return self.turn

    def to_act(self) -> list[Seat]:
        """The seats that may act now, ascending (talmut.md §4.1); empty once over."""
        if self.over:
            return []
        turn, caller, rank, last, wrong, held = (self.turn, self.caller, self.rank, self.last_thrower, self.wrong,
                                                 self.held)
        return [seat for seat in range(self.seats)
                if seat == turn or seat == caller or (rank and seat != last and not wrong >> seat & 1 and held[seat])]

    def moves(self, seat: Seat) -> list[int]:
        """`seat`'s legal moves but `resign`, in the order of the public `legal_actions` (talmut.md §4.2).

        Turn actions (the turn seat), then matches by position (an open window, not the last thrower, no wrong
        match in it yet), then
        `WITHDRAW` (the standing caller); empty for a seat not in `to_act`.
        """
        if self.over:
            return []
        moves: list[int] = []
        if seat == self.turn:
            phase = self.phase
            if phase == _DRAW:  # §3.2, §3.13
                if self.stock or len(self.discard) >= 2:
                    moves.append(DRAW_STOCK)
                moves.append(DRAW_DISCARD)
                if self.caller < 0 and self.call_barred != seat:
                    moves.append(CALL)
            elif phase == _DECIDE:  # §3.3
                moves = [SWAP + position for position, card in enumerate(self.cards[seat]) if card is not None]
                moves.append(DISCARD)
            else:
                moves = self._power_moves()
        if self.rank and seat != self.last_thrower and not self.wrong >> seat & 1:  # §3.9, §3.11
            moves.extend(MATCH + position for position, card in enumerate(self.cards[seat]) if card is not None)
        if seat == self.caller:  # §3.15
            moves.append(WITHDRAW)
        return moves

    def _power_moves(self) -> list[int]:
        """Phases `power` and `exchange` (talmut.md §3.5-§3.7), in (seat, position) order, then `SKIP_POWER`."""
        filled = [PLACE * seat + position for seat, row in enumerate(self.cards)
                  for position, card in enumerate(row) if card is not None]
        if self.phase == _EXCHANGE:
            owner = self.peeked // PLACE
            moves = [EXCHANGE + place for place in filled if place // PLACE != owner]
        elif self.power == _CABALLO:  # each pair of places of two seats once, ordered by a then b
            moves = []
            start = 0
            for index, a in enumerate(filled):
                if start <= index:  # the first place of a later seat than a's (`filled` is in seat order)
                    seat = a // PLACE
                    start = index + 1
                    while start < len(filled) and filled[start] // PLACE == seat:
                        start += 1
                base = BLIND_SWAP + 1000 * a
                moves.extend([base + b for b in filled[start:]])
        else:
            moves = [PEEK + place for place in filled]
        moves.append(SKIP_POWER)
        return moves

    # -- playing a move (talmut.md §3) -----------------------------------------------------------------------------

    def play(self, seat: Seat, move: int) -> None:
        """Play one of `moves(seat)` for `seat`, unchecked (talmut.md §3.2-§3.16, §5.1-§5.4)."""
        if move < SWAP:
            if move == DRAW_STOCK:  # §3.2: closes the window
                self.drawn = self._take()
                self.from_stock = True
                self.phase = _DECIDE
                self.rank = 0
            elif move == DRAW_DISCARD:
                self.drawn = self.discard.pop()
                self.from_stock = False
                self.phase = _DECIDE
                self.rank = 0
            elif move == DISCARD:
                self._discard()
            elif move == SKIP_POWER:  # §3.4
                self.power = 0
                self.peeked = -1
                self._end_turn()
            elif move == CALL:
                self._call(seat)
            else:  # WITHDRAW, §3.15
                self.caller = -1
                self.last_turns = []
                self.call_total = 0
                self.call_barred = seat
        elif move < MATCH:  # §3.3: the drawn card in, the card there onto the pile
            position = move - SWAP
            row = self.cards[seat]
            self.discard.append(row[position])  # type: ignore[arg-type]
            row[position] = self.drawn
            self.seen[seat][position] = 1 << seat if self.from_stock else self._everyone
            self.drawn = None
            self._end_turn()
        elif move < PEEK:
            self._match(seat, move - MATCH)
        elif move < EXCHANGE:  # §3.5, §3.7
            owner, position = divmod(move - PEEK, PLACE)
            self.seen[owner][position] |= 1 << seat
            held = self.held
            if self.power == _REY and any(held[other] for other in range(self.seats) if other != owner):
                self.phase = _EXCHANGE
                self.peeked = move - PEEK
            else:
                self.power = 0
                self._end_turn()
        elif move < BLIND_SWAP:  # §3.7
            self._trade(self.peeked, move - EXCHANGE)
        else:  # §3.6
            a, b = divmod(move - BLIND_SWAP, 1000)
            self._trade(a, b)

    def _take(self) -> Card | None:
        """The top stock card, rebuilding the stock from the pile first if it is empty (talmut.md §3.12)."""
        stock = self.stock
        if not stock:
            discard = self.discard
            if len(discard) < 2:
                return None
            rest = discard[:-1]
            start = self._start
            if not start.fixed_deck:
                random.Random(f"{start.seed}:{self.round}:{self.reshuffles}").shuffle(rest)
            rest.reverse()  # turned over: the lowest card of the pile becomes the top of the stock
            stock.extend(rest)
            del discard[:-1]
            self.reshuffles += 1
        return stock.pop()

    def _discard(self) -> None:
        """§3.3, §3.4: the drawn card onto the pile; a 10, 11 or 12 from the stock opens its power if it has one."""
        card = self.drawn
        assert card is not None
        self.discard.append(card)
        self.drawn = None
        power = card.rank if self.from_stock and card.rank >= 10 else 0
        if power:
            holders = sum(1 for held in self.held if held)
            if holders < (2 if power == _CABALLO else 1):
                power = 0
        if not power:
            self._end_turn()
            return
        self.phase = _POWER
        self.power = power
        self.power_card = card
        self.peeked = -1

    def _trade(self, a: int, b: int) -> None:
        """§3.6, §3.7: the cards at places `a` and `b` trade positions, each with what was known of it (§6.1)."""
        seat_a, position_a = divmod(a, PLACE)
        seat_b, position_b = divmod(b, PLACE)
        cards, seen = self.cards, self.seen
        cards[seat_a][position_a], cards[seat_b][position_b] = cards[seat_b][position_b], cards[seat_a][position_a]
        seen[seat_a][position_a], seen[seat_b][position_b] = seen[seat_b][position_b], seen[seat_a][position_a]
        self.power = 0
        self.peeked = -1
        self._end_turn()

    def _match(self, seat: Seat, position: int) -> None:
        """§3.10, §3.11: right, the card onto the pile; wrong, shown to all, an unseen penalty card, no more tries."""
        row = self.cards[seat]
        card = row[position]
        assert card is not None
        if card.rank == self.rank:
            row[position] = None
            self.seen[seat][position] = 0
            self.held[seat] -= 1
            self.discard.append(card)
            self.last_thrower = seat
            return
        self.seen[seat][position] = self._everyone
        self.wrong |= 1 << seat
        penalty = self._take()
        if penalty is None:
            return
        self.held[seat] += 1
        if None in row:
            empty = row.index(None)
            row[empty] = penalty
            self.seen[seat][empty] = 0
        else:
            row.append(penalty)
            self.seen[seat].append(0)

    def _call(self, seat: Seat) -> None:
        """§3.13, §3.14: every other seat, from the caller's left, takes one last turn; any call lifts the bar."""
        seats = self.seats
        others = [(seat + offset) % seats for offset in range(1, seats)]
        self.caller = seat
        self.last_turns = others
        self.call_total = sum(card.rank for card in self.cards[seat] if card is not None)
        self.call_barred = -1
        self.rank = 0
        self.turn = others[0]
        self.phase = _DRAW

    def _end_turn(self) -> None:
        """§3.8: end the round after the last of the last turns, else pass the turn and open a window."""
        turn = self.turn
        assert turn is not None
        if self.caller >= 0:
            last_turns = [seat for seat in self.last_turns if seat != turn]
            if not last_turns:
                self._end_round()
                return
            self.last_turns = last_turns
        self.rank = self.discard[-1].rank
        self.last_thrower = turn
        self.wrong = 0
        self.turn = (turn + 1) % self.seats
        self.phase = _DRAW

    def _end_round(self) -> None:
        """§5.1-§5.4: score the round; deal the next one (if `deals`) or end the game at its target."""
        options = self.options
        false_call = self.call_total > CALL_LIMIT
        points = [sum(card.rank for card in row if card is not None) for row in self.cards]
        if false_call:
            points[self.caller] += options.call_penalty
        self._records.append(RoundRecord(
            round=self.round,
            caller=self.caller,
            call_total=self.call_total,
            false_call=false_call,
            cards=tuple(tuple(row) for row in self.cards),
            points=tuple(points),
            discard=tuple(self.discard),
        ))
        self.totals = totals = [total + gained for total, gained in zip(self.totals, points, strict=True)]
        self.rank = 0
        self.caller = -1
        self.last_turns = []
        self.call_total = 0
        if any(total >= options.target for total in totals):
            self.over = True
            self.turn = None
            self.phase = -1
            return
        self.round += 1
        if self.deals:
            self._deal()

    def _deal(self) -> None:
        """§2.5-§2.8: deal the round from the game's list or a fresh shuffle, with no knowledge (§2.8)."""
        start = self._start
        seats = self.seats
        deck = start.deck if start.fixed_deck else shuffled(start.deck, f"{start.seed}:deal:{self.round}")
        first = (self.round - 1) % seats
        up = LAYOUT_SIZE * seats
        cards: list[list[Card | None]] = [[] for _ in range(seats)]
        for k in range(up):  # one card at a time around the table from the first player
            cards[(first + k) % seats].append(deck[k])
        self.cards = cards
        self.seen = [[0] * LAYOUT_SIZE for _ in range(seats)]
        self.held = [LAYOUT_SIZE] * seats
        self.stock = list(reversed(deck[up + 1:]))
        self.discard = [deck[up]]
        self.drawn = None
        self.turn = first
        self.phase = _DRAW
        self.power = 0
        self.power_card = None
        self.peeked = -1
        self.call_barred = -1
        self.reshuffles = 0

    # -- the playout's ends and the public state --------------------------------------------------------------------

    def estimate(self) -> list[float]:
        """The rewards of a playout cut off here: each layout's cards as its round points (`round_rewards`)."""
        return round_rewards([sum(card.rank for card in row if card is not None) for row in self.cards])

    def state(self) -> TalmutState:
        """The same game as a `TalmutState`; the options, deck, seed and resignations are the built-from state's.

        A round ended without a deal (`deals` False) has no public state: only ask after `play` with `deals` on.
        """
        start = self._start
        layouts = tuple(
            tuple(_slot(card, mask) for card, mask in zip(row, masks, strict=True))
            for row, masks in zip(self.cards, self.seen, strict=True)
        )
        power = None
        if self.power:
            assert self.power_card is not None
            peeked = None if self.peeked < 0 else Place(*divmod(self.peeked, PLACE))
            power = Power(_KINDS[self.power], self.power_card, peeked)
        return TalmutState(
            options=self.options,
            seats=self.seats,
            deck=start.deck,
            fixed_deck=start.fixed_deck,
            seed=start.seed,
            round=self.round,
            turn=self.turn,
            phase=None if self.phase < 0 else _PHASES[self.phase],
            layouts=layouts,
            stock=tuple(reversed(self.stock)),
            discard=tuple(self.discard),
            drawn=None if self.drawn is None else Drawn("stock" if self.from_stock else "discard", self.drawn),
            power=power,
            window=Window(self.rank, self.last_thrower, _seats(self.wrong)) if self.rank else None,
            call=Call(self.caller, tuple(self.last_turns), self.call_total) if self.caller >= 0 else None,
            call_barred=None if self.call_barred < 0 else self.call_barred,
            totals=tuple(self.totals),
            history=(*start.history, *self._records),
            reshuffles=self.reshuffles,
            resigned=start.resigned,
            ai_seats=start.ai_seats,
            reason=Reason.TARGET_REACHED if self.over and start.reason is None else start.reason,
        )


def action(move: int) -> Action:
    """The action body of `move` (module docstring), as `legal_actions` lists it (talmut.md §4).

    >>> action(SWAP + 2), action(PEEK + PLACE * 2 + 3)
    ({'type': 'swap', 'position': 2}, {'type': 'peek', 'seat': 2, 'position': 3})
    >>> action(BLIND_SWAP + 1000 * (PLACE * 1 + 0) + PLACE * 2 + 3)["b"]
    {'seat': 2, 'position': 3}
    """
    if move < SWAP:
        return dict(_SIMPLE[move])
    if move < MATCH:
        return {"type": "swap", "position": move - SWAP}
    if move < PEEK:
        return {"type": "match", "position": move - MATCH}
    if move < BLIND_SWAP:
        kind, place = ("peek", move - PEEK) if move < EXCHANGE else ("exchange", move - EXCHANGE)
        return {"type": kind, "seat": place // PLACE, "position": place % PLACE}
    a, b = divmod(move - BLIND_SWAP, 1000)
    return {"type": "blind_swap", "a": {"seat": a // PLACE, "position": a % PLACE},
            "b": {"seat": b // PLACE, "position": b % PLACE}}


_SIMPLE: tuple[Action, ...] = (
    {"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}, {"type": "call"},
    {"type": "discard"}, {"type": "skip_power"}, {"type": "withdraw"},
)


def policy(position: Position) -> tuple[Seat, int]:
    """The search's playout policy: (seat, move), using only what each seat knows (its bits in `seen`).

    A seat other than the turn seat and the last thrower that knows one of its cards has the window's rank matches
    it (the first such seat and position), unless it matched wrong in this window (talmut.md §3.11). Else the turn
    seat: in phase `draw` it calls once it knows its whole layout and the total is at most 5 (§3.13, if it may),
    draws the discard when its rank is below its worst card's worth minus 1 (an unknown card is worth
    `UNKNOWN_WORTH`), else draws from the stock if it can; in phase `decide` it swaps the drawn card for its worst
    card (the highest worth, the last position of equals) when the card is lower, else discards; with a sota or rey
    it peeks at its first own card it does not know; else it skips the power (a caballo, or the rey's exchange).
    Draws no random numbers. Only asked while the game is not over.
    """
    turn = position.turn
    assert turn is not None
    cards, seen = position.cards, position.seen
    rank = position.rank
    if rank:  # a sure match (talmut.md §3.10)
        last, wrong = position.last_thrower, position.wrong
        for matcher in range(position.seats):
            if matcher == last or matcher == turn or wrong >> matcher & 1:
                continue
            bit = 1 << matcher
            masks = seen[matcher]
            for place, card in enumerate(cards[matcher]):
                if card is not None and card.rank == rank and masks[place] & bit:
                    return matcher, MATCH + place
    seat = turn
    bit = 1 << seat
    row, masks = cards[seat], seen[seat]
    phase = position.phase
    if phase == _DRAW or phase == _DECIDE:
        unknown = UNKNOWN_WORTH[position.options.deck_size]
        worst = -1.0
        worst_position = -1
        known = True
        total = 0.0
        for place, card in enumerate(row):
            if card is None:
                continue
            if masks[place] & bit:
                worth = float(card.rank)
                total += worth
            else:
                worth = unknown
                known = False
            if worth >= worst:
                worst, worst_position = worth, place
        if phase == _DRAW:
            if known and total <= CALL_LIMIT and position.caller < 0 and position.call_barred != seat:
                return seat, CALL
            discard = position.discard
            top = discard[-1].rank if discard else 99
            if worst_position >= 0 and top < worst - 1:
                return seat, DRAW_DISCARD
            return seat, DRAW_STOCK if position.stock or len(discard) >= 2 else DRAW_DISCARD
        drawn = position.drawn
        assert drawn is not None
        if worst_position >= 0 and drawn.rank < worst:
            return seat, SWAP + worst_position
        return seat, DISCARD
    if phase == _POWER and position.power != _CABALLO:
        for place, card in enumerate(row):
            if card is not None and not masks[place] & bit:
                return seat, PEEK + PLACE * seat + place
    return seat, SKIP_POWER


def called_round_points(state: TalmutState, seat: Seat) -> list[int]:
    """Each seat's round points (talmut.md §5.3, a false call's penalty included) if `seat` calls now in `state`.

    `seat` calls (§3.13) and every seat then plays the last turns (§3.14) by the playout policy (`policy`), which
    never withdraws. Only asked where `seat` may call.
    """
    position = Position(state)
    position.deals = False
    position.play(seat, CALL)
    while position.round == state.round and not position.over:
        position.play(*policy(position))
    return [after - before for after, before in zip(position.totals, state.totals, strict=True)]


def playout(state: TalmutState, start: TalmutState, rng: random.Random, limit: int) -> tuple[list[float], int]:
    """Play `state` on by the playout policy (`policy`): (rewards per seat, moves played).

    The search's `SearchHooks.playout` (engine/ai/search.py), returning what its loop over the public rules returns
    with players.py's hooks: once the round of `start` (the search's sampled root) ends, `evaluate`'s
    rewards (round points since `start`, talmut.md §5.3, or at the game's end its result, §5.5); after `limit`
    moves, the layouts' as they lie (`Position.estimate`). The policy draws no random numbers and neither does this
    (`rng` stays untouched), as in the loop; reshuffles draw from the game's own generator (talmut.md §3.12,
    shared/STYLE.md §2).
    """
    if state.reason is not None or state.round != start.round:
        return rewards_since(start, state.totals, over=state.reason is not None), 0
    position = Position(state)
    position.deals = False
    round_number = state.round
    play = position.play
    for played in range(1, limit + 1):
        play(*policy(position))
        if position.round != round_number or position.over:
            return rewards_since(start, position.totals, over=position.over), played
    return position.estimate(), limit
