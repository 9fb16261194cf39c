"""The Cardroom RQ worker: RQ's `SimpleWorker`, its jobs kept marked alive, and a sweep for dead AI turns.

A job runs in the worker's own process, not in a work horse forked per job: a fork cost ~25 ms of every AI turn's
wait and held one worker process to a few dozen moves a second (docs/benchmarks.md, AI job latency). An AI turn is
short, bounded Python (the search levels' budgets) under RQ's job time limit, which `SimpleWorker` enforces
in-process with SIGALRM as the forking worker does in its horse. Between two jobs RQ's loop also made about a
dozen Redis round trips of its own (re-registering the worker three times, a suspension check, its state twice);
the worker does those at most once per `RENEW_SECONDS`, stores "idle" only when it has to wait for a job, makes
RQ's two writes before a job one, writes a succeeded job's last heartbeat with its result, and records a success
without first watching and reading the job's dependents (no job here has any), so a job costs ~10 round trips
instead of ~28 (tests/e2e/test_worker_round_trips.py). It logs two lines per job (the dequeue, RQ's "Job OK"), not
four.

The sweep: RQ notices a job abandoned by a killed worker only after its timeout plus a minute, at a registry
cleaning that runs every ten minutes, and then marks it failed without running it again. Meanwhile the game would
wait for a move nobody computes. So every `SWEEP_INTERVAL_SECONDS` one worker (a Redis lock picks it) looks at
each active game under `KEY_PREFIX` and enqueues again the AI turns whose job is gone
(`service.turns.revive_ai_turns`); the version check makes the move happen exactly once even if the old job was
only slow. It schedules again, the same way, a clock's timeout whose job is gone (worker/timeouts.py
`revive_timeouts`). The sweep also drops expired games from the indexes (`GameStore.prune_indexes`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import threading
import time
from typing import Any

from rq import Queue, SimpleWorker
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.logutils import blue, green
from rq.registry import StartedJobRegistry
from rq.utils import now as rq_now
from rq.worker import WorkerStatus

from service.config import lifetimes
from service.store import STORE_ERRORS, GameNotFound, GameStore, UntilRedisAnswers
from service.turns import AI_JOB_TIMEOUT_SECONDS, make_queue, revive_ai_turns
from worker.jobs import game_store
from worker.timeouts import revive_timeouts

log = logging.getLogger(__name__)

SWEEP_INTERVAL_SECONDS = float(os.environ.get("AI_SWEEP_INTERVAL_SECONDS", "5"))
RENEW_SECONDS = 1.0
"""How often, at most, a busy worker renews its registration and looks for `rq suspend` (RQ: around every job)."""
SCHEDULER_STOP_SECONDS = 5
"""How long a stopping worker waits for its scheduler process (a round of it takes milliseconds, then 1 s pause)."""


class CardroomWorker(SimpleWorker):
    """An RQ worker that runs jobs in its own process and also sweeps for dead AI turns between jobs and while idle."""

    log_result_lifespan = False
    """RQ's "result is kept for 500 seconds" after every job: the same line each time (`result_ttl` is RQ's default)."""

    def __init__(self, *args, key_prefix: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("job_monitoring_interval", lifetimes()["AI_JOB_HEARTBEAT_SECONDS"])
        super().__init__(*args, **kwargs)
        self.key_prefix = key_prefix
        self.last_swept = 0.0
        self.last_renewed = -math.inf
        self.last_suspension_check = -math.inf
        self.stored_state: str | None = None
        self.running: tuple[Job, Execution, float] | None = None
        """The job being run (with its execution and `time.monotonic()` start) while `marker` may mark it alive."""
        self.running_lock = threading.Lock()
        self.marker: threading.Thread | None = None

    def request_stop(self, signum: int, frame: object) -> None:
        """RQ's warm shutdown (SIGINT, SIGTERM); from then on a Redis outage ends the worker, never waited out.

        A stopping worker must not hang on a Redis that is gone for good (`UntilRedisAnswers.stop_waiting`). While
        a job runs, this handler runs inside the job's own frame (there is no work horse): it only notes the
        request, and the loop stops once the job is done (RQ's teardown then stops the scheduler). RQ's own
        handler would write to Redis and wait for the scheduler here, where the job may hold a pooled
        connection's lock: a deadlock.
        """
        UntilRedisAnswers.stop_waiting()
        if self.get_state() != WorkerStatus.BUSY:
            super().request_stop(signum, frame)  # type: ignore[arg-type]
            return
        signal.signal(signal.SIGINT, self.request_force_stop)
        signal.signal(signal.SIGTERM, self.request_force_stop)
        self._stop_requested = True
        log.info("stopping after the current job; a second signal stops at once")

    def perform_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        """Run `job` here while `marker` marks it (and this worker) alive every `job_monitoring_interval` seconds.

        RQ's `SimpleWorker` marks a job alive only when it starts; the forking worker's parent does so while its
        horse runs. The sweep tells a dead worker's job by that mark (service/turns.py `job_is_live`), so a job
        that runs longer than `AI_JOB_STALE_SECONDS` (a search slowed by a busy machine, a wait for Redis) must
        keep being marked, or it would be enqueued again while it runs. One thread for the worker's life marks
        it: a thread started per job cost ~0.2 ms of CPU, several percent of an `easy` job.
        """
        if self.marker is None:
            self.marker = threading.Thread(target=self._mark_alive, name="job-heartbeat", daemon=True)
            self.marker.start()
        with self.running_lock:
            self.running = job, execution, time.monotonic()
        try:
            return super().perform_job(job, queue, execution)
        finally:  # `handle_execution_ended` did it, unless RQ's own bookkeeping raised first
            with self.running_lock:
                self.running = None

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """The job returned or raised: stop marking it before RQ records its end (a round trip less after a success).

        A mark after RQ's cleanup would put the finished execution back in the started registry. RQ stamps the
        job's end and writes its last heartbeat (an HSET, a round trip of its own) so that a callback run next
        counts as alive: after a job that raised (RQ marks it failed first), the failure callback
        (`ai_turn_failed`) runs next, so that stays. After a job that returned, with no success callback, RQ's
        next write is the finished job saved whole (`handle_job_success`), heartbeat included: it is only stamped.
        """
        with self.running_lock:  # waits for a mark in flight
            self.running = None
        if job.get_status(refresh=False) == JobStatus.FAILED or job.success_callback is not None:
            super().handle_execution_ended(job, queue, heartbeat_ttl)
            return
        job.ended_at = job.last_heartbeat = rq_now()

    def handle_job_success(
        self, job: Job, queue: Queue, started_job_registry: StartedJobRegistry, execution: Execution
    ) -> None:
        """RQ's record of a succeeded job (result, finished registry, the execution's end) without its two reads first.

        Before its write, RQ watches the job's dependents and reads them, two round trips, to enqueue the jobs that
        depend on this one. No job here has any: every job is enqueued by service/scheduling.py `enqueue_once`,
        and no caller gives one a `depends_on`.
        A job that repeats or is rate-limited (none here either) still goes RQ's own way.
        """
        if job.repeats_left is not None or job.has_rate_limit:
            super().handle_job_success(job, queue, started_job_registry, execution)
            return
        assert job.started_at is not None and job.ended_at is not None, "set by perform_job and handle_execution_ended"
        with self.connection.pipeline() as pipeline:
            self.increment_successful_job_count(pipeline=pipeline)
            self.increment_total_working_time(job.ended_at - job.started_at, pipeline)
            result_ttl = job.get_result_ttl(self.default_result_ttl)
            if result_ttl != 0:
                job._handle_success(result_ttl, pipeline=pipeline, worker_name=self.name, execution_id=execution.id,
                                    execution_started_at=execution.created_at, execution_ended_at=job.ended_at)
            job.cleanup(result_ttl, pipeline=pipeline, remove_from_queue=False)
            self.cleanup_execution(job, pipeline=pipeline, execution=execution)
            pipeline.execute()
        # debug, not RQ's info: RQ's "Job OK" line follows (~16 us a line, JSON-formatted: ~0.5% of a job each)
        self.log.debug("Successfully completed job %s in %ss on worker %s", job.id, job.ended_at - job.started_at,
                       self.name)

    def _mark_alive(self) -> None:
        # Every `job_monitoring_interval` seconds, mark the running job. Marking stops a minute past the job's
        # time limit, as the forking worker then killed its horse: a job wedged beyond that counts as dead and is
        # revived.
        while True:
            time.sleep(self.job_monitoring_interval)
            with self.running_lock:
                if self.running is None:
                    continue
                job, execution, started = self.running
                if time.monotonic() - started > (job.timeout or AI_JOB_TIMEOUT_SECONDS) + 60:
                    continue
                try:
                    self.maintain_heartbeats(job, execution)
                except Exception:  # never let a failed mark end the marking: the next one may succeed
                    log.warning("job %s: could not mark it alive", job.id, exc_info=True)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """Renew this worker's registration: within `pipeline` as RQ asks, else at most once per `RENEW_SECONDS`.

        RQ renews it, three commands one at a time, three times around every job; the registration lives
        `worker_ttl` + 60 s (8 minutes), so once a second loses nothing, and the three go in one round trip.
        """
        if pipeline is not None:
            super().heartbeat(timeout, pipeline)
            return
        if time.monotonic() - self.last_renewed < RENEW_SECONDS:
            return
        with self.connection.pipeline(transaction=False) as renewal:
            super().heartbeat(timeout, renewal)
            renewal.execute()
        self.last_renewed = time.monotonic()

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's check for `rq suspend` (a Redis read), at most once per `RENEW_SECONDS` instead of before every job."""
        if time.monotonic() - self.last_suspension_check < RENEW_SECONDS:
            return
        super().check_for_suspension(burst)
        self.last_suspension_check = time.monotonic()

    def execute_job(self, job: Job, queue: Queue) -> None:
        """RQ's `SimpleWorker.execute_job`: its two writes before the job made one, the state "idle" after it noted.

        RQ stores the job's execution and the state "busy" (`prepare_execution`), then marks the job started in a
        second round trip (`prepare_job_execution`, inside `perform_job`); `start_execution` does both in one.
        The state "idle" after the job is not stored: the next dequeue stores it if it has to wait
        (`dequeue_job_and_maintain_ttl`); with a job waiting, as in a busy queue or an all-AI game (its job
        enqueues the next turn before it ends), the stored state goes from one job's "busy" to the next's, a round
        trip less per job.
        """
        execution = self.start_execution(job, queue)
        self.perform_job(job, queue, execution)
        self._state = WorkerStatus.IDLE

    def start_execution(self, job: Job, queue: Queue) -> Execution:
        """RQ's `prepare_execution` and `prepare_job_execution` in one pipeline: the job's execution, started."""
        with self.connection.pipeline() as pipeline:
            heartbeat_ttl = self.get_heartbeat_ttl(job)
            execution = Execution.create(job, heartbeat_ttl, pipeline=pipeline, worker_name=self.name)
            self.executions[execution.id] = execution
            self.set_state(WorkerStatus.BUSY, pipeline=pipeline)
            self.heartbeat(heartbeat_ttl, pipeline=pipeline)
            job.prepare_for_execution(self.name, pipeline=pipeline)  # its heartbeat too
            pipeline.persist(job.key)
            if len(self.queues) == 1:  # as RQ's `perform_job`: the dequeue left it in the queue's intermediate list
                pipeline.lrem(queue.intermediate_queue_key, 1, job.id)
            pipeline.execute()
        return execution

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        """Only RQ's process title: `start_execution` has stored the rest."""
        self.procline(f"Processing {job.func_name} from {job.origin} since {time.time()}")

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        """A job already waiting, taken at once; else RQ's dequeue, which stores "idle" and then waits for one.

        Before the take, as RQ's loop does: the registration's renewal (`heartbeat`), RQ's maintenance and the
        sweep when due; after it, RQ's log line of a dequeued job.
        """
        self.heartbeat()
        if self.should_run_maintenance_tasks:
            self.run_maintenance_tasks()
        waiting = self.queue_class.dequeue_any(
            self._ordered_queues, None, connection=self.connection, job_class=self.job_class,
            serializer=self.serializer, death_penalty_class=self.death_penalty_class,
        )
        if waiting is None:
            return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        job, queue = waiting
        self.reorder_queues(reference_queue=queue)
        job.redis_server_version = self.get_redis_server_version()
        if self.log_job_description:
            self.log.info("Worker %s: %s: %s (%s)", self.name, green(queue.name), blue(job.description), job.id)
        else:
            self.log.info("Worker %s: %s: %s", self.name, green(queue.name), job.id)
        return waiting

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """Store this worker's state (`rq info` shows it), unless Redis holds it already.

        RQ stores "idle" at every wait for a job, also after a wait that found none (every `dequeue_timeout`).
        """
        if pipeline is None and state == self.stored_state:
            self._state = state
            return
        super().set_state(state, pipeline)
        # within a pipeline the write is not done yet (and may fail): the next direct write goes through
        self.stored_state = state if pipeline is None else None

    def stop_scheduler(self) -> None:
        """Stop RQ's scheduler process as RQ does (SIGTERM, then wait), but kill it after `SCHEDULER_STOP_SECONDS`.

        It looks at a stop request only between two rounds, and a round waits out a Redis outage: RQ's own join
        would then wait for ever.
        """
        process = self.scheduler._process if self.scheduler else None
        if process is None or not process.pid:
            return
        with contextlib.suppress(OSError):
            os.kill(process.pid, signal.SIGTERM)
        process.join(SCHEDULER_STOP_SECONDS)
        if process.is_alive():
            process.kill()
            process.join()

    @property
    def dequeue_timeout(self) -> int:
        """Wake up from waiting for a job at least once per sweep interval."""
        return max(1, min(super().dequeue_timeout, int(SWEEP_INTERVAL_SECONDS)))

    @property
    def should_run_maintenance_tasks(self) -> bool:
        """RQ's own maintenance when due, and the sweep once per interval."""
        return super().should_run_maintenance_tasks or self._sweep_due()

    def _sweep_due(self) -> bool:
        return time.monotonic() - self.last_swept >= SWEEP_INTERVAL_SECONDS

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance if due, then the sweep (never fatal: the next interval tries again)."""
        if super().should_run_maintenance_tasks:
            super().run_maintenance_tasks()
        if self._sweep_due():
            self.last_swept = time.monotonic()
            try:
                sweep(game_store(self.key_prefix), self.queues, SWEEP_INTERVAL_SECONDS)
            except STORE_ERRORS:
                log.warning("sweep failed: Redis unreachable", exc_info=True)


def sweep(store: GameStore, queues: list, interval: float) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    """Revive the dead AI turns and timeouts of every active game (once per `interval` across all workers).

    Returns the `(game_id, seat)` of the AI turns revived.
    """
    if not store.client.set(f"{store.prefix}:sweep-lock", 1, nx=True, px=max(1, int(interval * 1000) - 100)):
        return []  # another worker swept within this interval
    store.prune_indexes()  # first: it also re-scores a live game whose index write was lost
    revived = []
    queue = make_queue(queues[0].connection, queues[0].name)
    for game_id in store.active_game_ids():
        try:
            record = store.load(game_id)
        except GameNotFound:
            store.forget(game_id)  # expired
            continue
        except (KeyError, TypeError, ValueError):  # a record this version cannot read must not stop the others
            log.exception("sweep: cannot read the record of game %s", game_id)
            continue
        revived += [(game_id, seat) for seat in revive_ai_turns(store, queue, record)]
        revive_timeouts(store, queue, record, lifetimes()["AI_JOB_STALE_SECONDS"])
    return revived
