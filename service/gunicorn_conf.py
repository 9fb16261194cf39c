"""gunicorn settings, from the environment (`gunicorn -c python:service.gunicorn_conf service.wsgi:app`).

| variable | default | what |
|---|---|---|
| `CARDROOM_BIND` | `127.0.0.1:8000` | address (the image sets `0.0.0.0:8000`) |
| `WEB_CONCURRENCY` | `2` | worker processes |
| `MAX_WAITERS` | `10000` | clients one process lets wait (long-polls and streams); connections are capped above it |
| `BODY_READ_TIMEOUT_SECONDS` | `5` | seconds a request's body may take after its headers (service/gunicorn_worker.py) |
| `GUNICORN_ACCESSLOG` | `-` | access log file (`-`: stdout) |
| `PROMETHEUS_MULTIPROC_DIR` | a new temporary directory | where the workers keep their metrics (cleaned at start) |
"""

import gc
import os
import resource
import shutil
import tempfile
from pathlib import Path

# Nothing here imports redis: gunicorn's master must not load what gevent monkey-patches in each worker.
from service.config import max_waiters

bind = os.environ.get("CARDROOM_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# gevent: every connection is a greenlet, so a client held in a long-poll or a stream costs about 30 KB, not an OS
# thread, and idle or slow connections never stop the others being served. The CPU-bound work of a request (the
# engine applying a move, building a view) runs without yielding, but it is bounded by the size of one game: a few
# milliseconds; AI searches never run here (RQ workers play them).
worker_class = "service.gunicorn_worker.GeventWorker"
# Room for every waiter plus the other requests; beyond it gunicorn stops accepting until a connection ends.
worker_connections = max_waiters() + 2000
# A connection that does not complete a request's line and headers within this many seconds is closed (gevent's
# timeout around each request read): a client sending them byte by byte, or an idle keep-alive connection, holds its
# greenlet no longer. gunicorn reads the body later, as the app asks: service/gunicorn_worker.py bounds that
# (`BODY_READ_TIMEOUT_SECONDS`).
keepalive = 5
# gunicorn answers a request beyond these limits itself, in HTML; set above the app's own (service/limits.py:
# 4094, 100, 8190), so that the app answers the usual excess with the JSON error envelope.
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16380
timeout = 60
# Long-polls and streams are answered at once on shutdown (service/gunicorn_worker.py): what is left is requests
# in flight, which take milliseconds.
graceful_timeout = 10
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-")
# JSON lines with the request id, never a header or query string (service/logs.py)
logger_class = "service.logs.JsonGunicornLogger"
# gunicorn's control socket lives under $HOME, which a read-only root file system (the image, the chart) lacks.
control_socket_disable = True


_temporary_dir: str | None = None


def raise_open_files_limit(needed: int) -> tuple[int, int]:
    """Raise this process's soft limit of open files (RLIMIT_NOFILE) to `needed`, at most to the hard limit.

    Each held connection is a file descriptor: `worker_connections` clients need that many and more, while the
    usual soft default is 1,024 (the hard one far higher), so without it a process runs out of descriptors long
    before `MAX_WAITERS`. Forked workers inherit the limit. Returns the new (soft, hard) limits.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # e.g. macOS caps an unlimited hard limit lower: keep the limit, and warn
            pass
    return soft, hard


OPEN_FILES_HEADROOM = 1000
"""Descriptors beyond the connections: Redis connections, the metrics files, logs, modules."""


def on_starting(server: object) -> None:
    """Before any worker forks: room for every connection, and one clean prometheus-client multiprocess directory.

    `PROMETHEUS_MULTIPROC_DIR` names an existing directory without stale `*.db` files, so every worker, and every
    restart, starts from zero. Without the variable a fresh temporary directory is chosen (under /tmp, which the
    Helm chart mounts as an emptyDir).
    """
    global _temporary_dir
    soft, hard = raise_open_files_limit(worker_connections + OPEN_FILES_HEADROOM)
    if soft < worker_connections:
        server.log.warning(  # type: ignore[attr-defined]
            "open files limited to %d (hard limit %d): a process holds at most about that many connections, fewer "
            "than MAX_WAITERS allows; raise the hard limit (ulimit -Hn, LimitNOFILE=) to serve more", soft, hard)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        directory = _temporary_dir = tempfile.mkdtemp(prefix="cardroom-metrics-")
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)


YOUNG_OBJECTS = 50_000
"""A web process's youngest generation is collected once this many more objects were made than freed (CPython's
default: 700). See `post_worker_init`."""


def post_worker_init(worker: object) -> None:
    """Put what a web process loaded before its first request out of the garbage collector's reach, and collect less.

    That is the app, its schemas and the engine: ~80,000 objects. A full collection walks every tracked object:
    with the start-up heap in it, one took ~40 ms, and in a gevent process such a pause holds up every request
    and wake-up at once (docs/benchmarks.md, the lobby). Frozen objects are never freed, which costs nothing
    here: they live as long as the process anyway.

    The youngest generation holds `YOUNG_OBJECTS`: a held long-poll lives seconds, longer than 700 allocations,
    so with the default its objects survived into the oldest generation, and full collections of ~250,000 objects
    came every few seconds: at 5,000 players, 13% of the web processes' CPU went to the collector. With 50,000,
    nearly every request's objects are freed before a collection looks at them (2.5% of the CPU, no full
    collection in a minute; docs/benchmarks.md, "A move without a read first, presence marks asked once, and a
    garbage collector that keeps up").
    """
    gc.collect()  # what start-up threw away goes now, not frozen for ever
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, older, oldest)


def child_exit(server: object, worker: object) -> None:
    """Let prometheus-client drop the live gauges of a worker that exited."""
    # imported in the master's hook, not at the top: prometheus-client picks its multiprocess mode when imported,
    # from `PROMETHEUS_MULTIPROC_DIR`, which `on_starting` sets (no cycle)
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]


def on_exit(server: object) -> None:
    """Remove the metrics directory if `on_starting` made a temporary one."""
    if _temporary_dir is not None:
        shutil.rmtree(_temporary_dir, ignore_errors=True)
