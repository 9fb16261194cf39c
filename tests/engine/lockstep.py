"""Playing a game through its public rules and a playout fast path side by side (engine/ai/<game>_playout.py).

Shared by the differential tests of the two-seat games whose positions have one seat to act at a time (Durak,
Svoi Koziri, Tadmur: tests/engine/<game>/test_playout.py); Talmut's several movers have their own loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.ai.heads_up_playout import heads_up_rewards
from engine.protocol import Action, Game

Choose = Callable[[Any, list[Action], random.Random], int]
"""`(state, actions, rng) -> index`: which of the listed actions a test plays."""
REBUILD = 0.2
"""How often the position is built anew from the public state: so that every kind of state is also a starting
point, as the search's playouts start anywhere."""


def listed(game: Game[Any, Any], state: Any) -> list[Action]:
    """The public legal actions of the one seat to act, without `resign` (always last, §4.2 of each game)."""
    (seat,) = game.to_act(state)
    actions: list[Action] = game.legal_actions(state, seat)[:-1]
    return actions


def rewards(game: Game[Any, Any], state: Any) -> list[float]:
    """What the search credits a finished game with: 1 for a winner, 0 for a loser, ½ each in a draw."""
    outcome = game.result(state)
    assert outcome is not None
    return [0.5, 0.5] if outcome.draw else [float(seat in outcome.winners) for seat in (0, 1)]


def uniform(state: Any, actions: list[Action], rng: random.Random) -> int:
    """A uniform random action's index."""
    return rng.randrange(len(actions))


def play_both(
    game: Game[Any, Any],
    position_of: Callable[[Any], Any],
    as_actions: Callable[[Any], list[Action]],
    state: Any,
    choose: Choose,
    rng: random.Random,
    moves: int = 100_000,
) -> Any:
    """Play `state` through `game`'s public rules and a fast position side by side, `choose` picking each action.

    `position_of(state)` builds the position; `as_actions(position)` lists its moves as action bodies. Before every
    move: the same seat to act and the same moves in the same order; after it, the same state (`position.state()`);
    at the end, the same rewards. The position is built anew from the public state with chance `REBUILD` after a
    move. Returns the state at the end, or after `moves` moves.
    """
    position = position_of(state)
    for _ in range(moves):
        if game.result(state) is not None:
            assert position.over
            assert heads_up_rewards(position.winner) == rewards(game, state)
            break
        assert not position.over
        assert {position.mover()} == game.to_act(state)
        actions = listed(game, state)
        assert as_actions(position) == actions
        index = choose(state, actions, rng)
        (seat,) = game.to_act(state)
        position.play(position.moves()[index])
        state, _ = game.apply(state, seat, actions[index])
        assert position.state() == state
        if rng.random() < REBUILD:
            position = position_of(state)
    return state
