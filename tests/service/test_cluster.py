"""The game state on a Redis Cluster, the queue on a Redis of its own (issue 21): settings, slots, pub/sub, WAIT.

The app runs with `REDIS_CLUSTER_URL` (the session's 3-primary, 3-replica cluster, tests/cluster.py) and
`RQ_REDIS_URL` (a plain redis-server), AI turns through the real job code in this process.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.cluster import key_slot

from service import config, redis_clients
from service.app import create_app
from service.dispatcher import Dispatcher
from service.ratelimit import SharedCounts
from service.redis_clients import STORE_ERRORS, is_outage
from service.store import GameStore
from service.store_scripts import script_sources
from tests.cluster import PROMOTION_SECONDS, ClusterNode, LocalCluster, free_cluster_port
from tests.e2e.stack import delete_keys
from tests.redis_server import RedisServer, free_port
from tests.service.conftest import Api
from tests.service.test_metrics import samples
from worker import jobs

WAKE_SECONDS = 10.0
"""A hang guard: a published version wakes its waiter within milliseconds."""


@pytest.fixture
def on_cluster(redis_cluster: LocalCluster, queue_redis: RedisServer, monkeypatch) -> Iterator[dict[str, Any]]:
    """The settings of an app on the cluster, also in the environment (the in-process worker's `game_store`)."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("REDIS_CLUSTER_URL", redis_cluster.url)
    monkeypatch.setenv("RQ_REDIS_URL", queue_redis.url)
    jobs.game_client.cache_clear()
    settings = {"REDIS_CLUSTER_URL": redis_cluster.url, "RQ_REDIS_URL": queue_redis.url, "KEY_PREFIX": prefix,
                "RQ_QUEUE": prefix, "TESTING": True}
    try:
        yield settings
    finally:
        jobs.game_client.cache_clear()
        delete_keys(queue_redis.client(), prefix, prefix, redis_cluster.primaries())


def cluster_api(settings: dict[str, Any]) -> Api:
    """An `Api` on an app with `settings`, whose in-process worker takes the jobs from the queue's own Redis."""
    app = create_app(settings)
    return Api(app, app.extensions["cardroom"].queues[0].connection)


def game_keys(servers: list[redis.Redis], prefix: str) -> list[bytes]:
    return [key for server in servers for key in server.scan_iter(match=f"{prefix}:*")]


@pytest.mark.parametrize("sharded", [False, True])
def test_every_script_touches_the_keys_of_one_hash_slot(sharded: bool) -> None:
    """Issue 21 §2: a Lua script's keys (its channel too) hash to the game's slot, on a cluster and off it."""
    store = GameStore(redis.Redis(), "cardroom")
    scripts = script_sources(sharded)
    for game_id in ("g1", uuid.uuid4().hex, "a{b}c"):
        keys = store.script_keys(game_id)
        assert set(keys) == set(scripts) == {"create", "compare_and_set", "compare_and_delete", "touch_seen"}
        slots = {key_slot(key.encode()) for names in keys.values() for key in names}
        # the compare-and-set's fourth key, a request's Idempotency-Key that the move claims
        slots.add(key_slot(store.idempotency_key(game_id, "token hash", "move-1").encode()))
        assert slots == {key_slot(store.channel(game_id).encode())}, game_id
    publish = "SPUBLISH" if sharded else "PUBLISH"
    for name in ("compare_and_set", "compare_and_delete"):
        assert f"redis.call('{publish}', KEYS[3]" in scripts[name]
        assert scripts[name].count("PUBLISH") == 1


def test_without_the_new_settings_the_app_keeps_one_client_for_games_and_queue() -> None:
    """Issue 21: with no new setting, behaviour is exactly as today: one pool, the queue on the games' Redis."""
    settings = {**config.redis_settings(), "REDIS_CLUSTER_URL": None, "RQ_REDIS_URL": None}
    games = redis_clients.game_client(settings)
    assert isinstance(games, redis.Redis) and redis_clients.queue_client(settings, games) is games
    assert script_sources(False)["compare_and_set"].count("redis.call('PUBLISH'") == 1


def test_a_whole_ai_game_on_the_cluster_keeps_games_there_and_jobs_on_the_queue_redis(
    on_cluster: dict[str, Any], redis_cluster: LocalCluster, queue_redis: RedisServer
) -> None:
    """Issue 21 §1: games, lobby, metrics on the cluster; RQ's jobs only on `RQ_REDIS_URL`; no key crosses over."""
    api = cluster_api(on_cluster)
    prefix = on_cluster["KEY_PREFIX"]
    created = api.create([{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "easy"}], seed=7)
    assert created.status_code == 201, created.json
    game_id = created.json["game_id"]
    for _ in range(200):  # a hang guard: a random Durak game ends within a few dozen AI turns
        api.run_ai()
        view = api.view(game_id).json
        if view["status"] == "finished":
            break
    assert view["status"] == "finished" and view["result"] is not None
    events = api.request("GET", f"/v1/games/{game_id}/events").json["events"]
    assert (events[0]["type"], events[-1]["version"]) == ("created", view["version"])
    listed = api.request("GET", "/v1/games?status=finished").json
    assert [game["game_id"] for game in listed["games"]] == [game_id]
    # the game's jobs, each deleted once it played (an AI turn keeps no result), ran from the queue's Redis
    assert queue_redis.client().sismember("rq:queues", f"rq:queue:{prefix}")
    assert game_keys([queue_redis.client()], prefix) == []
    stored = {key.decode() for key in game_keys(redis_cluster.primaries(), prefix)}
    assert {f"{prefix}:{{{game_id}}}:game", f"{prefix}:{{{game_id}}}:events", f"{prefix}:index:finished",
            f"{prefix}:metrics:actions"} <= stored
    assert not [key for server in redis_cluster.primaries() for key in server.scan_iter(match="rq:*")]
    assert api.request("GET", "/readyz").status_code == 200


def test_a_long_poll_on_the_cluster_is_woken_by_sharded_pub_sub(on_cluster: dict[str, Any]) -> None:
    """Issue 21 §2: the write's SPUBLISH reaches the dispatcher's SSUBSCRIBE on the game's primary."""
    api = cluster_api(on_cluster)
    game_id, tokens = api.create_humans()
    view = api.view(game_id, tokens[0]).json
    dispatcher, store = api.services.dispatcher, api.services.store
    woken: list[int | None] = []
    waiter = threading.Thread(
        target=lambda: woken.append(dispatcher.wait(game_id, view["version"], WAKE_SECONDS,
                                                    lambda: store.version(game_id)))
    )
    waiter.start()
    try:
        watch = f"{store.channel(game_id)}".encode()
        for _ in range(1000):  # until the subscription is confirmed (a hang guard of 10 s)
            if getattr(dispatcher._watches.get(watch), "state", None) == "subscribed":
                break
            threading.Event().wait(0.01)
        seat = view["to_act"][0]
        moved = api.act(game_id, tokens[seat], api.legal(game_id, tokens[seat])[0])
        assert moved.status_code == 200, moved.json
        waiter.join(WAKE_SECONDS)
        assert woken == [view["version"] + 1]
    finally:
        dispatcher.close()


@pytest.mark.parametrize(("replicas", "unreplicated"), [(1, 0), (2, 1)])
def test_a_move_waits_for_its_replicas_and_counts_the_ones_that_time_out(
    on_cluster: dict[str, Any], replicas: int, unreplicated: int
) -> None:
    """Issue 21 §3: with REDIS_WAIT_REPLICAS the write waits on its own primary's connection; each primary here has
    one replica, so 1 is acknowledged and 2 times out: the move is stored and answered 200 all the same, and counted
    in `cardroom_unreplicated_writes_total`."""
    api = cluster_api({**on_cluster, "REDIS_WAIT_REPLICAS": replicas, "REDIS_WAIT_TIMEOUT_MS": 100})
    game_id, tokens = api.create_humans()
    view = api.view(game_id, tokens[0]).json
    seat = view["to_act"][0]
    moved = api.act(game_id, tokens[seat], api.legal(game_id, tokens[seat])[0])
    assert moved.status_code == 200 and moved.json["version"] == view["version"] + 1
    assert api.view(game_id).json["version"] == view["version"] + 1
    found = samples(api.request("GET", "/metrics").text)
    # the joined seat was a write too (`record_change`): two writes waited for
    assert found[("cardroom_unreplicated_writes_total", ())] == 2 * unreplicated


def test_a_move_on_a_redis_without_replicas_is_answered_after_the_wait_and_counted(own_redis: RedisServer) -> None:
    """Issue 21 §3 on a single Redis: WAIT on the write's own connection, which no replica acknowledges."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    app = create_app({"REDIS_URL": own_redis.url, "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True,
                      "REDIS_WAIT_REPLICAS": 1, "REDIS_WAIT_TIMEOUT_MS": 50})
    api = Api(app, own_redis.client())
    game_id, tokens = api.create_humans()
    view = api.view(game_id, tokens[0]).json
    seat = view["to_act"][0]
    assert api.act(game_id, tokens[seat], api.legal(game_id, tokens[seat])[0]).status_code == 200
    assert own_redis.client().get(f"{prefix}:metrics:unreplicated_writes") == b"2"


def test_readiness_checks_the_queue_redis_too(on_cluster: dict[str, Any]) -> None:
    """`/readyz` answers 503 `store_unavailable` when the queue's Redis is down though the cluster answers."""
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    ready = create_app({**on_cluster, "RQ_REDIS_URL": unreachable}).test_client().get("/readyz")
    assert (ready.status_code, ready.json["error"]) == (503, "store_unavailable")


def test_a_cluster_failing_over_answers_503_store_unavailable(on_cluster: dict[str, Any], monkeypatch) -> None:
    """A slot without a primary (CLUSTERDOWN, TRYAGAIN, or no node answering) is an outage: 503, never a 500."""
    api = cluster_api(on_cluster)
    game_id, tokens = api.create_humans()
    for error in (redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"),
                  redis.exceptions.TryAgainError("TRYAGAIN"),
                  redis.exceptions.SlotNotCoveredError("slot 42 is not covered")):
        def fail(*args: object, error: Exception = error, **kwargs: object) -> None:
            raise error
        monkeypatch.setattr(api.services.store, "load", fail)
        answered = api.view(game_id, tokens[0])
        assert (answered.status_code, answered.json["error"]) == (503, "store_unavailable"), error


def test_the_rate_limit_sync_outlives_a_cluster_that_cannot_be_reached() -> None:
    """redis-py's cluster client raises RedisClusterException, no RedisError, when no node answers: the thread that
    shares the rate limit counts died of it (PytestUnhandledThreadExceptionWarning), and counted alone ever after."""
    tries = threading.Semaphore(0)

    class Unreachable:
        def pipeline(self, transaction: bool) -> None:
            tries.release()
            raise redis.exceptions.RedisClusterException("Redis Cluster cannot be connected")

    counts = SharedCounts(Unreachable(), "test")  # type: ignore[arg-type]
    assert counts.hit("address:127.0.0.1:5/1:0", 1, time.time() + 1) == 1
    assert tries.acquire(timeout=WAKE_SECONDS) and tries.acquire(timeout=WAKE_SECONDS), "the sync stopped"
    assert counts.hit("address:127.0.0.1:5/1:0", 1, time.time() + 1) == 2  # its own hits are still counted


def test_a_wait_after_a_failover_subscribes_on_the_promoted_replica(failover_cluster: LocalCluster) -> None:
    """The dispatcher's pub/sub client routes SSUBSCRIBE by its own slot map, which nothing else refreshes: after a
    primary was killed and its replica promoted, every wait on that shard's games kept trying the dead node
    (ConnectionError, a 503 for every long-poll, for good). A failed SSUBSCRIBE now reads the slot map again."""
    settings = config.redis_settings() | {"REDIS_CLUSTER_URL": failover_cluster.url}
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    store = GameStore(redis_clients.cluster_client(failover_cluster.url), prefix)
    dispatcher = Dispatcher(redis_clients.pubsub_client(settings), store.channel, 10)
    writer = store.client
    version_key = f"{prefix}:{{g}}:version-of-g"
    primary = failover_cluster.primary_of(version_key)
    replica = failover_cluster.replica_of(primary)

    def read_version() -> int:
        return int(writer.get(version_key) or 0)

    try:
        assert dispatcher.wait("g", -1, WAKE_SECONDS, read_version) == 0  # subscribed on `primary`
        primary.kill()
        failover_cluster.wait_until_primary(replica)
        guard = time.monotonic() + PROMOTION_SECONDS
        while True:  # as a client retries after a 503, until the dispatcher subscribes on the promoted replica
            assert time.monotonic() < guard, "no wait could subscribe since the promotion"
            try:
                if dispatcher.wait("g", -1, 1.0, read_version) == 0:
                    break
            except STORE_ERRORS:
                time.sleep(0.1)
        woken: list[int | None] = []
        waiter = threading.Thread(target=lambda: woken.append(dispatcher.wait("g", 0, WAKE_SECONDS, read_version)))
        waiter.start()
        while waiter.is_alive() and time.monotonic() < guard:  # until the waiter subscribed and saw the write
            writer.set(version_key, 1)
            writer.spublish(store.channel("g"), 1)
            waiter.join(0.1)
        assert woken == [1]
    finally:
        dispatcher.close()
        writer.delete(version_key)
        writer.close()


def cannot_connect() -> redis.exceptions.RedisClusterException:
    """redis-py's error when no node of the cluster answers, caused by the last node's connection error."""
    try:
        raise redis.exceptions.RedisClusterException("Redis Cluster cannot be connected") from redis.ConnectionError()
    except redis.exceptions.RedisClusterException as error:
        return error


@pytest.mark.parametrize("error", [
    redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"),
    redis.exceptions.MasterDownError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is no"),
    redis.exceptions.TryAgainError("TRYAGAIN Multiple keys request during rehashing of slot"),
    redis.exceptions.SlotNotCoveredError("slot 42 is not covered by the cluster"),
    cannot_connect(),
], ids=lambda error: type(error).__name__)
def test_a_cluster_failing_over_is_an_outage_a_worker_waits_out(error: Exception) -> None:
    """`is_outage` counted only connection errors and timeouts: a worker's job met CLUSTERDOWN (a slot without a
    primary) during a failover and died of it instead of trying again once the replica was promoted."""
    assert is_outage(error)


@pytest.mark.parametrize("error", [
    redis.exceptions.RedisClusterException("Keys in request don't hash to the same slot"),
    redis.exceptions.ResponseError("ERR unknown command"),
    redis.AuthenticationError("invalid username-password pair"),
], ids=lambda error: type(error).__name__)
def test_a_bug_or_a_misconfiguration_on_a_cluster_is_no_outage(error: Exception) -> None:
    """Waiting would hide them: the job fails (and its fallback moves)."""
    assert not is_outage(error)


@pytest.fixture
def lone_node(request: pytest.FixtureRequest) -> Iterator[ClusterNode]:
    """One cluster-enabled redis-server that serves no slot (no cluster created), with the options of
    `request.param` if given; removed after the test."""
    node = ClusterNode(free_cluster_port(set()), options=getattr(request, "param", ()))
    node.start()
    try:
        yield node
    finally:
        node.remove()


def test_a_cluster_not_created_yet_is_an_outage_a_worker_waits_out(lone_node: ClusterNode) -> None:
    """Nodes that answer but serve no slot yet (`redis-cli --cluster create` still to come): redis-py says "All
    slots are not covered", without a cause, and a worker started then died of it instead of waiting."""
    client = redis_clients.cluster_client(f"redis://127.0.0.1:{lone_node.port}")  # made on first use: no error yet
    with pytest.raises(redis.exceptions.RedisClusterException, match="All slots are not covered") as raised:
        client.ping()
    assert is_outage(raised.value)


@pytest.mark.parametrize("lone_node", [["--requirepass", "secret"]], indirect=True)
def test_a_worker_s_cluster_client_refused_by_its_node_fails_instead_of_waiting(lone_node: ClusterNode) -> None:
    """A worker's cluster client waits out an outage when it is made, but a refused password is no outage."""
    client = redis_clients.cluster_client(f"redis://:wrong@127.0.0.1:{lone_node.port}", wait_out_outages=True)
    errors: list[BaseException] = []

    def ping() -> None:
        try:
            client.ping()
        except STORE_ERRORS as error:
            errors.append(error)

    pinging = threading.Thread(target=ping, daemon=True)
    pinging.start()
    pinging.join(WAKE_SECONDS)
    assert len(errors) == 1 and not is_outage(errors[0]), errors


def test_uses_that_waited_for_a_try_to_make_the_cluster_client_share_its_failure() -> None:
    """With seed nodes that time out, each request queued behind the one making the client tried again in turn: the
    last of n waited for n tries, n times the connect timeouts. Those that waited now get that try's error."""
    release = threading.Event()
    tries: list[int] = []

    def make() -> None:
        tries.append(1)
        release.wait(WAKE_SECONDS)
        raise cannot_connect()

    lazy = redis_clients.LazyCluster(make)
    errors: list[BaseException] = []

    def use() -> None:
        try:
            lazy.ping()
        except STORE_ERRORS as error:
            errors.append(error)

    users = [threading.Thread(target=use) for _ in range(5)]
    for user in users:
        user.start()
    time.sleep(1)  # a point of order, no measure: every user waits for the first one's try by now
    release.set()
    for user in users:
        user.join(WAKE_SECONDS)
    assert len(tries) == 1 and len(errors) == 5 and all(is_outage(error) for error in errors), (tries, errors)
    with pytest.raises(redis.exceptions.RedisClusterException):
        lazy.ping()  # a use that came later tries again
    assert len(tries) == 2
