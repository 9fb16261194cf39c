"""Properties every game must keep, checked by random legal playouts (STYLE.md §5).

Written once over `engine.games.GAMES`: a new game gets these tests by being registered there.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import LEVELS, SeatView, choose_action
from engine.cards import shuffled
from engine.games import GAMES
from engine.protocol import Action, Event, Game
from engine.redaction import codes_in, event_for

GAME_IDS = sorted(GAMES)
MAX_ACTIONS = 1000
"""A bound on any game's length (durak.md §8.12 observed about 210 actions)."""
RESIGN_CHANCE = 0.002

seeds = st.integers(0, 2**32 - 1)


def start(game_id: str, seed: int) -> tuple[Game[Any, Any], Any, int, random.Random]:
    """A game of `game_id` dealt from the deck shuffled by `seed`, with a playout rng."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    options = game.parse_options({})
    seats = rng.choice(game.SEATS)
    state = game.new_game(seats, options, shuffled(game.full_deck(options), seed), seed)
    return game, state, seats, rng


def seat_view(game_id: str, game: Game[Any, Any], state: Any, seat: int) -> SeatView:
    """What an AI of `seat` gets: the JSON view, exactly as the API would send it."""
    shown = json.loads(json.dumps(game.view(state, seat).state))
    return {"game": game_id, "you": seat, "state": shown, "legal_actions": game.legal_actions(state, seat)}


def check_step(game: Game[Any, Any], before: Any, after: Any, events: list[Event], seats: int) -> None:
    """The invariants of STYLE.md §5 after one action (or the deal, with `before` None)."""
    options = game.parse_options({})
    assert Counter(card.code for card in game.cards_in_play(after)) == Counter(
        card.code for card in game.full_deck(options)
    ), "cards are not conserved"

    to_act = game.to_act(after)
    if game.result(after) is None:
        assert to_act, "nobody to act in an active game"
        for seat in to_act:
            assert any(action["type"] != "resign" for action in game.legal_actions(after, seat))
    else:
        assert not to_act
        assert all(game.legal_actions(after, seat) == [] for seat in range(seats))

    for viewer in [*range(seats), None]:
        hidden_now = {card.code for card in game.hidden_from(after, viewer)}
        shown = game.view(after, viewer)
        json.dumps([shown.state, list(shown.seats)])  # JSON-safe
        leaked = hidden_now.intersection(codes_in([shown.state, [dict(seat) for seat in shown.seats]]))
        assert not leaked, f"view for {viewer} shows hidden {leaked}"
        # A card hidden from the viewer before and after the step must not show in the step's events; a card
        # that became visible (played, revealed) may.
        hidden_throughout = hidden_now
        if before is not None:
            hidden_throughout = hidden_now & {card.code for card in game.hidden_from(before, viewer)}
        for event in events:
            shown_event = event_for(event, viewer)
            json.dumps(shown_event)
            leaked = hidden_throughout.intersection(codes_in(shown_event))
            assert not leaked, f"event {event.type} for {viewer} shows hidden {leaked}"

    dumped = json.loads(json.dumps(game.dump_state(after)))
    assert game.load_state(dumped) == after, "dump/load round trip changed the state"


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(deadline=None)
@given(seed=seeds)
def test_random_playout_keeps_invariants(game_id: str, seed: int) -> None:
    """STYLE.md §5 (durak.md §8.12): conservation, someone to act, no leaks, round trip, bounded length."""
    game, state, seats, rng = start(game_id, seed)
    check_step(game, None, state, [], seats)
    for _ in range(MAX_ACTIONS):
        if game.result(state) is not None:
            return
        action: Action
        if rng.random() < RESIGN_CHANCE:
            seat, action = rng.randrange(seats), {"type": "resign"}  # any seat, in or out of turn
        else:
            seat = rng.choice(sorted(game.to_act(state)))
            action = rng.choice([a for a in game.legal_actions(state, seat) if a["type"] != "resign"])
        frozen = game.dump_state(state)
        after, events = game.apply(state, seat, action)
        assert game.dump_state(state) == frozen, "apply mutated its input"
        check_step(game, state, after, events, seats)
        state = after
    pytest.fail(f"no result after {MAX_ACTIONS} actions")


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(deadline=None)
@given(seed=seeds)
def test_ai_levels_choose_legal_actions(game_id: str, seed: int) -> None:
    """Every AI level returns one of the seat's legal actions, read from the JSON view only; AI games end."""
    game, state, seats, rng = start(game_id, seed)
    levels = sorted(LEVELS[game_id])
    players = [rng.choice(levels) for _ in range(seats)]
    for _ in range(MAX_ACTIONS):
        if game.result(state) is not None:
            return
        seat = rng.choice(sorted(game.to_act(state)))
        view = seat_view(game_id, game, state, seat)
        chosen: dict[str, Action] = {}
        for level in levels:
            chosen[level] = choose_action(view, level, random.Random(rng.random()))
            assert chosen[level] in view["legal_actions"], f"{level} chose {chosen[level]}"
        state, _ = game.apply(state, seat, chosen[players[seat]])
    pytest.fail(f"no result after {MAX_ACTIONS} actions")
