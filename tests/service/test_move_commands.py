"""What a human move and a view read send to the game's Redis (issue 39 point 2), counted by that Redis itself.

Each test runs the app on a redis-server of its own (tests/redis_server.py), so `INFO commandstats` counts only
this app's commands, those run inside its Lua scripts included. Rate limits are off (their counts go to Redis in
batches every 50 ms, whenever the batch falls: bench/move_cost.py measures them).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.app import create_app
from service.game_metrics import PENDING, actions_key
from service.ratelimit import SharedCounts
from service.store import RENEW_FRACTION
from tests.redis_server import RedisServer
from tests.service.conftest import Api
from tests.service.test_durak_http import K1

ATTACK = {"type": "attack", "card": "6H"}  # seat 0's first move of K1's deal


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def api(own_redis: RedisServer) -> Api:
    app = create_app({"REDIS_URL": own_redis.url, "KEY_PREFIX": "moves", "RQ_QUEUE": "moves", "TESTING": True,
                      "RATE_LIMIT_ENABLED": False})
    return Api(app, own_redis.client())


def counted(client: redis.Redis, request: Any) -> tuple[Any, Counter[str]]:
    """`request()`'s answer and the commands Redis ran for it, by name (the INFO commands of the count left out)."""
    def calls() -> Counter[str]:
        return Counter({name.removeprefix("cmdstat_"): entry["calls"]
                        for name, entry in client.info("commandstats").items() if name != "cmdstat_info"})

    before = calls()
    answer = request()
    return answer, calls() - before


def test_a_move_is_one_read_and_one_script_call(api: Api) -> None:
    """The record and its presence in one HGETALL; the version check, the record, the event and the notification
    in one EVALSHA; no index write (the game stays active), no EXPIRE (renewed at the start), no metrics write
    (counted in the process, flushed in batches), no presence write (the seat was seen a moment ago)."""
    game_id, tokens = api.create_humans(deck=K1)
    assert api.view(game_id, tokens[0]).status_code == 200  # seat 0 seen: no presence write within 10 s
    answer, commands = counted(api.connection, lambda: api.act(game_id, tokens[0], ATTACK))
    assert answer.status_code == 200 and answer.json["version"] == 3
    # another test's batch of metrics may be flushed meanwhile (one flusher per process): HINCRBY left out
    del commands["hincrby"]
    assert commands == Counter({"hgetall": 1, "evalsha": 1, "hget": 1, "hset": 1, "rpush": 1, "publish": 1})
    assert answer.json["seats"][0]["last_seen"] is not None  # the presence read with the record
    PENDING.flush(api.services.store.client)
    assert api.connection.hget(actions_key("moves"), "durak|attack") == b"1"


def test_a_view_read_is_one_command(api: Api) -> None:
    """A seat's view: the record and the seats' presence in one HGETALL (a human game asks the queue nothing)."""
    game_id, tokens = api.create_humans(deck=K1)
    assert api.view(game_id, tokens[0]).status_code == api.view(game_id, tokens[1]).status_code == 200
    answer, commands = counted(api.connection, lambda: api.view(game_id, tokens[1]))
    assert answer.status_code == 200 and answer.json["you"] == 1
    assert commands == Counter({"hgetall": 1})
    assert [seat["last_seen"] is not None for seat in answer.json["seats"]] == [True, True]


def test_a_move_renews_the_games_lifetime_once_per_hundredth_of_it(api: Api) -> None:
    """Every write that changes the status renews it; a move within RENEW_FRACTION of the idle time after the last
    renewal does not (two EXPIREs saved); the first move after it does."""
    store = api.services.store
    game_id, tokens = api.create_humans(deck=K1)
    key = f"moves:{{{game_id}}}:game"
    assert api.connection.ttl(key) == store.idle_ttl_seconds  # started: renewed
    api.connection.expire(key, 1000)
    api.connection.expire(f"moves:{{{game_id}}}:events", 1000)
    assert api.act(game_id, tokens[0], ATTACK).status_code == 200
    assert 990 <= api.connection.ttl(key) <= 1000  # not renewed
    record = store.load(game_id)
    record.renewed_at = time.time() - RENEW_FRACTION * store.idle_ttl_seconds  # the last renewal is that old
    api.services.records.keep(record)
    assert api.connection.hset(key, "record", record.to_json()) == 0
    defend = next(action for action in api.legal(game_id, tokens[1]) if action["type"] == "defend")
    assert api.act(game_id, tokens[1], defend).status_code == 200
    assert api.connection.ttl(key) == api.connection.ttl(f"moves:{{{game_id}}}:events") == store.idle_ttl_seconds
    assert api.act(game_id, tokens[0], {"type": "resign"}).json["status"] == "finished"
    assert api.connection.ttl(key) == store.retention_seconds  # a status change: renewed, for the retention time


def test_a_move_of_an_active_game_leaves_its_index_entries_alone(api: Api) -> None:
    """The entries are written when the game starts and when it finishes, never by a move in between."""
    store = api.services.store
    game_id, tokens = api.create_humans(deck=K1)
    started = api.connection.zscore(store.lobby.index_key("active"), game_id)
    assert started is not None
    time.sleep(0.01)
    assert api.act(game_id, tokens[0], ATTACK).status_code == 200
    assert api.connection.zscore(store.lobby.index_key("active"), game_id) == started
    assert api.connection.zscore(store.lobby.index_key("active", "durak"), game_id) == started
    assert api.act(game_id, tokens[0], {"type": "resign"}).status_code == 200
    assert api.connection.zscore(store.lobby.index_key("active"), game_id) is None
    assert api.connection.zscore(store.lobby.index_key("finished"), game_id) is not None


@pytest.fixture
def counts(own_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> SharedCounts:
    """Rate-limit counters on the test's own Redis (connected), synced only when the test calls `sync`."""
    monkeypatch.setattr("service.ratelimit.SYNC_SECONDS", 3600)
    counts = SharedCounts(own_redis.client(), "limits")
    counts.client.ping()
    return counts


def test_the_rate_limits_give_each_windows_counter_its_lifetime_once(counts: SharedCounts) -> None:
    """A process's first sync of a window's counter sends INCRBY and EXPIRE, every later one INCRBY alone; the
    counter lives past its window."""
    client = counts.client
    end = time.time() + 60
    for sync in range(3):
        counts.hit("address:a:5000/60:1", 60, end)
        counts.hit("token:t:2000/60:1", 60, end)
        _, commands = counted(client, counts.sync)
        assert commands == (Counter({"incrby": 2, "expire": 2}) if sync == 0 else Counter({"incrby": 2}))
    assert counts.hit("address:a:5000/60:1", 60, end) == 4
    assert 0 < client.ttl("limits:ratelimit:address:a:5000/60:1") <= 61


def test_a_rate_limit_counter_is_shared_once_it_holds_what_the_limit_allows_in_a_sync(counts: SharedCounts) -> None:
    """A counter holding fewer than its `share_at` hits (here 100) sends Redis nothing and is forgotten with its
    window; at 100 they are added in one INCRBY."""
    client = counts.client
    end = time.time() + 60
    for _ in range(99):
        counts.hit("token:t:2000/1:1", 1, end, share_at=100)
    _, commands = counted(client, counts.sync)
    assert commands == Counter() and client.keys("limits:*") == []
    assert counts.hit("token:t:2000/1:1", 1, end, share_at=100) == 100  # still counted here
    _, commands = counted(client, counts.sync)
    assert commands == Counter({"incrby": 1, "expire": 1})
    assert int(client.get("limits:ratelimit:token:t:2000/1:1")) == 100
    counts.hit("token:u:2000/1:1", 1, end, share_at=100)
    _, commands = counted(client, lambda: counts.sync(now=end + 1))  # its window is over: nothing shared or kept
    assert commands == Counter() and counts.hit("token:u:2000/1:1", 1, end, share_at=100) == 1


def test_players_at_human_pace_cost_the_rate_limits_no_command(own_redis: RedisServer) -> None:
    """With the default limits (5,000 a second per address, 2,000 per token: a hundredth of them is 50 and 20) a
    few requests of one player are counted in the process alone; under a limit of 5 a minute every hit is shared."""
    settings = {"REDIS_URL": own_redis.url, "KEY_PREFIX": "limits", "RQ_QUEUE": "limits", "TESTING": True}
    client = own_redis.client()
    api = Api(create_app(settings), client)
    game_id, tokens = api.create_humans(deck=K1)
    assert [api.view(game_id, tokens[0]).status_code for _ in range(3)] == [200] * 3
    _, commands = counted(client, api.app.extensions["ratelimit"].sync)
    assert commands == Counter() and client.keys("limits:ratelimit:*") == []
    strict = Api(create_app(settings | {"RATE_LIMIT_PER_ADDRESS": "5/minute"}), client)
    assert strict.client.get("/v1/rules").status_code == 200
    strict.app.extensions["ratelimit"].sync()
    assert [int(client.get(key)) for key in client.keys("limits:ratelimit:*")] == [1]


def test_a_process_holds_back_a_hundredth_of_the_limit(own_redis: RedisServer) -> None:
    """Under 200 a minute a process shares from its second hit on (a hundredth: 2): N processes let a client
    spread over them past the limit by N hundredths at most. The first rule held back 200 x 0.05 s / 60 s of it
    per sync, over the whole window: 40 processes never counted a client at 1.5 times the limit."""
    settings = {"REDIS_URL": own_redis.url, "KEY_PREFIX": "limits", "RQ_QUEUE": "limits", "TESTING": True,
                "RATE_LIMIT_PER_ADDRESS": "200/minute"}
    client = own_redis.client()
    api = Api(create_app(settings), client)
    assert api.client.get("/v1/rules").status_code == 200
    api.app.extensions["ratelimit"].sync()
    assert client.keys("limits:ratelimit:*") == []
    assert api.client.get("/v1/rules").status_code == 200
    api.app.extensions["ratelimit"].sync()
    assert [int(client.get(key)) for key in client.keys("limits:ratelimit:*")] == [2]


def test_an_idempotent_move_reads_its_key_with_the_game_and_claims_it_in_the_same_step(api: Api) -> None:
    """The key is read with the record (one round trip, HGETALL then GET), claimed inside the compare-and-set
    (SET), and the first response kept after (SET); a repeat reads both and replays; a rejected request leaves no
    key behind."""
    game_id, tokens = api.create_humans(deck=K1)
    assert api.view(game_id, tokens[0]).status_code == 200
    headers = {"Idempotency-Key": "move-1"}
    first, commands = counted(api.connection, lambda: api.act(game_id, tokens[0], ATTACK, **headers))
    assert first.status_code == 200
    del commands["hincrby"]  # another test's batch of metrics (one flusher per process)
    assert commands == Counter({"hgetall": 1, "get": 1, "evalsha": 1, "hget": 1, "hset": 1, "rpush": 1, "set": 2,
                                "publish": 1})
    again, commands = counted(api.connection, lambda: api.act(game_id, tokens[0], ATTACK, **headers))
    assert (again.status_code, again.json) == (200, first.json)
    assert commands == Counter({"hgetall": 1, "get": 1})
    refused = api.act(game_id, tokens[0], ATTACK, **{"Idempotency-Key": "move-2"})  # the defender is to act
    assert (refused.status_code, refused.json["error"]) == (403, "not_your_turn")
    assert len(list(api.connection.scan_iter(match=f"moves:{{{game_id}}}:idem:*"))) == 1
