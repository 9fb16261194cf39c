"""The Cardroom RQ worker: RQ's `SimpleWorker`, its jobs kept marked alive, and a sweep for dead AI turns.

A job runs in the worker's own process, not in a work horse forked per job: a fork cost ~25 ms of every AI turn's
wait and held one worker process to a few dozen moves a second (docs/benchmarks.md, AI job latency). An AI turn is
short, bounded Python (the search levels' budgets) under RQ's job time limit, which `SimpleWorker` enforces
in-process with SIGALRM as the forking worker does in its horse.

Every queue-Redis command counts: one queue Redis carries every AI move of its games (docs/scaling.md). Around each
job RQ's loop renewed the worker's registration three times, checked for a suspension, stored its state twice,
kept an execution record (a hash, a sorted set, the started registry's entry and the worker's set, each with its
expiry, all deleted again at the end) and a result with the finished registry's entry: ~50 commands. Here a job
costs five: its dequeue, its fetch, its start (status, worker and heartbeat in the job's hash, out of RQ's
intermediate list) and, for an AI turn, which keeps no result (`result_ttl=0`), the deletion of its hash. The
registration, the state `rq info` shows, the success count and the working time are written with the renewal, at
most once per `RENEW_SECONDS`, as is the check for `rq suspend`. The job's own `last_heartbeat` is its mark of
life (service/turns.py `job_is_live`), renewed by one lifelong thread while it runs; RQ's execution records, whose
only reader is RQ's started registry, are not written, so `rq info` lists no started jobs. It logs two lines per
job (the dequeue, RQ's "Job OK"), not four.

The sweep: RQ notices a job abandoned by a killed worker only after its timeout plus a minute, at a registry
cleaning that runs every ten minutes, and then marks it failed without running it again. Meanwhile the game would
wait for a move nobody computes. So every `SWEEP_INTERVAL_SECONDS` one worker of each queue Redis (a Redis lock
picks it) looks at each active game under `KEY_PREFIX` that may have such a turn (an AI seat, a clock, or rules
that hand a seat to an AI: service/lobby_index.py `swept`) whose AI turns go to its queue Redis
(`service.scheduling.queue_shard`) and enqueues again the AI turns whose job is gone
(`service.turns.revive_ai_turns`); the version check makes the move happen exactly once even if the old job was
only slow. It schedules again, the same way, a clock's timeout whose job is gone (worker/timeouts.py
`revive_timeouts`). Once per `FULL_SWEEP_SECONDS` it looks at every active game instead, and indexes again those
of that kind the index lacks (a write lost to an outage). One sweep an interval, over all the queue Redis, also
drops expired games from the indexes (`LobbyIndexes.prune`, service/lobby_index.py).
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
from rq.registry import StartedJobRegistry
from rq.suspension import WORKERS_SUSPENDED
from rq.utils import now as rq_now
from rq.worker import WorkerStatus

from service.config import lifetimes
from service.matchmaking import Matchmaker
from service.redis_clients import STORE_ERRORS, UntilRedisAnswers
from service.scheduling import Queues, queue_shard
from service.store import GameNotFound, GameStore
from service.turns import AI_JOB_TIMEOUT_SECONDS, make_queue, revive_ai_turns
from worker.jobs import game_store
from worker.timeouts import revive_timeouts

log = logging.getLogger(__name__)

SWEEP_INTERVAL_SECONDS = float(os.environ.get("AI_SWEEP_INTERVAL_SECONDS", "5"))
FULL_SWEEP_SECONDS = 60.0
"""How often a sweep looks at every active game, not only those of its index (`sweep`): a game whose index write
was lost waits at most this long for a turn to be revived."""
RENEW_SECONDS = 1.0
"""How often, at most, a busy worker renews its registration and looks for `rq suspend` (RQ: around every job)."""
SCHEDULER_STOP_SECONDS = 5
"""How long a stopping worker waits for its scheduler process (a round of it takes milliseconds, then 1 s pause)."""


class CardroomWorker(SimpleWorker):
    """An RQ worker that runs jobs in its own process and also sweeps for dead AI turns between jobs and while idle."""

    log_result_lifespan = False
    """RQ's "result is kept for N seconds" after every job: the same line each time."""

    def __init__(self, *args, key_prefix: str, shard: tuple[int, int] = (0, 1), **kwargs) -> None:  # type: ignore[no-untyped-def]
        """RQ's worker of the queue Redis `shard` = (index, count) (service/config.py `worker_shard`).

        Its sweep looks at the games under `key_prefix` whose jobs go there.
        """
        kwargs.setdefault("job_monitoring_interval", lifetimes()["AI_JOB_HEARTBEAT_SECONDS"])
        super().__init__(*args, **kwargs)
        self.key_prefix = key_prefix
        self.shard = shard
        self.last_swept = 0.0
        self.last_renewed = -math.inf
        self.suspension_seen = False
        self.stored_state: str | None = None
        self.unsaved_successes = 0
        self.unsaved_working_seconds = 0.0
        self.running: tuple[Job, float] | None = None
        """The job being run (with its `time.monotonic()` start) while `marker` may mark it alive."""
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

    def execute_job(self, job: Job, queue: Queue) -> None:
        """RQ's `SimpleWorker.execute_job` without an execution record: the job started (`start_job`), then run.

        The states "busy" and "idle" are noted here and stored with the next renewal (`heartbeat`).
        """
        self.set_state(WorkerStatus.BUSY)
        self.start_job(job, queue)
        self.perform_job(job, queue, None)
        self.set_state(WorkerStatus.IDLE)

    def start_job(self, job: Job, queue: Queue) -> None:
        """Mark `job` started by this worker (status, start, heartbeat: one HSET); take it off RQ's intermediate list.

        RQ also stores an execution record and the worker's state and registration here, in one transaction of 17
        commands; none of them is read by Cardroom, which tells a live job by its hash alone (`job_is_live`).
        """
        with self.connection.pipeline(transaction=False) as pipeline:
            job.prepare_for_execution(self.name, pipeline=pipeline)
            if job.ttl:  # as RQ: a job with a time to live must not expire while it runs (no job here has one)
                pipeline.persist(job.key)
            if len(self.queues) == 1:  # as RQ's `perform_job`: the dequeue left it in the queue's intermediate list
                pipeline.lrem(queue.intermediate_queue_key, 1, job.id)
            pipeline.execute()

    def perform_job(self, job: Job, queue: Queue, execution: Execution | None) -> bool:
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
            self.running = job, time.monotonic()
        try:
            return super().perform_job(job, queue, execution)  # type: ignore[arg-type] # RQ accepts none
        finally:  # `handle_execution_ended` did it, unless RQ's own bookkeeping raised first
            with self.running_lock:
                self.running = None

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """The job returned or raised: stop marking it before RQ records its end (a round trip less after a success).

        A mark after the job's hash is deleted would make a hash of its heartbeat alone (rq/rq#1450). RQ stamps
        the job's end and writes its last heartbeat (an HSET, a round trip of its own) so that a callback run
        next counts as alive: after a job that raised (RQ marks it failed first), the failure callback
        (`ai_turn_failed`) runs next, so that stays. After a job that returned, with no success callback, RQ's
        next write is the job's end (`handle_job_success`): it is only stamped.
        """
        with self.running_lock:  # waits for a mark in flight
            self.running = None
        if job.get_status(refresh=False) == JobStatus.FAILED or job.success_callback is not None:
            super().handle_execution_ended(job, queue, heartbeat_ttl)
            return
        job.ended_at = job.last_heartbeat = rq_now()

    def handle_job_success(
        self, job: Job, queue: Queue, started_job_registry: StartedJobRegistry, execution: Execution | None
    ) -> None:
        """RQ's record of a succeeded job, without reading its dependents: for an AI turn, its hash deleted.

        An AI turn keeps no result (`result_ttl=0`: its result is the game's next version), no dependents and no
        execution record, so its hash is all there is to delete: one command instead of RQ's transaction of 16.
        Another job (a clock's timeout) is saved finished with its result, as RQ does, without RQ's two reads of
        its dependents first (no job here has any: every job is enqueued by service/scheduling.py
        `enqueue_once`, and no caller gives one a `depends_on`). The worker's success count and working time are
        stored with its next renewal. A job that repeats or is rate-limited (none here either) goes RQ's own way.
        """
        if job.repeats_left is not None or job.has_rate_limit:
            super().handle_job_success(job, queue, started_job_registry, execution)  # type: ignore[arg-type]
            return
        assert job.started_at is not None and job.ended_at is not None, "set by perform_job and handle_execution_ended"
        self.unsaved_successes += 1
        self.unsaved_working_seconds += (job.ended_at - job.started_at).total_seconds()
        result_ttl = job.get_result_ttl(self.default_result_ttl)
        if result_ttl == 0:
            self.connection.delete(job.key)
        else:
            with self.connection.pipeline() as pipeline:
                job._handle_success(result_ttl, pipeline=pipeline, worker_name=self.name,
                                    execution_started_at=job.started_at, execution_ended_at=job.ended_at)
                job.cleanup(result_ttl, pipeline=pipeline, remove_from_queue=False)
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
                job, started = self.running
                if time.monotonic() - started > (job.timeout or AI_JOB_TIMEOUT_SECONDS) + 60:
                    continue
                try:
                    with self.connection.pipeline(transaction=False) as mark:
                        self.heartbeat(self.job_monitoring_interval + 60, mark)
                        job.heartbeat(rq_now(), 0, mark)  # RQ 3.0 ignores the time to live given here
                        mark.execute()
                except Exception:  # never let a failed mark end the marking: the next one may succeed
                    log.warning("job %s: could not mark it alive", job.id, exc_info=True)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """Renew this worker's registration: within `pipeline` as RQ asks, else at most once per `RENEW_SECONDS`.

        RQ renews it, three commands one at a time, three times around every job; the registration lives
        `worker_ttl` + 60 s (8 minutes), so once a second loses nothing. The renewal is one round trip, which
        also stores the state noted since the last one (`set_state`) and the successes and working time counted
        since (`handle_job_success`), and looks for `rq suspend` (`check_for_suspension`).
        """
        if pipeline is not None:
            super().heartbeat(timeout, pipeline)
            return
        if time.monotonic() - self.last_renewed < RENEW_SECONDS:
            return
        state, successes, seconds = self._state, self.unsaved_successes, self.unsaved_working_seconds
        with self.connection.pipeline(transaction=False) as renewal:
            super().heartbeat(timeout, renewal)
            if state != self.stored_state:
                renewal.hset(self.key, "state", state)
            if successes:
                renewal.hincrby(self.key, "successful_job_count", successes)
                renewal.hincrbyfloat(self.key, "total_working_time", seconds)
            renewal.exists(WORKERS_SUSPENDED)
            self.suspension_seen = bool(renewal.execute()[-1])
        self.stored_state = state
        self.unsaved_successes -= successes
        self.unsaved_working_seconds -= seconds
        self.last_renewed = time.monotonic()

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's wait while `rq suspend` holds, once the last renewal saw it, instead of a transaction before every job.

        RQ renews the registration and reads the suspension (five commands in a transaction) before every job.
        """
        self.heartbeat()
        if self.suspension_seen:
            super().check_for_suspension(burst)

    def register_death(self) -> None:
        """RQ's sign-off, after a last renewal that stores the successes and working time not stored yet."""
        self.last_renewed = -math.inf
        self.heartbeat()
        super().register_death()

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        """Only RQ's process title: `start_job` has stored the rest."""
        self.procline(f"Processing {job.func_name} from {job.origin} since {time.time()}")

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """Note this worker's state (`rq info` shows it): stored within `pipeline` as RQ asks, else with the renewal.

        RQ stores "busy" before every job and "idle" after it and at every wait for a job, also after a wait that
        found none (every `dequeue_timeout`): two commands a job for what `rq info` shows.
        """
        if pipeline is None:
            self._state = state
            return
        super().set_state(state, pipeline)
        # within a pipeline the write is not done yet (and may fail): the next renewal stores it again
        self.stored_state = None

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
                sweep(game_store(self.key_prefix), self.queues[0], SWEEP_INTERVAL_SECONDS, self.shard)
            except STORE_ERRORS:
                log.warning("sweep failed: Redis unreachable", exc_info=True)


def sweep(store: GameStore, queue: Queue, interval: float, shard: tuple[int, int] = (0, 1)) -> list[tuple[str, int]]:
    """Revive the dead AI turns and timeouts of the active games whose jobs go to `queue`, once per `interval`.

    `queue` is on the queue Redis `shard` = (index, count) (service/scheduling.py `queue_shard`); one of its workers
    sweeps each interval. The games' indexes are pruned once per `interval` across the workers of all the queue Redis.
    With one queue Redis, both are the one lock `<prefix>:sweep-lock`. The games looked at are those of the sweep's
    index (`LobbyIndexes.swept_game_ids`), and once per `FULL_SWEEP_SECONDS` per queue Redis every active game; the
    index is put right from what was read (`LobbyIndexes.correct_swept`: a full sweep adds the games it lacks, every
    sweep drops those no longer active). The games are read `GameStore.LOAD_BATCH` to a
    round trip. Returns the `(game_id, seat)` of the AI turns revived.
    """
    index, count = shard
    expiry = max(1, int(interval * 1000) - 100)
    lock = f"{store.prefix}:sweep-lock"
    if not store.client.set(lock if count == 1 else f"{lock}:{index}", 1, nx=True, px=expiry):
        return []  # another worker of this queue Redis swept within this interval
    if count == 1 or store.client.set(lock, 1, nx=True, px=expiry):
        store.lobby.prune()  # first: it also re-scores a live game whose index write was lost
    revived = []
    queues = Queues([make_queue(queue.connection, queue.name)])
    # quick-match fallbacks due (docs/api-additions.md "Quick match"): here, not one RQ job per ticket, since a
    # sorted set's entry costs less than a job's hash and the scheduler's entry, and nothing to undo when the
    # ticket is matched or cancelled first; a due fallback waits at most an interval (a polling client's read
    # seats it at once). A table that cannot be seated is logged and counted there, never raised: the revivals
    # below must run every interval
    Matchmaker.configured(store).fall_back_due(queues, shard)
    # a full sweep is due when none began within FULL_SWEEP_SECONDS, whatever became of it: marked when it ended, a
    # long one (more games than an interval reads) would begin again at every interval, and a failing one at each
    full = store.client.set(f"{lock}:full:{index}", 1, nx=True, px=max(1, int(FULL_SWEEP_SECONDS * 1000) - 100))
    game_ids = [game_id for game_id in (store.lobby.active_game_ids() if full else store.lobby.swept_game_ids())
                if count == 1 or queue_shard(game_id, count) == index]  # else another queue Redis's workers sweep it
    add: dict[str, float] = {}
    drop: list[str] = []
    for game_id, load in store.load_each(game_ids):
        try:
            record = load()
        except GameNotFound:
            store.lobby.forget(game_id)  # expired
            continue
        except (KeyError, TypeError, ValueError):  # a record this version cannot read must not stop the others
            log.exception("sweep: cannot read the record of game %s", game_id)
            continue
        entry = store.lobby.swept_entry(record)
        if entry is None:
            drop.append(game_id)  # ended (or never belonged): no longer looked at every interval
        elif full:
            add[game_id] = entry
        revived += [(game_id, seat) for seat in revive_ai_turns(store, queues, record)]
        revive_timeouts(store, queues[0], record, lifetimes()["AI_JOB_STALE_SECONDS"])
    store.lobby.correct_swept(add, drop)
    return revived
