"""The search's fast path for Tadmur playouts (engine/games/tadmur/playout.py) against the public rules (tadmur.py).

Differential tests: thousands of random games played through both, move by move, must list the same moves in the
same order and reach the same states; a whole playout must return what the search's loop over the public rules
returns with the same policy and the same random numbers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from engine.ai.search import DEFAULT_ROLLOUT_LIMIT
from engine.games import tadmur
from engine.games.tadmur import TadmurState
from engine.games.tadmur import playout as tadmur_playout
from engine.games.tadmur.players import SEARCH, reachable
from engine.games.tadmur.playout import Position
from engine.protocol import Action
from tests.engine import lockstep
from tests.engine.tadmur.test_scenarios import D1, D2, deal, play

OPTIONS = tadmur.parse_options({})
GAMES = 3_000
RATES = [(0.1, 0.44), (0.0, 1.0), (0.6, 0.05)]
"""Guess rates per seat for the playouts: the prior against a guessing opponent, never against always, and more."""


def listed(state: TadmurState) -> list[Action]:
    """The public legal actions of the seat to act, without `resign`."""
    return lockstep.listed(tadmur, state)


def rewards(state: TadmurState) -> list[float]:
    """What the search's `SearchHooks.rewards` gives a finished game."""
    return lockstep.rewards(tadmur, state)


def fast_actions(position: Position) -> list[Action]:
    """The position's moves as action bodies."""
    return [tadmur_playout.action(move) for move in position.moves()]


def test_position_plays_every_random_game_as_the_public_rules_do() -> None:
    """3,000 random games: at every move the same seat to act, the same moves in the same order, and after the
    same move the same state, including the end (tadmur.md §5.1) and who won. Uniform random play guesses in most
    turns and soon guesses right, so one game in three places whenever it can (else uniform) to reach long chains,
    the lock (§3.8), last spaces (§3.4), completed chains and stalemates (§3.11). One move in five the position is
    built anew from the public state, so any mid-turn state (after a wrong guess, an idle turn) is also a starting
    point, as the search's playouts start anywhere."""
    ends: Counter[str] = Counter()
    seen = {"locked": 0, "last_spaces": 0}

    def chooser(placing: bool) -> lockstep.Choose:
        def choose(state: TadmurState, actions: list[Action], rng: random.Random) -> int:
            (seat,) = tadmur.to_act(state)
            seen["locked"] += tadmur.guessing_locked(state)
            seen["last_spaces"] += state.rows[seat].empty == 1
            places = [index for index, action in enumerate(actions) if action["type"] == "place"]
            return rng.choice(places) if placing and places else rng.randrange(len(actions))

        return choose

    for seed in range(GAMES):
        state = lockstep.play_both(tadmur, Position, fast_actions, tadmur.new_game(2, OPTIONS, seed=seed),
                                   chooser(seed % 3 == 2), random.Random(seed))
        ends[str(state.reason)] += 1
    locked, last_spaces = seen["locked"], seen["last_spaces"]
    # every ending was played through, and the lock and last spaces many times
    assert min(ends[reason] for reason in ("chain_complete", "correct_guess", "stalemate")) >= 20, ends
    assert locked >= 1_000 and last_spaces >= 1_000, (locked, last_spaces)


def reference_move(state: TadmurState, rates: Sequence[float], rng: random.Random) -> Action:
    """The playout policy written out on action bodies: with a place and a guess listed, a guess with chance
    `rates[seat]`; a uniform guess when it cannot place, else a pass; a uniform place among those keeping the own
    target reachable (tadmur.md §3.12), any of them at the last space or when none does."""
    (seat,) = tadmur.to_act(state)
    actions = listed(state)
    places = [action for action in actions if action["type"] == "place"]
    guesses = [action for action in actions if action["type"] == "guess"]
    if guesses and (not places or rng.random() < rates[seat]):
        return rng.choice(guesses)
    if not places:
        return actions[-1]
    row = state.rows[seat]
    keep = [place for place in places
            if row.empty == 1 or reachable(row.target.rank - tadmur.parse_card(place["card"]).rank, row.empty)]
    return rng.choice(keep or places)


def reference_playout(
    state: TadmurState, rates: Sequence[float], rng: random.Random, limit: int
) -> tuple[list[float], int]:
    """The search's loop over the public rules (`_playout` without a fast path) with `reference_move`'s policy."""
    for played in range(limit + 1):
        if tadmur.result(state) is not None:
            return rewards(state), played
        if played == limit:
            break
        (seat,) = tadmur.to_act(state)
        state, _ = tadmur.apply(state, seat, reference_move(state, rates, rng))
    return [0.5, 0.5], limit


def test_playout_returns_what_the_loop_over_the_public_rules_returns() -> None:
    """From over 1,000 positions of 120 games played by the playout policy itself (every 4th move, so long chains and
    last spaces too), the fast playout and the reference loop with the same seed and guess rates give the same
    rewards after the same number of moves, with the search's limit and with a limit of 12 that cuts most
    playouts off (½ each). The three kinds of end and the cut-off all occur."""
    assert SEARCH.rollout_limit == DEFAULT_ROLLOUT_LIMIT
    checked = 0
    outcomes: Counter[tuple[float, ...]] = Counter()
    for seed in range(120):
        rng = random.Random(seed)
        rates = RATES[seed % len(RATES)]
        state = tadmur.new_game(2, OPTIONS, seed=seed)
        moves = 0
        while tadmur.result(state) is None:
            if moves % 4 == 0:
                for limit in (DEFAULT_ROLLOUT_LIMIT, 12):
                    fast = tadmur_playout.playout(state, rates, random.Random(moves), limit)
                    assert fast == reference_playout(state, rates, random.Random(moves), limit)
                    outcomes[(*fast[0], fast[1] == limit)] += 1
                    checked += 1
            (seat,) = tadmur.to_act(state)
            state, _ = tadmur.apply(state, seat, reference_move(state, rates, rng))
            moves += 1
    assert checked >= 1_000
    assert outcomes[(1.0, 0.0, False)] and outcomes[(0.0, 1.0, False)] and outcomes[(0.5, 0.5, False)]
    assert outcomes[(0.5, 0.5, True)]


def test_playout_counts_the_moves_to_a_known_end() -> None:
    """tadmur.md §8.3: seat 0 can only complete its chain with 10S: rewards [1, 0] after one move. §8.6: both rows
    are parity-blocked at their last space, so two passes draw (§3.11): ½ each after two moves."""
    completing = play(deal(D1), "s0 place 6H, s1 place AS, s0 place 7H, s1 place 2S, s0 place 8H, s1 place 3S, "
                                "s0 place 9H, s1 place 4S, s0 place 10H, s1 place 5S, s0 place JH, s1 place 6S")
    assert tadmur_playout.playout(completing, (0.1, 0.1), random.Random(1), 400) == ([1.0, 0.0], 1)
    blocked = play(deal(D2), "s0 place 6C, s1 place 10H, s0 place 7C, s1 place JH, s0 place 8C, s1 place QH, "
                             "s0 place 9C, s1 place KH, s0 place 8D, s1 place QD, s0 place 7D, s1 place JD")
    assert tadmur_playout.playout(blocked, (0.1, 0.1), random.Random(1), 400) == ([0.5, 0.5], 2)
