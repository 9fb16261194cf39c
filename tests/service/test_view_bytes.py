"""The bytes of every view are those the server sent before views were cached as bytes (issue 39 point 1).

tests/service/view_bytes.json holds, for a few recorded games (seeded deals, moves picked by a seeded random
among the legal actions), the SHA-256 and length of every view's body as the server sent it: each seat's and the
spectator's `GET`, the mover's `POST /actions` answer, at every version, and each reader's stream event; and each
reader's `GET /events` at the end. The game's
id and the seats' `last_seen` times differ from run to run: they are replaced by fixed text before hashing, nothing
else. A stream event's data is compared as the JSON value it holds (written with sorted keys, as a GET's body): the
stream now sends the GET's very bytes, whose keys are sorted, where it used to send them in the schema's order.

    python -m tests.service.test_view_bytes    # records the fixture again (only from a commit whose bytes are right)
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import Api, redis_client, running_app

FIXTURE = Path(__file__).with_name("view_bytes.json")
GAMES_PLAYED = [  # (game, seats, seed, moves at most): the seat names include non-ASCII text (JSON escapes it)
    ("durak", 2, 11, 90),
    ("svoi_koziri", 2, 12, 40),
    ("tadmur", 2, 13, 40),
    ("talmut", 3, 14, 30),
]


def normalised(body: bytes, game_id: str) -> bytes:
    """`body` with the run's own values fixed: the game id, and each seat's `last_seen` time (null stays null)."""
    body = body.replace(game_id.encode(), b"GAME")
    return re.sub(rb'"last_seen":"[^"]*"', b'"last_seen":"SEEN"', body)


def digest(body: bytes) -> list[Any]:
    """`[sha256 hex, length]` of `body`."""
    return [hashlib.sha256(body).hexdigest(), len(body)]


def stream_view(api: Api, game_id: str, version: int, token: str | None) -> bytes:
    """The `data:` of the stream's first `view` event from `version` on, as sent."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    response = api.client.get(f"/v1/games/{game_id}/stream?after_version={version - 1}", headers=headers,
                              buffered=False)
    chunks = iter(response.response)
    try:
        assert next(chunks) == b"retry: 1000\n\n"
        event = next(chunks).decode()
    finally:
        response.close()
    data = re.fullmatch(r"id: \d+\nevent: view\ndata: (.*)\n\n", event, re.DOTALL)
    assert data is not None, event
    return data.group(1).encode()


def play_and_read(api: Api, game: str, seats: int, seed: int, moves: int) -> dict[str, list[Any]]:
    """Play one recorded game; the digest of every view read, by `"<version> <reader> <how>"`."""
    names = [f"Zoë {number}" for number in range(seats)]
    created = api.create([{"kind": "human", "name": names[0]}] + [{"kind": "human"}] * (seats - 1), game=game,
                         seed=seed)
    assert created.status_code == 201, created.json
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    seen: dict[str, list[Any]] = {}

    def read_all(version: int) -> None:
        for reader, token in [("spectator", None), *((f"seat{n}", t) for n, t in enumerate(tokens))]:
            got = api.view(game_id, token)
            assert got.status_code == 200 and got.json["version"] == version, got.json
            seen[f"{version} {reader} get"] = digest(normalised(got.data, game_id))
            streamed = json.loads(stream_view(api, game_id, version, token))  # its keys were in the schema's order
            seen[f"{version} {reader} stream"] = digest(normalised(
                json.dumps(streamed, sort_keys=True, separators=(",", ":")).encode(), game_id))

    read_all(1)
    for number in range(1, seats):
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": names[number]})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["player_token"])
        read_all(joined.json["version"])
    rng = random.Random(seed)
    for _ in range(moves):
        view = api.view(game_id).json
        if view["status"] != "active":
            break
        seat = rng.choice(view["to_act"])
        actions = [action for action in api.legal(game_id, tokens[seat]) if action["type"] != "resign"]
        played = api.act(game_id, tokens[seat], rng.choice(actions))
        assert played.status_code == 200, played.json
        version = played.json["version"]
        seen[f"{version} seat{seat} post"] = digest(normalised(played.data, game_id))
        read_all(version)
    for reader, token in [("spectator", None), *((f"seat{n}", t) for n, t in enumerate(tokens))]:
        for after in (0, 5):
            events = api.request("GET", f"/v1/games/{game_id}/events?after={after}", token)
            assert events.status_code == 200, events.json
            seen[f"events after {after} {reader}"] = digest(normalised(events.data, game_id))
    return seen


def recorded(api: Api) -> dict[str, dict[str, list[Any]]]:
    """Every game of `GAMES_PLAYED`, played and read."""
    return {f"{game} {seats} {seed}": play_and_read(api, game, seats, seed, moves)
            for game, seats, seed, moves in GAMES_PLAYED}


@pytest.mark.parametrize("game", GAMES_PLAYED, ids=lambda game: game[0])
def test_every_view_and_event_list_has_the_recorded_bytes(api: Api, game: tuple[str, int, int, int]) -> None:
    name, seats, seed, moves = game
    expected = json.loads(FIXTURE.read_text())[f"{name} {seats} {seed}"]
    got = play_and_read(api, name, seats, seed, moves)
    assert len(got) > 50
    assert {key: value for key, value in got.items() if expected.get(key) != value} == {}
    assert got.keys() == expected.keys()


if __name__ == "__main__":
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    with running_app(redis_client(os.environ["REDIS_URL"]), f"test-record-{uuid.uuid4().hex[:8]}") as recorder:
        FIXTURE.write_text(json.dumps(recorded(recorder), indent=1, sort_keys=True) + "\n")
    sys.exit(0)
