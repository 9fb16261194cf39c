"""CardroomWorker (worker/sweeper.py) leaves in Redis what RQ's own `SimpleWorker` leaves after a job.

The worker replaces steps of RQ 3.0's loop (its writes before a job made one and no execution record, a success
recorded without reading the job's dependents, the last heartbeat written with the result, the counters with the
renewal): whatever RQ's tools read afterwards (`rq info`, the registries, the job's status and result, the
worker's counters) must be the same. Each worker runs one job that
returns and one that raises on a queue of its own; what they leave is compared field by field.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry

from service.turns import AI_JOB_FAILURE_TTL_SECONDS, ai_job_id
from tests.service.conftest import Api
from tests.service.test_reliability import ai_game
from worker.sweeper import CardroomWorker


def left_behind(worker_class: type[SimpleWorker], connection: redis.Redis, **options: Any) -> dict[str, Any]:
    """Run a returning and a raising job with `worker_class`; what RQ's readers find afterwards, times left out."""
    name = f"test-bookkeeping-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=connection)
    ok = queue.enqueue("operator.add", 1, 2)
    bad = queue.enqueue("operator.truediv", 1, 0)
    worker = worker_class([queue], connection=connection, **options)
    try:
        worker.work(burst=True, logging_level="WARNING")
        stats = connection.hgetall(worker.key)
        found: dict[str, Any] = {
            "worker": {field: stats.get(field.encode()) for field in ("successful_job_count", "failed_job_count")},
            "worked": float(stats.get(b"total_working_time", 0)) > 0,
            "executions": connection.smembers(worker.executions_key),
            "intermediate": connection.lrange(queue.intermediate_queue_key, 0, -1),
            "started": StartedJobRegistry(queue=queue).get_job_ids(),
            "finished": FinishedJobRegistry(queue=queue).get_job_ids() == [ok.id],
            "failed": FailedJobRegistry(queue=queue).get_job_ids() == [bad.id],
        }
        for label, job in (("ok", ok), ("bad", bad)):
            fetched = Job.fetch(job.id, connection=connection)
            result = fetched.latest_result()
            found[label] = {
                "status": fetched.get_status(),
                "fields": sorted(connection.hkeys(job.key)),
                "ttl": connection.ttl(job.key) > 0,
                "result": None if result is None else (result.type, result.return_value),
                "heartbeat_after_start": fetched.last_heartbeat is not None and fetched.started_at is not None
                and fetched.last_heartbeat >= fetched.started_at,
                "execution keys": connection.keys(f"rq:execution*{job.id}*"),
            }
        return found
    finally:
        worker.register_death()
        for job in (ok, bad):
            job.delete()
        queue.delete()


def test_the_cardroom_worker_leaves_what_rqs_simple_worker_leaves() -> None:
    connection = redis.Redis.from_url(os.environ["REDIS_URL"])
    theirs = left_behind(SimpleWorker, connection)
    ours = left_behind(CardroomWorker, connection, key_prefix=f"test-bookkeeping-{uuid.uuid4().hex[:8]}")
    assert theirs["ok"]["status"] == "finished" and theirs["bad"]["status"] == "failed"
    assert ours == theirs


def test_an_ai_turn_leaves_nothing_of_itself_in_the_queue_redis(api: Api) -> None:
    """An AI turn keeps no result (`result_ttl=0`: its result is the game's next version) and no execution record:
    once CardroomWorker has played it, the queue's Redis holds no key of the game's jobs, no registry lists them,
    and the worker's counters (stored with its renewal, here at its sign-off) count them."""
    game_id, _, view = ai_game(api)
    queue, store = api.services.queues[0], api.services.store
    job = Job.fetch(ai_job_id(game_id, view["version"], 1), connection=api.connection, serializer="json")
    assert (job.result_ttl, job.failure_ttl) == (0, AI_JOB_FAILURE_TTL_SECONDS)
    worker = CardroomWorker([queue], connection=api.connection, serializer="json", key_prefix=store.prefix)
    try:
        worker.work(burst=True, logging_level="WARNING")
        played = store.version(game_id) - view["version"]
        assert played >= 1
        assert api.connection.keys(f"rq:*{game_id}*") == []
        assert [registry(queue=queue).get_job_ids() for registry in (StartedJobRegistry, FinishedJobRegistry)] \
            == [[], []]
        assert api.connection.lrange(queue.intermediate_queue_key, 0, -1) == []
    finally:
        worker.register_death()
    assert int(api.connection.hget(worker.key, "successful_job_count")) == played
