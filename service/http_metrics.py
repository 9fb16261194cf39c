"""This process's HTTP request metrics, and the registry one `GET /metrics` scrape reads (docs/operations/metrics.md).

Request metrics are labelled by the URL rule (`/v1/games/<game_id>`), never the raw path, so a game id never
becomes a label value, and by the method only when it is one of `METHODS` (else `other`): any client may send any
method, and each label value is a series kept for the process's life (1,000 made-up methods grew the page by 1.7 MB).
Under gunicorn (several processes) prometheus-client's multiprocess mode adds up every
process's numbers; game metrics come from Redis (service/game_metrics.py).
"""

from __future__ import annotations

import logging
import os
import platform
import time
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version

from flask import Flask, Response, current_app, g, request
from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from engine import GAMES
from service.game_metrics import RedisGameCollector

log = logging.getLogger(__name__)
try:
    VERSION = version("cardroom")
except PackageNotFoundError:  # run from a source tree that was never installed
    VERSION = "unknown"

# Our own registry, not prometheus-client's global one: in multiprocess mode the numbers are read back from the
# files of every process instead, and the global registry's process/GC collectors do not apply there.
HTTP_REGISTRY = CollectorRegistry()
REQUESTS = Counter(
    "cardroom_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=HTTP_REGISTRY
)
LATENCY = Histogram(
    "cardroom_http_request_duration_seconds",
    "Time to answer an HTTP request (long-polls and streams are not in it: see cardroom_long_poll_duration_seconds)",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=HTTP_REGISTRY,
)
LONG_POLLS = Histogram(
    "cardroom_long_poll_duration_seconds",
    "Time a long-poll (GET a view with after_version and wait) was held: 200 a new version came, 304 none came",
    ["status"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0),
    registry=HTTP_REGISTRY,
)
STREAMS = Counter(
    "cardroom_streams_opened", "Event streams (GET /v1/games/{game_id}/stream) answered, by status", ["status"],
    registry=HTTP_REGISTRY,
)
RATE_LIMITED = Counter(
    "cardroom_rate_limited", "Requests refused 429 rate_limited, by the limit they broke (address or token)",
    ["scope"], registry=HTTP_REGISTRY,
)
VIEW_RULE = "/v1/games/<game_id>"
STREAM_RULE = "/v1/games/<game_id>/stream"
UNMATCHED = "<unmatched>"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The methods counted by name (RFC 9110 §9 and PATCH, less CONNECT and TRACE, which nothing here serves)."""
OTHER_METHOD = "other"


def method_label(method: str) -> str:
    """The `method` label of a request: the method itself if it is one of `METHODS`, else `other`."""
    return method if method in METHODS else OTHER_METHOD


def init_app(app: Flask) -> None:
    """Time every request of `app` and count it by method, URL rule and status."""

    @app.before_request
    def start_timer() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def count_request(response: Response) -> Response:
        started = g.pop("metrics_started", None)
        rule = request.url_rule
        route = rule.rule if rule is not None else UNMATCHED
        status = str(response.status_code)
        labels = (method_label(request.method), route, status)
        try:
            count, latency = _children(labels)
            count.inc()
            if route == STREAM_RULE:  # answered now, open for as long as the game goes on: a count, no duration
                STREAMS.labels(status).inc()
            elif started is not None:
                held = LONG_POLLS.labels(status) if route == VIEW_RULE and is_long_poll() else latency
                held.observe(time.perf_counter() - started)
        except OSError:  # e.g. the multiprocess directory vanished: lose the sample, not the response
            log.warning("could not record request metrics", exc_info=True)
        return response


_CHILDREN: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}


def _children(labels: tuple[str, str, str]) -> tuple[Counter, Histogram]:
    """`REQUESTS` and `LATENCY` of one (method, route, status), looked up once per process.

    prometheus-client's `labels` checks and joins the values under a lock on every call; the label sets are bounded
    (methods by `METHODS`, routes by the URL rules, statuses by what the app answers), so are these.
    """
    children = _CHILDREN.get(labels)
    if children is None:
        children = _CHILDREN[labels] = (REQUESTS.labels(*labels), LATENCY.labels(*labels))
    return children


def is_long_poll() -> bool:
    """Whether the request asked to wait (`after_version` with a `wait` above 0), as the view route reads it."""
    try:
        return "after_version" in request.args and float(request.args.get("wait", "0")) > 0
    except ValueError:
        return False  # refused 422 at once: an ordinary request


class _Registry:
    """A collector that yields what another registry holds (the in-process HTTP metrics)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def describe(self) -> list[object]:
        return []

    def collect(self):  # type: ignore[no-untyped-def]
        return self.registry.collect()


class BuildInfo:
    """`cardroom_build_info{version, python} 1`: which release and Python a pod runs (for joins and dashboards)."""

    def describe(self) -> list[object]:
        """Nothing up front: registered only in the scrape's own registry."""
        return []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """The one sample."""
        info = GaugeMetricFamily("cardroom_build_info", "The Cardroom release and Python of this server, always 1",
                                 labels=["version", "python"])
        info.add_metric([VERSION, platform.python_version()], 1)
        yield info


def scrape_registry() -> CollectorRegistry:
    """A registry for one scrape: HTTP metrics (every process's under multiprocess mode) plus Redis's.

    In one process the standard process, platform and GC collectors apply. Under gunicorn's multiprocess mode only
    the platform's (`python_info`) does: process and GC numbers are per process, and the process answering the
    scrape is a random one of the pod's, so they would mislead (prometheus-client's multiprocess documentation).
    """
    registry = CollectorRegistry(auto_describe=False)
    PlatformCollector(registry=registry)
    registry.register(BuildInfo())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)
    else:
        ProcessCollector(registry=registry)
        GCCollector(registry=registry)
        registry.register(_Registry(HTTP_REGISTRY))
    services = current_app.extensions["cardroom"]
    registry.register(
        RedisGameCollector(services.store.client, services.store.prefix, services.queues, sorted(GAMES))
    )
    return registry
