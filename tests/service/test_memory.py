"""Redis out of memory, and Redis set to evict keys (issue 15, point 4), on a redis-server of the test's own.

With `maxmemory` and `noeviction` a full Redis refuses every write: each request that would write answers 503
`store_full` with `Retry-After` and leaves nothing half written, `/readyz` answers 503 `store_full`, and all is
well again once memory is free. A Redis whose `maxmemory-policy` may evict keys (`allkeys-*`, and `volatile-*`
too, since every key of a game has a lifetime) would make games vanish silently: the app, the worker and
`/readyz` refuse it unless `REDIS_EVICTION_ALLOWED=1`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import redis

from service.app import create_app
from service.eviction import UnsafeEviction
from tests.e2e.stack import REPO
from tests.redis_server import RedisServer
from tests.service.conftest import Api

SEATS = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}]


def app_on(server: RedisServer, **config: Any) -> Api:
    app = create_app({"REDIS_URL": server.url, "KEY_PREFIX": "memory", "RQ_QUEUE": "memory", "TESTING": True,
                      **config})
    return Api(app, server.client())


def fill(server: RedisServer) -> None:
    """Write 2 MiB of `filler:*` keys, then set `maxmemory` 512 KiB below what Redis uses: every write fails until
    `free` deletes them."""
    client = server.client()
    for number in range(32):
        client.set(f"filler:{number}", b"x" * 64 * 1024)
    client.config_set("maxmemory", client.info("memory")["used_memory"] - 512 * 1024)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        client.set("probe", 1)


def free(server: RedisServer) -> None:
    client = server.client()
    client.delete(*client.keys("filler:*"))


def keys(server: RedisServer) -> dict[bytes, Any]:
    """Every key but the filler, with its value's dump: what a refused request must leave as it was."""
    client = server.client()
    return {key: client.dump(key) for key in client.scan_iter() if not key.startswith(b"filler:")}


def test_a_full_redis_answers_503_store_full_and_nothing_is_half_written(make_redis: Any) -> None:
    server = make_redis("--maxmemory-policy", "noeviction")
    api = app_on(server)
    created = api.create(SEATS, seed=1)
    assert created.status_code == 201, created.json
    game_id, token = created.json["game_id"], created.json["player_token"]
    waiting = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], seed=2).json["game_id"]
    fill(server)
    before = keys(server)
    move = next(action for action in created.json["legal_actions"] if action["type"] != "resign") \
        if 0 in created.json["to_act"] else {"type": "resign"}
    refused = [
        api.create(SEATS, seed=3),
        api.request("POST", f"/v1/games/{waiting}/seats", json={"name": "Bob"}),
        api.act(game_id, token, move),
        api.client.get("/readyz"),
    ]
    for response in refused:
        assert (response.status_code, response.json["error"]) == (503, "store_full"), response.json
        assert int(response.headers["Retry-After"]) >= 1
    assert keys(server) == before, "a refused request changed Redis"
    assert api.client.get("/healthz").status_code == 200

    free(server)
    assert api.client.get("/readyz").status_code == 200
    assert api.create(SEATS, seed=3).status_code == 201
    assert api.act(game_id, token, move).status_code == 200


def test_a_create_whose_index_write_fails_for_lack_of_memory_leaves_no_game(
    make_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's keys and the lobby's indexes are two writes (two hash slots on a Cluster): memory may run out
    between them. The game written first is removed again, so the 503 means what it says."""
    server = make_redis()
    api = app_on(server)
    store = api.services.store

    def full(record: Any) -> None:
        raise redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")

    monkeypatch.setattr(store.lobby, "index", full)
    response = api.create(SEATS, seed=1)
    assert (response.status_code, response.json["error"]) == (503, "store_full")
    assert [key for key in server.client().scan_iter("memory:*") if b":ratelimit:" not in key] == []


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-lru", "allkeys-random"])
def test_a_redis_that_may_evict_game_keys_is_refused(make_redis: Any, policy: str) -> None:
    server = make_redis("--maxmemory-policy", policy)
    with pytest.raises(UnsafeEviction, match=f"maxmemory-policy is {policy}.*REDIS_EVICTION_ALLOWED=1"):
        app_on(server)
    worker = subprocess.run([sys.executable, "-m", "worker"], cwd=REPO, capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, REDIS_URL=server.url, KEY_PREFIX="memory", RQ_QUEUE="memory"))
    assert worker.returncode != 0 and f"maxmemory-policy is {policy}" in worker.stderr, worker.stderr[-2000:]

    api = app_on(server, REDIS_EVICTION_ALLOWED=True)  # the operator's explicit choice
    assert api.client.get("/readyz").status_code == 200


def test_readyz_refuses_a_redis_set_to_evict_after_the_start(make_redis: Any) -> None:
    server = make_redis()
    api = app_on(server)
    assert api.client.get("/readyz").status_code == 200
    server.client().config_set("maxmemory-policy", "allkeys-lfu")
    ready = api.client.get("/readyz")
    assert (ready.status_code, ready.json["error"]) == (503, "store_unavailable")
    assert "maxmemory-policy is allkeys-lfu" in ready.json["message"]
