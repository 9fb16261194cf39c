"""How a two-seat game's fast-path playout ends and is scored: the loop every such fast path plays out with.

The fast paths of Durak, Svoi Koziri and Tadmur (engine/games/<game>/playout.py) each play a private mutable position
one move at a time, by their own policy, and must return what the search's loop over the public rules returns
(engine/ai/search.py `_playout`): at the game's end the search's rewards, 1 for the winner and 0 for the loser (½
each in a draw), and after `limit` moves the game's cut-off score. `play_out` is that loop once, for any position
that says whether it is `over` and who won. Talmut's playouts end at the round's end and are scored by round points
(engine/games/talmut/playout.py `playout`): another ending, not this one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.protocol import Seat


def heads_up_rewards(winner: Seat | None) -> list[float]:
    """A finished two-seat game's rewards per seat, as the search credits them: 1 for `winner`, 0 for the other.

    `winner` None is a draw: ½ each.

    >>> heads_up_rewards(1), heads_up_rewards(None)
    ([0.0, 1.0], [0.5, 0.5])
    """
    if winner is None:
        return [0.5, 0.5]
    return [float(seat == winner) for seat in (0, 1)]


class HeadsUpPosition(Protocol):
    """A two-seat fast path's position as `play_out` reads it."""

    @property
    def over(self) -> bool:
        """Whether the game has ended."""

    @property
    def winner(self) -> Seat | None:
        """Once `over`, the seat that won (None: a draw)."""


def _draw() -> list[float]:
    return [0.5, 0.5]


def play_out(position: HeadsUpPosition, step: Callable[[], None], limit: int,
             cut_off: Callable[[], list[float]] = _draw) -> tuple[list[float], int]:
    """Play `position` on, one `step()` a move, to the game's end or `limit` moves: (rewards per seat, moves played).

    `step` plays the mover's move on `position` by the game's policy. The rewards are `heads_up_rewards` of the
    winner once the game is over (moves played: those before the end), else `cut_off()` after `limit` moves (by
    default ½ each, a draw).
    """
    for played in range(limit):
        if position.over:
            return heads_up_rewards(position.winner), played
        step()
    return (heads_up_rewards(position.winner) if position.over else cut_off()), limit
