"""gunicorn settings, from the environment (`gunicorn -c python:service.gunicorn_conf service.wsgi:app`).

| variable | default | what |
|---|---|---|
| `CARDROOM_BIND` | `127.0.0.1:8000` | address (the image sets `0.0.0.0:8000`) |
| `WEB_CONCURRENCY` | `2` | worker processes |
| `GUNICORN_THREADS` | `8` | threads per worker (gthread) |
| `GUNICORN_ACCESSLOG` | `-` | access log file (`-`: stdout) |
| `PROMETHEUS_MULTIPROC_DIR` | a new temporary directory | where the workers keep their metrics (cleaned at start) |
"""

import os

from service.config import gunicorn_threads
from service.metrics import prepare_multiprocess_dir, remove_temporary_multiprocess_dir

bind = os.environ.get("CARDROOM_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# Long-polls hold a request up to 30 s: threads keep other requests flowing, and gthread is not killed at
# `timeout` while a request waits (a sync worker would be, mid-request).
worker_class = "gthread"
threads = gunicorn_threads()
timeout = 60
graceful_timeout = 10
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-")
# JSON lines with the request id, never a header or query string (service/logs.py)
logger_class = "service.logs.JsonGunicornLogger"
# gunicorn's control socket lives under $HOME, which a read-only root file system (the image, the chart) lacks.
control_socket_disable = True


def on_starting(server: object) -> None:
    """Before any worker forks: give them one clean prometheus-client multiprocess directory (service/metrics.py)."""
    prepare_multiprocess_dir()


def child_exit(server: object, worker: object) -> None:
    """Let prometheus-client drop the live gauges of a worker that exited."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]


def on_exit(server: object) -> None:
    """Remove the metrics directory if `on_starting` made a temporary one."""
    remove_temporary_multiprocess_dir()
