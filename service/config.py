"""Settings read from the environment (defaults suit a developer machine)."""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Any


def from_environment() -> dict[str, Any]:
    """The app's settings: the Redis ones (`redis_settings`), `KEY_PREFIX`, `RQ_QUEUE` and the API's fixed options."""
    return {
        **redis_settings(),
        "KEY_PREFIX": os.environ.get("KEY_PREFIX", "cardroom"),
        "RQ_QUEUE": os.environ.get("RQ_QUEUE", "cardroom"),
        "IDEMPOTENCY_TTL_SECONDS": int(os.environ.get("IDEMPOTENCY_TTL_SECONDS", str(24 * 3600))),
        "REDIS_EVICTION_ALLOWED": eviction_allowed(),
        **lifetimes(),
        "MAX_CONTENT_LENGTH": max_body_bytes(),
        # Rate limits (flask-limiter syntax, e.g. "600/minute;50/second"), counted in Redis across processes.
        # Generous by default (a person makes a few requests a second; the test suite never reaches these).
        "RATE_LIMIT_PER_ADDRESS": os.environ.get("RATE_LIMIT_PER_ADDRESS", "5000/second"),
        "RATE_LIMIT_PER_TOKEN": os.environ.get("RATE_LIMIT_PER_TOKEN", "2000/second"),
        "RATE_LIMIT_ENABLED": os.environ.get("RATE_LIMIT_ENABLED", "1") != "0",
        # Web pages of these origins may call the API from a browser (service/cors.py); default none
        "CORS_ORIGINS": cors_origins(os.environ.get("CORS_ORIGINS", "")),
        # The hosts a seat's webhook may call (service/webhooks.py); default none: every webhook is refused (SSRF)
        "WEBHOOK_ALLOWED_HOSTS": webhook_allowed_hosts(),
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
        # the built documentation site (`mkdocs build` writes it to site/ of the clone), served at /guide/
        "GUIDE_DIR": os.environ.get("GUIDE_DIR", "site"),
        "API_SPEC_OPTIONS": {
            "info": {"description": "An HTTP game server for turn-based card games. Contract: docs/API.md."},
            # relative: the server the spec was fetched from (Swagger UI's Try it out, generated clients' default)
            "servers": [{"url": "/", "description": "the server that serves this document"}],
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        },
    }


DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def redis_settings() -> dict[str, Any]:
    """Where the game state and the job queue live (docs/operations/production.md): the app and the worker read it.

    - `REDIS_URL`: one Redis for everything (default the local server at 127.0.0.1:6379; `cardroom serve` without
      it starts an embedded one).
    - `REDIS_CLUSTER_URL`: one or more comma-separated seed nodes of a Redis Cluster (`redis://` or `rediss://`,
      the password in the URL or `REDIS_PASSWORD`), e.g. `redis://:secret@10.0.0.1:7000,redis://10.0.0.2:7000`:
      the game state (games, lobby, rate limits, metrics, pub/sub) lives there instead (`game_client`).
    - `RQ_REDIS_URL`: the Redis of the RQ queue, its scheduler and its records (`queue_client`; RQ does not run on
      a Redis Cluster, rq/rq#1048); unset, the queue lives at `REDIS_URL`. It may list several queue Redis,
      comma-separated (`queue_urls`): a game's AI turns and timeouts then go to the one its id hashes to
      (service/scheduling.py `Queues`), and each has workers of its own, a worker's `RQ_REDIS_URL` naming the one
      it serves and `RQ_REDIS_SHARD` which of them it is (`worker_shard`).
    - `REDIS_URL` and `RQ_REDIS_URL` may be `redis+sentinel://` URLs: the primary that Redis Sentinels name
      (service/sentinel.py `sentinel_client`; the sentinels' own password in `REDIS_SENTINEL_PASSWORD`).
    - `REDIS_WAIT_REPLICAS`, `REDIS_WAIT_TIMEOUT_MS`: after each move's write, wait up to that many milliseconds
      for that many replicas to hold it (service/store.py `GameStore.save`; default 0 replicas: no wait, 100 ms).

    None stands for a setting not given.
    """
    return {
        "REDIS_URL": os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        "REDIS_CLUSTER_URL": os.environ.get("REDIS_CLUSTER_URL") or None,
        "RQ_REDIS_URL": os.environ.get("RQ_REDIS_URL") or None,
        "REDIS_WAIT_REPLICAS": int(os.environ.get("REDIS_WAIT_REPLICAS", "0")),
        "REDIS_WAIT_TIMEOUT_MS": int(os.environ.get("REDIS_WAIT_TIMEOUT_MS", "100")),
    }


def cors_origins(text: str) -> list[str] | str:
    """`CORS_ORIGINS` read: `"*"` (any origin), else the exact origins it lists, comma-separated (`[]`: none).

    E.g. `"https://cards.example, http://localhost:5173"` -> `["https://cards.example", "http://localhost:5173"]`.
    """
    if text.strip() == "*":
        return "*"
    return [origin.strip() for origin in text.split(",") if origin.strip()]


def webhook_allowed_hosts(text: str | None = None) -> frozenset[tuple[str, int | None]]:
    """`WEBHOOK_ALLOWED_HOSTS` (or `text`) read: the `(host, port)` pairs a seat's webhook URL may name.

    Comma-separated `host[:port]` (an IPv6 address in brackets, `[::1]:8080`), e.g.
    `"hooks.example.com, 127.0.0.1:9000"` -> `{("hooks.example.com", None), ("127.0.0.1", 9000)}`; the host is
    lowercased, and a port of None stands for the URL scheme's default (80, 443). Empty, the default: none, so
    every webhook is refused and the server never calls an address the operator did not name (SSRF). The web
    processes check it when a webhook is registered, the workers again before each delivery
    (service/webhooks.py `host_allowed`).

    Raises:
        ValueError: an entry is not `host[:port]`.
    """
    text = os.environ.get("WEBHOOK_ALLOWED_HOSTS", "") if text is None else text
    allowed = set()
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        parsed = urllib.parse.urlsplit(f"//{entry}")
        try:
            port = parsed.port
        except ValueError:
            port = -1
        if not parsed.hostname or port == -1 or parsed.path or parsed.query or parsed.username is not None:
            raise ValueError(f"WEBHOOK_ALLOWED_HOSTS: {entry!r} is not host[:port], e.g. hooks.example.com:8443")
        allowed.add((parsed.hostname, port))
    return frozenset(allowed)


def eviction_allowed() -> bool:
    """Whether `REDIS_EVICTION_ALLOWED=1`: run on a Redis whose `maxmemory-policy` may evict game keys.

    By default such a Redis is refused (service/eviction.py `check_eviction_policy`).
    """
    return os.environ.get("REDIS_EVICTION_ALLOWED", "0") == "1"


def max_waiters() -> int:
    """Clients one web process lets wait at once (`MAX_WAITERS`, default 10,000; docs/operations/limits.md).

    gunicorn's `worker_connections` (service/gunicorn_conf.py) leaves room above it for the other requests.
    """
    return int(os.environ.get("MAX_WAITERS", "10000"))


def max_body_bytes() -> int:
    """The largest request body, in bytes (`MAX_BODY_BYTES`, default 65,536; docs/operations/limits.md).

    Flask's `MAX_CONTENT_LENGTH`; service/gunicorn_worker.py refuses chunks declared beyond it before they arrive.
    """
    return int(os.environ.get("MAX_BODY_BYTES", str(64 * 1024)))


def body_read_timeout() -> float:
    """Seconds a request's body may take to arrive after its headers (`BODY_READ_TIMEOUT_SECONDS`, default 5).

    docs/operations/limits.md: the bound service/gunicorn_worker.py puts on reading the body. gunicorn's `keepalive`
    (service/gunicorn_conf.py) bounds only the request line and headers.
    """
    return float(os.environ.get("BODY_READ_TIMEOUT_SECONDS", "5"))


SENTINEL_SCHEME = "redis+sentinel://"


def sentinel_url_parts(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """A `redis+sentinel://[:password@]host[:port][,host[:port]...]/service_name[/db]` URL, read.

    The sentinels' (host, port) pairs (port 26379 when none is given), the name they monitor the primary under, its
    database (default 0) and the primary's password (None when the URL holds none).

    Raises:
        ValueError: the URL names no sentinel or no service.
    """
    parsed = urllib.parse.urlsplit(url)
    hosts = [host.strip() for host in parsed.netloc.rpartition("@")[2].split(",") if host.strip()]
    service, _, database = parsed.path.strip("/").partition("/")
    if not hosts or not service:
        raise ValueError(f"a Sentinel URL needs sentinels and a service name, e.g. {SENTINEL_SCHEME}host:26379/main")
    sentinels = [(host, int(port or 26379)) for host, _, port in (entry.partition(":") for entry in hosts)]
    password = urllib.parse.unquote(parsed.password) if parsed.password else None
    return sentinels, service, int(database or 0), password


def sentinel_password() -> str | None:
    """`REDIS_SENTINEL_PASSWORD`: the password of the sentinels themselves (their `requirepass`), if any."""
    return os.environ.get("REDIS_SENTINEL_PASSWORD") or None


def queue_urls(settings: dict[str, Any]) -> list[str]:
    """The URLs of the queue Redis (`redis_settings`): those `RQ_REDIS_URL` lists, else `REDIS_URL`'s alone.

    The list is split at each comma that starts another URL (`scheme://`), so a `redis+sentinel://` URL keeps the
    commas between its sentinels: `redis://q0:6379/0,redis+sentinel://s1,s2/queue1` is two queue Redis.
    """
    if not settings["RQ_REDIS_URL"]:
        return [settings["REDIS_URL"]]
    return [url.strip() for url in re.split(r",(?=\s*[a-z][a-z0-9+.-]*://)", settings["RQ_REDIS_URL"]) if url.strip()]


def queue_url(settings: dict[str, Any]) -> str:
    """The URL of the one queue Redis a worker serves (`redis_settings`): `RQ_REDIS_URL`, else `REDIS_URL`.

    Raises:
        ValueError: `RQ_REDIS_URL` lists several (a worker serves one of them: `worker_shard`).
    """
    urls = queue_urls(settings)
    if len(urls) > 1:
        raise ValueError(f"RQ_REDIS_URL lists {len(urls)} queue Redis; a worker serves one: set its RQ_REDIS_URL to "
                         "that one and RQ_REDIS_SHARD to which of them it is (e.g. 0/2)")
    return urls[0]


def worker_shard() -> tuple[int, int]:
    """`RQ_REDIS_SHARD`, `INDEX/COUNT`: which of the `COUNT` queue Redis in the web's `RQ_REDIS_URL` a worker's is.

    E.g. `1/3`, the second of three. Its sweep revives the AI turns of the games whose id hashes to that one
    (service/scheduling.py `queue_shard`). Unset: `0/1`, the only one.

    Raises:
        ValueError: not two integers with 0 <= INDEX < COUNT.
    """
    text = os.environ.get("RQ_REDIS_SHARD") or "0/1"
    index, _, count = text.partition("/")
    try:
        shard = int(index), int(count)
    except ValueError:
        shard = -1, 0
    if not 0 <= shard[0] < shard[1]:
        raise ValueError(f"RQ_REDIS_SHARD={text!r}: expected INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/2")
    return shard


def lifetimes() -> dict[str, Any]:
    """How long a game's keys live without a write (docs/operations/limits.md); the worker reads them too.

    `GAME_IDLE_TTL_SECONDS`: a waiting or active game nobody writes to for this long is deleted (default 7 days).
    `GAME_RETENTION_SECONDS`: a finished game is kept this long after its last write (default 1 day).
    `AI_JOB_HEARTBEAT_SECONDS`: how often a worker marks a running AI job alive; `AI_JOB_STALE_SECONDS`: a started
    job not marked for this long belongs to a dead worker and is enqueued again (service/turns.py).
    `MATCH_TICKET_TTL_SECONDS`: how long a quick-match ticket waits before it is `expired` (default 600,
    service/matchmaking.py `Matchmaker.configured`).
    """
    return {
        "GAME_IDLE_TTL_SECONDS": int(os.environ.get("GAME_IDLE_TTL_SECONDS", str(7 * 24 * 3600))),
        "GAME_RETENTION_SECONDS": int(os.environ.get("GAME_RETENTION_SECONDS", str(24 * 3600))),
        "AI_JOB_HEARTBEAT_SECONDS": int(os.environ.get("AI_JOB_HEARTBEAT_SECONDS", "5")),
        "AI_JOB_STALE_SECONDS": float(os.environ.get("AI_JOB_STALE_SECONDS", "20")),
        "MATCH_TICKET_TTL_SECONDS": int(os.environ.get("MATCH_TICKET_TTL_SECONDS", "600")),
    }
