"""Exact play of small two-seat positions where the seat knows every card: alpha-beta over the engine's own rules.

`solve` walks a game's public rules module; `walk` walks any `Rules`, e.g. a game's fast path (Durak's:
engine/games/durak/playout.py `solve`, held to the same answers by a differential test).

Once a position holds no hidden card for the seat (Durak once the stock is empty: the opponent's hand is every card
not in the seat's hand, on the table or in the discard pile it remembers, durak.md §6.4), the rest of the game is a
perfect-information game. `solve` walks it with alpha-beta and a transposition table of bounds, values being the
seat's reward (1 a win, 0.5 a draw, 0 a loss), within a budget of moves applied (work, not time: the same answer
on any machine). The state it receives comes from the game's `exact_state(view, history)` hook (engine/ai/search.py
`SearchHooks`), built from what the seat sees: never the stored game.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from engine.protocol import Action, Game, Seat


@dataclass(frozen=True, slots=True)
class Solution:
    """What solving found.

    The seat's `value` under best play by both seats (1, 0.5 or 0) and an `action` that keeps it, both None when
    the budget ran out first; and the `moves` applied either way.
    """

    value: float | None
    action: Action | None
    moves: int

    @property
    def keeping_move(self) -> Action | None:
        """The solved move if it keeps a win or a draw for the seat; None for a lost or an unsolved position."""
        return self.action if self.value is not None and self.value >= 0.5 else None


class _OutOfMoves(Exception):
    """The budget ran out before the position was solved."""


P = TypeVar("P")
M = TypeVar("M")

MAX_DEPTH = 400
"""A line longer than this many moves counts as out of budget: the walk is recursive, and a game whose positions
may repeat (Svoi Koziri's takes, svoi_koziri.md §3.9) can make lines long before its repetition draw ends them."""


class Rules(Protocol[P, M]):
    """A two-seat game as `walk` plays it: positions of type `P`, moves of type `M` (`resign` never among them)."""

    def reward(self, position: P, me: Seat) -> float | None:
        """Seat `me`'s reward if the game has ended at `position` (1 a win, 0.5 a draw, 0 a loss), else None."""

    def mover(self, position: P) -> Seat:
        """The one seat to act at `position`, a position in play."""

    def moves(self, position: P, seat: Seat) -> Sequence[M]:
        """The legal moves of `seat`, the mover, at `position`, in the rules' order."""

    def after(self, position: P, seat: Seat, move: M) -> P:
        """The position after `seat` plays `move`; `position` itself is left as it was."""

    def key(self, position: P) -> Hashable:
        """The transposition table's name of `position`: equal for positions whose rest of the game is the same."""


@dataclass(frozen=True, slots=True)
class PublicRules:
    """`Rules` over a game's public rules module (`game.result`, `to_act`, `legal_actions`, `apply`).

    `name_of(state)` is `solve`'s `key`: what names a position in the transposition table.
    """

    game: Game[Any, Any]
    name_of: Callable[[Any], Hashable]

    def reward(self, position: Any, me: Seat) -> float | None:
        """`Rules.reward` from `game.result`."""
        result = self.game.result(position)
        if result is None:
            return None
        return 0.5 if result.draw else (1.0 if me in result.winners else 0.0)

    def mover(self, position: Any) -> Seat:
        """`Rules.mover` from `game.to_act`."""
        (seat,) = self.game.to_act(position)
        return seat

    def moves(self, position: Any, seat: Seat) -> list[Action]:
        """`game.legal_actions` but `resign`."""
        return [action for action in self.game.legal_actions(position, seat) if action["type"] != "resign"]

    def after(self, position: Any, seat: Seat, move: Action) -> Any:
        """`game.apply`'s state."""
        return self.game.apply(position, seat, move)[0]

    def key(self, position: Any) -> Hashable:
        """`name_of(position)`."""
        return self.name_of(position)


def solve(
    game: Game[Any, Any],
    state: Any,
    me: Seat,
    actions: list[Action],
    max_moves: int,
    key: Callable[[Any], Hashable] | None = None,
) -> Solution:
    """The exact value of `state` for seat `me` (to act, with its candidate `actions`) and a move that keeps it.

    Unless that takes more than `max_moves` moves applied, or a line deeper than `MAX_DEPTH`: then `value` and
    `action` are None. Two seats, one of them to act at a time (`game.to_act`); `resign` is never weighed. The
    first of equally good `actions` is chosen, so the answer is a function of its arguments. `key(state)` names a
    position in the transposition table (None: the state itself): states that differ only in what cannot change
    the rest of the game may share one.

    Raises:
        ValueError: `me` is not the one seat to act in `state`.
    """
    if game.to_act(state) != {me}:
        raise ValueError(f"seat {me} is not the one seat to act")
    return walk(PublicRules(game, key or (lambda position: position)), state, me, actions, actions, max_moves)


def walk(rules: Rules[P, M], position: P, me: Seat, moves: Sequence[M], actions: Sequence[Action],
         max_moves: int) -> Solution:
    """`solve` over any `Rules`, from `position` with `me` to act.

    `moves` are its candidate moves and `actions[i]` the action body of `moves[i]` (the `Solution`'s action).
    A game's fast path (engine/ai/<game>_playout.py) walks its own positions with it; played in the same order and
    named alike by `key`, they give the very `Solution` its public rules give, moves spent included.
    """
    bounds: dict[Hashable, tuple[float, float]] = {}
    best_first: dict[Hashable, int] = {}
    spent = 0

    def after(position: P, seat: Seat, move: M) -> P:
        nonlocal spent
        spent += 1
        if spent > max_moves:
            raise _OutOfMoves
        return rules.after(position, seat, move)

    def value(position: P, alpha: float, beta: float, depth: int) -> float:
        if depth > MAX_DEPTH:
            raise _OutOfMoves
        reward = rules.reward(position, me)
        if reward is not None:
            return reward
        name = rules.key(position)
        lower, upper = bounds.get(name, (0.0, 1.0))
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        seat = rules.mover(position)
        moves = rules.moves(position, seat)
        order = list(range(len(moves)))
        if name in best_first:  # the move that was best or cut off here before is tried first
            order.insert(0, order.pop(best_first[name]))
        maximising = seat == me
        best, best_index = (0.0 if maximising else 1.0), order[0]
        low, high = alpha, beta
        for index in order:
            found = value(after(position, seat, moves[index]), low, high, depth + 1)
            if (found > best) if maximising else (found < best):
                best, best_index = found, index
            if maximising:
                low = max(low, best)
            else:
                high = min(high, best)
            if low >= high:
                break
        best_first[name] = best_index
        if best <= alpha:
            bounds[name] = (lower, best)
        elif best >= beta:
            bounds[name] = (best, upper)
        else:
            bounds[name] = (best, best)
        return best

    try:
        for target in (1.0, 0.5):  # is there a win? else a draw? (narrow windows cut the most)
            for move, action in zip(moves, actions, strict=True):
                if value(after(position, me, move), target - 0.25, target, 1) >= target:
                    return Solution(target, action, spent)
    except _OutOfMoves:
        return Solution(None, None, max_moves)
    return Solution(0.0, actions[0], spent)
