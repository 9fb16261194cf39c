"""Whole games of every kind and the executable cases on a Redis Cluster (issue 21): two gunicorn servers and two
RQ workers, the games on a 3-primary, 3-replica cluster (`REDIS_CLUSTER_URL`), the queue on a plain Redis of its
own (`RQ_REDIS_URL`).

Twice: all on this machine's loopback ("loopback"), then each part on hosts of its own ("hosts", tests/netns.py:
network namespaces on a bridge, loopback DOWN in each), six cluster nodes, the queue's Redis, two web hosts and one
worker host, each web server and worker with a temporary directory of its own, which shows that no part reaches
another through loopback or a temporary file."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.cluster import NODES, LocalCluster
from tests.e2e.stack import Stack, call, start_stack, stop_stack
from tests.e2e.test_full_games import check_finished as check_durak
from tests.e2e.test_full_games import play_against_ai
from tests.e2e.test_svoi_koziri_games import finish_game as finish_svoi_koziri
from tests.e2e.test_tadmur_games import play_tadmur
from tests.e2e.test_talmut_games import check_finished as check_talmut
from tests.e2e.test_talmut_games import wait_finished as wait_talmut
from tests.netns import skip_if_forbidden, started_network
from tests.redis_server import RedisServer
from tests.service.test_cases import CASE_FILES, play_case

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=["loopback", "hosts"])
def stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    """Two gunicorns and two workers on a cluster and a queue's Redis: the session's (`redis_cluster`,
    `queue_redis`) on loopback, their keys deleted afterwards (per primary, tests/e2e/stack.py `delete_keys`), or
    ten hosts of the test's own, removed with everything on them. "hosts" skips, saying why, where this machine
    cannot make network namespaces."""
    if request.param == "hosts":
        skip_if_forbidden()
        yield from stack_on_hosts()
        return
    cluster: LocalCluster = request.getfixturevalue("redis_cluster")
    queue: RedisServer = request.getfixturevalue("queue_redis")
    running = start_stack(label="cluster", redis_url=queue.url, cluster_url=cluster.url, workers=2, servers=2)
    try:
        yield running
    finally:
        stop_stack(running)


def stack_on_hosts() -> Iterator[Stack]:
    """The stack of `stack` on hosts of its own: six cluster nodes, the queue's Redis, two web hosts, one worker
    host with both workers."""
    nodes = [f"node{number}" for number in range(NODES)]
    with started_network(*nodes, "queue", "web0", "web1", "worker", label="cluster") as network:
        hosts = network.hosts
        cluster = LocalCluster([hosts[node] for node in nodes])
        queue = RedisServer(host=hosts["queue"])
        try:
            cluster.start()
            queue.start()
            running = start_stack(label="cluster-hosts", redis_url=queue.url, cluster_url=cluster.url, workers=2,
                                  web_hosts=[hosts["web0"], hosts["web1"]], worker_host=hosts["worker"])
            try:
                yield running
            finally:
                stop_stack(running, delete_redis_keys=False)  # the servers go, with their keys
        finally:
            queue.remove()
            cluster.stop()


def test_each_part_runs_where_it_should(stack: Stack, request: pytest.FixtureRequest) -> None:
    """On loopback every process shares this machine's network namespace and temporary directory; on hosts each web
    server has a network namespace of its own and the two workers share a third (their processes'
    /proc/<pid>/ns/net), and each process has a temporary directory of its own (`TMPDIR` in /proc/<pid>/environ)."""
    processes = dict(zip(stack.logs, stack.processes, strict=True))
    where = {name: os.stat(f"/proc/{process.pid}/ns/net").st_ino for name, process in processes.items()}
    temporary = [temporary_directory(process.pid) for process in processes.values()]
    own = os.stat("/proc/self/ns/net").st_ino
    if request.node.callspec.params["stack"] == "loopback":
        assert set(where.values()) == {own}
        assert set(temporary) == {os.environ.get("TMPDIR")}
    else:
        assert len({own, where["gunicorn"], where["gunicorn-1"], where["worker-0"]}) == 4
        assert where["worker-1"] == where["worker-0"]
        assert len(set(temporary)) == len(processes) and os.environ.get("TMPDIR") not in temporary


def temporary_directory(pid: int) -> str | None:
    """The `TMPDIR` a process started with, if any."""
    settings = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    found = [setting[len(b"TMPDIR="):].decode() for setting in settings if setting.startswith(b"TMPDIR=")]
    return found[0] if found else None


class Answer:
    """An HTTP answer as the cases runner reads it: `status_code` and the parsed `json` body."""

    def __init__(self, response: requests.Response) -> None:
        self.status_code = response.status_code
        self.json = response.json() if response.content else None


class HttpApi:
    """The cases runner's API (tests/service/conftest.py `Api`) over HTTP, each request to the next server in turn:
    a game created on one web server is played on both."""

    def __init__(self, base_urls: list[str]) -> None:
        self.servers = itertools.cycle(base_urls)
        self.session = requests.Session()

    def request(self, method: str, path: str, token: str | None = None, json: Any = None, **headers: str) -> Answer:
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return Answer(call(self.session, method, next(self.servers) + path, json=json, headers=headers))

    def create(self, seats: list[dict[str, Any]], game: str = "durak", **body: Any) -> Answer:
        return self.request("POST", "/v1/games", json={"game": game, "seats": seats, **body})

    def view(self, game_id: str, token: str | None = None) -> Answer:
        return self.request("GET", f"/v1/games/{game_id}", token)

    def act(self, game_id: str, token: str, action: dict[str, Any]) -> Answer:
        return self.request("POST", f"/v1/games/{game_id}/actions", token, json=action)


def test_a_game_of_each_kind_against_the_ai_finishes(stack: Stack) -> None:
    """Durak, Svoi Koziri, Tadmur and Talmut each to their end, AI turns taken by either worker, each game's waits
    woken through the cluster's sharded pub/sub on one server while the other serves the next game."""
    first, second = stack.base_urls
    with ThreadPoolExecutor(max_workers=4) as pool:
        durak = pool.submit(play_against_ai, first, "easy", 2101)
        svoi_koziri = pool.submit(finish_svoi_koziri, second, "easy", 2102)
        tadmur = pool.submit(play_tadmur, first, "random", 2103)
        talmut = pool.submit(play_talmut_of_ai_seats, second)
        check_durak(durak.result()["view"])
        assert svoi_koziri.result()["status"] == "finished"
        assert tadmur.result()[0]["status"] == "finished"
        check_talmut(talmut.result(), 4)


def play_talmut_of_ai_seats(base_url: str) -> dict[str, Any]:
    """A Talmut game of four AI seats (no match pause), watched to its end as a spectator; the final view."""
    session = requests.Session()
    created = call(session, "POST", f"{base_url}/v1/games", json={
        "game": "talmut", "seed": 2104, "options": {"target": 10, "match_pause_ms": 0},
        "seats": [{"kind": "ai", "level": level} for level in ("easy", "random", "easy", "random")],
    })
    assert created.status_code == 201, created.text
    return wait_talmut(session, f"{base_url}/v1/games/{created.json()['game_id']}", created.json())


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda path: path.stem)
def test_case_through_both_servers(stack: Stack, path: Path) -> None:
    """Every executable case (shared/cases/*.json, tests/cases/*.json), its requests alternating between servers."""
    play_case(HttpApi(stack.base_urls), path)
