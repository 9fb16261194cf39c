"""One pub/sub subscription per process for every client waiting on a game (long-polls and streams).

Every write publishes the game's new version on its channel (`GameStore.channel`, under the game's hash tag). A
`Dispatcher` holds one pub/sub connection for the whole process (on a Redis Cluster, sharded pub/sub: one connection
per primary that holds a subscribed channel, SSUBSCRIBE'd there, as the store SPUBLISHes): it subscribes to a
game's channel while at least one local waiter wants it (and for `LINGER_SECONDS` after, because the two players
of a game take turns waiting on it), and wakes exactly the waiters of that game when a new version is published.
No waiter opens a Redis connection of its own.

Nothing is missed between reading the version and starting to wait: a waiter reads the game's version only once
this process's subscription to the channel is confirmed by Redis, so any later write's message reaches it. When
the pub/sub connection breaks, every waiter re-reads the version once the subscription is confirmed again.

Written with `threading` primitives, so it serves the gevent worker (monkey-patched: the reader is a greenlet and
each waiter a greenlet) and the Flask test client's threads alike.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException

from service.redis_clients import is_cluster
from service.refusals import RETRY_AFTER_SECONDS, Refusal

log = logging.getLogger(__name__)

LINGER_SECONDS = 10.0
"""How long a channel stays subscribed after its last local waiter left (players alternate waiting on a game)."""
RECONNECT_SECONDS = (0.1, 0.5, 1.0, 2.0)
"""Pauses between attempts to re-open a broken pub/sub connection (the last one repeats)."""
POLL_SECONDS = 1.0
"""How often the reader looks for channels to give up (every subscribed channel is looked at, so not at each
message: at 2,000 players that scan, once per message, was 7% of the web processes' CPU)."""
SHARD_POLL_SECONDS = 0.01
"""On a Redis Cluster, how long the reader waits for a message on one node's connection before it looks at the next
(redis-py's `ClusterPubSub.get_sharded_message` reads the nodes in turn): a message waits at most this long per other
node with subscribed channels."""
_SHARDED_KINDS = {"smessage": "message", "ssubscribe": "subscribe", "sunsubscribe": "unsubscribe"}

_LIVE: weakref.WeakSet[Dispatcher] = weakref.WeakSet()


class TooManyWaiters(Refusal):
    """This process already holds `max_waiters` waiting clients: the request is turned away (503 `server_busy`).

    Sent with `Retry-After`: another process, or this one a moment later, has room.
    """

    status = 503
    error = "server_busy"
    retry_after = RETRY_AFTER_SECONDS

    @property
    def message(self) -> str:
        """How many wait, and what the client does next."""
        return f"too many clients are waiting: {self}; retry later"


@dataclass(eq=False)
class _Watch:
    """One game's channel in this process: its subscription state and the waiters on it."""

    channel: bytes
    changed: threading.Condition
    waiters: int = 0
    # "absent" (not subscribed), "subscribing" (SUBSCRIBE sent), "subscribed" (confirmed), "unsubscribing"
    state: str = "absent"
    # bumped whenever the subscription is lost: waiters then wait for it again and re-read the version
    generation: int = 0
    version: int | None = None  # the latest version published on the channel since the subscription
    confirmed_at: float | None = None  # monotonic time at which Redis confirmed the subscription
    idle_since: float = field(default_factory=time.monotonic)


class Dispatcher:
    """The waiting clients of one process, woken through one pub/sub connection.

    `client` must be a client of its own (its connection is held by the subscription, and health-check PINGs
    are off so that only the reader reads from it), a `redis.cluster.RedisCluster` for sharded pub/sub (the
    store's SPUBLISH); `channel_of(game_id)` names a game's channel. At most
    `max_waiters` clients wait at once (each costs a greenlet and about 30 KB, docs/operations/limits.md).
    """

    def __init__(self, client: redis.Redis, channel_of: Callable[[str], str], max_waiters: int) -> None:
        self.client = client
        self.sharded = is_cluster(client)
        self.channel_of = channel_of
        self.max_waiters = max_waiters
        self.draining = threading.Event()
        self._lock = threading.Lock()
        # redis-py's PubSub is not safe for concurrent senders: the first commands of a fresh PubSub, sent at once,
        # each take a connection of their own (the pool of two runs dry, and a channel subscribed on an extra
        # connection never reaches the reader). Every SUBSCRIBE/UNSUBSCRIBE is sent under this lock; the reader's
        # `get_message` needs none.
        self._sending = threading.Lock()
        self._watches: dict[bytes, _Watch] = {}
        self._waiters = 0
        self._pubsub: redis.client.PubSub | None = None
        self._reader: threading.Thread | None = None
        self._closed = False
        _LIVE.add(self)

    @property
    def waiters(self) -> int:
        """How many clients wait right now."""
        return self._waiters

    def wait(
        self,
        game_id: str,
        after_version: int,
        timeout_seconds: float,
        read_version: Callable[[], int | None],
        known: tuple[int, float] | None = None,
        channel: str | None = None,
    ) -> int | None:
        """Block until the game's version exceeds `after_version`, `timeout_seconds` pass, or the process drains.

        `read_version()` reads the stored version (e.g. `GameStore.version`); it is called once the subscription
        is confirmed (and again after a broken connection), never before, so no write can slip between the read
        and the wait. `known` is `(version, monotonic time)` of a read the caller made itself, begun at that time:
        when this process's subscription was confirmed before it began, that read stands for the first
        `read_version()` (a round trip saved: the common case, since a channel stays subscribed while the two
        players of a game take turns waiting). Returns the version seen last: None when the game does not exist,
        or when the subscription could not be confirmed in time (Redis unreachable: the next read answers 503).
        `channel` names the channel to wait on instead of the game's (`channel_of(game_id)`): a quick-match
        ticket's (service/matchmaking.py), whose versions are published the same way.

        Raises:
            TooManyWaiters: `max_waiters` clients wait already.
            redis.RedisError: the SUBSCRIBE could not be sent.
        """
        if self.draining.is_set():
            return None
        deadline = time.monotonic() + timeout_seconds
        watch = self._enter(channel or self.channel_of(game_id), deadline)
        try:
            version: int | None = None
            generation = -1
            while not self.draining.is_set():
                if generation != watch.generation or watch.state != "subscribed":
                    if not self._until(watch, deadline, lambda: watch.state == "subscribed"):
                        return version
                    generation = watch.generation
                    confirmed_at = watch.confirmed_at
                    if known is not None and confirmed_at is not None and confirmed_at <= known[1]:
                        version = known[0]  # read after the subscription was confirmed: no write can slip by
                    else:
                        version = read_version()
                    known = None
                if version is None or version > after_version:
                    return version
                if not self._until(watch, deadline, _news(watch, generation, version)):
                    return version
                if watch.generation == generation and watch.version is not None:
                    version = max(version, watch.version)
            return version
        finally:
            self._leave(watch)

    def vouches_for(self, game_id: str, version: int, known_at: float) -> bool:
        """Whether `version` is still the game's latest as far as this process's subscription can tell, no read needed.

        True when a copy at `version`, known current at monotonic time `known_at` (`GameRecord.read_at`), has had
        the game's channel subscribed since before `known_at` and no later version published on it: every write
        after `known_at` publishes in the same step, so a later one would have been seen. Except for the moment a
        later write's message is on its way (a write in another process, not yet read by this one's reader): a
        caller must use the copy where acting on a version a moment old cannot mislead (service/cache.py
        `vouched_copy`). A broken connection, an unsubscription or a failover (the pub/sub connection breaks with
        the primary) withdraws every vouch until the next confirmation and a read after it.
        """
        with self._lock:
            watch = self._watches.get(self.channel_of(game_id).encode())
            return (
                watch is not None
                and watch.state == "subscribed"
                and watch.confirmed_at is not None
                and watch.confirmed_at <= known_at
                and (watch.version is None or watch.version <= version)
            )

    def check_room(self) -> None:
        """Raise `TooManyWaiters` if one more client may not wait now (`max_waiters` wait already)."""
        if self._waiters >= self.max_waiters:
            raise TooManyWaiters(f"{self._waiters} clients are waiting in this process already")

    def drain(self) -> None:
        """Answer every waiting client now (graceful shutdown: they get the current view or 304) and take no more."""
        self.draining.set()
        with self._lock:
            for watch in self._watches.values():
                watch.changed.notify_all()

    def close(self) -> None:
        """Stop the reader and close the pub/sub connection (tests; a process that exits needs not)."""
        self.drain()
        self._closed = True
        pubsub = self._pubsub
        if pubsub is not None:
            pubsub.close()
        if self._reader is not None:
            self._reader.join(timeout=5)

    def _until(self, watch: _Watch, deadline: float, condition: Callable[[], bool]) -> bool:
        with self._lock:
            while not condition():
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.draining.is_set():
                    return False
                watch.changed.wait(remaining)
            return True

    def _enter(self, name: str, deadline: float) -> _Watch:
        channel = name.encode()
        with self._lock:
            self.check_room()
            self._start_reader()
            watch = self._watches.get(channel)
            if watch is None:
                watch = self._watches[channel] = _Watch(channel, threading.Condition(self._lock))
            watch.waiters += 1
            self._waiters += 1
            pubsub = self._pubsub if watch.state in ("absent", "unsubscribing") else None
            if pubsub is not None:
                watch.state = "subscribing"
            generation = watch.generation
        if pubsub is not None:
            try:
                # a SUBSCRIBE stuck on an unanswering Redis holds the others back: none waits past its deadline
                if not self._sending.acquire(timeout=max(0.0, deadline - time.monotonic())):
                    raise redis.TimeoutError("the pub/sub connection is busy: Redis does not answer")
                try:
                    with self._lock:  # the connection was lost meanwhile: the reader subscribes the channel again
                        current = self._pubsub is pubsub and watch.generation == generation
                    if current:
                        self._subscribe(pubsub, [channel])
                finally:
                    self._sending.release()
            except BaseException:
                self._leave(watch)
                with self._lock:
                    if watch.generation == generation and watch.state == "subscribing":
                        watch.state = "absent"  # the reader subscribes it with the next waiter or reconnection
                raise
        return watch

    def _leave(self, watch: _Watch) -> None:
        with self._lock:
            watch.waiters -= 1
            self._waiters -= 1
            if watch.waiters == 0:
                watch.idle_since = time.monotonic()

    def _start_reader(self) -> None:
        # under self._lock; the reader starts with the first waiter, in the process that serves it (after the fork)
        if self._reader is None or not self._reader.is_alive():
            self._pubsub = self.client.pubsub()
            self._reader = threading.Thread(target=self._read, name="cardroom-dispatcher", daemon=True)
            self._reader.start()

    def _read(self) -> None:
        attempt = 0
        while not self._closed:
            pubsub = self._pubsub
            try:
                assert pubsub is not None
                self._resubscribe(pubsub)
                give_up_at = time.monotonic() + POLL_SECONDS
                while not self._closed:
                    message = self._next_message(pubsub)
                    if message is not None:
                        if self._handle(message):
                            self._resubscribe(pubsub)
                        attempt = 0
                    if time.monotonic() >= give_up_at:
                        self._give_up_idle(pubsub)
                        give_up_at = time.monotonic() + POLL_SECONDS
            except (redis.RedisError, RedisClusterException, OSError, AttributeError, ValueError) as error:
                # AttributeError/ValueError: redis-py's connection torn down under the reader by `close`
                if self._closed:
                    return
                log.warning("pub/sub connection lost (%s): reconnecting", error)
            self._lost(pubsub)
            time.sleep(RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)])
            attempt += 1

    def _resubscribe(self, pubsub: redis.client.PubSub) -> None:
        with self._lock:
            self._pubsub = pubsub
            wanted = [watch for watch in self._watches.values() if watch.state == "absent" and watch.waiters]
            for watch in wanted:
                watch.state = "subscribing"
        if wanted:
            with self._sending:
                self._subscribe(pubsub, [watch.channel for watch in wanted])

    def _subscribe(self, pubsub: redis.client.PubSub, channels: list[bytes]) -> None:
        if not self.sharded:
            pubsub.subscribe(*channels)
            return
        try:
            pubsub.ssubscribe(*channels)
        except (redis.ConnectionError, redis.TimeoutError):
            # The node of a channel's slot does not answer: its primary may have failed over. redis-py's
            # ClusterPubSub routes by this client's slot map, which only this client's own commands would read
            # again (it sends none): read it now, so that the next try subscribes on the promoted replica.
            cast(RedisCluster, self.client).nodes_manager.initialize()
            raise

    def _next_message(self, pubsub: redis.client.PubSub) -> dict | None:
        """The next message or subscription reply, None after a while without one; sharded kinds named as plain."""
        if not self.sharded:
            return pubsub.get_message(timeout=POLL_SECONDS)
        if not pubsub.node_pubsub_mapping:  # type: ignore[attr-defined]
            time.sleep(SHARD_POLL_SECONDS)  # no channel subscribed: get_sharded_message would return at once
            return None
        try:
            message = pubsub.get_sharded_message(timeout=SHARD_POLL_SECONDS)  # type: ignore[attr-defined]
        except StopIteration:
            # redis-py's ClusterPubSub reads its nodes through one generator, which ends for good once it finds no
            # node connection (its own reconciliation after a slot map change dropped a dead node's): start afresh.
            raise redis.ConnectionError("the cluster pub/sub has no node connection left") from None
        if message is not None:
            message["type"] = _SHARDED_KINDS.get(message["type"], message["type"])
        return message

    def _lost(self, pubsub: redis.client.PubSub | None) -> None:
        with self._lock:
            self._pubsub = self.client.pubsub()
            for watch in list(self._watches.values()):
                self._lose(watch)
        if pubsub is not None:
            try:
                pubsub.close()
            except (redis.RedisError, RedisClusterException, OSError):
                pass

    def _lose(self, watch: _Watch) -> None:
        # under self._lock: nothing reaches the channel now; its waiters wait for a subscription again (a new
        # generation) and re-read the version, a watch nobody waits on is dropped
        watch.state, watch.version, watch.confirmed_at = "absent", None, None
        watch.generation += 1
        watch.changed.notify_all()
        if not watch.waiters:
            del self._watches[watch.channel]

    def _handle(self, message: dict) -> bool:
        """Apply one message or reply to its watch; True when a subscription was lost and waiters need it again."""
        kind, channel = message["type"], message["channel"]
        with self._lock:
            watch = self._watches.get(channel)
            if watch is None:
                return False
            if kind == "unsubscribe" and watch.state == "subscribed":
                # not the answer to an UNSUBSCRIBE of this state: Redis ended the subscription itself (a slot moved
                # to another node of a cluster), or answered a give-up sent just after a newer SUBSCRIBE. Nothing
                # reaches the channel now: no vouch for it, its waiters wait for it again and the reader subscribes.
                self._lose(watch)
                return bool(watch.waiters)
            if kind == "message":
                version = int(message["data"])
                if watch.version is None or version > watch.version:
                    watch.version = version
                    watch.changed.notify_all()
            elif kind == "subscribe" and watch.state == "subscribing":
                watch.state, watch.confirmed_at = "subscribed", time.monotonic()
                watch.changed.notify_all()
            elif kind == "unsubscribe" and watch.state == "unsubscribing":
                del self._watches[channel]  # a waiter that came meanwhile made it "subscribing" again
        return False

    def _give_up_idle(self, pubsub: redis.client.PubSub) -> None:
        now = time.monotonic()
        with self._lock:
            idle = [
                watch for watch in self._watches.values()
                if not watch.waiters and watch.state == "subscribed" and now - watch.idle_since > LINGER_SECONDS
            ]
            for watch in idle:
                watch.state, watch.version, watch.confirmed_at = "unsubscribing", None, None
        if idle:
            with self._sending:
                if self.sharded:
                    pubsub.sunsubscribe(*[watch.channel for watch in idle])  # type: ignore[attr-defined]
                else:
                    pubsub.unsubscribe(*[watch.channel for watch in idle])


def _news(watch: _Watch, generation: int, version: int) -> Callable[[], bool]:
    """Whether a waiter holding `version` has something to look at: a newer version, or a lost subscription."""
    return lambda: watch.generation != generation or (watch.version is not None and watch.version > version)


def drain_all() -> None:
    """Drain every dispatcher of this process (the gunicorn worker's SIGTERM, service/gunicorn_worker.py)."""
    for dispatcher in list(_LIVE):
        dispatcher.drain()
