"""Two queue Redis chosen by game id (issue 39 point 3): one stopped and restarted while AI games play themselves.

The web processes get both in `RQ_REDIS_URL`; each has a worker of its own (`RQ_REDIS_URL` that one,
`RQ_REDIS_SHARD` which of the two). While the second is down, the games its id hash gave it make at most the move
in flight, and those of the first play on to the end; once it is back (on its append-only file), they finish too,
each version written once. `/readyz` and `/metrics` know both.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
import requests

from service.redis_clients import redis_client
from service.scheduling import queue_shard
from service.store import GameStore
from tests.e2e.stack import start_process, start_stack, stop_stack
from tests.faults.games import assert_each_version_written_once, create_ai_games, wait_finished, wait_until
from tests.redis_server import RedisServer

pytestmark = pytest.mark.e2e

GAMES_PER_QUEUE_REDIS = 3
DECISION_SECONDS = "0.05"
"""Each AI decision sleeps this long (tests/e2e/slow_worker.py): a game of ~80 versions lasts seconds, so the
outage begins mid-game."""


def test_ai_games_on_two_queue_redis_finish_when_one_is_stopped_and_restarted(
    make_redis: Callable[..., RedisServer], request: pytest.FixtureRequest
) -> None:
    game_redis, *queue_redis = make_redis(), make_redis(), make_redis()
    urls = [server.url for server in queue_redis]
    stack = start_stack(label="shards", redis_url=game_redis.url, with_worker=False, environment={
        "RQ_REDIS_URL": ",".join(urls), "AI_JOB_STALE_SECONDS": "3", "AI_SWEEP_INTERVAL_SECONDS": "1",
        "AI_JOB_HEARTBEAT_SECONDS": "1",
    })
    request.node.stacks = [stack]  # tests/faults/conftest.py: the logs in a failure's report
    try:
        for number, url in enumerate(urls):
            start_process(stack, f"worker-{number}", [sys.executable, "-m", "tests.e2e.slow_worker", DECISION_SECONDS],
                          {"RQ_REDIS_URL": url, "RQ_REDIS_SHARD": f"{number}/2"})
        games: dict[int, list[str]] = {0: [], 1: []}
        while min(len(ids) for ids in games.values()) < GAMES_PER_QUEUE_REDIS:  # game ids are random: make enough
            (game_id,) = create_ai_games(stack, 1)
            games[queue_shard(game_id, 2)].append(game_id)
        every = games[0] + games[1]
        wait_until(stack, every, lambda views: all(view["version"] >= 4 for view in views.values()))
        metrics = requests.get(f"{stack.base_url}/metrics", timeout=30).text
        assert 'cardroom_ai_queue_depth{queue_redis="0"}' in metrics, metrics
        assert 'cardroom_ai_queue_depth{queue_redis="1"}' in metrics, metrics
        for server in queue_redis:  # each queue Redis carried jobs: its games' and no others'
            assert server.client().info("commandstats")["cmdstat_rpush"]["calls"] > 0

        queue_redis[1].kill()
        store = GameStore(redis_client(game_redis.url), stack.prefix)
        held = {game_id: store.version(game_id) for game_id in games[1]}
        assert requests.get(f"{stack.base_url}/readyz", timeout=30).status_code == 503
        wait_finished(stack, games[0])  # their views, jobs and sweep touch only the first queue Redis
        stalled = {game_id: store.version(game_id) for game_id in games[1]}
        assert all(stalled[game_id] <= held[game_id] + 1 for game_id in held), (held, stalled)  # the move in flight

        queue_redis[1].start()
        finished = wait_finished(stack, every)
        assert [worker.poll() for worker in stack.workers] == [None, None], "a worker exited"
        assert requests.get(f"{stack.base_url}/readyz", timeout=30).status_code == 200
        for game_id, view in finished.items():
            assert view["result"] is not None
            assert_each_version_written_once(stack, game_id)
    finally:
        stop_stack(stack, delete_redis_keys=False)  # the servers go with their keys
