"""Redis outage: the API on its own redis-server, which the test stops and starts again (issue 8).

While Redis is down every endpoint but `/healthz` answers 503 `store_unavailable` with `Retry-After`, each within
`OUTAGE_BOUND_SECONDS` (README "Limits and lifetimes": a refused connection fails at once; a server that stopped
answering costs the socket timeout twice, one retry); `/healthz` stays 200. Redis then restarts on the same data
(append-only file) and the same game goes on from the same version: nothing was half-written.
"""

from __future__ import annotations

import time

import pytest
import redis

from service.app import create_app
from tests.redis_server import RedisServer
from tests.service.conftest import Api

SOCKET_TIMEOUT, CONNECT_TIMEOUT = 0.5, 0.5
"""The test's REDIS_SOCKET_TIMEOUT_SECONDS and REDIS_CONNECT_TIMEOUT_SECONDS (defaults 2 s, 1 s): a short run."""
OUTAGE_BOUND_SECONDS = SOCKET_TIMEOUT + 2 * CONNECT_TIMEOUT + 0.5
"""README "Limits and lifetimes": a request while Redis is unreachable answers within one socket timeout plus two
connect timeouts (one retry after a refused or dropped connection), here with half a second of slack."""


def every_endpoint(game_id: str, token: str) -> list[tuple[str, str, dict | None, dict[str, str]]]:
    bearer = {"Authorization": f"Bearer {token}"}
    return [
        ("POST", "/v1/games", {"game": "durak", "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}]}, {}),
        ("GET", "/v1/games", None, {}),
        ("POST", f"/v1/games/{game_id}/seats", {"name": "Cy"}, {}),
        ("GET", f"/v1/games/{game_id}", None, {}),
        ("GET", f"/v1/games/{game_id}", None, bearer),
        ("GET", f"/v1/games/{game_id}?after_version=1&wait=5", None, bearer),
        ("POST", f"/v1/games/{game_id}/actions", {"type": "take"}, bearer),
        ("GET", f"/v1/games/{game_id}/events", None, bearer),
        ("GET", "/readyz", None, {}),
        ("GET", "/metrics", None, {}),
    ]


def assert_all_unavailable(api: Api, game_id: str, token: str) -> None:
    for method, path, body, headers in every_endpoint(game_id, token):
        started = time.monotonic()
        response = api.client.open(path, method=method, json=body, headers=headers)
        took = time.monotonic() - started
        assert response.status_code == 503, (method, path, response.status_code, response.get_data(as_text=True))
        assert response.json["error"] == "store_unavailable", (method, path, response.json)
        assert response.headers["Retry-After"] == "1", (method, path)
        assert took < OUTAGE_BOUND_SECONDS, f"{method} {path} took {took:.1f} s"
    assert api.client.get("/healthz").status_code == 200
    # the rules need no Redis (rate limits are counted in the process and shared in batches)
    assert api.client.get("/v1/rules/durak").status_code == 200


def test_outage_answers_503_fast_and_the_game_continues_on_the_same_data(
    own_redis: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("REDIS_SOCKET_TIMEOUT_SECONDS", str(SOCKET_TIMEOUT))
    monkeypatch.setenv("REDIS_CONNECT_TIMEOUT_SECONDS", str(CONNECT_TIMEOUT))
    app = create_app({"REDIS_URL": own_redis.url, "KEY_PREFIX": "outage", "RQ_QUEUE": "outage", "TESTING": True})
    api = Api(app, redis.Redis.from_url(own_redis.url))
    game_id, tokens = api.create_humans()
    view = api.view(game_id, tokens[0]).json
    attacker = view["to_act"][0]
    first = api.view(game_id, tokens[attacker]).json["legal_actions"][0]
    assert api.act(game_id, tokens[attacker], first).status_code == 200
    before = api.view(game_id, tokens[0]).json
    events_before = api.request("GET", f"/v1/games/{game_id}/events", tokens[0]).json["events"]

    own_redis.kill()
    with caplog.at_level("WARNING", logger="service.errors"):
        assert_all_unavailable(api, game_id, tokens[0])
    # the operator's log names the Redis error each 503 answered (the client's body does not)
    logged = [record.getMessage() for record in caplog.records if record.name == "service.errors"]
    assert logged and all(message.startswith("503 store_unavailable: ConnectionError: ") for message in logged), logged

    own_redis.start()  # same directory: the append-only file brings every write back
    own_redis.pause()
    assert_all_unavailable(api, game_id, tokens[0])  # a hung server: the socket timeout bounds each request
    own_redis.resume()

    after = api.view(game_id, tokens[0]).json
    assert after == before, "the game changed during the outage"
    assert api.request("GET", f"/v1/games/{game_id}/events", tokens[0]).json["events"] == events_before
    assert api.client.get("/readyz").status_code == 200
    defender = 1 - attacker
    answer = next(a for a in api.view(game_id, tokens[defender]).json["legal_actions"] if a["type"] != "resign")
    played = api.act(game_id, tokens[defender], answer)
    assert played.status_code == 200, played.json
    assert played.json["version"] == before["version"] + 1
    app.extensions["cardroom"].store.client.close()
