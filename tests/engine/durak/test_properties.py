"""Durak-specific properties of shared/rules/durak.md §8.12 over random legal play from random decks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games import durak
from engine.games.durak import DurakState
from engine.protocol import Action

OPTIONS = durak.parse_options({})
DECK = durak.full_deck(OPTIONS)


def playout(seed: int) -> list[tuple[DurakState, Action | None]]:
    """Every state of a random legal game (resigning rarely), each with the action that led to it."""
    rng = random.Random(seed)
    state = durak.new_game(2, OPTIONS, seed=seed)
    states: list[tuple[DurakState, Action | None]] = [(state, None)]
    while durak.result(state) is None:
        assert len(states) <= 1000, "no result after 1000 actions"
        action: Action
        if rng.random() < 0.002:
            seat, action = rng.randrange(2), {"type": "resign"}
        else:
            (seat,) = durak.to_act(state)
            action = rng.choice(durak.legal_actions(state, seat)[:-1])  # resign is always last (§4.2)
        state, _ = durak.apply(state, seat, action)
        states.append((state, action))
    return states


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_bout_invariants_hold_throughout(seed: int) -> None:
    """durak.md §8.12: one seat to act, never only resign; attacks ≤ bout_limit; one undefended card before a take;
    `trump_card` shown exactly while the stock has cards; the game ends only at a `done` or resign, stock empty.
    """
    for state, last in playout(seed):
        view = durak.view(state, None).state
        assert len(view["table"]) <= view["bout_limit"] <= 6
        if not view["defender_took"]:
            assert sum(row["defense"] is None for row in view["table"]) <= 1
        assert (view["trump_card"] is not None) == (view["stock_size"] >= 1)
        outcome = durak.result(state)
        if outcome is None:
            assert len(durak.to_act(state)) == 1
            (seat,) = durak.to_act(state)
            assert durak.legal_actions(state, seat) != [{"type": "resign"}]
        elif outcome.reason != "resign":
            assert last == {"type": "done"}
            assert view["stock_size"] == 0
