"""The search's fast path for Durak playouts (engine/games/durak/playout.py) against the public rules (durak.py).

Differential tests: thousands of random games played through both, move by move, must list the same moves in the
same order and reach the same states; a whole playout must return what the search's loop over the public rules
returns with the same policy and the same random numbers.
"""

from __future__ import annotations

import random

import pytest

from engine.ai.costs import trump_cost
from engine.ai.solver import solve
from engine.games import durak
from engine.games.durak import DurakState
from engine.games.durak import players as durak_ai
from engine.games.durak import playout as durak_playout
from engine.games.durak.playout import Position
from engine.protocol import Action
from tests.engine import lockstep

OPTIONS = durak.parse_options({})
GAMES = 2_000


def listed(state: DurakState) -> list[Action]:
    """The public legal actions of the seat to act, without `resign`."""
    return lockstep.listed(durak, state)


def fast_actions(position: Position) -> list[Action]:
    """The position's moves as action bodies."""
    defending = position.mover() != position.attacker
    against = position.attacks[-1] if defending else None
    return [durak_playout.action(move, against) for move in position.moves()]


def test_position_plays_every_random_game_as_the_public_rules_do() -> None:
    """2,000 uniform random games (`tests.engine.lockstep.play_both`): at every move the same seat to act, the same
    moves in the same order, and after the same move the same state, including the end (durak.md §3.10) and who
    lost; the position is also built anew from mid-bout states (a take, an open card, an empty stock)."""
    ends = {"durak": 0, "draw": 0}
    for seed in range(GAMES):
        state = lockstep.play_both(durak, Position, fast_actions, durak.new_game(2, OPTIONS, seed=seed),
                                   lockstep.uniform, random.Random(seed))
        ends[state.reason] += 1
    assert ends["durak"] > 0 and ends["draw"] > 0  # both endings were played through


def reference_action(state: DurakState, rng: random.Random) -> Action:
    """The playout policy written out on action bodies: one time in ten a random action, else, when bit `seat` of
    the state's seed is set for the seat to act, `easy`'s rules (engine/games/durak/players.py `_rules_move`), otherwise
    `lowest`'s move (the cheapest card by engine.ai.costs.trump_cost, first of equals, else the first action)."""
    actions = listed(state)
    if rng.random() < durak_playout.EXPLORE:
        return rng.choice(actions)
    (seat,) = durak.to_act(state)
    if state.seed >> seat & 1:
        return durak_ai._rules_move(actions, state.trump.letter, len(state.stock))
    cards = [action for action in actions if "card" in action]
    return min(cards, key=lambda a: trump_cost(a["card"], state.trump.letter)) if cards else actions[0]


def reference_playout(state: DurakState, rng: random.Random, limit: int) -> tuple[list[float], int]:
    """The search's loop over the public rules (engine/ai/search.py `_playout`) with `reference_action`."""
    for played in range(limit + 1):
        if durak.result(state) is not None:
            return lockstep.rewards(durak, state), played
        if played == limit:
            break
        (seat,) = durak.to_act(state)
        state, _ = durak.apply(state, seat, reference_action(state, rng))
    return [0.5, 0.5], limit


def test_playout_returns_what_the_loop_over_the_public_rules_returns() -> None:
    """From 600 positions of random games (every 7th move of 100 games), the fast playout and the reference loop
    with the same seed give the same rewards after the same number of moves, with the search's limit of 300 and
    with a limit of 12 that cuts most playouts off (½ each)."""
    checked = 0
    for seed in range(100):
        rng = random.Random(seed)
        state = durak.new_game(2, OPTIONS, seed=seed)
        moves = 0
        while durak.result(state) is None:
            if moves % 7 == 0:
                for limit in (300, 12):
                    fast = durak_playout.playout(state, state, random.Random(moves), limit)
                    assert fast == reference_playout(state, random.Random(moves), limit)
                    checked += 1
            (seat,) = durak.to_act(state)
            state, _ = durak.apply(state, seat, rng.choice(listed(state)))
            moves += 1
    assert checked >= 600


def test_playout_counts_the_moves_to_a_known_end() -> None:
    """A position one `done` from the end: the policy has only `done` (no card may be added), the bout ends beaten
    off with an empty stock, seat 0 is out of cards and seat 1 lost: rewards [1, 0] after one move."""
    card = durak.parse_card
    start = durak.position(card("6H").suit, [], [[card("7S")], [card("9S"), card("6C")]], attacker=0)
    after_attack, _ = durak.apply(start, 0, {"type": "attack", "card": "7S"})
    defended, _ = durak.apply(after_attack, 1, {"type": "defend", "card": "9S", "against": "7S"})
    assert durak_playout.playout(defended, defended, random.Random(1), 300) == ([1.0, 0.0], 1)


def test_solve_finds_what_the_solver_over_the_public_rules_finds() -> None:
    """From every position of 20 random games once the stock is empty and at most `SOLVABLE_CARDS` are in play
    (what `easy` and the search solve; mid-bout ones too: an open card, a take), the fast solve and
    engine/ai/solver.py `solve` over the public rules with `engine.games.durak.players.solve_key` give the same
    `Solution` (value, action, moves spent), with `easy`'s budget of 1,500 moves (most solved, some out of moves) and
    with 60 (mostly out of moves: the budget is counted alike)."""
    outcomes = {"solved": 0, "out of moves": 0}
    for seed in range(20):
        rng = random.Random(seed)
        state = durak.new_game(2, OPTIONS, seed=seed)
        while durak.result(state) is None:
            (seat,) = durak.to_act(state)
            actions = listed(state)
            in_play = sum(map(len, state.hands)) + sum(1 + (row.defense is not None) for row in state.table)
            if not state.stock and in_play <= durak_ai.SOLVABLE_CARDS:
                for moves in (durak_ai.EASY_SOLVE_MOVES, 60):
                    fast = durak_playout.solve(state, seat, actions, moves)
                    assert fast == solve(durak, state, seat, actions, moves, durak_ai.solve_key)
                    outcomes["solved" if fast.value is not None else "out of moves"] += 1
            state, _ = durak.apply(state, seat, rng.choice(actions))
    assert min(outcomes.values()) > 100


def test_a_move_names_each_action_but_a_resign() -> None:
    """`move_of` inverts `action`: a card is its number in FRENCH_36 (6S is 0, AC is 35), `take` and `done` their
    moves; a `resign` is no playout move and raises instead of passing for `done`."""
    assert [durak_playout.move_of(action) for action in (
        {"type": "attack", "card": "6S"}, {"type": "defend", "card": "AC"}, {"type": "take"}, {"type": "done"},
    )] == [0, 35, durak_playout.TAKE, durak_playout.DONE]
    with pytest.raises(ValueError):
        durak_playout.move_of({"type": "resign"})
