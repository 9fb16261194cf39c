"""Whole Svoi Koziri games over HTTP against gunicorn + the RQ worker + real Redis (svoi_koziri.md §5)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from engine.players import choose_action
from tests.e2e.stack import Stack, StallGuard

pytestmark = pytest.mark.e2e

GAMES = 10
LONG_POLL_SECONDS = 15
REASONS = {"out_of_cards", "draw", "repetition"}


def finish_game(base_url: str, level: str, seed: int) -> dict[str, Any]:
    """Play seat 0 with the `easy` rules bot (uniform random play runs ~700 actions, §8.13) against an AI in
    seat 1, from the trump choice to the end; return the final view of seat 0."""
    rng = random.Random(seed)
    session = requests.Session()
    created = session.post(f"{base_url}/v1/games", json={
        "game": "svoi_koziri", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": level}],
        "seed": seed,
    }, timeout=30)
    assert created.status_code == 201, created.text
    view = created.json()
    game_url = f"{base_url}/v1/games/{view['game_id']}"
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    guard = StallGuard(f"game {view['game_id']}")  # a few hundred moves: progress, not a deadline, at any load
    while view["status"] != "finished":
        guard.check(view["version"])
        if 0 in view["to_act"]:
            seat_view = {"game": "svoi_koziri", "you": 0, "state": view["state"],
                         "legal_actions": view["legal_actions"]}
            response = session.post(f"{game_url}/actions", json=choose_action(seat_view, "easy", rng),
                                    headers={"If-Match": f'"{view["version"]}"'}, timeout=30)
            assert response.status_code == 200, response.text
            assert response.json()["version"] == view["version"] + 1
        else:
            assert view["to_act"] == [1] and view["legal_actions"] == []
            assert view["state"]["revealed_hands"] is None and len(view["state"]["hand_sizes"]) == 2
            response = session.get(game_url, params={"after_version": view["version"], "wait": LONG_POLL_SECONDS},
                                   timeout=LONG_POLL_SECONDS + 10)
            if response.status_code == 304:
                continue
            assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_ten_games_against_the_ai_finish(stack: Stack) -> None:
    """shared/API.md "AI seats": the worker plays every AI turn, trump choice included; each game ends by
    svoi_koziri.md §5.1 with a result agreeing with the revealed hands."""
    levels = ["random", "easy"] * (GAMES // 2)
    with ThreadPoolExecutor(max_workers=GAMES) as pool:
        views = list(pool.map(finish_game, [stack.base_url] * GAMES, levels, range(4000, 4000 + GAMES)))
    for view in views:
        result, state = view["result"], view["state"]
        assert view["to_act"] == [] and view["legal_actions"] == [] and state["step"] is None
        assert result["reason"] in REASONS, result
        assert None not in state["trumps"] and state["trumps"][0] != state["trumps"][1]
        hands = state["revealed_hands"]
        assert sum(map(len, hands)) + len(state["pile"]) == 36
        empty = [seat for seat in (0, 1) if not hands[seat]]
        if result["reason"] == "out_of_cards":
            (winner,) = empty
            assert (result["winners"], result["losers"], result["draw"]) == ([winner], [1 - winner], False)
            assert result["scores"] == {str(winner): 1, str(1 - winner): 0}
        else:
            assert (result["winners"], result["losers"], result["draw"]) == ([], [], True)
            assert result["scores"] == {"0": 0, "1": 0}
            assert empty == ([0, 1] if result["reason"] == "draw" else [])
