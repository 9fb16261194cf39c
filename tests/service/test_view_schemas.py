"""The per-game view schemas (the spec's `View` oneOf) declare every key a real view has, for every game.

Views are sent through these schemas, which drop an undeclared key: here random games of every game, seen from
every seat and by a spectator at every step, come out of the schema exactly as `game_view` built them.
"""

from __future__ import annotations

import random

import pytest

from engine import GAMES
from service.records import GameRecord, SeatRecord
from service.schemas.games import SeatedViewSchema, ViewSchema
from service.views import game_view, with_presence

# Talmut to 10 points, so a random game ends within the step budget (talmut.md §2.3); every record is of a game with
# claims (service/presence.py), whose views have a `claim` block
OPTIONS = {"talmut": {"target": 10}}
STEPS = 1000


def record_of(game_id: str, state, status: str, result) -> GameRecord:  # type: ignore[no-untyped-def]
    game = GAMES[game_id]
    seats = len(game.view(state, None).seats)
    return GameRecord(
        game_id="0" * 32, game=game_id, version=1, status=status, created_at=0.0,
        seats=[SeatRecord(kind="human", name=f"P{n}", token_hash="x") for n in range(seats)],
        options={**OPTIONS.get(game_id, {}), "claim_after_seconds": 60}, state=game.dump_state(state), result=result,
    )


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_view_dumps_through_its_game_s_schema_unchanged(game_id: str, seed: int) -> None:
    game = GAMES[game_id]
    rng = random.Random(seed)
    options = game.parse_options(OPTIONS.get(game_id, {}))
    seats = game.SEATS.start + (seed % 2 if len(game.SEATS) > 1 else 0)
    state = game.new_game(seats, options, seed=seed)
    checked, result = 0, None
    for _ in range(STEPS):
        result = game.result(state)
        record = record_of(game_id, state, "finished" if result else "active", result and result.to_json())
        for viewer in (None, *range(seats)):
            view = with_presence(game_view(record, viewer, []), {0: 1.5})  # the view's `claim` block too
            assert ViewSchema().dump(view) == view
            assert SeatedViewSchema().dump({**view, "player_token": None}) == {**view, "player_token": None}
            checked += 1
        if result is not None:
            break
        seat = rng.choice(sorted(game.to_act(state)))
        actions = [action for action in game.legal_actions(state, seat) if action["type"] != "resign"]
        calls = [action for action in actions if action["type"] == "call"]  # Talmut: so that rounds end
        state, _ = game.apply(state, seat, rng.choice(calls if calls and rng.random() < 0.3 else actions))
    assert result is not None and checked > 20
    waiting = game_view(record_of(game_id, state, "waiting", None), None, [])
    assert ViewSchema().dump(waiting) == waiting
