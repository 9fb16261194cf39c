"""The e2e harness's clean-up (tests/e2e/stack.py): `stop_stack` deletes a cluster stack's keys and leaves no
connection open behind it."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from redis.cluster import RedisCluster

from tests.cluster import LocalCluster
from tests.e2e.stack import Stack, stop_stack
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


def test_stopping_a_cluster_stack_deletes_its_keys_and_closes_its_connections(
    redis_cluster: LocalCluster, queue_redis: RedisServer
) -> None:
    """redis-py's RedisCluster.close leaves its nodes' connections open until the garbage collector breaks their
    cycles (it is off here, so the count is exact), a socket per primary per stopped stack on the servers."""
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
