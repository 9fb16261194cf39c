"""svoi_koziri.md §8.13: properties of random legal play from random decks and random trump choices.

Conservation, one seat to act, no leak in views or events and the bound on length are checked for every game by
tests/engine/test_properties.py; these are the properties only Svoi Koziri has.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.beating import beats
from engine.cards import Card
from engine.games import svoi_koziri
from engine.games.svoi_koziri import SvoiKoziriState

LONGEST = 20_000
"""Uniform random play: median about 700 actions, longest about 9,000 in 3,000 deals (§8.13)."""


def check(state: SvoiKoziriState) -> None:
    """The §8.13 invariants of one state in play."""
    if state.step in ("choose_trump", None):
        return
    dealt = state.deck == ()
    assert dealt and sum(map(len, state.hands)) + len(state.pile) == 36
    (seat,) = svoi_koziri.to_act(state)
    for owner in (0, 1):
        if owner != seat:
            # Only the seat that just went out may hold nothing while the game goes on (§3.8).
            assert state.hands[owner] or (state.step == "respond" and len(state.hands[seat]) == 1)
    kinds = [action["type"] for action in svoi_koziri.legal_actions(state, seat)]
    if state.step == "respond":
        can_beat = any(beats(card, state.pile[-1], state.trumps[seat]) for card in state.hands[seat])
        assert ("take" in kinds) != ("beat" in kinds)
        assert ("take" in kinds) == (not can_beat)


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_the_rules_invariants(seed: int) -> None:
    """§8.13: every game ends; after the deal each seat holds the six of its own trump; `respond` lists `beat`
    entries or `take`, `take` exactly when no card beats; no empty hand in play but the one just gone out."""
    rng = random.Random(seed)
    state = svoi_koziri.new_game(2, svoi_koziri.Options(), seed=seed)
    for _ in range(LONGEST):
        if svoi_koziri.result(state) is not None:
            return
        (seat,) = svoi_koziri.to_act(state)
        choices = [action for action in svoi_koziri.legal_actions(state, seat) if action["type"] != "resign"]
        was_choosing = state.step == "choose_trump"
        state, _ = svoi_koziri.apply(state, seat, rng.choice(choices))
        if was_choosing and state.step == "lead":
            for owner in (0, 1):
                trump = state.trumps[owner]
                assert trump is not None and Card(6, trump) in state.hands[owner]
        check(state)
    raise AssertionError(f"no result after {LONGEST} actions")
