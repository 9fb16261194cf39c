"""Tadmur playouts on a private, mutable position: the search's fast path (shared/STYLE.md §2).

The same kind of fast path as engine/games/durak/playout.py, for the same reason: a playout through the public rules
builds frozen states and events and checks every move, which the search does not need. `Position` plays the moves
unchecked; `engine/games/tadmur/rules.py` stays the one statement of the rules, and tests/engine/tadmur/test_playout.py
holds the two together, move by move over thousands of random games and playout by playout with the same random
numbers. The playout policy (`choose`) lives only here; players.py gives it the seats' guess rates.

A card is its number in Tadmur's hand order (tadmur.md §2.7: rank `2 … A`, then suit `S H D C`): numbers sort in
hand order, and a card's rank index (0 for `2` … 12 for `A`, the order of `RANKS`) is `number // 4`. Two ranks
are adjacent on the cycle of §3.1 when their indices differ by 1 or 12 modulo 13. The moves are those numbers
(place that card), `GUESS + i` (guess the rank of index i) and `PASS`; `resign` is never a playout move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai.heads_up_playout import play_out
from engine.cards import Card
from engine.games.tadmur.rules import RANKS, Reason, Row, TadmurState, adjacent, full_deck, hand_order, parse_options
from engine.protocol import Action, Seat

CYCLE = 13
"""Ranks on Tadmur's cycle `A 2 … K` (tadmur.md §3.1)."""
GUESS = 52
"""`GUESS + i` is the move `{"type": "guess", "rank": RANKS[i]}`."""
PASS = GUESS + CYCLE
"""The move `{"type": "pass"}`."""


def reachable(distance: int, steps: int) -> bool:
    """Whether `steps` moves of ±1 on the 13-rank cycle can end `distance` (mod 13) away (tadmur.md §3.12).

    A row with `e` empty spaces needs `e + 1` steps from its chain end to its target.

    >>> [d for d in range(-6, 7) if not reachable(d, 8)]
    [-3, -1, 1, 3]
    >>> [d for d in range(-6, 7) if not reachable(d, 11)], reachable(5, 12)
    ([0], True)
    """
    return any((2 * up - steps - distance) % CYCLE == 0 for up in range(steps + 1))


_CARDS: tuple[Card, ...] = hand_order(full_deck(parse_options({})))
_NUMBER = {card.code: number for number, card in enumerate(_CARDS)}
_NEIGHBOURS = tuple(tuple(other for other in range(CYCLE) if adjacent(_CARDS[4 * rank], _CARDS[4 * other]))
                    for rank in range(CYCLE))
"""Per rank index, the adjacent rank indices in hand order: `engine.games.tadmur.adjacent` by index (§3.1)."""
_LAST = tuple(
    tuple(tuple(other for other in _NEIGHBOURS[end] if other in _NEIGHBOURS[target]) for target in range(CYCLE))
    for end in range(CYCLE)
)
"""Per chain end and target rank index, the ranks that may fill a row's last space (§3.4)."""
_STEPS = 2 * CYCLE
"""Beyond this many steps every distance is reachable; a row has at most 7 + 12 empty spaces (§3.13)."""
_REACHABLE = tuple(tuple(reachable(distance, steps) for distance in range(CYCLE)) for steps in range(_STEPS))
"""`reachable(distance, steps)` by steps (below `_STEPS`) and distance modulo 13."""


class Position:
    """A Tadmur game in play as mutable lists of card numbers (module docstring), built from a `TadmurState`.

    Attributes:
        hands: per seat, per rank index, that rank's cards in the hand, ascending (so in hand order).
        chains: per seat, the placed cards in placement order.
        ends: per seat, the rank index of the chain end (tadmur.md §3.2).
        targets: per seat, the target card's number.
        empty: per seat, the spaces still to fill (`spaces - len(chain)`).
        wrong_guesses: per seat, the rank indices guessed wrong, in guess order (§3.6).
        guesses: per seat, the guess moves it may still make, ascending (§3.7).
        turn, guessed, idle_turns: as `TadmurState`'s `turn`, `guessed_this_turn`, `idle_turns`.
        over, winner, reason: whether the game ended (§5.1), who won (None: a draw) and why.
    """

    __slots__ = ("hands", "chains", "ends", "targets", "empty", "wrong_guesses", "guesses", "turn", "guessed",
                 "idle_turns", "over", "winner", "reason", "_start")

    def __init__(self, state: TadmurState) -> None:
        self.hands: list[list[list[int]]] = []
        for hand in state.hands:
            by_rank: list[list[int]] = [[] for _ in range(CYCLE)]
            for card in hand:
                number = _NUMBER[card.code]
                by_rank[number >> 2].append(number)
            self.hands.append(by_rank)
        rows = state.rows
        self.chains = [[_NUMBER[card.code] for card in row.chain] for row in rows]
        self.ends = [_NUMBER[row.chain_end.code] >> 2 for row in rows]
        self.targets = [_NUMBER[row.target.code] for row in rows]
        self.empty = [row.empty for row in rows]
        self.wrong_guesses = [[RANKS.index(rank) for rank in row.wrong_guesses] for row in rows]
        self.guesses = [[GUESS + rank for rank in range(CYCLE) if rank not in wrong] for wrong in self.wrong_guesses]
        self.turn: Seat = state.turn
        self.guessed = state.guessed_this_turn
        self.idle_turns = state.idle_turns
        self.over = state.reason is not None
        self.winner = state.winner
        self.reason = state.reason
        self._start = state

    def mover(self) -> Seat:
        """The seat to act (`to_act` of tadmur.md §4.1); only asked while the game is not over."""
        return self.turn

    def places(self) -> list[int]:
        """The mover's legal placements, in hand order (tadmur.md §3.4).

        A card must be adjacent to the chain end and, into the last empty space, to the target too.
        """
        seat = self.turn
        by_rank = self.hands[seat]
        end = self.ends[seat]
        ranks = _LAST[end][self.targets[seat] >> 2] if self.empty[seat] == 1 else _NEIGHBOURS[end]
        if len(ranks) == 2:
            return by_rank[ranks[0]] + by_rank[ranks[1]]
        return [card for rank in ranks for card in by_rank[rank]]

    def guessable(self) -> list[int]:
        """The mover's legal guess moves, ascending (`RANKS` order); the list is the position's own: do not change it.

        None after a guess this turn or while either row has one empty space (tadmur.md §3.6-§3.8).
        """
        if self.guessed or self.empty[0] == 1 or self.empty[1] == 1:
            return []
        return self.guesses[self.turn]

    def moves(self) -> list[int]:
        """The mover's legal moves but `resign`, in the order of `tadmur.legal_actions` (tadmur.md §4.2)."""
        places = self.places()
        moves = places + self.guessable()
        if not places:  # §3.9
            moves.append(PASS)
        return moves

    def play(self, move: int) -> None:
        """Play one of `moves()` for the mover, unchecked (tadmur.md §3.3-§3.11)."""
        seat = self.turn
        if move < GUESS:
            rank = move >> 2
            self.hands[seat][rank].remove(move)
            self.chains[seat].append(move)
            self.ends[seat] = rank
            self.empty[seat] -= 1
            if not self.empty[seat]:  # §3.5
                self._end(seat, Reason.CHAIN_COMPLETE)
                return
            self._next_turn(0)
        elif move < PASS:
            rank = move - GUESS
            if rank == self.targets[1 - seat] >> 2:  # §3.6: suit ignored (§7.2)
                self._end(seat, Reason.CORRECT_GUESS)
                return
            self.wrong_guesses[seat].append(rank)  # the penalty lengthens the guesser's own row (§7.3)
            self.guesses[seat].remove(move)
            self.empty[seat] += 1
            self.guessed = True
        elif self.guessed:  # a turn with a wrong guess is not idle (§3.11, §7.10)
            self._next_turn(0)
        elif self.idle_turns:
            self._end(None, Reason.STALEMATE)
        else:
            self._next_turn(1)

    def _next_turn(self, idle_turns: int) -> None:
        self.turn = 1 - self.turn
        self.guessed = False
        self.idle_turns = idle_turns

    def _end(self, winner: Seat | None, reason: Reason) -> None:
        self.over = True
        self.winner = winner
        self.reason = reason

    def state(self) -> TadmurState:
        """The same game as a `TadmurState` (the starters and the seed kept from the state it was built of)."""
        rows = tuple(
            Row(
                starter=row.starter,
                target=_CARDS[target],
                chain=tuple(_CARDS[card] for card in chain),
                spaces=len(chain) + empty,
                wrong_guesses=tuple(RANKS[rank] for rank in wrong),
            )
            for row, target, chain, empty, wrong in zip(
                self._start.rows, self.targets, self.chains, self.empty, self.wrong_guesses, strict=True
            )
        )
        return TadmurState(
            rows=rows,
            hands=tuple(tuple(_CARDS[card] for cards in by_rank for card in cards) for by_rank in self.hands),
            turn=self.turn,
            guessed_this_turn=self.guessed,
            idle_turns=self.idle_turns,
            reason=self.reason,
            winner=self.winner,
            seed=self._start.seed,
        )


def action(move: int) -> Action:
    """The action body of `move` (tadmur.md §4), e.g. `{"type": "place", "card": "6H"}`, `{"type": "pass"}`.

    >>> action(17), action(GUESS + 10), action(PASS)
    ({'type': 'place', 'card': '6H'}, {'type': 'guess', 'rank': 'Q'}, {'type': 'pass'})
    """
    if move < GUESS:
        return {"type": "place", "card": _CARDS[move].code}
    if move < PASS:
        return {"type": "guess", "rank": RANKS[move - GUESS]}
    return {"type": "pass"}


def choose(position: Position, rates: Sequence[float], rng: random.Random) -> int:
    """The playout policy's move for the mover: place (keeping its own target reachable), guess now and then.

    With a placement and a guess to choose from, the mover guesses with chance `rates[mover]` (one `rng.random()`);
    a mover with no placement always guesses while it may, else passes (tadmur.md §3.9). A guess names a uniform
    allowed rank (the sampled target among them: the policy does not read the opponent's row); a placement is
    uniform over the cards that keep the target reachable (§3.12; every placement when none does, or at the last
    space). Only the mover's own row is read.
    """
    places = position.places()
    guesses = position.guessable()
    seat = position.turn
    if guesses and (not places or rng.random() < rates[seat]):
        return rng.choice(guesses)
    if not places:
        return PASS
    empty = position.empty[seat]
    if empty == 1:
        return rng.choice(places)
    # a card of rank r leaves `empty - 1` spaces, so `empty` steps to the target
    reach = _REACHABLE[empty] if empty < _STEPS else _REACHABLE[-1]
    target = position.targets[seat] >> 2
    keep = [card for card in places if reach[(target - (card >> 2)) % CYCLE]]
    return rng.choice(keep or places)


def playout(state: TadmurState, rates: Sequence[float], rng: random.Random, limit: int) -> tuple[list[float], int]:
    """Play `state` on by `choose`'s policy: (rewards per seat, moves played); ½ each if cut off at `limit` moves.

    `rates` are the seats' guess rates (players.py `prepare_playout`, which makes this the search's
    `SearchHooks.prepare_playout`). It draws from `rng` exactly as the search's loop over the public rules would
    with the same policy, so the search's recorded choices hold (tests/engine/search_choices.json). The loop and
    the rewards are `heads_up_playout.play_out`'s.
    """
    position = Position(state)
    return play_out(position, lambda: position.play(choose(position, rates, rng)), limit)
