"""Several queue Redis (issue 39 point 3): reading `RQ_REDIS_URL`'s list and `RQ_REDIS_SHARD`, and the game id's hash.

The games on two real queue Redis, one stopped and restarted, are tests/faults/test_queue_shards.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections import Counter

import pytest
from rq.job import Job

from service.config import queue_url, queue_urls, worker_shard
from service.scheduling import Queues, queue_shard
from service.turns import ai_job_id, make_queue
from tests.e2e.stack import REPO
from tests.service.conftest import Api
from tests.service.test_reliability import ai_game
from worker.sweeper import sweep

SETTINGS = {"REDIS_URL": "redis://games:6379/0", "RQ_REDIS_URL": None}


def test_rq_redis_url_lists_queue_redis_and_a_sentinel_url_keeps_its_commas() -> None:
    listed = "redis://q0:6379/0, redis+sentinel://:pw@s1,s2:26380/queue1/2,rediss://q2:6380/1"
    assert queue_urls({**SETTINGS, "RQ_REDIS_URL": listed}) == [
        "redis://q0:6379/0", "redis+sentinel://:pw@s1,s2:26380/queue1/2", "rediss://q2:6380/1"]
    assert queue_urls(SETTINGS) == ["redis://games:6379/0"]
    assert queue_url({**SETTINGS, "RQ_REDIS_URL": "redis+sentinel://s1,s2/queue"}) == "redis+sentinel://s1,s2/queue"
    with pytest.raises(ValueError, match="a worker serves one"):
        queue_url({**SETTINGS, "RQ_REDIS_URL": "redis://q0:6379/0,redis://q1:6379/0"})


@pytest.mark.parametrize(("text", "shard"), [(None, (0, 1)), ("1/3", (1, 3)), ("0/2", (0, 2))])
def test_rq_redis_shard_is_index_over_count(monkeypatch: pytest.MonkeyPatch, text: str | None,
                                            shard: tuple[int, int]) -> None:
    if text is None:
        monkeypatch.delenv("RQ_REDIS_SHARD", raising=False)
    else:
        monkeypatch.setenv("RQ_REDIS_SHARD", text)
    assert worker_shard() == shard


@pytest.mark.parametrize("text", ["2/2", "-1/2", "1", "a/b", "0/0"])
def test_a_malformed_rq_redis_shard_is_refused(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("RQ_REDIS_SHARD", text)
    with pytest.raises(ValueError, match="INDEX/COUNT"):
        worker_shard()


def test_a_worker_given_several_queue_redis_refuses_to_start() -> None:
    environment = dict(os.environ, RQ_REDIS_URL="redis://127.0.0.1:1/0,redis://127.0.0.1:2/0")
    worker = subprocess.run([sys.executable, "-m", "worker"], cwd=REPO, env=environment, capture_output=True,
                            text=True, timeout=120)
    assert worker.returncode != 0 and "a worker serves one" in worker.stderr, worker.stderr[-2000:]


def test_a_game_id_hashes_to_the_same_queue_redis_everywhere_and_an_added_one_takes_a_fair_share() -> None:
    # fixed values: the hash must not change between releases (or processes: Python's `hash` would)
    assert [queue_shard("0123456789abcdef0123456789abcdef", count) for count in (1, 2, 3, 10)] == [0, 0, 2, 7]
    assert [queue_shard("abc", count) for count in (2, 10)] == [1, 2]
    ids = [uuid.UUID(int=number).hex for number in range(6000)]
    assert sorted(Counter(queue_shard(game_id, 3) for game_id in ids).values()) == [1983, 1992, 2025]
    moved = [game_id for game_id in ids if queue_shard(game_id, 3) != queue_shard(game_id, 4)]
    assert {queue_shard(game_id, 4) for game_id in moved} == {3}  # only to the new one
    assert len(moved) == 1476  # about a quarter


def test_each_queue_redis_sweeps_only_the_games_its_share_holds(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two queues stand for two queue Redis (here two RQ queues on the test's Redis): a game's AI turn is enqueued
    on the queue its id hashes to, and once its job is lost only the sweep of that share revives it, there."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")  # the sweep's, read like the worker's from the environment
    store = api.services.store
    queues = Queues(make_queue(api.connection, f"{store.prefix}-{number}") for number in range(2))
    api.services.queues = queues
    game_id, _, view = ai_game(api)
    job_id = ai_job_id(game_id, view["version"], 1)
    shard = queue_shard(game_id, 2)
    own, other = queues[shard], queues[1 - shard]
    assert (own.job_ids, other.job_ids) == ([job_id], [])
    Job.fetch(job_id, own.connection, own.serializer).delete()
    time.sleep(1.1)  # a missing job is lost once its version is AI_JOB_STALE_SECONDS old
    assert sweep(store, other, interval=1.0, shard=(1 - shard, 2)) == []
    assert sweep(store, own, interval=1.0, shard=(shard, 2)) == [(game_id, 1)]
    assert (own.job_ids, other.job_ids) == ([job_id], [])
