"""The lobby's cost is O(limit), whatever the number of games, the offset or the expired games (issue 15, point 3).

Counted in Redis commands on a redis-server of the test's own (INFO commandstats), not in seconds: a page of
`limit` games costs a bounded number of commands however many games there are beside it. (Speed is measured by
bench/lobby.py.)
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from service.app import create_app
from tests.redis_server import RedisServer
from tests.service.conftest import Api
from worker.sweeper import sweep

GAMES = 300
WAITING = [{"kind": "human", "name": "Ann"}, {"kind": "human"}]
BOUND = 20
"""Commands a lobby request may cost beyond one per game listed: the rate limits, the index reads, slack."""


def commands(server: RedisServer) -> int:
    return sum(entry["calls"] for entry in server.client().info("commandstats").values())


def counted(server: RedisServer, api: Api, path: str) -> tuple[dict[str, Any], int]:
    """The JSON answer to GET `path`, and the Redis commands it cost."""
    server.client().config_resetstat()
    before = commands(server)  # the INFO itself
    answer = api.request("GET", path)
    assert answer.status_code == 200, answer.json
    return answer.json, commands(server) - before - 1


@pytest.fixture
def lobby(make_redis: Any) -> tuple[RedisServer, Api]:
    server = make_redis()
    app = create_app({"REDIS_URL": server.url, "KEY_PREFIX": "lobby", "RQ_QUEUE": "lobby", "TESTING": True})
    return server, Api(app, server.client())


def test_a_page_costs_the_same_whatever_the_filter_or_offset(lobby: tuple[RedisServer, Api]) -> None:
    server, api = lobby
    for _ in range(GAMES):
        assert api.create(WAITING).status_code == 201
    tadmur = api.create(WAITING, game="tadmur").json["game_id"]
    for path, listed in [
        ("/v1/games?limit=1", 1),
        ("/v1/games?game=tadmur&limit=1", 1),  # the one Tadmur game is the newest: the others need no reading
        ("/v1/games?game=talmut&limit=5", 0),
        ("/v1/games?limit=5&offset=250", 5),
        ("/v1/games?limit=1&offset=100000000", 0),
    ]:
        page, cost = counted(server, api, path)
        assert len(page["games"]) == listed, (path, page)
        assert cost <= listed + BOUND, f"{path}: {cost} Redis commands for {listed} games"
    assert [game["game_id"] for game in counted(server, api, "/v1/games?game=tadmur")[0]["games"]] == [tadmur]
    page, cost = counted(server, api, "/v1/games?game=durak&limit=2&offset=1")
    assert len(page["games"]) == 2 and page["next_offset"] == 3 and cost <= 2 + BOUND


def test_expired_games_cost_nothing_and_the_sweep_drops_them(make_redis: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_redis()
    app = create_app({"REDIS_URL": server.url, "KEY_PREFIX": "lobby", "RQ_QUEUE": "lobby", "TESTING": True,
                      "GAME_IDLE_TTL_SECONDS": 1})
    api = Api(app, server.client())
    expired = [api.create(WAITING).json["game_id"] for _ in range(GAMES)]
    time.sleep(1.5)
    api.services.store.idle_ttl_seconds = 60
    live = [api.create(WAITING).json["game_id"] for _ in range(2)]
    page, cost = counted(server, api, "/v1/games?limit=10")
    assert [game["game_id"] for game in page["games"]] == live[::-1] and page["next_offset"] is None
    assert cost <= 2 + BOUND, f"{cost} Redis commands past {GAMES} expired games"
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")
    sweep(api.services.store, api.services.queues[0], interval=1.0)
    waiting = {member.decode() for member in server.client().zrange("lobby:index:waiting", 0, -1)}
    assert waiting == set(live) and not set(expired) & waiting


def test_private_games_cost_a_page_nothing_and_pages_never_repeat(lobby: tuple[RedisServer, Api]) -> None:
    """A private game is in no lobby index: listing around many of them costs O(limit), and next_offset pages on.

    Private games once sat in the lobby's indexes and were skipped while reading: a page cost one read per private
    game before it, and `next_offset` (counted in listed games) re-listed games skipped past.
    """
    server, api = lobby
    public = [api.create(WAITING).json["game_id"] for _ in range(3)]
    for _ in range(GAMES // 3):
        assert api.create(WAITING, visibility="private").status_code == 201
    public += [api.create(WAITING).json["game_id"] for _ in range(3)]
    seen: list[str] = []
    path: str | None = "/v1/games?limit=2"
    while path is not None:
        page, cost = counted(server, api, path)
        assert cost <= len(page["games"]) + BOUND, f"{path}: {cost} Redis commands for {len(page['games'])} games"
        seen += [game["game_id"] for game in page["games"]]
        offset = page["next_offset"]
        path = None if offset is None else f"/v1/games?limit=2&offset={offset}"
    assert seen == public[::-1]  # newest first, each public game once, no private one
