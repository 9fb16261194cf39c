"""Races through two gunicorn workers on the real Redis: one write wins, the rest change nothing (issue 8)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.e2e.stack import Stack

pytestmark = pytest.mark.e2e

THREADS = 8


def at_once(calls: list[Any]) -> list[requests.Response]:
    """Run the calls in THREADS threads released together by a barrier (each with its own connection)."""
    barrier = threading.Barrier(len(calls))

    def run(call: Any) -> requests.Response:
        with requests.Session() as session:
            barrier.wait()
            return call(session)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def new_game(stack: Stack, seats: list[dict[str, Any]], game: str = "durak") -> dict[str, Any]:
    created = requests.post(f"{stack.base_url}/v1/games", json={"game": game, "seats": seats}, timeout=10)
    assert created.status_code == 201, created.text
    return created.json()


def test_the_same_action_from_8_threads_is_applied_once(stack: Stack) -> None:
    """shared/API.md: one compare-and-set per version; the others get 409 version_conflict or 412."""
    game = new_game(stack, [{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    url = f"{stack.base_url}/v1/games/{game['game_id']}"
    joined = requests.post(f"{url}/seats", json={"name": "Bob"}, timeout=10).json()
    tokens = [game["player_token"], joined["player_token"]]
    view = requests.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10).json()
    seat = view["to_act"][0]
    headers = {"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{view["version"]}"'}
    mine = requests.get(url, headers=headers, timeout=10).json()
    action = next(a for a in mine["legal_actions"] if a["type"] != "resign")

    responses = at_once([lambda s: s.post(f"{url}/actions", json=action, headers=headers, timeout=20)] * THREADS)

    codes = sorted(response.status_code for response in responses)
    assert codes.count(200) == 1, codes
    assert all(code in (409, 412) for code in codes if code != 200), [r.text for r in responses]
    after = requests.get(url, timeout=10).json()
    assert after["version"] == view["version"] + 1
    events = requests.get(f"{url}/events?after={view['version']}", timeout=10).json()["events"]
    assert {event["version"] for event in events} == {view["version"] + 1}


def test_8_joins_of_the_last_seat_seat_one_player(stack: Stack) -> None:
    game = new_game(stack, [{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    url = f"{stack.base_url}/v1/games/{game['game_id']}"
    responses = at_once([
        (lambda name: lambda s: s.post(f"{url}/seats", json={"name": name}, timeout=20))(f"P{n}")
        for n in range(THREADS)
    ])
    codes = sorted(response.status_code for response in responses)
    assert codes.count(201) == 1, codes
    errors = {response.json()["error"] for response in responses if response.status_code != 201}
    assert codes.count(409) == THREADS - 1 and errors <= {"seat_taken", "game_full"}, [r.text for r in responses]
    view = requests.get(url, timeout=10).json()
    winner = next(response.json() for response in responses if response.status_code == 201)
    assert view["status"] == "active" and view["seats"][1]["name"] == winner["seats"][1]["name"]
    assert view["version"] == game["version"] + 1
