"""Redis Sentinel clients: redis-py's `Sentinel`, with the corrections a failover needs (tests/faults/test_sentinel.py).

They serve a `REDIS_URL` or `RQ_REDIS_URL` of the form `redis+sentinel://...` (service/redis_clients.py `redis_client`).

Kept apart from service/config.py, which gunicorn's configuration imports before gevent patches the standard library:
this module imports redis-py at its top (its classes subclass redis-py's), which must come after the patching.
"""

from __future__ import annotations

from typing import Any, cast

import redis
from redis.sentinel import MasterNotFoundError, Sentinel, SentinelConnectionPool, SentinelManagedConnection

from service.config import sentinel_password, sentinel_url_parts


def sentinel_client(url: str, **settings: object):  # noqa: ANN201 - redis.Redis
    """A bytes redis-py client of the primary that Redis Sentinels name (redis-py's `redis.sentinel.Sentinel`).

    `url` is a `redis+sentinel://` URL (`sentinel_url_parts`); the primary's password is the URL's, else
    `settings`' (i.e. `REDIS_PASSWORD`); the sentinels' own password is `REDIS_SENTINEL_PASSWORD`. Every new
    connection asks the sentinels where the primary is, so after a failover a connection lost with the old primary
    reconnects to the promoted one. `settings` are `redis_client`'s (timeouts, retry, the pool's bound: the pool
    blocks as `redis_client`'s does).

    Raises:
        ValueError: the URL names no sentinel or no service.
    """
    class BlockingSentinelConnectionPool(SentinelConnectionPool, redis.BlockingConnectionPool):
        """Sentinel's pool with `BlockingConnectionPool`'s bound: beyond it, a request waits for a connection."""

    _, service, database, password = sentinel_url_parts(url)
    # Any: the settings are the connection's keywords, which redis-py 8 types apart from master_for's own
    options: dict[str, Any] = {**settings, "password": password or settings.get("password"), "db": database}
    return sentinels(url, settings).master_for(
        service, connection_pool_class=BlockingSentinelConnectionPool, connection_class=PrimaryConnection, **options,
    )


class PrimaryConnection(SentinelManagedConnection):
    """redis-py's connection to the primary that the sentinels name, asking them again at every socket connect.

    redis-py asks them only when the pool hands out an unconnected connection. A connection that drops under a
    command (the primary killed during a worker's blocking dequeue) is reconnected by the command's retry
    (`send_packed_command`) to the address it last had: a worker, which waits out any outage, then tried the dead
    primary until it came back, and went on there while it served as a primary with its own data, until the
    sentinels made it a replica and threw away what the worker had written (its moves, the jobs it queued); then
    it kept reconnecting to that replica. A new connection asks twice (once for redis-py, once here): a round
    trip to each sentinel, only when a connection is made.
    """

    def _connect(self) -> object:
        self.host, self.port = self.connection_pool.get_master_address()
        return super()._connect()


def sentinels(url: str, settings: dict[str, object]) -> NewestEpochSentinel:
    """`NewestEpochSentinel`s of the URL's sentinels, with `settings`' socket timeouts and `REDIS_SENTINEL_PASSWORD`."""
    timeouts = {key: value for key, value in settings.items() if key.startswith("socket_")}
    return NewestEpochSentinel(sentinel_url_parts(url)[0],
                               sentinel_kwargs={**timeouts, "password": sentinel_password()})


class NewestEpochSentinel(Sentinel):
    """redis-py's `Sentinel`, but the primary is the one named under the newest configuration epoch.

    redis-py takes the word of the first sentinel that names an up primary. A sentinel that has not yet heard
    of a failover (sentinels tell each other every 2 s) still names the old primary, and when that one comes
    back it answers as a primary, with its own data, until the sentinels make it a replica: a client sent
    there reads and writes data that the resync then throws away (a move lost, or a job that found a version that
    later vanished and answered "stale": the turn is never played). Each failover raises the epoch, so the
    sentinels that know the latest one name the real primary. Every sentinel is asked: one more round trip
    each, only when a connection is made.
    """

    def discover_master(self, service_name: str) -> tuple[str, int]:
        """The (host, port) of the primary named by the answering sentinels with the newest epoch.

        Raises:
            MasterNotFoundError (a `redis.ConnectionError`): no sentinel answered, or those with the newest
                epoch see no up primary (e.g. it is down and not yet replaced).
        """
        states, errors = [], []
        for sentinel in self.sentinels:
            try:
                # every redis-py reply parser makes SENTINEL MASTERS a dict by name; redis-py 8's annotation also
                # allows a list
                state = cast(dict[str, dict[str, Any]], sentinel.sentinel_masters()).get(service_name)
            except (redis.ConnectionError, redis.TimeoutError) as error:
                errors.append(f"{sentinel} - {error!r}")
                continue
            if state:
                states.append(state)
        newest = max((int(state["config-epoch"]) for state in states), default=None)
        for state in states:
            if int(state["config-epoch"]) == newest and self.check_master_state(state, service_name):
                return state["ip"], int(state["port"])
        raise MasterNotFoundError(f"No master found for {service_name!r} : {', '.join(errors)}")
