"""Redis Sentinel (issue 21, point 1): `REDIS_URL=redis+sentinel://...` on a primary, a replica and three sentinels,
all real redis-server processes; the primary is SIGKILLed mid-game and a sentinel promotes the replica.

Games and the worker carry on on the promoted replica; meanwhile the web answers 200 or 503 `store_unavailable`,
never anything else. A worker whose sentinels refuse `REDIS_SENTINEL_PASSWORD` exits at once with a message
instead of waiting for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
import requests

from service.config import sentinel_url_parts
from service.redis_clients import redis_client
from tests.e2e.stack import REPO, STALL_SECONDS, Stack, start_stack, stop_stack
from tests.faults.games import assert_each_version_written_once, create_ai_games, wait_finished, wait_until
from tests.redis_server import RedisServer, free_port

pytestmark = pytest.mark.e2e

SERVICE = "cardroom"
DOWN_AFTER_MS = 2000
"""How long a primary must be silent before the sentinels call it down: production uses ~5-30 s; 2 s keeps the test
short without taking a busy primary on a loaded machine for a dead one."""


class Sentinels:
    """`count` sentinels (`redis-server <config> --sentinel`) watching `primary` under `SERVICE`, quorum 2 (1 for a
    single sentinel); `password` is their own `requirepass`."""

    def __init__(self, primary: RedisServer, count: int = 3, password: str | None = None) -> None:
        self.primary = primary
        self.servers: list[RedisServer] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        self.ports = [free_port() for _ in range(count)]
        self.quorum = min(2, count)
        self.password = password

    def url(self, primary_password: str | None = None) -> str:
        """The `redis+sentinel://` URL of the primary they watch."""
        userinfo = f":{primary_password}@" if primary_password else ""
        return f"redis+sentinel://{userinfo}" + ",".join(f"127.0.0.1:{port}" for port in self.ports) + f"/{SERVICE}"

    def start(self) -> None:
        """Start them and return once each has learned of the primary."""
        for port in self.ports:
            directory = Path(self.primary.directory) / f"sentinel-{port}"
            directory.mkdir()
            config = directory / "sentinel.conf"  # a sentinel rewrites its own config file: one each
            lines = [f"port {port}", "bind 127.0.0.1", f"dir {directory}",
                     f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary.port} {self.quorum}",
                     f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}",
                     f"sentinel failover-timeout {SERVICE} 10000"]
            if self.password:
                lines += [f"requirepass {self.password}", f"sentinel sentinel-pass {self.password}"]
            config.write_text("\n".join(lines) + "\n")
            self.processes.append(subprocess.Popen([RedisServer.binary, str(config), "--sentinel"],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in self.ports:
            self.wait_for(port, lambda address: address is not None, "the primary known")

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, password=self.password, socket_timeout=5, decode_responses=True)

    def primary_port(self, port: int) -> int | None:
        """The port of the primary that the sentinel on `port` names now (None while it names none)."""
        try:
            address = self.client(port).sentinel_get_master_addr_by_name(SERVICE)
        except redis.ConnectionError:
            return None
        return int(address[1]) if address else None

    def wait_for(self, port: int, done: object, what: str, seconds: float = 60.0) -> None:
        """Poll the sentinel on `port` until `done(primary_port)`; a hang guard, ten times a failover's time."""
        deadline = time.monotonic() + seconds
        while not done(self.primary_port(port)):  # type: ignore[operator]
            assert time.monotonic() < deadline, f"sentinel {port}: not {what} within {seconds} s"
            time.sleep(0.1)

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture
def sentinel_pair(make_redis) -> Iterator[tuple[RedisServer, RedisServer, Sentinels]]:  # type: ignore[no-untyped-def]
    """A primary, its replica and three sentinels watching them; stopped after the test."""
    primary = make_redis()
    replica = make_redis("--replicaof", "127.0.0.1", str(primary.port))
    guard = time.monotonic() + 60
    while replica.client().info("replication")["master_link_status"] != "up":
        assert time.monotonic() < guard, "the replica never synced"
        time.sleep(0.1)
    sentinels = Sentinels(primary)
    try:
        sentinels.start()
        yield primary, replica, sentinels
    finally:
        sentinels.stop()


@pytest.fixture
def sentinel_stack(  # type: ignore[no-untyped-def]
    sentinel_pair, request: pytest.FixtureRequest
) -> Iterator[tuple[Stack, RedisServer, RedisServer, Sentinels]]:
    """gunicorn and two workers with `REDIS_URL` the sentinels' URL, moves waited for on the replica: yields
    (stack, primary, replica, sentinels)."""
    primary, replica, sentinels = sentinel_pair
    stack = start_stack(label="sentinel", redis_url=sentinels.url(), workers=2,
                        environment={"REDIS_WAIT_REPLICAS": "1", "REDIS_WAIT_TIMEOUT_MS": "500"})
    request.node.stacks = [stack]
    try:
        yield stack, primary, replica, sentinels
    finally:
        stop_stack(stack, delete_redis_keys=False)  # the servers go with their keys


def test_the_sentinel_url_names_sentinels_service_database_and_password() -> None:
    parts = sentinel_url_parts("redis+sentinel://:p%40ss@10.0.0.1:26380,sentinel-b/games/2")
    assert parts == ([("10.0.0.1", 26380), ("sentinel-b", 26379)], "games", 2, "p@ss")
    assert sentinel_url_parts("redis+sentinel://s:5000/main") == ([("s", 5000)], "main", 0, None)
    for wrong in ("redis+sentinel://s:5000", "redis+sentinel:///main"):
        with pytest.raises(ValueError, match="service name"):
            sentinel_url_parts(wrong)


def test_games_and_workers_carry_on_after_the_primary_is_killed_and_its_replica_promoted(sentinel_stack) -> None:  # type: ignore[no-untyped-def]
    stack, primary, replica, sentinels = sentinel_stack
    game_ids = create_ai_games(stack, 6)
    wait_until(stack, game_ids, lambda views: all(view["version"] >= 4 for view in views.values()))

    primary.kill()
    session, statuses = requests.Session(), []
    guard = time.monotonic() + STALL_SECONDS
    while sentinels.primary_port(sentinels.ports[0]) != replica.port:
        assert time.monotonic() < guard, "the replica was never promoted"
        answer = session.get(f"{stack.base_url}/v1/games/{game_ids[0]}", timeout=30)
        statuses.append((answer.status_code, answer.json().get("error")))
        time.sleep(0.1)
    assert set(statuses) <= {(200, None), (503, "store_unavailable")}, statuses
    primary.start()  # back as a pod would come back: the sentinels make it the new primary's replica

    finished = wait_finished(stack, game_ids)
    assert [worker.poll() for worker in stack.workers] == [None, None], "a worker exited"
    assert replica.client().info("replication")["role"] == "master"
    for game_id, view in finished.items():
        assert view["result"] is not None
        assert_each_version_written_once(stack, game_id)
    # a new game after the failover is played by the workers too
    (late,) = create_ai_games(stack, 1)
    assert wait_finished(stack, [late])[late]["result"] is not None
    assert_a_move_wakes_a_long_poll(stack.base_url)


def assert_a_move_wakes_a_long_poll(base: str) -> None:
    """A two-person game: a client long-polls while the other makes a move; the poll answers 200 with the move's
    version (a web process's pub/sub connection, reconnected to the promoted primary, carried the wake-up)."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
    created = requests.post(f"{base}/v1/games", json={"game": "durak", "seats": seats}, timeout=30).json()
    url = f"{base}/v1/games/{created['game_id']}"
    joined = requests.post(f"{url}/seats", json={"name": "Bob"}, timeout=30).json()
    tokens = [created["player_token"], joined["player_token"]]
    view = requests.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=30).json()
    mover = view["to_act"][0]
    if mover != 0:
        view = requests.get(url, headers={"Authorization": f"Bearer {tokens[mover]}"}, timeout=30).json()
    with ThreadPoolExecutor(max_workers=1) as pool:
        poll = pool.submit(requests.get, url, params={"after_version": view["version"], "wait": 25}, timeout=60,
                           headers={"Authorization": f"Bearer {tokens[1 - mover]}"})
        time.sleep(1)  # the poll is waiting (were it not yet, it would answer 200 at once all the same)
        action = next(move for move in view["legal_actions"] if move["type"] != "resign")
        moved = requests.post(f"{url}/actions", json=action, timeout=30,
                              headers={"Authorization": f"Bearer {tokens[mover]}"})
        assert moved.status_code == 200, moved.text
        answer = poll.result()
    assert (answer.status_code, answer.json()["version"]) == (200, view["version"] + 1)


def test_a_sentinel_that_missed_the_failover_does_not_send_clients_to_a_stale_primary(  # type: ignore[no-untyped-def]
    sentinel_pair, make_redis
) -> None:
    """It used to: redis-py's `Sentinel` takes the word of the first sentinel that names an up primary. A sentinel
    that has not yet heard of the failover (hellos come every 2 s; on a loaded machine later) names the old primary,
    which, restarted, answers as a primary with its own data until the sentinels turn it into a replica: what a
    client writes there is thrown away (a move, a queued job). Here the stale sentinel watches a Redis of its own
    as the service's primary, as such a sentinel would the restarted old primary, and is asked first; the
    sentinels that know the failover name the promoted replica under a newer configuration epoch."""
    primary, replica, sentinels = sentinel_pair
    primary.kill()
    for port in sentinels.ports:
        sentinels.wait_for(port, lambda address: address == replica.port, "the replica promoted")
    stale = Sentinels(make_redis(), count=1)
    stale.start()
    try:
        url = sentinels.url().replace("redis+sentinel://", f"redis+sentinel://127.0.0.1:{stale.ports[0]},")
        client = redis_client(url)
        client.set("sentinel-test:written", "1")
        assert replica.client().get("sentinel-test:written") == b"1"
        assert stale.primary.client().get("sentinel-test:written") is None
        client.close()
    finally:
        stale.stop()


def test_a_workers_dropped_connection_reconnects_to_the_promoted_replica_not_the_old_primary(  # type: ignore[no-untyped-def]
    sentinel_pair,
) -> None:
    """It used to wait for the old primary to come back, then go on there. When the primary dies under a command
    (a worker's blocking dequeue), redis-py reconnects that connection (in `send_packed_command`) to the address it
    last had, without asking the sentinels, and a worker's client retries that for as long as it is refused. The
    old primary, once back, answered as a primary with its own data until the sentinels made it a replica: the
    worker's writes there (moves, queued jobs) were then thrown away, and it waited for jobs where none came."""
    primary, replica, sentinels = sentinel_pair
    client = redis_client(sentinels.url(), wait_out_outages=True)
    popped: list[object] = []

    def dequeue() -> None:  # as RQ's worker waits for a job: BLMOVE with a timeout, again and again
        while not popped:
            if (job := client.blmove("sentinel-test:queue", "sentinel-test:taken", 1)) is not None:
                popped.append(job)

    waiter = threading.Thread(target=dequeue, daemon=True)
    waiter.start()
    time.sleep(0.5)  # the waiter is blocked on the primary
    primary.kill()
    for port in sentinels.ports:
        sentinels.wait_for(port, lambda address: address == replica.port, "the replica promoted")
    replica.client().lpush("sentinel-test:queue", "job")
    waiter.join(10)  # a hang guard: the waiter reconnects within about a second
    primary.start()  # back as a pod would come back (a waiter still reconnecting to it would now get there)
    waiter.join(STALL_SECONDS)
    assert popped == [b"job"]
    client.close()


def worker_process(url: str, sentinel_password: str) -> subprocess.Popen[str]:
    """`python -m worker` on the sentinels' URL with that sentinel password."""
    environment = dict(os.environ, REDIS_URL=url, REDIS_SENTINEL_PASSWORD=sentinel_password,
                       RQ_QUEUE="sentinel-password", KEY_PREFIX="sentinel-password")
    return subprocess.Popen([sys.executable, "-m", "worker"], cwd=REPO, env=environment, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.fixture
def guarded_sentinel(make_redis) -> Iterator[tuple[RedisServer, Sentinels]]:  # type: ignore[no-untyped-def]
    """A primary and one sentinel with a password of its own."""
    primary = make_redis()
    sentinels = Sentinels(primary, count=1, password="sentinel-secret")
    try:
        sentinels.start()
        yield primary, sentinels
    finally:
        sentinels.stop()


def test_a_worker_whose_sentinels_refuse_the_password_exits_with_a_message(guarded_sentinel) -> None:  # type: ignore[no-untyped-def]
    """It used to wait for ever: redis-py takes a sentinel that refuses the password for one that is down, and a
    worker waits out an outage of any length."""
    _, sentinels = guarded_sentinel
    worker = worker_process(sentinels.url(), "wrong")
    try:
        output, _ = worker.communicate(timeout=60)  # a hang guard: it exits within a second or two
    finally:
        worker.kill()
        worker.wait()
    assert worker.returncode != 0
    assert f"Redis Sentinel 127.0.0.1:{sentinels.ports[0]} refused REDIS_SENTINEL_PASSWORD" in output


def test_a_worker_with_the_sentinels_password_serves(guarded_sentinel) -> None:  # type: ignore[no-untyped-def]
    primary, sentinels = guarded_sentinel
    worker = worker_process(sentinels.url(), "sentinel-secret")
    try:
        guard = time.monotonic() + STALL_SECONDS
        while not primary.client().smembers("rq:workers:sentinel-password"):
            assert worker.poll() is None, worker.communicate()[0]
            assert time.monotonic() < guard, "the worker never registered with RQ"
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.communicate(timeout=30)
