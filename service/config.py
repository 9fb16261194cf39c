"""Settings read from the environment (defaults suit a developer machine)."""

from __future__ import annotations

import os
from typing import Any


def from_environment() -> dict[str, Any]:
    """The app's settings: `REDIS_URL`, `KEY_PREFIX`, `RQ_QUEUE` and the API's fixed options.

    `REDIS_URL` defaults to the local server at 127.0.0.1:6379; `cardroom serve` sets it to its embedded Redis.
    """
    return {
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "KEY_PREFIX": os.environ.get("KEY_PREFIX", "cardroom"),
        "RQ_QUEUE": os.environ.get("RQ_QUEUE", "cardroom"),
        "IDEMPOTENCY_TTL_SECONDS": int(os.environ.get("IDEMPOTENCY_TTL_SECONDS", str(24 * 3600))),
        "REDIS_EVICTION_ALLOWED": eviction_allowed(),
        **lifetimes(),
        "MAX_CONTENT_LENGTH": int(os.environ.get("MAX_BODY_BYTES", str(64 * 1024))),
        # Rate limits (flask-limiter syntax, e.g. "600/minute;50/second"), counted in Redis across processes.
        # Generous by default (a person makes a few requests a second; the test suite never reaches these).
        "RATE_LIMIT_PER_ADDRESS": os.environ.get("RATE_LIMIT_PER_ADDRESS", "5000/second"),
        "RATE_LIMIT_PER_TOKEN": os.environ.get("RATE_LIMIT_PER_TOKEN", "2000/second"),
        "RATE_LIMIT_ENABLED": os.environ.get("RATE_LIMIT_ENABLED", "1") != "0",
        # Web pages of these origins may call the API from a browser (service/cors.py); default none
        "CORS_ORIGINS": cors_origins(os.environ.get("CORS_ORIGINS", "")),
        "LONG_POLL_MAX_SECONDS": 30,
        # Clients one process lets wait at once (long-polls and streams, each a greenlet of about 30 KB); beyond it a
        # wait is answered 503 with `Retry-After`. A bound for memory only: waiting costs no thread.
        "MAX_WAITERS": max_waiters(),
        # A stream sends a comment line this often, so proxies do not close an idle connection.
        "STREAM_KEEPALIVE_SECONDS": 15.0,
        "API_TITLE": "Cardroom",
        "API_VERSION": "1.0.0",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "/docs",
        # served by this app from a pinned package (service/docs.py), so /docs works offline
        "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
        # no badge fetched from swagger.io's online validator: the page asks nothing of another host
        "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None},
        "API_SPEC_OPTIONS": {
            "info": {"description": "An HTTP game server for turn-based card games. Contract: shared/API.md."},
            # relative: the server the spec was fetched from (Swagger UI's Try it out, generated clients' default)
            "servers": [{"url": "/", "description": "the server that serves this document"}],
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        },
    }


def cors_origins(text: str) -> list[str] | str:
    """`CORS_ORIGINS` read: `"*"` (any origin), else the exact origins it lists, comma-separated (`[]`: none).

    E.g. `"https://cards.example, http://localhost:5173"` -> `["https://cards.example", "http://localhost:5173"]`.
    """
    if text.strip() == "*":
        return "*"
    return [origin.strip() for origin in text.split(",") if origin.strip()]


def eviction_allowed() -> bool:
    """Whether `REDIS_EVICTION_ALLOWED=1`: run on a Redis whose `maxmemory-policy` may evict game keys.

    By default such a Redis is refused (service/store.py `check_eviction_policy`).
    """
    return os.environ.get("REDIS_EVICTION_ALLOWED", "0") == "1"


def max_waiters() -> int:
    """Clients one web process lets wait at once (`MAX_WAITERS`, default 10,000; README "Limits and lifetimes").

    gunicorn's `worker_connections` (service/gunicorn_conf.py) leaves room above it for the other requests.
    """
    return int(os.environ.get("MAX_WAITERS", "10000"))


def redis_client(url: str, wait_out_outages: bool = False, **overrides: object):  # noqa: ANN201 - redis.Redis
    """A bytes (non-decoding) redis-py client for `url`, shared by the store and RQ (rq#1188).

    For the web server (`wait_out_outages` false), short socket timeouts make an unreachable Redis fail fast as
    503 rather than hang a request. An RQ worker (`wait_out_outages` true) has nobody to answer: every command
    waits out an outage of any length instead (a refused or dropped connection, a timeout, Redis loading its data
    after a restart, or Redis out of memory), retried with a backoff of up to `OUTAGE_BACKOFF_CAP_SECONDS`, so RQ's
    own loop, which quits on any Redis error while it runs a job, never sees one (README "Limits and lifetimes").
    The pool holds at most `REDIS_MAX_CONNECTIONS` (default 64) connections: a request beyond them waits for a
    free one (up to the socket timeout), so the connections of a process never grow with its clients.
    `overrides` replace these settings (`pubsub_client`). `REDIS_PASSWORD`, when set, is the password (e.g. from
    a Kubernetes Secret of its own), used unless the URL holds one; a `rediss://` URL is TLS, with
    `?ssl_ca_certs=/path/ca.crt` for a private CA (README "Deploy with Helm").
    """
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from service.store import UntilRedisAnswers

    socket_timeout = float(os.environ.get("REDIS_SOCKET_TIMEOUT_SECONDS", "2"))
    if wait_out_outages:
        retry: Retry = UntilRedisAnswers(OUTAGE_BACKOFF_CAP_SECONDS)
    else:
        # redis-py 8 retries a failed command 3 times with backoff by default: an outage would then take
        # several timeouts to surface. One retry after a dropped connection (e.g. Redis restarted); none after
        # a timeout, so a server that stopped answering costs one socket timeout, not several.
        retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    settings: dict[str, object] = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": float(os.environ.get("REDIS_CONNECT_TIMEOUT_SECONDS", "1")),
        "health_check_interval": 30,
        "password": os.environ.get("REDIS_PASSWORD") or None,
        "retry": retry,
        "max_connections": int(os.environ.get("REDIS_MAX_CONNECTIONS", "64")),
        "timeout": socket_timeout,  # waiting for a free connection of the pool
        **overrides,
    }
    return redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, **settings))


def pubsub_client(url: str):  # noqa: ANN201 - redis.Redis, imported lazily like `redis_client`
    """A client for the one pub/sub connection of a process (service/dispatcher.py).

    No health-check PINGs and no silent retries: only the dispatcher's reader may read from the connection, and
    a broken connection must reach the dispatcher, which then makes its waiters read the version again (a message
    published while it was down would otherwise be missed).
    """
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis_client(url, health_check_interval=0, retry=Retry(NoBackoff(), 0), max_connections=2)


OUTAGE_BACKOFF_CAP_SECONDS = 1.0
"""The longest pause between two tries of a worker's Redis command during an outage: it resumes within about a
second of Redis coming back, and a refused connection costs Redis nothing."""


def lifetimes() -> dict[str, Any]:
    """How long a game's keys live without a write (README "Limits and lifetimes"); the worker reads them too.

    `GAME_IDLE_TTL_SECONDS`: a waiting or active game nobody writes to for this long is deleted (default 7 days).
    `GAME_RETENTION_SECONDS`: a finished game is kept this long after its last write (default 1 day).
    `AI_JOB_HEARTBEAT_SECONDS`: how often a worker marks a running AI job alive; `AI_JOB_STALE_SECONDS`: a started
    job not marked for this long belongs to a dead worker and is enqueued again (service/turns.py).
    """
    return {
        "GAME_IDLE_TTL_SECONDS": int(os.environ.get("GAME_IDLE_TTL_SECONDS", str(7 * 24 * 3600))),
        "GAME_RETENTION_SECONDS": int(os.environ.get("GAME_RETENTION_SECONDS", str(24 * 3600))),
        "AI_JOB_HEARTBEAT_SECONDS": int(os.environ.get("AI_JOB_HEARTBEAT_SECONDS", "5")),
        "AI_JOB_STALE_SECONDS": float(os.environ.get("AI_JOB_STALE_SECONDS", "20")),
    }
