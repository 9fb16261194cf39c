"""Waiting clients on the real stack (issue 14): long-polls and streams cost no thread and miss nothing.

gunicorn's gevent worker (2 processes) on the real Redis, the RQ worker for AI seats. Every deadline here is a
hang guard, far above the time the step takes on an idle machine; speed is measured by bench/players.py.
"""

from __future__ import annotations

import http.client
import json
import random
import resource
import select
import signal
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
import requests

from tests.e2e.stack import Stack, start_stack, stop_stack
from tests.redis_server import RedisServer

pytestmark = pytest.mark.e2e

HANG_GUARD_SECONDS = 60
TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def two_human_game(base_url: str, seed: int = 7) -> tuple[str, list[str], dict[str, Any]]:
    """A Durak game of two humans, both seated; returns (game_id, token per seat, the view of the seat to act)."""
    created = requests.post(f"{base_url}/v1/games", json={"game": "durak", "seats": TWO_HUMANS, "seed": seed},
                            timeout=HANG_GUARD_SECONDS)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    joined = requests.post(f"{base_url}/v1/games/{game_id}/seats", json={"name": "Bob"}, timeout=HANG_GUARD_SECONDS)
    assert joined.status_code == 201, joined.text
    tokens = [created.json()["player_token"], joined.json()["player_token"]]
    view = joined.json()
    mover = view["to_act"][0]
    view = requests.get(f"{base_url}/v1/games/{game_id}", headers=bearer(tokens[mover]),
                        timeout=HANG_GUARD_SECONDS).json()
    return game_id, tokens, view


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def move(base_url: str, game_id: str, token: str, view: dict[str, Any]) -> dict[str, Any]:
    """Post the first legal action that is not `resign`; returns the new view."""
    action = next(a for a in view["legal_actions"] if a["type"] != "resign")
    response = requests.post(f"{base_url}/v1/games/{game_id}/actions", json=action, headers=bearer(token),
                             timeout=HANG_GUARD_SECONDS)
    assert response.status_code == 200, response.text
    return response.json()


def open_long_polls(base_url: str, path: str, count: int) -> list[http.client.HTTPConnection]:
    """Send `count` long-poll GETs for `path`, each on its own connection, without reading the answers."""
    address = urlsplit(base_url)
    connections = []
    for _ in range(count):
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=HANG_GUARD_SECONDS)
        connection.request("GET", path)
        connections.append(connection)
    return connections


def answered(connections: list[http.client.HTTPConnection], within: float) -> int:
    """How many of `connections` have bytes to read within `within` seconds (an answer has begun)."""
    readable, _, _ = select.select([connection.sock for connection in connections], [], [], within)
    return len(readable)


def sse_events(response: requests.Response) -> Iterator[dict[str, Any]]:
    """The events of a `text/event-stream` response: `{"id": int | None, "event": str, "data": dict}`.

    Comments and the opening `retry:` (how soon to reconnect) carry no data and are no events; a `revoked` event
    has no `id:` (None).
    """
    fields: dict[str, str] = {}
    for line in response.iter_lines(decode_unicode=True):
        if line == "":
            if "data" in fields:
                number = int(fields["id"]) if "id" in fields else None
                yield {"id": number, "event": fields["event"], "data": json.loads(fields["data"])}
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value


def test_two_hundred_long_polls_on_one_game_all_wake_after_one_move(stack: Stack) -> None:
    """shared/API.md "Waiting for a change": thousands may wait; none is answered early, none sent back."""
    game_id, tokens, view = two_human_game(stack.base_url)
    version = view["version"]
    waiting = open_long_polls(stack.base_url, f"/v1/games/{game_id}?after_version={version}&wait=30", 200)
    try:
        # before the move, nobody is answered (no 304, no "come back later")
        assert answered(waiting, within=2.0) == 0
        moved = move(stack.base_url, game_id, tokens[view["to_act"][0]], view)
        for connection in waiting:
            response = connection.getresponse()
            body = json.loads(response.read())
            assert (response.status, body["version"], response.getheader("ETag")) == (
                200, version + 1, f'"{version + 1}"')
            assert body["state"] == requests.get(f"{stack.base_url}/v1/games/{game_id}",
                                                 timeout=HANG_GUARD_SECONDS).json()["state"]
        assert moved["version"] == version + 1
    finally:
        for connection in waiting:
            connection.close()


def test_a_stream_delivers_a_whole_game_against_the_ai_in_order(stack: Stack) -> None:
    """Every view the player must answer arrives, ids increase, the stream ends after `finished` (issue 14 §4)."""
    rng = random.Random(11)
    created = requests.post(f"{stack.base_url}/v1/games", json={
        "game": "durak", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], "seed": 11,
    }, timeout=HANG_GUARD_SECONDS).json()
    game_id, token = created["game_id"], created["player_token"]
    session = requests.Session()
    session.headers.update(bearer(token))
    ids, started = [], time.monotonic()
    with session.get(f"{stack.base_url}/v1/games/{game_id}/stream", stream=True,
                     timeout=HANG_GUARD_SECONDS) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        for event in sse_events(response):
            assert time.monotonic() - started < 5 * HANG_GUARD_SECONDS, "the game did not finish"
            view = event["data"]
            assert (event["event"], view["version"], view["you"]) == ("view", event["id"], 0)
            assert not ids or event["id"] > ids[-1], (ids, event["id"])
            ids.append(event["id"])
            choices = [action for action in view["legal_actions"] if action["type"] != "resign"]
            if choices:  # our turn: the stream showed it, or we would wait here for ever (the hang guard)
                posted = session.post(f"{stack.base_url}/v1/games/{game_id}/actions", json=rng.choice(choices),
                                      headers={"If-Match": f'"{view["version"]}"'}, timeout=HANG_GUARD_SECONDS)
                assert posted.status_code == 200, posted.text
    final = session.get(f"{stack.base_url}/v1/games/{game_id}", timeout=HANG_GUARD_SECONDS).json()
    assert final["status"] == "finished" and ids[-1] == final["version"]
    assert view == final  # the last event is the finished view itself


def test_last_event_id_resumes_after_the_last_version_seen(stack: Stack) -> None:
    game_id, tokens, view = two_human_game(stack.base_url, seed=8)
    url = f"{stack.base_url}/v1/games/{game_id}/stream"
    with requests.get(url, stream=True, timeout=HANG_GUARD_SECONDS) as response:
        first = next(sse_events(response))
    assert first["id"] == view["version"] and first["data"]["you"] is None
    after_one = move(stack.base_url, game_id, tokens[view["to_act"][0]], view)
    with requests.get(url, stream=True, headers={"Last-Event-ID": str(first["id"])},
                      timeout=HANG_GUARD_SECONDS) as response:
        events = sse_events(response)
        resumed = next(events)
        assert resumed["id"] == first["id"] + 1 == after_one["version"]  # no repeat, no gap
        mover = after_one["to_act"][0]
        after_two = move(stack.base_url, game_id, tokens[mover],
                         requests.get(f"{stack.base_url}/v1/games/{game_id}", headers=bearer(tokens[mover]),
                                      timeout=HANG_GUARD_SECONDS).json())
        assert next(events)["id"] == after_two["version"]
    # resuming at the current version: nothing is sent until a newer one (a keep-alive comment after 15 s)
    held = open_long_polls(stack.base_url, f"/v1/games/{game_id}/stream?after_version={after_two['version']}", 1)
    try:
        response = held[0].getresponse()  # the headers come at once, the first event only with a new version
        assert (response.status, response.readline(), response.readline()) == (200, b"retry: 1000\n", b"\n")
        assert answered(held, within=1.0) == 0
    finally:
        held[0].close()


def test_a_stream_of_a_token_of_no_seat_is_refused_before_it_starts(stack: Stack) -> None:
    game_id, _, _ = two_human_game(stack.base_url, seed=9)
    response = requests.get(f"{stack.base_url}/v1/games/{game_id}/stream", headers=bearer("not-a-token"),
                            timeout=HANG_GUARD_SECONDS)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_gevent_patches_every_worker_before_redis_is_imported(stack: Stack) -> None:
    """gunicorn's master must not import what gevent patches in each worker (redis, service.dispatcher)."""
    requests.get(f"{stack.base_url}/healthz", timeout=HANG_GUARD_SECONDS)
    assert "MonkeyPatchWarning" not in stack.log_text(tail_chars=10**7)


def test_a_thousand_idle_connections_do_not_delay_other_clients(stack: Stack) -> None:
    """Connections that send nothing, or a request byte by byte, cost a greenlet each (issue 14 §6)."""
    address = urlsplit(stack.base_url)
    idle = [socket.create_connection((address.hostname, address.port)) for _ in range(1000)]
    slow = [socket.create_connection((address.hostname, address.port)) for _ in range(50)]
    try:
        for connection in slow:
            connection.sendall(b"GET /healthz HT")  # and never the rest
        started = time.monotonic()
        assert requests.get(f"{stack.base_url}/healthz", timeout=10).status_code == 200
        game_id, tokens, view = two_human_game(stack.base_url, seed=10)
        assert move(stack.base_url, game_id, tokens[view["to_act"][0]], view)["version"] == view["version"] + 1
        assert time.monotonic() - started < 10  # a hang guard: on an idle machine this takes ~50 ms
    finally:
        for connection in idle + slow:
            connection.close()


def test_redis_connections_do_not_grow_with_the_number_of_waiters(own_redis: RedisServer, monkeypatch) -> None:
    """One pub/sub connection per process (issue 14 §2), and a bounded pool for everything else."""
    monkeypatch.setenv("REDIS_URL", own_redis.url)
    monkeypatch.setenv("REDIS_MAX_CONNECTIONS", "8")
    running = start_stack(label="connections", with_worker=False)
    client = redis.Redis.from_url(own_redis.url)
    try:
        def connections_while_waiting(count: int) -> int:
            game_id, _, view = two_human_game(running.base_url)
            waiting = open_long_polls(running.base_url, f"/v1/games/{game_id}?after_version={view['version']}&wait=5",
                                      count)
            try:
                assert answered(waiting, within=2.0) == 0
                channel = f"{running.prefix}:{{{game_id}}}:version"
                # each process that holds waiters of the game is subscribed once (at most the 2 processes)
                assert 1 <= dict(client.pubsub_numsub(channel))[channel.encode()] <= 2
                return len(client.client_list()) - 1  # less this test's own
            finally:
                for connection in waiting:
                    connection.close()

        # 2 processes, each: one pub/sub connection plus a pool of at most REDIS_MAX_CONNECTIONS
        bound = 2 * (1 + 8)
        assert connections_while_waiting(10) <= bound
        assert connections_while_waiting(600) <= bound
    finally:
        stop_stack(running)


def test_sigterm_answers_every_held_long_poll_and_ends_streams() -> None:
    """Graceful shutdown (issue 14 §5): no client sees an empty reply; streams end so clients reconnect."""
    running = start_stack(label="sigterm", with_worker=False)
    waiting: list[http.client.HTTPConnection] = []
    try:
        game_id, _, view = two_human_game(running.base_url)
        waiting = open_long_polls(running.base_url, f"/v1/games/{game_id}?after_version={view['version']}&wait=30",
                                  40)
        with requests.get(f"{running.base_url}/v1/games/{game_id}/stream", stream=True,
                          timeout=HANG_GUARD_SECONDS) as stream:
            events = sse_events(stream)
            assert next(events)["id"] == view["version"]
            assert answered(waiting, within=1.0) == 0
            started = time.monotonic()
            running.processes[0].send_signal(signal.SIGTERM)
            for connection in waiting:
                response = connection.getresponse()
                assert response.status == 304 and response.getheader("ETag") == f'"{view["version"]}"'
                assert response.read() == b""
            assert list(events) == []  # the stream ended cleanly (a complete chunked body, no error)
        assert time.monotonic() - started < 10  # within gunicorn's graceful timeout, not after the 30 s wait
        assert running.processes[0].wait(timeout=HANG_GUARD_SECONDS) == 0
    finally:
        for connection in waiting:
            connection.close()
        stop_stack(running)


def test_a_web_process_may_open_a_file_for_every_waiter() -> None:
    """Started with the usual soft limit of 1,024 open files, each web process raises it to what `MAX_WAITERS`
    waiting connections need (up to the hard limit): each held connection is a file descriptor."""
    import psutil

    from service.gunicorn_conf import OPEN_FILES_HEADROOM, worker_connections

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
    try:
        running = start_stack(label="nofile", with_worker=False)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        wanted = worker_connections + OPEN_FILES_HEADROOM
        expected = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        web = psutil.Process(running.processes[0].pid).children()
        assert len(web) == 2
        assert [process.rlimit(psutil.RLIMIT_NOFILE)[0] for process in web] == [expected, expected]
    finally:
        stop_stack(running)


def test_a_web_process_keeps_its_start_up_objects_out_of_the_garbage_collector() -> None:
    """After loading the app, a web process freezes what it holds: a full collection then walks only what requests
    made since (a 100-game lobby page read cold went from ~60 ms to ~20 ms: docs/benchmarks.md). It collects its
    youngest objects every 50,000, not 700: a held long-poll's objects then die before a collection sees them
    (13% of the web CPU at 5,000 players went to the collector before)."""
    import gc

    from service import gunicorn_conf

    before, thresholds = gc.get_freeze_count(), gc.get_threshold()
    try:
        gunicorn_conf.post_worker_init(object())
        assert gc.get_freeze_count() > before
        assert gc.get_threshold() == (50_000, *thresholds[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)

