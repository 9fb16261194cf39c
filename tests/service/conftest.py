"""Service tests: the Flask test client on the real Redis (REDIS_URL, default 127.0.0.1:6379).

Each test gets its own key prefix and RQ queue, and its keys are deleted by SCAN afterwards (never FLUSHDB).
AI turns run through the real job code with RQ's `SimpleWorker` in burst mode (`BurstWorker`).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry

from service.app import create_app
from service.redis_clients import redis_client


def delete_test_keys(client: redis.Redis, prefix: str) -> None:
    """Delete every key of one test: its games under `prefix`, its queue and its games' RQ jobs."""
    game_ids = {key.split(b"{")[1].split(b"}")[0] for key in client.scan_iter(match=f"{prefix}:{{*}}:game")}
    patterns = [f"{prefix}:*", f"rq:*{prefix}*"]
    patterns += [f"rq:*{kind}-{game_id.decode()}-*" for game_id in game_ids for kind in ("ai", "clock", "hook")]
    for pattern in patterns:
        keys = list(client.scan_iter(match=pattern, count=1000))
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="session")
def redis_connection() -> redis.Redis:
    client = redis_client(os.environ["REDIS_URL"])
    client.ping()  # no Redis is a failure, never a skip
    return client


class BurstWorker(SimpleWorker):
    """RQ's `SimpleWorker` without its command channel, for the tests' bursts (`Api.run_ai`).

    A burst ends before anyone could send it a command (stop a job, shut down), and ending the channel costs up to
    a second: RQ waits that long for its pubsub thread, which redis-py wakes only when a message comes
    (tests/service/test_worker_teardown.py). Three random-client tests ran 2.3 to 5.3 times as fast without it,
    side by side (docs/benchmarks.md, "The tests' AI bursts without RQ's command channel").
    """

    def subscribe(self) -> None:
        """No channel: nothing to stop when the burst ends."""


class Api:
    """A test client for one app: JSON requests with an optional token, plus running queued AI turns."""

    def __init__(self, app: Any, connection: redis.Redis) -> None:
        self.app = app
        self.client = app.test_client()
        self.connection = connection
        self.services = app.extensions["cardroom"]
        # One worker for the test: a new one cleans the queue's registries first, which costs ~0.1 s a call.
        self.worker = BurstWorker([self.services.queues[0]], connection=connection, serializer="json")

    def request(self, method: str, path: str, token: str | None = None, json: Any = None, **headers: str):
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.client.open(path, method=method, json=json, headers=headers)

    def create(self, seats: list[dict[str, Any]], game: str = "durak", **body: Any):
        return self.request("POST", "/v1/games", json={"game": game, "seats": seats, **body})

    def create_humans(
        self, deck: list[str] | None = None, game: str = "durak", seats: int = 2
    ) -> tuple[str, list[str]]:
        """A game of human seats only, every seat taken; returns (game_id, token per seat)."""
        body = {} if deck is None else {"deck": deck}
        created = self.create([{"kind": "human", "name": f"P{n}"} for n in range(seats)], game=game, **body)
        assert created.status_code == 201, created.json
        game_id = created.json["game_id"]
        tokens = [created.json["player_token"]]
        for number in range(1, seats):
            joined = self.request("POST", f"/v1/games/{game_id}/seats", json={"name": f"P{number}"})
            assert joined.status_code == 201, joined.json
            tokens.append(joined.json["player_token"])
        return game_id, tokens

    def view(self, game_id: str, token: str | None = None, **headers: str):
        return self.request("GET", f"/v1/games/{game_id}", token, **headers)

    def act(self, game_id: str, token: str, action: dict[str, Any], **headers: str):
        return self.request("POST", f"/v1/games/{game_id}/actions", token, json=action, **headers)

    def play(self, game_id: str, tokens: list[str], moves) -> dict[str, Any]:
        """Post each `(seat, action)` of `moves` with that seat's token; each must succeed. Returns the last view."""
        view: dict[str, Any] = {}
        for seat, action in moves:
            response = self.act(game_id, tokens[seat], action)
            assert response.status_code == 200, (seat, action, response.json)
            view = response.json
        return view

    def refused(self, game_id: str, token: str, action: dict[str, Any], status: int, error: str) -> dict[str, Any]:
        """Post `action`, expect `status` and `error`, check that the version did not move; return the error body."""
        before = self.view(game_id).json["version"]
        response = self.act(game_id, token, action)
        assert (response.status_code, response.json["error"]) == (status, error), (action, response.json)
        assert self.view(game_id).json["version"] == before
        return response.json

    def legal(self, game_id: str, token: str) -> list[dict[str, Any]]:
        """The seat's `legal_actions` now."""
        return self.view(game_id, token).json["legal_actions"]

    def run_ai(self, with_scheduler: bool = True) -> None:
        """Run every queued AI job (and those they enqueue) in this process, as a worker would.

        Jobs scheduled for later (Talmut's match pause, talmut.md §3.18) are made due at once and moved to the
        queue by RQ's own scheduler, so tests never wait out a pause; `with_scheduler=False` leaves them waiting.
        """
        scheduled = ScheduledJobRegistry(queue=self.services.queues[0])
        while True:
            self.worker.work(burst=True, logging_level="WARNING")
            waiting = scheduled.get_job_ids()
            if not with_scheduler or not waiting:
                return
            self.connection.zadd(scheduled.key, {job_id: 0 for job_id in waiting})
            self.worker.work(burst=True, logging_level="WARNING", with_scheduler=True)


@contextlib.contextmanager
def running_app(connection: redis.Redis, prefix: str) -> Iterator[Api]:
    """An app and its test client under key prefix and RQ queue `prefix`; its keys are deleted afterwards."""
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True})
    try:
        yield Api(app, connection)
    finally:
        delete_test_keys(connection, prefix)
        app.extensions["cardroom"].store.client.close()


@pytest.fixture(scope="module")
def shared_api() -> Iterator[Api]:
    """One app for a whole test module: hypothesis runs all its examples in one test call, where a function-scoped
    `api` would be shared by them anyway (and hypothesis refuses that)."""
    with running_app(redis_client(os.environ["REDIS_URL"]), f"test-shared-{uuid.uuid4().hex[:8]}") as shared:
        yield shared


@pytest.fixture
def api(redis_connection: redis.Redis) -> Iterator[Api]:
    with running_app(redis_connection, f"test-{uuid.uuid4().hex[:12]}") as one:
        yield one
