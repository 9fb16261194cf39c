"""Tadmur-specific properties of shared/rules/tadmur.md §8.12 and §3.12 over random legal play from random decks."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games import tadmur
from engine.games.tadmur import TadmurState
from engine.games.tadmur.players import reachable
from engine.protocol import Action
from engine.redaction import codes_in, event_for

OPTIONS = tadmur.parse_options({})
DECK = tadmur.full_deck(OPTIONS)
MAX_TURNS = 126
"""tadmur.md §8.12: at most 38 placing turns, 24 turns with a wrong guess, and idle turns between them."""


def playout(seed: int, resign_chance: float = 0.002) -> tuple[list[TadmurState], list[bool]]:
    """Every state of a random legal game, and per finished turn whether it was idle (a pass without a guess)."""
    rng = random.Random(seed)
    state = tadmur.new_game(2, OPTIONS, seed=seed)
    states, idle = [state], []
    guessed = False
    while tadmur.result(state) is None:
        assert len(idle) <= MAX_TURNS, f"no result after {MAX_TURNS} turns"
        action: Action
        if rng.random() < resign_chance:
            seat, action = rng.randrange(2), {"type": "resign"}
        else:
            (seat,) = tadmur.to_act(state)
            action = rng.choice(tadmur.legal_actions(state, seat)[:-1])  # resign is always last (§4.2)
        if action["type"] in ("place", "pass"):
            idle.append(action["type"] == "pass" and not guessed)
        guessed = action["type"] == "guess"
        state, events = tadmur.apply(state, seat, action)
        check_redaction(state, events)
        states.append(state)
    return states, idle


def check_redaction(state: TadmurState, events: list) -> None:
    """No view or event for seat s shows the other hand, or the other target before the end (§6.2, §6.3)."""
    finished = tadmur.result(state) is not None
    for viewer in (0, 1, None):
        hidden = {card.code for owner in (0, 1) if owner != viewer for card in state.hands[owner]}
        if not finished:
            hidden |= {state.rows[owner].target.code for owner in (0, 1) if owner != viewer}
        shown = set(codes_in(tadmur.view(state, viewer).state))
        shown |= set(codes_in([event_for(event, viewer) for event in events]))
        assert not hidden & shown


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants_of_8_12(seed: int) -> None:
    """tadmur.md §8.12, §3.13: bounded length; each card in one place; empty ≥ 1 while active; hands ≥ 5;
    `pass` listed exactly when no `place` is; no `guess` while a row has one empty space.
    """
    states, _ = playout(seed)
    for state in states:
        places = Counter(card.code for card in tadmur.cards_in_play(state))
        assert places == Counter(card.code for card in DECK)
        assert all(len(hand) >= 5 for hand in state.hands)
        if tadmur.result(state) is not None:
            continue
        assert all(row.empty >= 1 for row in state.rows)
        (seat,) = tadmur.to_act(state)
        kinds = [action["type"] for action in tadmur.legal_actions(state, seat)]
        assert ("pass" in kinds) == ("place" not in kinds)
        if any(row.empty == 1 for row in state.rows):
            assert "guess" not in kinds


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_games_without_resign_end_within_126_turns(seed: int) -> None:
    """tadmur.md §8.12, §3.11: never two idle turns in a row except the last two; at most 126 turns."""
    states, idle = playout(seed, resign_chance=0)
    assert len(idle) <= MAX_TURNS
    pairs = list(zip(idle, idle[1:], strict=False))
    assert not any(first and second for first, second in pairs[:-1])
    if tadmur.result(states[-1]).reason == "stalemate":  # type: ignore[union-attr]
        assert idle[-2:] == [True, True]


def test_reachability_table_of_3_12() -> None:
    """tadmur.md §3.12: the distances no chain can bridge, for each number of empty spaces."""
    table = {7: {-3, -1, 1, 3}, 8: {-2, 0, 2}, 9: {-1, 1}, 10: {0}, 11: set(), 12: set(), 19: set()}
    for empty, unreachable in table.items():
        assert {d for d in range(-6, 7) if not reachable(d, empty + 1)} == unreachable


def brute_force_reachable(distance: int, steps: int) -> bool:
    ends = {0}
    for _ in range(steps):
        ends = {(end + move) % 13 for end in ends for move in (1, -1)}
    return distance % 13 in ends


@settings(deadline=None)
@given(distance=st.integers(-6, 6), steps=st.integers(1, 25))
def test_reachable_agrees_with_walking_the_cycle(distance: int, steps: int) -> None:
    """tadmur.md §3.12: `reachable` is exactly the set of ends of ±1 walks on the 13-rank cycle."""
    assert reachable(distance, steps) == brute_force_reachable(distance, steps)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_completed_chain_bridges_a_reachable_distance(seed: int) -> None:
    """tadmur.md §3.5, §3.12: a completed row links its starter to its target in `spaces + 1` steps, so that
    distance is reachable; in particular a row completed without a wrong guess had a reachable target at the start.
    """
    states, _ = playout(seed, resign_chance=0)
    outcome = tadmur.result(states[-1])
    assert outcome is not None
    if outcome.reason != "chain_complete":
        return
    (winner,) = outcome.winners
    row = states[-1].rows[winner]
    links = [row.starter, *row.chain, row.target]
    assert all(tadmur.adjacent(first, second) for first, second in zip(links, links[1:], strict=False))
    assert reachable(row.target.rank - row.starter.rank, row.spaces + 1)
