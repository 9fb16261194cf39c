"""Svoi Koziri playouts on a private, mutable position: the search's fast path (shared/STYLE.md §2).

A search plays thousands of playout moves per decision. Through the public rules each move builds a frozen state
and its events and checks the action against `legal_actions` (engine/legality.py), which the search never needs:
it only plays listed moves. `Position` holds the same game as lists of card numbers and plays its moves unchecked,
like python-chess's `push`; `engine/games/svoi_koziri/rules.py` stays the one statement of the rules.
tests/engine/svoi_koziri/test_playout.py plays thousands of random games through both and checks, move by move,
the same legal moves in the same order and the same state, so a playout here is the playout the public rules give.

A card is its number in `FRENCH_36` (suit `S H D C`, then rank 6..A): numbers sort in Svoi Koziri's hand order
(svoi_koziri.md §2.2), a card's suit is `number // 9` and its rank `6 + number % 9`. A suit is its index in
`S H D C`. The moves are those card numbers (lead, beat or play that card, as the step says), `TAKE` and
`CHOOSE_TRUMP + suit`; `resign` is never a playout move.

The playout policy beats with the cheapest card, as both rule bots do, and lays (leads and plays) one of two ways:
the cheapest card, as the `lowest` bot does (bench/lowest.py), or the card hardest to beat, as `easy` does
(`easy_card`). The searching seat's way is chosen once per playout, half the playouts each, and one of its moves
in `1 / EXPLORE` is uniform instead. The opponent lays the way it has laid its cards so far in the game
(players.py `opponent_lays_cheapest`, a coin per playout while undecided) and never plays a uniform
card. A search whose playouts all played `easy`'s way misjudged every game against an opponent that sheds its
small cards first: `medium` scored 22% against `lowest` with them and 95% against `easy`; with the cheapest card
alone, 81% and 85%; with the two mixed for both seats, 74% and 89%; with the opponent's own way, 86% against
`lowest` where the mix scored 75% on the same 400 deals, and `hard` 76% and 89% where the mix scored 73% and 83%
on the same 100 (docs/benchmarks.md). A seat keeps its way for the whole playout: a mix per move scored 59%
against `lowest`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence

from engine.ai.costs import lay_value, trump_cost
from engine.ai.heads_up_playout import play_out
from engine.beating import beats
from engine.cards import FRENCH_36, FRENCH_36_NUMBER, FRENCH_36_NUMBER_OF_CODE, FRENCH_SUITS, Card
from engine.games.svoi_koziri.rules import (
    REPEATS_TO_DRAW,
    TAKE_OWN_TRUMP,
    Reason,
    Step,
    SvoiKoziriState,
    position_digest,
)
from engine.games.svoi_koziri.rules import TAKE as TAKE_COUNT
from engine.protocol import Action, Seat

TAKE = 36
"""The move `{"type": "take"}`."""
CHOOSE_TRUMP = 37
"""`CHOOSE_TRUMP + s` is the move `{"type": "choose_trump", "suit": ...}` of the suit with index s in `S H D C`."""
EXPLORE = 0.05
"""How often the playout policy plays a uniformly random card instead (svoi_koziri.md §3.3-§3.5): with the cheapest
card alone `medium` scored 66%, 78% and 81% against `lowest` at 0.2, 0.1 and 0.05 (40 games each)."""
CHEAPEST_SHARE = 0.5
"""The share of playouts that lay the cheapest card (`lowest`'s way); the others lay `easy_card`'s."""

_SUIT = {suit: index for index, suit in enumerate(FRENCH_SUITS)}
_BEATS = [[tuple(beats(card, top, trump) for card in FRENCH_36) for top in FRENCH_36] for trump in FRENCH_SUITS]
"""`_BEATS[own][top][card]`: whether `card` beats `top` for a player whose own trump suit is `own` (§3.1)."""
_COST = [tuple(trump_cost(card.code, trump.letter) for card in FRENCH_36) for trump in FRENCH_SUITS]
"""`_COST[own][card]`: `engine.ai.costs.trump_cost` by number."""
_LAY_VALUE = [[tuple(lay_value(card.code, own.letter, theirs.letter) for card in FRENCH_36) for theirs in FRENCH_SUITS]
              for own in FRENCH_SUITS]
"""`_LAY_VALUE[own][theirs][card]`: `engine.ai.costs.lay_value` by number."""
_ACE = 8
"""`number % 9` of an ace."""


class Position:
    """A Svoi Koziri game as mutable lists of card numbers (module docstring), built from a `SvoiKoziriState`.

    Any state will do: during the trump choice (the deal is played by the second choice), in play, or finished.

    Attributes:
        trumps: per seat, its own trump suit's index, -1 until chosen (svoi_koziri.md §2.5).
        hands: per seat, card numbers ascending (hand order, §2.2).
        pile: the pile, bottom first (§3).
        step: the `Step` of the seat to act; None once over.
        turn: the seat to act (or that was to act when the game ended), as `SvoiKoziriState.turn`.
        over, reason, winner: whether the game ended, why (`Reason`) and who won (None: a draw) (§5.1).
    """

    __slots__ = ("trumps", "hands", "pile", "step", "turn", "over", "reason", "winner", "_sixes", "_start",
                 "_recorded", "_counts", "_earlier", "_most_earlier", "_digests")

    def __init__(self, state: SvoiKoziriState) -> None:
        self.trumps = [-1 if trump is None else _SUIT[trump] for trump in state.trumps]
        number = FRENCH_36_NUMBER_OF_CODE
        self.hands = [sorted(number[card.code] for card in hand) for hand in state.hands]
        self.pile = [number[card.code] for card in state.pile]
        self.step = state.step
        self.turn: Seat = state.turn
        self.over = state.reason is not None
        self.reason = state.reason
        self.winner = state.winner
        self._sixes = state.sixes_passed
        self._start = state
        self._recorded: list[tuple[tuple[int, ...], tuple[int, ...], Seat]] = []
        """The positions recorded in this position's play (§3.9): seat 0's hand, the pile, the seat to act."""
        self._counts: Counter[tuple[tuple[int, ...], tuple[int, ...], Seat]] = Counter()
        self._earlier = Counter(state.positions)
        """The digests recorded before (`SvoiKoziriState.positions`)."""
        self._most_earlier = max(self._earlier.values(), default=0)
        """The most times one position was recorded before."""
        self._digests: list[str] = []
        """The digests of the first of `_recorded`, worked out by `state()`."""

    def mover(self) -> Seat:
        """The seat to act (`to_act` of svoi_koziri.md §4.1); only asked while the game is not over."""
        return self.turn

    def moves(self) -> list[int]:
        """The mover's legal moves but `resign`, in the order of `svoi_koziri.legal_actions` (svoi_koziri.md §4.2)."""
        step = self.step
        if step is Step.RESPOND:  # beat if any card beats (§3.4), else take
            hand = self.hands[self.turn]
            beating = _BEATS[self.trumps[self.turn]][self.pile[-1]]
            return [card for card in hand if beating[card]] or [TAKE]
        if step is Step.CHOOSE_TRUMP:  # a suit the other seat has not chosen (§2.5)
            taken = self.trumps[1 - self.turn]
            return [CHOOSE_TRUMP + suit for suit in range(4) if suit != taken]
        return list(self.hands[self.turn])  # lead or play any card (§3.3, §3.5)

    def play(self, move: int) -> None:
        """Play one of `moves()` for the mover, unchecked (svoi_koziri.md §2.5-§2.7, §3.3-§3.9)."""
        if move < TAKE:
            self._lay(move)
        elif move == TAKE:
            self._take()
        else:
            self._choose_trump(move - CHOOSE_TRUMP)

    def _lay(self, card: int) -> None:
        """`lead`, `beat` or `play` `card` (§3.3-§3.5), then §3.8 if it was the mover's last."""
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(card)
        self.pile.append(card)
        if not hand:
            self._went_out(seat)
        elif self.step is Step.RESPOND:  # the second card after a beat (§3.5)
            self.step = Step.PLAY
        else:
            self.step = Step.RESPOND
            self.turn = 1 - seat

    def _went_out(self, seat: Seat) -> None:
        """§3.8: both out is a draw; a single last card that beats the top must answer; otherwise `seat` wins."""
        opponent = 1 - seat
        last = self.hands[opponent]
        if not last:
            self._finish(Reason.DRAW, None)
        elif len(last) == 1 and _BEATS[self.trumps[opponent]][self.pile[-1]][last[0]]:
            self.step = Step.RESPOND
            self.turn = opponent
        else:
            self._finish(Reason.OUT_OF_CARDS, seat)

    def _take(self) -> None:
        """§3.6 (how many, judged from the taker's own trump), §3.7 (the other seat goes on), §3.9 (repetition)."""
        seat = self.turn
        pile = self.pile
        top = pile[-1]
        own = self.trumps[seat]
        if top // 9 != own:
            count = TAKE_COUNT
        elif top % 9 != _ACE:
            count = TAKE_OWN_TRUMP
        else:
            count = len(pile)
        split = max(0, len(pile) - count)
        hand = self.hands[seat]
        hand.extend(pile[split:])
        hand.sort()
        del pile[split:]
        self.turn = 1 - seat
        self.step = Step.RESPOND if pile else Step.LEAD
        # After the deal the 36 cards are all in the hands and the pile: seat 0's hand names seat 1's too.
        key = (tuple(self.hands[0]), tuple(pile), self.turn)
        self._recorded.append(key)
        self._counts[key] += 1
        missing = REPEATS_TO_DRAW - self._counts[key]  # records of this position needed from before this position
        # The digest only where the records from before could be enough: the search's playouts take often.
        if missing <= 0 or (missing <= self._most_earlier and self._earlier[_digest(*key)] >= missing):
            self._finish(Reason.REPETITION, None)

    def _choose_trump(self, suit: int) -> None:
        """§2.5; after seat 1's choice the deal (§2.6) and the sixes (§2.7), seat 0 to lead (§2.8)."""
        seat = self.turn
        self.trumps[seat] = suit
        if seat == 0:
            self.turn = 1
            return
        deck = [FRENCH_36_NUMBER[card] for card in self._start.deck]
        hands = self.hands = [sorted(deck[0::2]), sorted(deck[1::2])]
        sixes: list[Card | None] = [None, None]
        for giver in (0, 1):
            six = self.trumps[1 - giver] * 9  # the six of the other seat's trump suit
            if six in hands[giver]:
                hands[giver].remove(six)
                hands[1 - giver].append(six)
                hands[1 - giver].sort()
                sixes[giver] = FRENCH_36[six]
        self._sixes = tuple(sixes)
        self.step = Step.LEAD
        self.turn = 0

    def _finish(self, reason: Reason, winner: Seat | None) -> None:
        self.over = True
        self.reason = reason
        self.winner = winner
        self.step = None

    def state(self) -> SvoiKoziriState:
        """The same game as a `SvoiKoziriState` (the seed kept from the state it was built of)."""
        start = self._start
        self._digests.extend(_digest(*key) for key in self._recorded[len(self._digests):])
        dealt = self.step is not Step.CHOOSE_TRUMP
        return SvoiKoziriState(
            deck=() if dealt else start.deck,
            trumps=tuple(None if suit < 0 else FRENCH_SUITS[suit] for suit in self.trumps),
            sixes_passed=self._sixes,
            hands=tuple(tuple(FRENCH_36[card] for card in hand) for hand in self.hands),
            pile=tuple(FRENCH_36[card] for card in self.pile),
            step=self.step,
            turn=self.turn,
            positions=start.positions + tuple(self._digests),
            reason=self.reason,
            winner=self.winner,
            seed=start.seed,
        )


def _digest(hand: tuple[int, ...], pile: tuple[int, ...], turn: Seat) -> str:
    """`svoi_koziri.position_digest` of a recorded position: seat 0's hand, the pile, the seat to act."""
    placed = set(hand).union(pile)
    hands = ([FRENCH_36[card] for card in hand], [FRENCH_36[card] for card in range(36) if card not in placed])
    return position_digest(hands, [FRENCH_36[card] for card in pile], turn)


def action(move: int, step: Step) -> Action:
    """The action body of `move` when the mover's step is `step`."""
    if move == TAKE:
        return {"type": "take"}
    if move >= CHOOSE_TRUMP:
        return {"type": "choose_trump", "suit": FRENCH_SUITS[move - CHOOSE_TRUMP].letter}
    return {"type": "beat" if step is Step.RESPOND else step.value, "card": FRENCH_36[move].code}


def easy_card(cards: Sequence[int], beating: bool, own: int, theirs: int) -> int:
    """The `easy` bot's card among `cards` (hand order) for a seat of own trump `own` against `theirs` (suit indexes).

    Beating (svoi_koziri.md §3.4), the cheapest card by `engine.ai.costs.trump_cost` (own trumps cost most);
    leading or playing (§3.3, §3.5), the card the opponent can least easily beat, by `engine.ai.costs.lay_value`.
    The first of equal cards, i.e. the rules' hand order: deterministic.

    Raises:
        ValueError: `cards` is empty.

    >>> hand = [FRENCH_36_NUMBER_OF_CODE[code] for code in ("9S", "6H", "8D", "JD")]  # own trump H, theirs S
    >>> hand.sort()
    >>> [FRENCH_36[easy_card(hand, beating, own=1, theirs=0)].code for beating in (True, False)]
    ['8D', '9S']
    """
    if beating:
        return min(cards, key=_COST[own].__getitem__)
    return max(cards, key=_LAY_VALUE[own][theirs].__getitem__)


def rule_move(moves: Sequence[int], responding: bool, own: int, theirs: int, lays_cheapest: bool) -> int:
    """A rule bot's move among `moves` (a `Position.moves()` list) for a seat of own trump `own` against `theirs`.

    A list of `take` or trump choices gives its first (the take is then the only move, svoi_koziri.md §3.4);
    `responding`, the cheapest beat by `engine.ai.costs.trump_cost`, as `lowest` and `easy` beat; leading or
    playing (§3.3, §3.5), the cheapest card (`lowest`'s way) if `lays_cheapest`, else `easy_card`'s lay. The first
    of equals each: deterministic.
    """
    if moves[0] >= TAKE:
        return moves[0]
    return easy_card(moves, responding or lays_cheapest, own, theirs)


def expected_action(state: SvoiKoziriState, lays_cheapest: bool) -> Action | None:
    """`rule_move`'s action for the seat to act in `state` (a public state); None during the trump choice or once over.

    The move the search's tree expects of an opponent that has played that rule bot's way throughout
    (players.py `prepare_opponent`).
    """
    step = state.step
    if step is None or step is Step.CHOOSE_TRUMP:
        return None
    seat = state.turn
    own, theirs = (_SUIT[trump] for trump in (state.trumps[seat], state.trumps[1 - seat]))  # type: ignore[index]
    hand = sorted(FRENCH_36_NUMBER[card] for card in state.hands[seat])
    if step is Step.RESPOND:
        beating = _BEATS[own][FRENCH_36_NUMBER[state.pile[-1]]]
        moves = [card for card in hand if beating[card]] or [TAKE]
    else:
        moves = hand
    return action(rule_move(moves, step is Step.RESPOND, own, theirs, lays_cheapest), step)


def estimate(hand_sizes: Sequence[int]) -> list[float]:
    """A cut-off playout's rewards per seat: the seat with fewer cards is ahead (it goes out first, §3.8).

    >>> estimate([10, 10]), [round(reward, 3) for reward in estimate([4, 10])]
    ([0.5, 0.5], [0.881, 0.119])
    """
    lead = hand_sizes[1] - hand_sizes[0]
    ahead = 0.5 + 0.5 * math.tanh(lead / 6)
    return [ahead, 1 - ahead]


def playout(state: SvoiKoziriState, start: SvoiKoziriState, rng: random.Random, limit: int,
            opponent: tuple[Seat, bool | None] | None = None) -> tuple[list[float], int]:
    """Play `state` on by the playout policy: (rewards per seat, moves played); `estimate` if cut off at `limit`.

    The search's playout (engine/ai/search.py; players.py `prepare_playout` binds `opponent`);
    `start`, the search's sampled root, is not needed. The loop and the rewards are `heads_up_playout.play_out`'s.

    The policy (module docstring): first one `random()` chooses how this playout lays (`CHEAPEST_SHARE`); then on a
    trump choice or a take (the only move then) a uniform move; otherwise one time in `1 / EXPLORE` a uniform card,
    else the cheapest beat by `engine.ai.costs.trump_cost`, or the card laid this playout's way (the first of
    equals). `opponent`, if given, is `(seat, lays_cheapest)`: that seat never plays a uniform card and lays the
    cheapest card if `lays_cheapest`, `easy_card`'s if False, and if None the way of a second `random()` drawn after
    the first (`CHEAPEST_SHARE`). It draws from `rng` as tests/engine/svoi_koziri/test_playout.py's
    `reference_playout` does on the public rules (a `choice` on those steps, else a `random()` and a `choice` when
    exploring).
    """
    position = Position(state)
    cheapest = rng.random() < CHEAPEST_SHARE
    ways = [cheapest, cheapest]
    steady = -1
    if opponent is not None:
        steady, lays_cheapest = opponent
        ways[steady] = rng.random() < CHEAPEST_SHARE if lays_cheapest is None else lays_cheapest

    def step() -> None:
        moves = position.moves()
        seat = position.turn
        if moves[0] >= TAKE or (seat != steady and rng.random() < EXPLORE):
            move = rng.choice(moves)
        else:
            responding = position.step is Step.RESPOND
            move = rule_move(moves, responding, position.trumps[seat], position.trumps[1 - seat], ways[seat])
        position.play(move)

    return play_out(position, step, limit, lambda: estimate([len(hand) for hand in position.hands]))
