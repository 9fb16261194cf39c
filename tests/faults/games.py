"""What the fault tests do over HTTP: start all-AI games, watch them to the end, and check their histories."""

from __future__ import annotations

import itertools
import time
from typing import Any

import requests

from tests.e2e.stack import Stack, StallGuard


def create_ai_games(stack: Stack, count: int, game: str = "durak") -> list[str]:
    """Create `count` games of two AI seats (`random` against `easy`, seeds 0, 1, ...); they play themselves."""
    ids = []
    for seed in range(count):
        seats = [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "easy"}][:: 1 if seed % 2 else -1]
        created = requests.post(f"{stack.base_url}/v1/games", json={"game": game, "seats": seats, "seed": seed},
                                timeout=30)
        assert created.status_code == 201, created.text
        ids.append(created.json()["game_id"])
    return ids


def versions(stack: Stack, game_ids: list[str]) -> dict[str, int]:
    """The current version of each game (spectator views)."""
    return {game_id: requests.get(f"{stack.base_url}/v1/games/{game_id}", timeout=30).json()["version"]
            for game_id in game_ids}


def wait_until(stack: Stack, game_ids: list[str], done: Any) -> dict[str, dict[str, Any]]:
    """Poll the games' spectator views until `done(views)` holds; fail when no game moved for `STALL_SECONDS`
    (tests/e2e/stack.py) or when one of the stack's workers exited.

    A poll answered 503 `store_unavailable` (Redis cannot serve for a moment: shared/API.md, a client retries) is
    no news; any other answer but 200 fails.
    """
    guard = StallGuard(f"{len(game_ids)} games")
    while True:
        exited = [worker.returncode for worker in stack.workers if worker.poll() is not None]
        assert not exited, f"a worker exited with status {exited}"
        answers = {game_id: requests.get(f"{stack.base_url}/v1/games/{game_id}", timeout=30) for game_id in game_ids}
        if any(answer.status_code == 503 and answer.json()["error"] == "store_unavailable"
               for answer in answers.values()):
            guard.check(guard.marker)
            time.sleep(0.5)
            continue
        assert all(answer.status_code == 200 for answer in answers.values()), {
            game_id: (answer.status_code, answer.text) for game_id, answer in answers.items()}
        views = {game_id: answer.json() for game_id, answer in answers.items()}
        if done(views):
            return views
        guard.check({game_id: view["version"] for game_id, view in views.items()})
        time.sleep(0.5)


def wait_finished(stack: Stack, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The final views, once every game is finished (`wait_until`)."""
    return wait_until(stack, game_ids, lambda views: all(v["status"] == "finished" for v in views.values()))


def assert_each_version_written_once(stack: Stack, game_id: str) -> list[dict[str, Any]]:
    """Every version of the game's history from 1 to the last was written by exactly one write, in order: a turn
    played twice would be a second run of events for a version, or a version missing. Returns the events."""
    events = requests.get(f"{stack.base_url}/v1/games/{game_id}/events", timeout=30).json()["events"]
    runs = [version for version, _ in itertools.groupby(event["version"] for event in events)]
    assert runs == list(range(1, len(runs) + 1)), f"game {game_id}: versions written {runs}"
    return events
