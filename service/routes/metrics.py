"""`GET /metrics` in Prometheus text format (docs/operations/metrics.md).

This pod's HTTP metrics (service/http_metrics.py) and the game metrics every pod reads from Redis
(service/game_metrics.py).
"""

from __future__ import annotations

from flask import Response
from flask.views import MethodView
from prometheus_client import generate_latest

from service.extensions import Blueprint
from service.http_metrics import scrape_registry

blp = Blueprint("metrics", __name__, url_prefix="", description="Prometheus metrics")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
METRICS_EXAMPLE = (
    "# HELP cardroom_actions_applied_total Game actions applied, by humans and AI seats\n"
    "# TYPE cardroom_actions_applied_total counter\n"
    'cardroom_actions_applied_total{game="durak",type="attack"} 12.0\n'
)


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
