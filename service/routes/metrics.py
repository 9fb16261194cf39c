"""`GET /metrics` in Prometheus text format, and the request counters behind it (README "Metrics").

Request metrics are labelled by the URL rule (`/v1/games/<game_id>`), never the raw path, so a game id never
becomes a label value. Under gunicorn (several processes) prometheus-client's multiprocess mode adds up every
process's numbers; game metrics come from Redis (service/metrics.py).
"""

from __future__ import annotations

import logging
import os
import time

from flask import Flask, Response, current_app, g, request
from flask.views import MethodView
from flask_smorest import Blueprint
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from engine import GAMES
from service.metrics import RedisGameCollector

log = logging.getLogger(__name__)
blp = Blueprint("metrics", __name__, url_prefix="", description="Prometheus metrics")

# Our own registry, not prometheus-client's global one: in multiprocess mode the numbers are read back from the
# files of every process instead, and the global registry's process/GC collectors do not apply there.
HTTP_REGISTRY = CollectorRegistry()
REQUESTS = Counter(
    "cardroom_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=HTTP_REGISTRY
)
LATENCY = Histogram(
    "cardroom_http_request_duration_seconds",
    "Time to answer an HTTP request (long-polls include their wait)",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=HTTP_REGISTRY,
)
UNMATCHED = "<unmatched>"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
METRICS_EXAMPLE = (
    "# HELP cardroom_actions_applied_total Game actions applied, by humans and AI seats\n"
    "# TYPE cardroom_actions_applied_total counter\n"
    'cardroom_actions_applied_total{game="durak",type="attack"} 12.0\n'
)


def init_app(app: Flask) -> None:
    """Time every request of `app` and count it by method, URL rule and status."""

    @app.before_request
    def start_timer() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def count_request(response: Response) -> Response:
        started = g.pop("metrics_started", None)
        route = request.url_rule.rule if request.url_rule is not None else UNMATCHED
        labels = (request.method, route, str(response.status_code))
        try:
            REQUESTS.labels(*labels).inc()
            if started is not None:
                LATENCY.labels(*labels).observe(time.perf_counter() - started)
        except OSError:  # e.g. the multiprocess directory vanished: lose the sample, not the response
            log.warning("could not record request metrics", exc_info=True)
        return response


class _Registry:
    """A collector that yields what another registry holds (the in-process HTTP metrics)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def describe(self) -> list[object]:
        return []

    def collect(self):  # type: ignore[no-untyped-def]
        return self.registry.collect()


def scrape_registry() -> CollectorRegistry:
    """A registry for one scrape: HTTP metrics (every process's under multiprocess mode) plus Redis's."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)
    else:
        registry.register(_Registry(HTTP_REGISTRY))
    services = current_app.extensions["cardroom"]
    registry.register(
        RedisGameCollector(services.store.client, services.store.prefix, services.queue, sorted(GAMES))
    )
    return registry


@blp.route("/metrics")
class Metrics(MethodView):
    """Prometheus metrics."""

    @blp.doc(operationId="getMetrics")
    @blp.doc(responses={"200": {
        "description": "Prometheus text exposition format 0.0.4",
        "content": {"text/plain": {"schema": {"type": "string"}, "example": METRICS_EXAMPLE}},
    }})
    def get(self):  # type: ignore[no-untyped-def]
        """Metrics in Prometheus text format.

        `cardroom_http_requests_total` and `cardroom_http_request_duration_seconds` (by method, route, status)
        count this pod's processes; `cardroom_actions_applied_total` (by game, type),
        `cardroom_ai_decision_seconds` (by game, level), `cardroom_ai_queue_depth` and `cardroom_active_games`
        (by game) are read from Redis and are the same on every pod.
        """
        return Response(generate_latest(scrape_registry()), content_type=CONTENT_TYPE)
