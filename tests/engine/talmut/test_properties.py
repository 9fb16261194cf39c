"""talmut.md §8.13 properties over random legal play at 3, 5 and 8 seats, both deck sizes.

The knowledge property is checked position by position against a model of what each seat has witnessed this
round, built from the actions alone (not from the engine's `seen_by`): a seat's view may show a layout card only
if that seat saw that very card face up or privately (a stock draw, a peek, a card on the pile, a wrong match),
and must show it exactly where it lies.
"""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games import talmut
from engine.games.talmut import TalmutState
from engine.redaction import event_for

GAMES_PER_TABLE = {"ci": 200, "default": 60, "dev": 15}.get(os.environ.get("HYPOTHESIS_PROFILE", "default"), 60)
"""Random games per seat count: the issue asks for 200 (profile `ci`: about 30 s for the three tables here)."""
OPTIONAL_CHANCE = 0.1
TABLES = [3, 5, 8]


def new(seats: int, seed: int, deck_size: int) -> TalmutState:
    options = talmut.parse_options({"deck_size": deck_size, "target": 30})
    return talmut.new_game(seats, options, seed=seed)


def pick(state: TalmutState, rng: random.Random) -> tuple[int, dict]:
    """The turn seat acts; a seat listed only for `match`/`withdraw` now and then (talmut.md §8.13)."""
    listed = sorted(talmut.to_act(state))
    others = [seat for seat in listed if seat != state.turn]
    seat = rng.choice(others) if others and rng.random() < OPTIONAL_CHANCE else state.turn
    actions = [a for a in talmut.legal_actions(state, seat) if a["type"] != "resign"]
    return seat, rng.choice(actions)


Seen = dict[int | None, set[str]]


def fresh(state: TalmutState) -> Seen:
    """Nothing seen but the turned-up card, by every seat and spectators (None)."""
    return {viewer: {state.discard[-1].code} for viewer in [*range(state.seats), None]}


def witnessed_after(state: TalmutState, after: TalmutState, seat: int, action: dict, seen: Seen) -> None:
    """Update `seen` (per viewer, the card codes it has seen this round) from one action, as the rules show it."""
    everyone = range(state.seats)
    kind = action["type"]
    if kind == "draw" and after.drawn is not None:
        for viewer in [*everyone, None] if action["source"] == "discard" else [seat]:
            seen[viewer].add(after.drawn.card.code)
    elif kind == "peek":
        card = state.layouts[action["seat"]][action["position"]].card
        assert card is not None
        seen[seat].add(card.code)
    elif kind == "match":
        card = state.layouts[seat][action["position"]].card
        assert card is not None
        for viewer in everyone:
            seen[viewer].add(card.code)
    for viewer in [*everyone, None]:  # whatever lies face up on the pile is public
        seen[viewer].update(card.code for card in after.discard)


def check_views(state: TalmutState, seen: Seen) -> None:
    for viewer in [*range(state.seats), None]:
        shown = talmut.view(state, viewer).state
        for layout in shown["layouts"]:
            for slot in layout["slots"]:
                actual = state.layouts[layout["seat"]][slot["position"]].card
                if slot["card"] is None:
                    continue
                assert state.reason == "target_reached" or viewer is not None, "a spectator saw a layout card"
                assert slot["card"] == actual.code, "a view shows a card where it does not lie"
                if state.reason is None:
                    assert slot["card"] in seen[viewer], f"seat {viewer} sees {slot['card']} it never saw"
                    assert viewer in slot["seen_by"]
        drawn = shown["drawn"]
        if drawn is not None and drawn["card"] is not None:
            assert viewer == state.turn or drawn["source"] == "discard"
        assert "call_total" not in json.dumps(shown) or state.history
        if state.reason is None:
            for action in talmut.legal_actions(state, viewer) if viewer is not None else []:
                if action["type"] == "match":
                    assert state.window is not None and viewer != state.window.last_thrower
                    assert viewer not in state.window.wrong_matchers  # one wrong match per window (§3.11)


@pytest.mark.parametrize("seats", TABLES)
@settings(deadline=None, max_examples=GAMES_PER_TABLE, database=None)
@given(seed=st.integers(0, 2**32 - 1), deck_size=st.sampled_from([40, 48]))
def test_views_show_only_legitimately_seen_cards(seats: int, seed: int, deck_size: int) -> None:
    """talmut.md §6.1-§6.6, §8.13: no view or event shows a layout card its viewer has not seen, nor a stock draw
    before it is discarded; spectators see no layout card; `to_act` holds the turn seat; matches need a window;
    no seat makes two wrong matches in one window, and the window's `wrong_matchers` are those that made one
    (§3.11)."""
    state, rng = new(seats, seed, deck_size), random.Random(seed)
    seen = fresh(state)
    wrong: set[int] = set()  # the seats that matched wrong in the window open now
    for _ in range(5000):
        if talmut.result(state) is not None:
            return
        assert state.turn in talmut.to_act(state)
        seat, action = pick(state, rng)
        after, events = talmut.apply(state, seat, action)
        if after.window is None or after.turn != state.turn or after.round != state.round:
            wrong = set()  # the window closed, or a turn ended and opened another
        for event in events:
            if event.type == "matched" and not event.public["correct"]:
                assert event.public["seat"] not in wrong, "two wrong matches of one seat in one window"
                wrong.add(event.public["seat"])
        assert after.window is None or after.window.wrong_matchers == tuple(sorted(wrong))
        if after.round != state.round or after.reason is not None:  # a new deal: knowledge starts again
            seen = fresh(after)
            round_events = [event for event in events if event.type in ("round_ended", "round_started")]
            assert round_events, "the round changed without its events"
        else:
            witnessed_after(state, after, seat, action, seen)
            for viewer in [*range(seats), None]:
                for event in events:
                    codes = {value for value in event_for(event, viewer).values() if isinstance(value, str)}
                    hidden = {slot.card.code for layout in after.layouts for slot in layout
                              if slot.card is not None and slot.card.code not in seen[viewer]}
                    assert not codes & hidden, f"event {event.type} shows {codes & hidden} to {viewer}"
        check_views(after, seen)
        state = after
    pytest.fail("no result after 5000 actions")


@pytest.mark.parametrize("seats", TABLES)
@settings(deadline=None, max_examples=20)
@given(seed=st.integers(0, 2**32 - 1))
def test_calling_at_first_chance_makes_rounds_of_n_turns(seats: int, seed: int) -> None:
    """talmut.md §8.13, §3.13, §3.14: when every seat calls at its first chance, each round lasts exactly N turns
    (the call and N-1 last turns) and the game ends."""
    state, rng = new(seats, seed, 40), random.Random(seed)
    turns_this_round, rounds = 0, 0
    while talmut.result(state) is None:
        seat = state.turn
        legal = talmut.legal_actions(state, seat)
        turn_actions = [a for a in legal if a["type"] not in ("match", "withdraw", "resign")]
        action = {"type": "call"} if {"type": "call"} in legal else rng.choice(turn_actions)
        before_round = state.round
        ended_turn = state.phase == "draw" and action["type"] == "call"
        state, events = talmut.apply(state, seat, action)
        ended_turn = ended_turn or state.turn != seat or state.round != before_round or state.reason is not None
        turns_this_round += ended_turn
        if any(event.type == "round_ended" for event in events):
            assert turns_this_round == seats
            turns_this_round, rounds = 0, rounds + 1
        assert rounds < 100
    assert rounds >= 1
