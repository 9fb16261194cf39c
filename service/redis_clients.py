"""The Redis clients of a process and their retry settings: the game state's, the queues', the pub/sub one.

A single Redis (`REDIS_URL`), a Redis Cluster (`REDIS_CLUSTER_URL`, made on first use: `LazyCluster`) or a primary
named by its sentinels (`redis+sentinel://`, service/sentinel.py); what a client raises (`STORE_ERRORS`), which of
it is an outage (`is_outage`) and the worker's retry through one (`UntilRedisAnswers`). The settings themselves
are read by service/config.py.

Flask-free: the RQ worker imports it too.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.core import Script
from redis.exceptions import ClusterDownError, SlotNotCoveredError, TryAgainError
from redis.retry import Retry

from service.config import SENTINEL_SCHEME, queue_url, queue_urls, sentinel_url_parts
from service.sentinel import sentinel_client, sentinels

log = logging.getLogger(__name__)


STORE_ERRORS = (redis.RedisError, redis.exceptions.RedisClusterException)
"""What a failing Redis raises: redis-py's errors, and on a Redis Cluster also `RedisClusterException` (not a
`RedisError`: no node of the cluster answers, or a slot has no primary during a failover)."""


def is_out_of_memory(error: BaseException) -> bool:
    """Whether `error` is Redis refusing a write for lack of memory (`maxmemory` reached under `noeviction`).

    redis-py raises OutOfMemoryError for a refused command, but a plain ResponseError when the command ran inside a
    Lua script, as the store's compare-and-set and the rate limiter's counters do (Redis 6: "Error running script
    ... -OOM command not allowed when used memory > 'maxmemory'").
    """
    return isinstance(error, redis.exceptions.OutOfMemoryError) or (
        isinstance(error, redis.ResponseError) and "OOM command not allowed" in str(error)
    )


_SLOTS_NOT_COVERED = "All slots are not covered"
"""How redis-py's `RedisClusterException` begins (no class of its own) when a cluster client is made while the seed
nodes answer but do not serve every slot yet: a cluster being created, or a shard without any primary."""


def is_outage(error: BaseException) -> bool:
    """Whether `error` means Redis cannot serve now but will again: unreachable, too slow, loading, or full.

    On a Redis Cluster also a slot without a primary during a failover (CLUSTERDOWN, MASTERDOWN, TRYAGAIN, a slot
    not covered), no node answering (redis-py's "Redis Cluster cannot be connected", caused by an outage) and nodes
    that answer without covering every slot yet when the client is made (service/redis_clients.py `LazyCluster`).
    Refused credentials are a ConnectionError too, but no outage: waiting would hide the misconfiguration; nor is
    a cross-slot command (a `RedisClusterException` of its own: a bug).
    """
    if isinstance(error, redis.AuthenticationError | redis.exceptions.AuthorizationError):
        return False
    if isinstance(error, redis.exceptions.RedisClusterException) and not isinstance(error, SlotNotCoveredError):
        if str(error).startswith(_SLOTS_NOT_COVERED):
            return True
        return error.__cause__ is not None and is_outage(error.__cause__)
    return isinstance(error, redis.ConnectionError | redis.TimeoutError | ClusterDownError | TryAgainError
                      | SlotNotCoveredError) or is_out_of_memory(error)


class UntilRedisAnswers(Retry):
    """redis-py's retry policy, retrying a command for as long as Redis is out (`is_outage`) and no other error.

    Between tries it pauses as `ExponentialWithJitterBackoff` says, at most `cap_seconds` (the RQ worker's client,
    service/redis_clients.py `redis_client`). Once `stop_waiting` was called in a process (a worker told to stop), no
    error is retried there any more: the worker stops instead of waiting for a Redis that may never come back.
    """
    _stopped = False
    _warned_at = 0.0
    WARN_EVERY_SECONDS = 10.0
    """While it waits, a process logs the outage at most this often (RQ's own messages never come: it sees none)."""
    @classmethod
    def stop_waiting(cls) -> None:
        """From now on, in this process, let every error through (also in a retry loop under way)."""
        cls._stopped = True

    @classmethod
    def stopped_waiting(cls) -> bool:
        """Whether `stop_waiting` was called in this process."""
        return cls._stopped

    def __init__(self, cap_seconds: float) -> None:
        # RedisClusterException: making a cluster client (service/redis_clients.py `LazyCluster`) while no node answers
        super().__init__(ExponentialWithJitterBackoff(cap=cap_seconds, base=0.05), -1,
                         (redis.ConnectionError, redis.TimeoutError, redis.ResponseError,
                          redis.exceptions.RedisClusterException))

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count=False):  # type: ignore[no-untyped-def]
        """Retry's own, with only outages retryable (and only those `is_retryable` allows, if redis-py gives one)."""
        def retryable(error: Exception) -> bool:
            waits = not self._stopped and is_outage(error) and (is_retryable is None or is_retryable(error))
            if waits and time.monotonic() - UntilRedisAnswers._warned_at >= self.WARN_EVERY_SECONDS:
                UntilRedisAnswers._warned_at = time.monotonic()
                log.warning("Redis cannot serve (%s): waiting for it", error)
            return waits

        return super().call_with_retry(do, fail, retryable, with_failure_count)


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
    if wait_out_outages:
        retry: Retry = UntilRedisAnswers(OUTAGE_BACKOFF_CAP_SECONDS)
    else:
        # redis-py 8 retries a failed command 3 times with backoff by default: an outage would then take
        # several timeouts to surface. One retry after a dropped connection (e.g. Redis restarted); none after
        # a timeout, so a server that stopped answering costs one socket timeout, not several.
        retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    settings = {**_connection_settings(), "health_check_interval": 30, "retry": retry, **overrides}
    if url.startswith(SENTINEL_SCHEME):
        return sentinel_client(url, **settings)
    return redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, **settings))


def check_sentinel_password(url: str) -> None:
    """Ask each sentinel of a `redis+sentinel://` URL for a PING with `REDIS_SENTINEL_PASSWORD`; other URLs pass.

    redis-py takes a sentinel that refuses the password for one that is down, so a worker, which waits out any
    outage, would otherwise wait for ever at start with nothing said. A sentinel that does not answer passes: it
    may come back.

    Raises:
        redis.AuthenticationError: a sentinel refused the password (or asked for one); the message names it.
    """
    if not url.startswith(SENTINEL_SCHEME):
        return

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
    node's connection failed, service/redis_clients.py `is_outage`; not when it refused the password). Uses that waited
    for a try under way share its failure instead of each trying after it: with nodes that time out, a queue of
    tries would hold the last request for many timeouts. With `wait_out_outages`, making it is retried through an
    outage instead (service/redis_clients.py `UntilRedisAnswers`).
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


def pubsub_client(settings: dict[str, Any]):  # noqa: ANN201 - redis.Redis or RedisCluster, imported lazily
    """A client for the one pub/sub connection of a process (service/dispatcher.py), on the game state's Redis.

    No health-check PINGs and no silent retries: only the dispatcher's reader may read from the connection, and
    a broken connection must reach the dispatcher, which then makes its waiters read the version again (a message
    published while it was down would otherwise be missed). On a cluster, one connection per node that holds a
    subscribed channel (sharded pub/sub: SSUBSCRIBE on the primary of the channel's slot).
    """
    if settings["REDIS_CLUSTER_URL"]:
        return cluster_client(settings["REDIS_CLUSTER_URL"], retry=Retry(NoBackoff(), 0), max_connections=2)
    return redis_client(settings["REDIS_URL"], health_check_interval=0, retry=Retry(NoBackoff(), 0), max_connections=2)


OUTAGE_BACKOFF_CAP_SECONDS = 1.0
"""The longest pause between two tries of a worker's Redis command during an outage: it resumes within about a
second of Redis coming back, and a refused connection costs Redis nothing."""


def is_cluster(client: object) -> bool:
    """Whether `client` is redis-py's Redis Cluster client (`redis.cluster.RedisCluster`), or one made on first use.

    That is `LazyCluster`, which answering this must not make.
    """
    return isinstance(client, RedisCluster | LazyCluster)
