"""Durak playouts on a private, mutable position: the search's fast path (shared/STYLE.md §2).

A search plays tens of thousands of playout moves per decision. Through the public rules each move builds a frozen
state and its events and checks the action against `legal_actions` (engine/legality.py), which the search never
needs: it only plays listed moves. `Position` holds the same game as lists of card numbers and plays its moves
unchecked, like python-chess's `push`; `engine/games/durak/rules.py` stays the one statement of the rules.
tests/engine/durak/test_playout.py plays thousands of random games through both and checks, move by move, the
same legal moves in the same order and the same state, so a playout here is the playout the public rules give.

A card is its number in `FRENCH_36` (suit `S H D C`, then rank 6..A): numbers sort in Durak's hand order, a
card's suit is `number // 9` and its rank `6 + number % 9`. The moves are those numbers (attack, throw in or
defend with that card), `TAKE` and `DONE`; `resign` is never a playout move.
"""

from __future__ import annotations

import random

from engine.ai.costs import trump_cost
from engine.ai.heads_up_playout import heads_up_rewards, play_out
from engine.ai.solver import Solution, walk
from engine.beating import beats
from engine.cards import FRENCH_36, FRENCH_36_NUMBER, FRENCH_36_NUMBER_OF_CODE, FRENCH_SUITS
from engine.games.durak.rules import HAND_SIZE, DurakState, Reason, Row
from engine.protocol import Action, Seat

TAKE = 36
"""The move `{"type": "take"}`."""
DONE = 37
"""The move `{"type": "done"}`."""
EXPLORE = 0.1
"""How often the playout policy plays a uniformly random move instead of its rules' move."""
EARLY = 6
"""While the stock holds more cards than this, `easy` takes rather than beat with a trump of rank Q or above."""
KEEP_TRUMPS = 9
"""While the stock holds more cards than this, `easy` takes rather than beat with any trump."""
QUEEN = 12
"""The rank of a queen (durak.md §2.2): from it up, `easy` keeps a trump while the stock holds more than `EARLY`."""


def keeps_trump(rank: int, stock: int) -> bool:
    """Whether `easy` takes rather than beat with its cheapest beating card, a trump of `rank` (6..14).

    `stock` is the number of cards in the stock. The one statement of this rule for `easy` (players.py),
    `easy_move` and the reading of an opponent that plays `easy`'s way (reading.py).
    """
    return stock > KEEP_TRUMPS or (stock > EARLY and rank >= QUEEN)


_COST = [tuple(trump_cost(card.code, trump.letter) for card in FRENCH_36) for trump in FRENCH_SUITS]
"""`_COST[trump][card]`: `engine.ai.costs.trump_cost` by number."""
_BEATS = [[tuple(beats(card, attack, trump) for card in FRENCH_36) for attack in FRENCH_36] for trump in FRENCH_SUITS]
"""`_BEATS[trump][attack][card]`: `engine.beating.beats` by number (durak.md §3.1)."""


class Position:
    """A Durak game in play as mutable lists of card numbers (module docstring), built from a `DurakState`.

    Attributes:
        trump: the trump suit's index in `S H D C`.
        stock: the stock, top card last (drawing pops from the end).
        hands: per seat, card numbers ascending (Durak's hand order).
        attacks, defenses: the table's rows; `defenses[i]` is -1 while row i is not beaten.
        discard: the discard pile in the order the cards left the table.
        attacker, bout, bout_limit, took, drawn_by: as `DurakState`'s `attacker`, `bout`, `bout_limit`,
            `defender_took`, `trump_card_drawn_by`.
        over, loser: whether the game ended (durak.md §3.10) and who lost (None: a draw).
    """

    __slots__ = (
        "trump",
        "stock",
        "hands",
        "attacks",
        "defenses",
        "discard",
        "attacker",
        "bout",
        "bout_limit",
        "took",
        "drawn_by",
        "over",
        "loser",
        "_start",
    )

    def __init__(self, state: DurakState) -> None:
        self.trump = FRENCH_SUITS.index(state.trump)
        self.stock = [FRENCH_36_NUMBER[card] for card in reversed(state.stock)]
        self.hands = [sorted(FRENCH_36_NUMBER[card] for card in hand) for hand in state.hands]
        self.attacks = [FRENCH_36_NUMBER[row.attack] for row in state.table]
        self.defenses = [-1 if row.defense is None else FRENCH_36_NUMBER[row.defense] for row in state.table]
        self.discard = [FRENCH_36_NUMBER[card] for card in state.discard]
        self.attacker: Seat = state.attacker
        self.bout = state.bout
        self.bout_limit = state.bout_limit
        self.took = state.defender_took
        self.drawn_by = state.trump_card_drawn_by
        self.over = state.reason is not None
        self.loser = state.loser
        self._start = state

    def mover(self) -> Seat:
        """The seat to act (`to_act` of durak.md §4.1); only asked while the game is not over."""
        if not self.took and self.attacks and self.defenses[-1] < 0:
            return 1 - self.attacker
        return self.attacker

    def moves(self) -> list[int]:
        """The mover's legal moves but `resign`, in the order of `durak.legal_actions` (durak.md §4.2)."""
        defenses, attacks = self.defenses, self.attacks
        if not self.took and attacks and defenses[-1] < 0:  # D beats the open card (§3.1) or takes
            beating = _BEATS[self.trump][attacks[-1]]
            moves = [card for card in self.hands[1 - self.attacker] if beating[card]]
            moves.append(TAKE)
            return moves
        hand = self.hands[self.attacker]
        if not attacks:  # a bout opens with any card (§3.2)
            return list(hand)
        moves = []
        if len(attacks) < self.bout_limit:  # a rank on the table (§3.4), within the limit (§3.5)
            ranks = {card % 9 for card in attacks}
            ranks.update(card % 9 for card in defenses if card >= 0)
            moves = [card for card in hand if card % 9 in ranks]
        moves.append(DONE)
        return moves

    def play(self, move: int) -> None:
        """Play one of `moves()` for the mover, unchecked (durak.md §3.2-§3.10)."""
        if move == TAKE:
            self.took = True
        elif move == DONE:
            self._end_bout()
        elif not self.took and self.attacks and self.defenses[-1] < 0:
            self.hands[1 - self.attacker].remove(move)
            self.defenses[-1] = move
        else:
            self.hands[self.attacker].remove(move)
            self.attacks.append(move)
            self.defenses.append(-1)

    def _end_bout(self) -> None:
        attacker = self.attacker
        defender = 1 - attacker
        hands, stock = self.hands, self.stock
        table = [card for row in zip(self.attacks, self.defenses, strict=True) for card in row if card >= 0]
        beaten_off = not self.took
        if beaten_off:
            self.discard.extend(table)
        else:  # D picks up every table card (§7.7)
            hands[defender].extend(table)
            hands[defender].sort()
        for seat in (attacker, defender):  # A refills first (§3.8, §7.9)
            count = min(HAND_SIZE - len(hands[seat]), len(stock))
            if count > 0:
                hands[seat].extend(stock.pop() for _ in range(count))
                hands[seat].sort()
                if not stock:
                    self.drawn_by = seat
        if not stock and not (hands[0] and hands[1]):  # the end check, after the refill (§3.10)
            self.over = True
            self.loser = None if not hands[0] and not hands[1] else (0 if hands[0] else 1)
            return
        self.attacker = defender if beaten_off else attacker  # §3.9
        self.attacks, self.defenses = [], []
        self.bout += 1
        self.bout_limit = min(HAND_SIZE, len(hands[1 - self.attacker]))
        self.took = False

    def copy(self) -> Position:
        """An independent copy: playing on it leaves this position as it is."""
        twin = Position.__new__(Position)
        twin.trump, twin.stock, twin.hands = self.trump, self.stock[:], [self.hands[0][:], self.hands[1][:]]
        twin.attacks, twin.defenses, twin.discard = self.attacks[:], self.defenses[:], self.discard[:]
        twin.attacker, twin.bout, twin.bout_limit, twin.took = self.attacker, self.bout, self.bout_limit, self.took
        twin.drawn_by, twin.over, twin.loser, twin._start = self.drawn_by, self.over, self.loser, self._start
        return twin

    @property
    def winner(self) -> Seat | None:
        """The seat that won (None: a draw); only asked once `over`."""
        return None if self.loser is None else 1 - self.loser

    def state(self) -> DurakState:
        """The same game as a `DurakState` (the first attack and the seed kept from the state it was built of)."""
        if self.over:
            reason: Reason | None = Reason.DRAW if self.loser is None else Reason.DURAK
        else:
            reason = self._start.reason
        return DurakState(
            trump=self._start.trump,
            stock=tuple(FRENCH_36[card] for card in reversed(self.stock)),
            hands=tuple(tuple(FRENCH_36[card] for card in hand) for hand in self.hands),
            discard=tuple(FRENCH_36[card] for card in self.discard),
            table=tuple(
                Row(FRENCH_36[attack], None if defense < 0 else FRENCH_36[defense])
                for attack, defense in zip(self.attacks, self.defenses, strict=True)
            ),
            attacker=self.attacker,
            bout=self.bout,
            bout_limit=self.bout_limit,
            defender_took=self.took,
            first_attack_seat=self._start.first_attack_seat,
            first_attack_card=self._start.first_attack_card,
            trump_card_drawn_by=self.drawn_by,
            reason=reason,
            loser=self.loser,
            seed=self._start.seed,
        )


def move_of(action: Action) -> int:
    """The move of `action`, a legal action body but `resign` (the inverse of `action`).

    Raises:
        ValueError: `action` is a `resign`, or of no type a move names.
    """
    card = action.get("card")
    if card is not None:
        return FRENCH_36_NUMBER_OF_CODE[card]
    if action["type"] in ("take", "done"):
        return TAKE if action["type"] == "take" else DONE
    raise ValueError(f"no playout move is a {action['type']!r}")


class _Solving:
    """engine/ai/solver.py `Rules` over `Position`s.

    A position is named as `players.solve_key` names its state: the hands, the table, who attacks, the
    bout's limit and whether the defender took.
    """

    @staticmethod
    def reward(position: Position, me: Seat) -> float | None:
        return heads_up_rewards(position.winner)[me] if position.over else None

    @staticmethod
    def mover(position: Position) -> Seat:
        return position.mover()

    @staticmethod
    def moves(position: Position, seat: Seat) -> list[int]:
        return position.moves()

    @staticmethod
    def after(position: Position, seat: Seat, move: int) -> Position:
        twin = position.copy()
        twin.play(move)
        return twin

    @staticmethod
    def key(position: Position) -> tuple[object, ...]:
        hands = position.hands
        return (
            tuple(hands[0]),
            tuple(hands[1]),
            tuple(position.attacks),
            tuple(position.defenses),
            position.attacker,
            position.bout_limit,
            position.took,
        )


def solve(state: DurakState, me: Seat, actions: list[Action], max_moves: int) -> Solution:
    """engine/ai/solver.py `solve(durak, state, me, actions, max_moves, players.solve_key)` on a `Position`.

    The same `Solution`, moves spent included (tests/engine/durak/test_playout.py holds it to that), at a fraction
    of the cost: a move here copies a few short lists where the public rules build a frozen state, its events and
    its legality check. The search's `SearchHooks.solve` and `easy`'s endgames (players.py).

    Raises:
        ValueError: `me` is not the one seat to act in `state`.
    """
    position = Position(state)
    if position.over or position.mover() != me:
        raise ValueError(f"seat {me} is not the one seat to act")
    return walk(_Solving(), position, me, [move_of(action) for action in actions], actions, max_moves)


def action(move: int, defending_against: int | None) -> Action:
    """The action body of `move`; `defending_against` is the open attack card's number when the mover defends."""
    if move == TAKE:
        return {"type": "take"}
    if move == DONE:
        return {"type": "done"}
    if defending_against is not None:
        return {"type": "defend", "card": FRENCH_36[move].code, "against": FRENCH_36[defending_against].code}
    return {"type": "attack", "card": FRENCH_36[move].code}


def playout(state: DurakState, start: DurakState, rng: random.Random, limit: int) -> tuple[list[float], int]:
    """Play `state` on by the playout policy: (rewards per seat, moves played); ½ each if cut off at `limit` moves.

    The search's `SearchHooks.playout` (engine/ai/search.py); `start`, the search's sampled root, is not needed.
    The loop and the rewards are `heads_up_playout.play_out`'s.

    The policy is a mixture, one rule set per seat per playout: a seat plays `easy`'s rules without its endgame
    solving (`easy_move`) when bit `seat` of the sampled state's seed is set, else the `lowest` bot's
    (bench/lowest.py, `lowest_move`), and a random move one time in `1 / EXPLORE`. The seed is a number the search
    draws from its `rng` for every sample (players.py `prepare_sampler`), so the coins cost no draw and the
    loop over the public rules sees them too. Why a mixture: a search whose playouts play like its opponent judges
    that opponent's replies well, and the search does not know whom it plays. With `lowest`'s rules alone `hard`
    scored 90% vs `lowest` but 52% vs `easy`, with `easy`'s 67% vs `lowest`; screened at `medium` on the same
    deals (docs/benchmarks.md, issue 17, 2026-12-03), per seat per playout scored 85% vs `lowest` and 40% vs `easy`
    where `lowest`'s rules scored 72% and 36%, and one rule set for both seats per playout 70% and 36%.
    It draws from `rng` exactly as the search's loop over the public rules would with the same policy (a `random()`
    per move, a `choice` over the legal moves when exploring), so the search's recorded choices hold
    (tests/engine/search_choices.json).
    """
    position = Position(state)
    policies = [easy_move if state.seed >> seat & 1 else lowest_move for seat in (0, 1)]
    cost = _COST[position.trump]

    def step() -> None:
        moves = position.moves()
        if rng.random() < EXPLORE:
            move = rng.choice(moves)
        else:
            move = policies[position.mover()](position, moves, cost)
        position.play(move)

    return play_out(position, step, limit)


def lowest_move(position: Position, moves: list[int], cost: tuple[int, ...]) -> int:
    """The `lowest` bot's move (bench/lowest.py) among `moves`, the position's `moves()`.

    The cheapest card (attack, throw in, defend) by `cost` (`_COST[position.trump]`), trumps counting above every
    plain card, first of equals (the hand order); a take only when nothing beats, a `done` only when nothing can
    be added.
    """
    if moves[0] >= TAKE:
        return moves[0]
    return min((card for card in moves if card < TAKE), key=cost.__getitem__)


def easy_move(position: Position, moves: list[int], cost: tuple[int, ...]) -> int:
    """`easy`'s rules on numbers (players.py `easy`, without its endgame solving); arguments as `lowest_move`'s.

    Defending, the cheapest beating card, but a take rather than a trump while the stock holds more than
    `KEEP_TRUMPS` cards, or a trump of rank Q or above while it holds more than `EARLY`; attacking, the cheapest
    card, throwing in every plain card (trumps too once the stock is empty), then `done`.
    """
    stock = len(position.stock)
    trump = position.trump
    if moves[-1] == TAKE:  # defending
        if len(moves) == 1:
            return TAKE
        card = min(moves[:-1], key=cost.__getitem__)
        if card // 9 == trump and keeps_trump(6 + card % 9, stock):
            return TAKE  # a trump is worth more than a few cards now
        return card
    if moves[-1] != DONE:  # opening a bout: any card
        return min(moves, key=cost.__getitem__)
    pressing = [card for card in moves if card < TAKE and (card // 9 != trump or stock == 0)]
    return min(pressing, key=cost.__getitem__) if pressing else DONE
