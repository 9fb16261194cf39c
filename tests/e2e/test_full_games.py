"""Whole Durak games over HTTP against gunicorn + the RQ worker: humans, AI seats, spectators, the example bot."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import pytest
import requests

from tests.e2e.stack import REPO, Stack, StallGuard, call

pytestmark = pytest.mark.e2e

GAMES = 20
LONG_POLL_SECONDS = 15
BOT_SECONDS = 600.0
"""Hang guard of the example bot's whole game (a subprocess: progress cannot be seen), which takes seconds."""


def check_finished(view: dict[str, Any]) -> None:
    """durak.md §5.1-§5.3 and §6.3: the result agrees with the revealed hands; nobody may act any more."""
    assert view["status"] == "finished"
    assert view["to_act"] == [] and view["legal_actions"] == []
    result, state = view["result"], view["state"]
    assert set(result) == {"winners", "losers", "draw", "scores", "reason"}, result
    hands = state["revealed_hands"]
    assert state["hand_sizes"] == [len(hands[0]), len(hands[1])]
    empty = [seat for seat in (0, 1) if not hands[seat]]
    if result["reason"] == "draw":
        assert state["stock_size"] == 0 and empty == [0, 1]
        assert (result["winners"], result["losers"], result["draw"]) == ([], [], True)
        assert result["scores"] == {"0": 0, "1": 0}
    else:
        assert result["reason"] == "durak", "neither side resigns in these games"
        assert state["stock_size"] == 0 and len(empty) == 1
        winner, loser = empty[0], 1 - empty[0]
        assert (result["winners"], result["losers"], result["draw"]) == ([winner], [loser], False)
        assert result["scores"] == {str(winner): 1, str(loser): 0}


def play_against_ai(base_url: str, level: str, seed: int) -> dict[str, Any]:
    """Play one game as seat 0 with uniformly random legal moves (never `resign`) against an AI in seat 1.

    Returns the final view, the versions seen and the AI's latencies: the time from our POST (or from the
    AI's previous version) to the view showing the AI's next version.
    """
    rng = random.Random(seed)
    session = requests.Session()
    created = call(
        session,
        "POST",
        f"{base_url}/v1/games",
        json={
            "game": "durak",
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": level}],
            "seed": seed,
        },
    )
    assert created.status_code == 201, created.text
    view = created.json()
    assert view["you"] == 0 and view["status"] == "active"
    game_url = f"{base_url}/v1/games/{view['game_id']}"
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    versions, latencies = [view["version"]], []
    mark = time.monotonic()
    guard = StallGuard(f"game {view['game_id']}")
    while view["status"] != "finished":
        guard.check(view["version"])
        if 0 in view["to_act"]:
            choices = [action for action in view["legal_actions"] if action["type"] != "resign"]
            assert choices, f"seat 0 is to act with nothing but resign: {view['legal_actions']}"
            mark = time.monotonic()
            response = call(
                session,
                "POST",
                f"{game_url}/actions",
                json=rng.choice(choices),
                headers={"If-Match": f'"{view["version"]}"'},
            )
            assert response.status_code == 200, response.text
            new_view = response.json()
            assert new_view["version"] == view["version"] + 1
        else:
            assert view["to_act"] == [1] and view["legal_actions"] == []
            response = call(
                session, "GET", game_url, params={"after_version": view["version"], "wait": LONG_POLL_SECONDS}
            )
            if response.status_code == 304:
                continue  # no AI move yet: the guard catches a stuck AI
            assert response.status_code == 200, response.text
            new_view = response.json()
            assert new_view["version"] > view["version"]
            latencies.append(time.monotonic() - mark)
            mark = time.monotonic()
        assert new_view["you"] == 0
        versions.append(new_view["version"])
        view = new_view
    return {"view": view, "versions": versions, "latencies": latencies}


def test_twenty_concurrent_games_against_the_ai_finish(stack: Stack) -> None:
    """shared/API.md "AI seats": the worker answers every AI turn; every game ends with a §5.1 result."""
    levels = ["random", "easy"] * (GAMES // 2)
    with ThreadPoolExecutor(max_workers=GAMES) as pool:
        futures = [pool.submit(play_against_ai, stack.base_url, level, 1000 + n) for n, level in enumerate(levels)]
        reports = [future.result() for future in futures]
    for report in reports:
        check_finished(report["view"])
        versions = report["versions"]
        assert all(before < after for before, after in pairwise(versions)), versions
        assert report["latencies"], "the AI never moved"
    max_latency = max(max(report["latencies"]) for report in reports)
    ai_moves = sum(len(report["latencies"]) for report in reports)
    print(f"{GAMES} games, {ai_moves} AI answers observed, max AI latency {max_latency:.3f} s")  # bench/ times it


def test_ai_against_ai_plays_itself_while_a_spectator_watches(stack: Stack) -> None:
    """shared/API.md: a game of AI seats starts at once and plays itself; without a token one sees public data."""
    session = requests.Session()
    created = call(
        session,
        "POST",
        f"{stack.base_url}/v1/games",
        json={
            "game": "durak",
            "seats": [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}],
            "seed": 7,
        },
    )
    assert created.status_code == 201, created.text
    view = created.json()
    assert view["player_token"] is None and view["status"] == "active"
    game_url = f"{stack.base_url}/v1/games/{view['game_id']}"
    guard = StallGuard("the AI game")
    while view["status"] != "finished":
        guard.check(view["version"])
        response = call(session, "GET", game_url, params={"after_version": view["version"], "wait": LONG_POLL_SECONDS})
        if response.status_code == 304:
            continue
        assert response.status_code == 200, response.text
        new_view = response.json()
        assert new_view["version"] > view["version"]
        assert new_view["you"] is None and new_view["legal_actions"] == []
        if new_view["status"] == "active":
            assert new_view["state"]["hand"] is None and new_view["state"]["revealed_hands"] is None
        view = new_view
    check_finished(view)


def test_example_bot_plays_a_whole_game(stack: Stack) -> None:
    """examples/bot.py works as documented against a running server."""
    completed = subprocess.run(
        [sys.executable, str(REPO / "examples" / "bot.py"), stack.base_url],
        capture_output=True,
        text=True,
        timeout=BOT_SECONDS,
    )
    assert completed.returncode == 0, completed.stderr
    assert "result:" in completed.stdout and ("'winners'" in completed.stdout or '"winners"' in completed.stdout)
