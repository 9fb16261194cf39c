"""Settings read from the environment (defaults suit a developer machine)."""

from __future__ import annotations

import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
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


def eviction_allowed() -> bool:
    """Whether `REDIS_EVICTION_ALLOWED=1`: run on a Redis whose `maxmemory-policy` may evict game keys.

    By default such a Redis is refused (service/store.py `check_eviction_policy`).
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


def redis_client(url: str, wait_out_outages: bool = False, **overrides: object):  # noqa: ANN201 - redis.Redis
    """A bytes (non-decoding) redis-py client for `url`, shared by the store and RQ (rq#1188).

    For the web server (`wait_out_outages` false), short socket timeouts make an unreachable Redis fail fast as
    503 rather than hang a request. An RQ worker (`wait_out_outages` true) has nobody to answer: every command
    waits out an outage of any length instead (a refused or dropped connection, a timeout, Redis loading its data
    after a restart, or Redis out of memory), retried with a backoff of up to `OUTAGE_BACKOFF_CAP_SECONDS`, so RQ's
    own loop, which quits on any Redis error while it runs a job, never sees one (docs/operations/limits.md).
    The pool holds at most `REDIS_MAX_CONNECTIONS` (default 64) connections: a request beyond them waits for a
    free one (up to the socket timeout), so the connections of a process never grow with its clients.
    `overrides` replace these settings (`pubsub_client`). `REDIS_PASSWORD`, when set, is the password (e.g. from
    a Kubernetes Secret of its own), used unless the URL holds one; a `rediss://` URL is TLS, with
    `?ssl_ca_certs=/path/ca.crt` for a private CA (docs/operations/helm.md); a `redis+sentinel://` URL is the
    primary its sentinels name (service/sentinel.py `sentinel_client`).
    """
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from service.store import UntilRedisAnswers

    if wait_out_outages:
        retry: Retry = UntilRedisAnswers(OUTAGE_BACKOFF_CAP_SECONDS)
    else:
        # redis-py 8 retries a failed command 3 times with backoff by default: an outage would then take
        # several timeouts to surface. One retry after a dropped connection (e.g. Redis restarted); none after
        # a timeout, so a server that stopped answering costs one socket timeout, not several.
        retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    settings = {**_connection_settings(), "health_check_interval": 30, "retry": retry, **overrides}
    if url.startswith(SENTINEL_SCHEME):
        from service.sentinel import sentinel_client

        return sentinel_client(url, **settings)
    return redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, **settings))


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


def check_sentinel_password(url: str) -> None:
    """Ask each sentinel of a `redis+sentinel://` URL for a PING with `REDIS_SENTINEL_PASSWORD`; other URLs pass.

    redis-py takes a sentinel that refuses the password for one that is down, so a worker, which waits out any
    outage, would otherwise wait for ever at start with nothing said. A sentinel that does not answer passes: it
    may come back.

    Raises:
        redis.AuthenticationError: a sentinel refused the password (or asked for one); the message names it.
    """
    import redis

    if not url.startswith(SENTINEL_SCHEME):
        return
    from service.sentinel import sentinels

    for (host, port), sentinel in zip(sentinel_url_parts(url)[0], sentinels(url, _connection_settings()).sentinels,
                                      strict=True):
        try:
            sentinel.ping()
        except redis.AuthenticationError as refused:
            raise redis.AuthenticationError(
                f"Redis Sentinel {host}:{port} refused REDIS_SENTINEL_PASSWORD ({refused})") from refused
        except (redis.ConnectionError, redis.TimeoutError):
            continue  # down or unreachable: the client waits it out
        finally:
            sentinel.close()


def _connection_settings() -> dict[str, object]:
    """What every connection of a client gets: timeouts, the password (`REDIS_PASSWORD`) and the pool's bound."""
    socket_timeout = float(os.environ.get("REDIS_SOCKET_TIMEOUT_SECONDS", "2"))
    return {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": float(os.environ.get("REDIS_CONNECT_TIMEOUT_SECONDS", "1")),
        "password": os.environ.get("REDIS_PASSWORD") or None,
        "max_connections": int(os.environ.get("REDIS_MAX_CONNECTIONS", "64")),
        "timeout": socket_timeout,  # waiting for a free connection of the pool
    }


def cluster_client(urls: str, wait_out_outages: bool = False, **overrides: object) -> LazyCluster:
    """A bytes redis-py `redis.cluster.RedisCluster` (redis-py's own cluster client) seeded by `urls`, made on use.

    It is made on first use (`LazyCluster`), so a process starts while no seed node answers.

    `urls` are one or more comma-separated node URLs of one cluster (`REDIS_CLUSTER_URL`); the first one's
    credentials and TLS settings (`rediss://`, `?ssl_ca_certs=`) serve every node, `REDIS_PASSWORD` when it holds
    none. The client learns the other nodes from them, routes each command to the primary of its key's hash slot
    and follows MOVED and ASK redirections. Each node's pool is bounded as `redis_client`'s. A command is retried
    once after a lost connection (with the slot map read again: a failed-over primary). redis-py's cluster client
    retries without pausing, so more retries would not outlast a failover, which takes seconds: a worker's jobs
    wait one out themselves (worker/jobs.py `outlasting`). `wait_out_outages` (a worker's) makes the first use
    wait until a seed node answers, as `redis_client`'s commands do. `overrides` replace these settings
    (`pubsub_client`).
    """
    import redis
    from redis.backoff import NoBackoff
    from redis.cluster import ClusterNode, RedisCluster
    from redis.retry import Retry

    first, *others = [url.strip() for url in urls.split(",") if url.strip()]
    seeds = [ClusterNode(parsed.hostname, parsed.port or 6379) for parsed in map(urllib.parse.urlsplit, others)]
    settings: dict[str, Any] = {
        **_connection_settings(), "retry": Retry(NoBackoff(), 1), "connection_pool_class": redis.BlockingConnectionPool,
        **overrides,
    }
    return LazyCluster(lambda: RedisCluster(url=first, startup_nodes=seeds, **settings), wait_out_outages)


class LazyCluster:
    """A Redis Cluster client made by `make` (a `RedisCluster`) on first use, then used by every caller alike.

    redis-py's `RedisCluster` asks its seed nodes for the slot map in its constructor, so a process that made it at
    start could not start while no node answered. Every attribute but `register_script` is the made client's: the
    first use makes it, and while that fails a use tries again and raises `RedisClusterException` (an outage when a
    node's connection failed, service/store.py `is_outage`; not when it refused the password). Uses that waited
    for a try under way share its failure instead of each trying after it: with nodes that time out, a queue of
    tries would hold the last request for many timeouts. With `wait_out_outages`, making it is retried through an
    outage instead (service/store.py `UntilRedisAnswers`).
    """

    def __init__(self, make: Callable[[], Any], wait_out_outages: bool = False) -> None:
        self._make = make
        self._wait_out_outages = wait_out_outages
        self._client: Any = None
        self._lock = threading.Lock()
        self._failure: tuple[float, Exception] | None = None  # when the last try ended (time.monotonic), its error

    def cluster(self) -> Any:
        """The `RedisCluster`, made now if not yet.

        Raises:
            redis.exceptions.RedisClusterException: no seed node answered with a cluster that covers every slot.
        """
        from service.store import STORE_ERRORS, UntilRedisAnswers

        arrived = time.monotonic()
        with self._lock:  # one process makes one client, however many requests need it at once
            if self._client is not None:
                return self._client
            if self._failure is not None and self._failure[0] >= arrived:
                raise self._failure[1]
            try:
                if self._wait_out_outages:
                    retry = UntilRedisAnswers(OUTAGE_BACKOFF_CAP_SECONDS)
                    self._client = retry.call_with_retry(self._make, lambda error: None)
                else:
                    self._client = self._make()
            except STORE_ERRORS as error:
                self._failure = (time.monotonic(), error)
                raise
            return self._client

    def register_script(self, script: str) -> Any:
        """redis-py's `Script` of `script` (UTF-8, redis-py's encoding), run through this client.

        Made without the client: the store registers its scripts at start (service/store.py `GameStore`).
        """
        from redis.commands.core import Script

        return Script(self, script.encode())  # type: ignore[arg-type] # it only sends commands through this one

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cluster(), name)


def game_client(settings: dict[str, Any], wait_out_outages: bool = False):  # noqa: ANN201 - redis.Redis or LazyCluster
    """The client of the game state (`redis_settings`): the cluster at `REDIS_CLUSTER_URL`, else `REDIS_URL`'s Redis.

    `wait_out_outages` (a worker's): each command waits out an outage of a single Redis (`redis_client`); on a
    cluster the making of the client does (`cluster_client`), and a worker's jobs wait out a failover themselves.
    """
    if settings["REDIS_CLUSTER_URL"]:
        return cluster_client(settings["REDIS_CLUSTER_URL"], wait_out_outages)
    return redis_client(settings["REDIS_URL"], wait_out_outages)


def queue_client(settings: dict[str, Any], games: Any, wait_out_outages: bool = False):  # noqa: ANN201 - redis.Redis
    """The client of the one RQ queue Redis (`queue_url`), its scheduler and its records: a worker's.

    That is `games` itself (the `game_client` of the same settings) when both live on the one Redis at
    `REDIS_URL`, so a process keeps one connection pool, as before the settings existed.
    """
    if settings["RQ_REDIS_URL"] or settings["REDIS_CLUSTER_URL"]:
        return redis_client(queue_url(settings), wait_out_outages)
    return games


def queue_clients(settings: dict[str, Any], games: Any) -> list[Any]:
    """The clients of every queue Redis (`queue_urls`), in `RQ_REDIS_URL`'s order: a web process's.

    With one queue Redis, the one client `queue_client` gives (`games` itself when it is `REDIS_URL`'s Redis).
    """
    urls = queue_urls(settings)
    return [queue_client(settings, games)] if len(urls) == 1 else [redis_client(url) for url in urls]


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


def pubsub_client(settings: dict[str, Any]):  # noqa: ANN201 - redis.Redis or RedisCluster, imported lazily
    """A client for the one pub/sub connection of a process (service/dispatcher.py), on the game state's Redis.

    No health-check PINGs and no silent retries: only the dispatcher's reader may read from the connection, and
    a broken connection must reach the dispatcher, which then makes its waiters read the version again (a message
    published while it was down would otherwise be missed). On a cluster, one connection per node that holds a
    subscribed channel (sharded pub/sub: SSUBSCRIBE on the primary of the channel's slot).
    """
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    if settings["REDIS_CLUSTER_URL"]:
        return cluster_client(settings["REDIS_CLUSTER_URL"], retry=Retry(NoBackoff(), 0), max_connections=2)
    return redis_client(settings["REDIS_URL"], health_check_interval=0, retry=Retry(NoBackoff(), 0), max_connections=2)


OUTAGE_BACKOFF_CAP_SECONDS = 1.0
"""The longest pause between two tries of a worker's Redis command during an outage: it resumes within about a
second of Redis coming back, and a refused connection costs Redis nothing."""


def lifetimes() -> dict[str, Any]:
    """How long a game's keys live without a write (docs/operations/limits.md); the worker reads them too.

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
