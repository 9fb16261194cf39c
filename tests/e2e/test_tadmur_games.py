"""Whole Tadmur games over HTTP against gunicorn + the RQ worker: the opponent's target stays hidden until the end."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from engine.redaction import codes_in
from tests.e2e.stack import Stack, StallGuard, call
from tests.e2e.test_full_games import LONG_POLL_SECONDS

pytestmark = pytest.mark.e2e

GAMES = 10


def play_tadmur(base_url: str, level: str, seed: int) -> tuple[dict[str, Any], set[str]]:
    """Play seat 0 with random legal moves (never `resign`) against an AI in seat 1.

    Returns the final view and every string seat 0's views showed while the game was active.
    """
    rng = random.Random(seed)
    session = requests.Session()
    created = call(session, "POST", f"{base_url}/v1/games", json={
        "game": "tadmur", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": level}], "seed": seed,
    })
    assert created.status_code == 201, created.text
    view = created.json()
    game_url = f"{base_url}/v1/games/{view['game_id']}"
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    seen: set[str] = set()
    guard = StallGuard(f"game {view['game_id']}")
    while view["status"] != "finished":
        guard.check(view["version"])
        assert view["state"]["rows"][1]["target"] is None, "the opponent's target shows before the end"
        seen |= set(codes_in(view))
        if 0 in view["to_act"]:
            choices = [action for action in view["legal_actions"] if action["type"] != "resign"]
            response = call(session, "POST", f"{game_url}/actions", json=rng.choice(choices),
                            headers={"If-Match": f'"{view["version"]}"'})
            assert response.status_code == 200, response.text
        else:
            response = call(session, "GET", game_url,
                            params={"after_version": view["version"], "wait": LONG_POLL_SECONDS})
            if response.status_code == 304:
                continue
            assert response.status_code == 200, response.text
        view = response.json()
    return view, seen


def test_ten_tadmur_games_against_the_ai_keep_the_target_hidden(stack: Stack) -> None:
    """Issue 5, tadmur.md §5.1, §6.2, §6.3: every game ends with a result; seat 1's target, revealed at the end,
    never appeared in any view seat 0 got before.
    """
    levels = ["random", "easy"] * (GAMES // 2)
    with ThreadPoolExecutor(max_workers=GAMES) as pool:
        reports = list(pool.map(play_tadmur, [stack.base_url] * GAMES, levels, range(500, 500 + GAMES)))
    for view, seen in reports:
        result = view["result"]
        assert result["reason"] in {"chain_complete", "correct_guess", "stalemate"}, result
        assert result["draw"] == (result["reason"] == "stalemate")
        assert view["to_act"] == [] and view["legal_actions"] == []
        targets = [row["target"] for row in view["state"]["rows"]]
        assert None not in targets
        assert targets[1] not in seen
