"""Prometheus metrics: per-process HTTP metrics, and game metrics shared through Redis (README "Metrics").

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
import time
from collections.abc import Iterator, Sequence
from typing import Any

import redis

from engine.protocol import Event
from service.store import STORE_ERRORS, Status, index_key, unreplicated_key

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


def count_action(
    pipe: Any,
    prefix: str,
    game: str,
    action_type: str,
    notes: Sequence[Event] = (),
    decision: tuple[str, float] | None = None,
) -> None:
    """Count one applied action of `game` (human or AI), each `ai_fallback` among its `notes`, and its `decision`.

    `decision` is `(level, seconds)` for an AI seat's move: the time its level took to choose it
    (`observe_ai_decision`). The counts are added to `pipe`, a pipeline of the game store's client that the caller
    executes once the move is stored: `GameStore.save`'s `also`, with the game's index entries (one round trip).
    """
    pipe.hincrby(actions_key(prefix), f"{game}{_SEPARATOR}{action_type}", 1)
    for note in notes:
        if note.type == "ai_fallback":
            field = _SEPARATOR.join([game, str(note.public["level"]), str(note.public["reason"])])
            pipe.hincrby(ai_fallbacks_key(prefix), field, 1)
    if decision is not None:
        _add_decision(pipe, prefix, game, *decision)


def observe_ai_decision(client: redis.Redis, prefix: str, game: str, level: str, seconds: float) -> None:
    """Record how long an AI of `level` took to choose in `game`, when no move was stored (else `count_action`)."""
    try:
        with client.pipeline(transaction=False) as pipe:
            _add_decision(pipe, prefix, game, level, seconds)
            pipe.execute()
    except STORE_ERRORS:
        log.warning("could not record an AI decision time", exc_info=True)


def _add_decision(pipe: Any, prefix: str, game: str, level: str, seconds: float) -> None:
    """One observation of the AI decision time histogram, added to `pipe`."""
    bound = next(bound for bound in AI_DECISION_BUCKETS if seconds <= bound)
    field = f"{game}{_SEPARATOR}{level}{_SEPARATOR}"
    pipe.hincrby(ai_decision_key(prefix), field + _bound_text(bound), 1)
    pipe.hincrbyfloat(ai_decision_key(prefix), field + "sum", seconds)


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
        `cardroom_ai_queue_depth`, `cardroom_active_games`, `cardroom_unreplicated_writes`.
        """
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(actions_key(self.prefix))
            pipe.hgetall(ai_decision_key(self.prefix))
            pipe.hgetall(ai_fallbacks_key(self.prefix))
            pipe.get(unreplicated_key(self.prefix))
            for game in self.games:
                for private in (False, True):
                    pipe.zcount(index_key(self.prefix, Status.ACTIVE, game, private), time.time(), "+inf")
            actions, decisions, fallbacks, unreplicated, *counts = pipe.execute()
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
