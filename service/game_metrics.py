"""Prometheus metrics: per-process HTTP metrics, and game metrics shared through Redis (docs/operations/metrics.md).

Two kinds of numbers, kept where they can be summed correctly:

- HTTP requests (count and latency by route and status) happen in gunicorn's worker processes. They live in
  prometheus-client metrics; under gunicorn these run in multiprocess mode (`PROMETHEUS_MULTIPROC_DIR`, set up
  and cleaned by `service/gunicorn_conf.py`), so `/metrics` of a pod reports all of its processes. Each web pod
  reports its own requests; Prometheus sums the pods.
- Game metrics (actions applied, AI decision time, AI queue depth, active games) are written by web processes
  and by RQ workers, which in Kubernetes are other pods with no shared disk. They live in Redis, under the key
  prefix (`<prefix>:metrics:*`, `<prefix>:index:active:<game>[:private]`), and every web pod's `/metrics` reads them at
  scrape time: they are cluster-wide totals, the same on every pod (aggregate them with `max`, not `sum`).

Flask-free, and prometheus-client is only imported to read: the worker imports this module to write its numbers
with plain Redis commands. Writes are best effort: a failed metric write never fails the move that caused it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import redis

from engine.protocol import Event
from service.lobby_index import index_key
from service.records import Status
from service.redis_clients import STORE_ERRORS
from service.store import unreplicated_key

log = logging.getLogger(__name__)

AI_DECISION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, math.inf)
"""Upper bounds (seconds) of the AI decision time histogram; the worker's job timeout is 60 s."""

_SEPARATOR = "|"


def actions_key(prefix: str) -> str:
    """Hash `<game>|<type>` -> number of actions applied."""
    return f"{prefix}:metrics:actions"


def ai_decision_key(prefix: str) -> str:
    """Hash `<game>|<level>|<bucket upper bound>` -> decisions in that bucket, and `<game>|<level>|sum` -> seconds."""
    return f"{prefix}:metrics:ai_decision_seconds"


def ai_fallbacks_key(prefix: str) -> str:
    """Hash `<game>|<level>|<reason>` -> moves a fallback level made because `level` failed (`error`, `timeout`)."""
    return f"{prefix}:metrics:ai_fallbacks"


def quick_match_failures_key(prefix: str) -> str:
    """Hash `<game>` -> quick-match tables whose game could not be created (service/matchmaking.py `fall_back_due`)."""
    return f"{prefix}:metrics:quick_match_failures"


def webhook_deliveries_key(prefix: str) -> str:
    """Hash `<event>|<outcome>` -> webhook delivery attempts that ended so (service/webhooks.py)."""
    return f"{prefix}:metrics:webhook_deliveries"


FLUSH_SECONDS = 1.0
"""How often a process adds its new game metric counts to Redis's (a scrape of the process adds them at once)."""
IDLE_FLUSHES = 10
"""After this many flushes in a row with nothing new, the flushing stops until the next count."""


class PendingCounts:
    """This process's game metric counts not yet added to Redis: `(client, key, field) -> amount`.

    A move counts its action in memory; every `FLUSH_SECONDS` one pipelined round trip adds the counts of every move
    since (HINCRBY, HINCRBYFLOAT for sums), so a move sends no command of its own for its metrics. A process that
    stops loses its last `FLUSH_SECONDS` of counts at most: metrics are best effort. Thread- and greenlet-safe;
    the flushing starts with the first count, in the process that counts.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[tuple[redis.Redis, str, str], float] = {}
        self._flusher: threading.Thread | None = None
        self._failing = False

    def add(self, client: redis.Redis, key: str, field: str, amount: float) -> None:
        """Add `amount` (an int for a count, a float for a sum of seconds) to `field` of the hash `key` in `client`."""
        with self._lock:
            self._pending[client, key, field] = self._pending.get((client, key, field), 0) + amount
            if self._flusher is None:
                self._flusher = threading.Thread(target=self._flush_forever, name="cardroom-metrics", daemon=True)
                self._flusher.start()

    def flush(self, only: redis.Redis | None = None) -> None:
        """Add the pending counts (`only`: those of that client) to Redis now.

        A Redis that fails keeps its counts for the next flush (logged once until a flush succeeds).
        """
        with self._lock:
            batch = {name: amount for name, amount in self._pending.items() if only is None or name[0] is only}
            for name in batch:
                del self._pending[name]
        for client in {client for client, _, _ in batch}:
            counts = {(key, field): amount for (owner, key, field), amount in batch.items() if owner is client}
            try:
                with client.pipeline(transaction=False) as pipe:
                    for (key, field), amount in counts.items():
                        if isinstance(amount, float):
                            pipe.hincrbyfloat(key, field, amount)
                        else:
                            pipe.hincrby(key, field, amount)
                    pipe.execute()
                self._failing = False
            except STORE_ERRORS as error:
                if not self._failing:
                    log.warning("game metrics not written to Redis (%s): kept for the next try", error)
                self._failing = True
                for (key, field), amount in counts.items():
                    self.add(client, key, field, amount)

    def _flush_forever(self) -> None:
        idle = 0
        while True:
            time.sleep(FLUSH_SECONDS)
            with self._lock:
                idle = 0 if self._pending else idle + 1
                if idle >= IDLE_FLUSHES:
                    self._flusher = None  # under the lock: a count from now on starts a new one
                    return
            self.flush()


PENDING = PendingCounts()
"""The game metric counts of this process (`count_action`, `observe_ai_decision`), flushed by `RedisGameCollector`
before it reads."""


def count_action(
    client: redis.Redis,
    prefix: str,
    game: str,
    action_type: str,
    notes: Sequence[Event] = (),
    decision: tuple[str, float] | None = None,
) -> None:
    """Count one applied action of `game` (human or AI), each `ai_fallback` among its `notes`, and its `decision`.

    `decision` is `(level, seconds)` for an AI seat's move: the time its level took to choose it
    (`observe_ai_decision`). `client` is the game store's; the counts reach it with the next flush (`PENDING`).
    """
    PENDING.add(client, actions_key(prefix), f"{game}{_SEPARATOR}{action_type}", 1)
    for note in notes:
        if note.type == "ai_fallback":
            field = _SEPARATOR.join([game, str(note.public["level"]), str(note.public["reason"])])
            PENDING.add(client, ai_fallbacks_key(prefix), field, 1)
    if decision is not None:
        observe_ai_decision(client, prefix, game, *decision)


def observe_ai_decision(client: redis.Redis, prefix: str, game: str, level: str, seconds: float) -> None:
    """Count one observation of how long an AI of `level` took to choose in `game` (the decision time histogram)."""
    bound = next(bound for bound in AI_DECISION_BUCKETS if seconds <= bound)
    field = f"{game}{_SEPARATOR}{level}{_SEPARATOR}"
    PENDING.add(client, ai_decision_key(prefix), field + _bound_text(bound), 1)
    PENDING.add(client, ai_decision_key(prefix), field + "sum", float(seconds))


def count_webhook_delivery(client: redis.Redis, prefix: str, event: str, outcome: str) -> None:
    """Count one webhook delivery attempt of `event` that ended with `outcome` (worker/webhooks.py `deliver`).

    `delivered`, `retried` (failed, tried again later), `failed` (refused by the receiver, or the last attempt),
    `refused` (its host no longer allowed), `dropped` (the seat changed hands or the game is gone) or
    `not_enqueued` (the queue Redis failed when the move was stored: service/webhooks.py `notify`).
    """
    PENDING.add(client, webhook_deliveries_key(prefix), f"{event}{_SEPARATOR}{outcome}", 1)


def count_quick_match_failure(client: redis.Redis, prefix: str, game: str) -> None:
    """Count one quick-match table of `game` the sweep could not seat (service/matchmaking.py `fall_back_due`)."""
    PENDING.add(client, quick_match_failures_key(prefix), game, 1)


def _bound_text(bound: float) -> str:
    return "+Inf" if math.isinf(bound) else repr(bound)


class RedisGameCollector:
    """A prometheus-client collector reading the game metrics from Redis at scrape time.

    `queues` are the RQ queues of AI turns, one per queue Redis (service/scheduling.py `Queues`); `games` the
    game ids to report active games for.
    """

    def __init__(self, client: redis.Redis, prefix: str, queues: Any, games: list[str]) -> None:
        self.client, self.prefix, self.queues, self.games = client, prefix, queues, games

    def describe(self) -> list[Any]:
        """Nothing up front: the collector is registered only in the scrape's own registry."""
        return []

    def collect(self) -> Iterator[Any]:
        """Yield the game metric families, read from Redis in one round trip.

        `cardroom_actions_applied`, `cardroom_ai_decision_seconds`, `cardroom_ai_fallbacks`,
        `cardroom_ai_queue_depth`, `cardroom_active_games`, `cardroom_unreplicated_writes`,
        `cardroom_webhook_deliveries`, `cardroom_quick_match_failures`.
        """
        # only a scrape reads prometheus-client: the worker, which imports this module to write, never loads it
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        PENDING.flush(self.client)  # this process's latest counts too
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(actions_key(self.prefix))
            pipe.hgetall(ai_decision_key(self.prefix))
            pipe.hgetall(ai_fallbacks_key(self.prefix))
            pipe.get(unreplicated_key(self.prefix))
            pipe.hgetall(webhook_deliveries_key(self.prefix))
            pipe.hgetall(quick_match_failures_key(self.prefix))
            for game in self.games:
                for private in (False, True):
                    pipe.zcount(index_key(self.prefix, Status.ACTIVE, game, private), time.time(), "+inf")
            actions, decisions, fallbacks, unreplicated, hooks, unseated, *counts = pipe.execute()
        active = [public + private for public, private in zip(counts[::2], counts[1::2], strict=True)]

        applied = CounterMetricFamily(
            "cardroom_actions_applied", "Game actions applied, by humans and AI seats", labels=["game", "type"]
        )
        for field, count in sorted(actions.items()):
            game, _, action_type = field.decode().partition(_SEPARATOR)
            applied.add_metric([game, action_type], int(count))
        yield applied

        histogram = HistogramMetricFamily(
            "cardroom_ai_decision_seconds", "Time an AI seat took to choose a move", labels=["game", "level"]
        )
        for (game, level), (buckets, total) in sorted(_histograms(decisions).items()):
            histogram.add_metric([game, level], buckets, total)
        yield histogram

        fell_back = CounterMetricFamily(
            "cardroom_ai_fallbacks",
            "AI moves a fallback level made because the seat's level failed (reason: error or timeout)",
            labels=["game", "level", "reason"],
        )
        for field, count in sorted(fallbacks.items()):
            fell_back.add_metric(field.decode().split(_SEPARATOR), int(count))
        yield fell_back

        # one queue Redis: one sample, as before there could be several; several: one per queue Redis, labelled by
        # its place in RQ_REDIS_URL's list (sum() of the metric is the total either way)
        if len(self.queues) == 1:
            depth = GaugeMetricFamily("cardroom_ai_queue_depth", "AI turns waiting in the RQ queue for a worker")
            depth.add_metric([], self.queues[0].count)
        else:
            depth = GaugeMetricFamily("cardroom_ai_queue_depth", "AI turns waiting in the RQ queue for a worker",
                                      labels=["queue_redis"])
            for number, queue in enumerate(self.queues):
                depth.add_metric([str(number)], queue.count)
        yield depth

        waits = CounterMetricFamily(
            "cardroom_unreplicated_writes",
            "Game writes answered although fewer than REDIS_WAIT_REPLICAS replicas acknowledged them in time",
        )
        waits.add_metric([], int(unreplicated or 0))
        yield waits

        deliveries = CounterMetricFamily(
            "cardroom_webhook_deliveries", "Webhook delivery attempts, by event and outcome",
            labels=["event", "outcome"],
        )
        for field, count in sorted(hooks.items()):
            deliveries.add_metric(field.decode().split(_SEPARATOR), int(count))
        yield deliveries

        failures = CounterMetricFamily(
            "cardroom_quick_match_failures", "Quick-match tables whose game could not be created", labels=["game"],
        )
        for field, count in sorted(unseated.items()):
            failures.add_metric([field.decode()], int(count))
        yield failures

        games = GaugeMetricFamily("cardroom_active_games", "Games in play (status active)", labels=["game"])
        for game, count in zip(self.games, active, strict=True):
            games.add_metric([game], int(count))
        yield games


def _histograms(fields: dict[bytes, bytes]) -> dict[tuple[str, str], tuple[list[tuple[str, float]], float]]:
    """Cumulative buckets and sum per (game, level) from the per-bucket counts the worker wrote."""
    counts: dict[tuple[str, str], dict[str, float]] = {}
    for field, value in fields.items():
        game, level, bound_or_sum = field.decode().split(_SEPARATOR)
        counts.setdefault((game, level), {})[bound_or_sum] = float(value)
    result = {}
    for labels, by_bound in counts.items():
        cumulative, buckets = 0.0, []
        for bound in AI_DECISION_BUCKETS:
            cumulative += by_bound.get(_bound_text(bound), 0.0)
            buckets.append((_bound_text(bound), cumulative))
        result[labels] = (buckets, by_bound.get("sum", 0.0))
    return result
