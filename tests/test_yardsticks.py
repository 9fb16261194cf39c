"""bench/yardsticks: the determinized-UCT opponent sees only its seat's view, plays legal moves, and ends games.

Strength is measured by bench/ai_strength.py, not here; rollouts are tiny.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.games import GAMES
from engine.games.tadmur.players import target_weights
from engine.players import history_entry, seat_view
from engine.protocol import JSON, Game, Seat, capabilities

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from ai_strength import play_one  # noqa: E402
from yardsticks import FAST_ROLLOUTS, ROLLOUT_LIMIT, public_rollout, yardstick_action  # noqa: E402

GAME_IDS = sorted(GAMES)
ROLLOUTS = {"svoi_koziri": 4}
"""Rollouts per decision where random games run long (svoi_koziri.md §8.13: a median of about 700 actions); else 12."""


def random_position(game_id: str, seed: int, steps: int) -> tuple[Game[Any, Any], Any, list[list[JSON]]]:
    """A two- or three-seat game of `game_id` after up to `steps` uniform random moves (a seat that must act moves),
    with each seat's history as `GET /events` shows it; a move that would end the game is not played, so the game
    is always in play."""
    game = GAMES[game_id]
    seats = game.SEATS.start
    rng = random.Random(seed)
    state = capabilities(game).with_ai_seats(game.new_game(seats, game.parse_options({}), seed=seed), range(seats))
    histories: list[list[JSON]] = [[] for _ in range(seats)]
    optional = capabilities(game).optional_actions
    for version in range(2, steps + 2):
        moves = [(seat, action) for seat in sorted(game.to_act(state))
                 for action in game.legal_actions(state, seat) if action["type"] != "resign"]
        seat, action = rng.choice([m for m in moves if m[1]["type"] not in optional] or moves)
        after, events = game.apply(state, seat, action)
        if game.result(after) is not None:
            break
        state = after
        for viewer in range(seats):
            histories[viewer].extend(history_entry(version, event, viewer) for event in events)
    return game, state, histories


def with_hidden_cards_moved(game: Game[Any, Any], state: Any, seat: Seat) -> Any:
    """`state` with the cards hidden from `seat` dealt among their places in another order (each moved one on)."""
    hidden = sorted(card.code for card in game.hidden_from(state, seat))
    moved = dict(zip(hidden, hidden[1:] + hidden[:1], strict=True))

    def rename(value: JSON) -> JSON:
        if isinstance(value, str):
            return moved.get(value, value)
        if isinstance(value, dict):
            return {key: rename(item) for key, item in value.items()}
        if isinstance(value, list):
            return [rename(item) for item in value]
        return value

    return game.load_state(rename(game.dump_state(state)))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_move_does_not_depend_on_the_hidden_cards(game_id: str) -> None:
    game = GAMES[game_id]
    checked = 0
    for seed in range(12):
        _, state, histories = random_position(game_id, seed, steps=6 + seed % 10)
        for seat in sorted(game.to_act(state)):
            if len(game.hidden_from(state, seat)) < 2:
                continue
            other = with_hidden_cards_moved(game, state, seat)
            assert game.dump_state(other) != game.dump_state(state)  # the hidden deal really changed
            view = seat_view(game_id, state, seat, histories[seat])
            assert seat_view(game_id, other, seat, histories[seat]) == view
            move = yardstick_action(view, ROLLOUTS.get(game_id, 12), random.Random(seed))
            assert yardstick_action(seat_view(game_id, other, seat, histories[seat]), ROLLOUTS.get(game_id, 12),
                                    random.Random(seed)) == move
            # the same seed, the same move
            assert yardstick_action(view, ROLLOUTS.get(game_id, 12), random.Random(seed)) == move
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_move_is_legal(game_id: str) -> None:
    game = GAMES[game_id]
    optional = capabilities(game).optional_actions
    asked = nothing = 0
    for seed in range(30):
        _, state, histories = random_position(game_id, 1000 + seed, steps=seed * 7 % 90)
        for seat in sorted(game.to_act(state)):
            view = seat_view(game_id, state, seat, histories[seat])
            move = yardstick_action(view, ROLLOUTS.get(game_id, 4), random.Random(seed))
            asked += 1
            if move is None:  # doing nothing is open only to a seat listed for optional actions alone
                nothing += 1
                assert all(action["type"] in optional | {"resign"} for action in view["legal_actions"])
            else:
                assert move in view["legal_actions"] and move["type"] != "resign"
    assert asked >= 30 and nothing <= asked // 2


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_it_plays_a_whole_game(game_id: str) -> None:
    yardstick = f"yardstick:{ROLLOUTS.get(game_id, 6)}"
    result = play_one((game_id, yardstick, "easy", 1))
    assert not result["unfinished"]
    assert result["draw"] or set(result["best"]) <= {yardstick, "easy"} and result["best"]
    assert len(result["times"][yardstick]) >= 5  # it decided throughout, not once


def test_tadmur_plain_deal_weighs_every_possible_target_alike() -> None:
    _, state, histories = random_position("tadmur", 3, steps=4)
    seat = sorted(GAMES["tadmur"].to_act(state))[0]
    view = seat_view("tadmur", state, seat, histories[seat])
    plain = target_weights(view, histories[seat], prior=False)
    weighted = target_weights(view, histories[seat])
    assert plain.keys() == weighted.keys() and set(plain.values()) == {1}
    assert set(weighted.values()) == {1, 3}  # the level's prior, left out of the plain deal


def test_rollouts_must_be_positive() -> None:
    _, state, histories = random_position("durak", 0, steps=0)
    with pytest.raises(ValueError, match="at least 1"):
        yardstick_action(seat_view("durak", state, 0, histories[0]), 0, random.Random(0))


@pytest.mark.parametrize("game_id", sorted(FAST_ROLLOUTS))
def test_a_fast_rollout_is_the_public_rules_rollout(game_id: str) -> None:
    """From the same position and seed, the fast path plays the public rollout's game: same result, same draws."""
    game = GAMES[game_id]
    results = []
    for seed in range(40):
        _, state, _ = random_position(game_id, 2000 + seed, steps=seed * 3 % 50)
        for limit in (ROLLOUT_LIMIT, 1 + seed % 7):  # to the end, and cut off after a few moves (a draw)
            public, fast = random.Random(seed), random.Random(seed)
            expected = public_rollout(game, 2, state, public, limit)
            assert FAST_ROLLOUTS[game_id](state, fast, limit) == expected
            assert fast.getstate() == public.getstate()  # as many draws: the same moves, to the same end
            results.append(tuple(expected))
    assert {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)} <= set(results)  # either seat won, and cut-offs were drawn
