"""The tests' own servers and stacks leave no connection open behind them: a started `RedisServer`
(tests/redis_server.py), a stopped stack (tests/e2e/stack.py `stop_stack`, which deletes its keys too).

Counted with the garbage collector off: redis-py's clients hold reference cycles, so a client nobody closed keeps
its socket until a collection, then warns (ResourceWarning, an error in this suite, even after the last test)."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from redis.cluster import RedisCluster

from tests.cluster import LocalCluster
from tests.e2e.stack import Stack, stop_stack
from tests.netns import skip_if_forbidden, started_network
from tests.redis_server import RedisServer


def connections(server: RedisServer) -> int:
    """How many clients `server` has, besides the one asking."""
    with server.client() as client:
        return len(client.client_list()) - 1


@contextmanager
def cluster_client(cluster: LocalCluster) -> Iterator[RedisCluster]:
    """`cluster.client()`, its connections closed on exit (as `stop_stack` closes its own)."""
    client = cluster.client()
    try:
        yield client
    finally:
        client.disconnect_connection_pools()
        client.close()


def test_a_started_server_keeps_no_connection_of_its_start() -> None:
    """`start` pings until the server answers; a ping refused before (always on a test host, whose server takes
    longer to listen) left that client's socket open."""
    skip_if_forbidden()
    with started_network("server") as network:
        server = RedisServer(host=network.hosts["server"])
        gc.disable()
        try:
            server.start()
            assert connections(server) == 0
        finally:
            gc.enable()
            server.remove()


def test_stopping_a_cluster_stack_deletes_its_keys_and_closes_its_connections(
    redis_cluster: LocalCluster, queue_redis: RedisServer
) -> None:
    """redis-py's RedisCluster.close leaves its nodes' connections open: a socket per primary per stopped stack."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    stack = Stack(base_url="", redis_url=queue_redis.url, prefix=prefix, queue=prefix, cluster_url=redis_cluster.url)
    with cluster_client(redis_cluster) as cluster:
        for game in ("a", "b", "c", "d"):
            cluster.set(f"{prefix}:{{{game}}}:game", "{}")
    before = {node.port: connections(node) for node in [*redis_cluster.nodes, queue_redis]}
    gc.disable()
    try:
        stop_stack(stack)
        after = {node.port: connections(node) for node in [*redis_cluster.nodes, queue_redis]}
    finally:
        gc.enable()
    with cluster_client(redis_cluster) as cluster:
        assert [key for key in cluster.scan_iter(match=f"{prefix}:*")] == []
    assert after == before
