"""Export -> replay equality for random games of every game, played to the end through the HTTP API (issue 41.3).

100 games of each game are played by random legal moves (the view's `legal_actions`, fixed seeds) with the Flask
test client on the real Redis (tests/service/conftest.py `running_app`; about a minute for the four games, where
gunicorn would take several), exported, replayed with `POST /v1/games {"replay": ...}`, and the replay's export
must be the original's but for `game_id`. A few games of each game against AI seats run on the session's real
stack (gunicorn and an RQ worker, tests/e2e/stack.py), the AI's moves made by the worker.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from service.redis_clients import redis_client
from tests.e2e.stack import Stack, StallGuard, call
from tests.service.conftest import Api, running_app

pytestmark = pytest.mark.e2e

GAMES_PER_GAME = 100
MOVES_BEFORE_RESIGNING = 120
"""A random game that has not ended after this many moves ends by the acting seat's resignation (a random Svoi
Koziri game can last thousands), so a game's moves stay few and its export well under `MAX_BODY_BYTES`."""
RESIGN_CHANCE = 0.005
"""The chance that a random move is a resignation where one is legal: some games end that way."""
SETUPS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "durak": lambda rng: {"seats": 2, "options": {}},
    "svoi_koziri": lambda rng: {"seats": 2, "options": {}},
    "tadmur": lambda rng: {"seats": 2, "options": {}},
    "talmut": lambda rng: {"seats": rng.choice([3, 4]), "options": {"target": 5, "match_pause_ms": 0}},
}
"""Each game's random setup: its seat count and options (a low Talmut target keeps its games to a few rounds)."""

Send = Callable[..., tuple[int, Any]]
"""`send(method, path, token=None, json=None) -> (status, JSON body)`: one request to the app under test."""


def random_move(rng: random.Random, legal: list[dict[str, Any]], moves: int) -> dict[str, Any]:
    """A random legal action: a resignation rarely (or once the game is `MOVES_BEFORE_RESIGNING` long), else any."""
    resign = [action for action in legal if action["type"] == "resign"]
    others = [action for action in legal if action["type"] != "resign"]
    if resign and (not others or moves >= MOVES_BEFORE_RESIGNING or rng.random() < RESIGN_CHANCE):
        return resign[0]
    return rng.choice(others)


def play_random_game(
    send: Send, game: str, seed: int, humans_only: bool = True, run_ai: Callable[[], None] = lambda: None
) -> str:
    """Create a game of `game` (seed `seed`) and play it to the end by random legal moves; its id.

    With `humans_only` every seat is a human whose moves are posted here; else seat 1 is an AI (`random` or
    `easy`) and `run_ai` lets the worker play (the real worker plays on its own: the loop long-polls). A Talmut
    seat that resigned is played on by the easy AI (talmut.md §3.17), through `run_ai` too.
    """
    rng = random.Random(seed)
    setup = SETUPS[game](rng)
    seats = [{"kind": "human", "name": f"P{n}"} for n in range(setup["seats"])]
    if not humans_only:
        seats[1] = {"kind": "ai", "level": rng.choice(["random", "easy"])}
    status, view = send(
        "POST", "/v1/games", json={"game": game, "seats": seats, "options": setup["options"], "seed": seed}
    )
    assert status == 201, view
    game_id, tokens = view["game_id"], {0: view["player_token"]}
    for number in range(1, setup["seats"]):
        if seats[number]["kind"] == "human":
            status, joined = send("POST", f"/v1/games/{game_id}/seats", json={"name": f"P{number}"})
            assert status == 201, joined
            tokens[number] = joined["player_token"]
    moves, guard = 0, StallGuard(f"{game} game {game_id}")
    current: dict[str, Any] | None = None  # the latest view read, while nobody else has moved since
    while True:
        if current is None:
            run_ai()
            status, current = send("GET", f"/v1/games/{game_id}")
            assert status == 200, current
        guard.check(current["version"])
        if current["status"] == "finished":
            return game_id
        human = [seat for seat in current["to_act"] if current["seats"][seat]["kind"] == "human"]
        if not human:  # the AI is to act: wait for its move
            run_ai()
            status, waited = send("GET", f"/v1/games/{game_id}?after_version={current['version']}&wait=10")
            current = waited if status == 200 else current if status == 304 else None
            continue
        # the seat whose view is at hand half the time (no read), else any of those that may act
        seat = current["you"] if current["you"] in human and rng.random() < 0.5 else rng.choice(human)
        view = current
        if view["you"] != seat:
            status, view = send("GET", f"/v1/games/{game_id}", tokens[seat])
            assert status == 200, view
        if not view["legal_actions"]:  # the worker's AI moved meanwhile (a Talmut match)
            current = None
            continue
        status, answer = send(
            "POST", f"/v1/games/{game_id}/actions", tokens[seat], json=random_move(rng, view["legal_actions"], moves)
        )
        assert status in (200, 403, 409, 422), answer  # an AI's move (a Talmut match) landed first
        moves += status == 200
        ai_seated = any(entry["kind"] == "ai" for entry in answer.get("seats", [{"kind": "ai"}]))
        current = answer if status == 200 and not ai_seated else None


def export_and_replay(send: Send, game_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The finished game's export and its replay's export (the replay must be a finished game of the same result)."""
    status, export = send("GET", f"/v1/games/{game_id}/export")
    assert status == 200, export
    status, replay = send("POST", "/v1/games", json={"replay": export})
    assert status == 201, (game_id, replay)
    assert (replay["status"], replay["result"]) == ("finished", export["result"])
    status, again = send("GET", f"/v1/games/{replay['game_id']}/export")
    assert status == 200, again
    return export, again


@pytest.fixture(scope="module")
def app_api() -> Iterator[Api]:
    with running_app(redis_client(os.environ["REDIS_URL"]), f"test-export-{uuid.uuid4().hex[:8]}") as api:
        yield api


def client_send(api: Api) -> Send:
    """`Send` over the Flask test client of `api` (a long-poll answers at once: no other process moves)."""

    def send(method: str, path: str, token: str | None = None, json: Any = None) -> tuple[int, Any]:
        path = path.split("?after_version=")[0]  # a long-poll: nothing moves while this process waits
        response = api.request(method, path, token, json=json)
        return response.status_code, response.json

    return send


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_random_games_replay_to_the_same_export(app_api: Api, game: str) -> None:
    send = client_send(app_api)
    kinds: set[str] = set()
    for number in range(GAMES_PER_GAME):
        game_id = play_random_game(send, game, seed=41_000 + number, run_ai=app_api.run_ai)
        export, again = export_and_replay(send, game_id)
        assert {**again, "game_id": game_id} == export
        kinds.add(export["result"]["reason"])
    assert "resign" in kinds and len(kinds) >= 2, kinds  # games ended by the rules and by a resignation


def stack_send(stack: Stack) -> Send:
    session = requests.Session()

    def send(method: str, path: str, token: str | None = None, json: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = call(session, method, f"{stack.base_url}{path}", json=json, headers=headers)
        return response.status_code, None if response.status_code == 304 else response.json()

    return send


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_games_against_the_workers_ai_replay(stack: Stack, game: str) -> None:
    """The AI's moves, made by the real worker and applied through the same write path, replay too."""
    send = stack_send(stack)
    for number in range(3):
        game_id = play_random_game(send, game, seed=42_000 + number, humans_only=False)
        export, again = export_and_replay(send, game_id)
        assert any(entry["seat"] == 1 for entry in export["actions"]) or export["result"]["reason"] == "resign"
        assert export["seats"][1]["kind"] == "ai"
        assert {**again, "game_id": game_id} == export
