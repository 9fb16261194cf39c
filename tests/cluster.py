"""A Redis Cluster of the tests' own: 3 primaries and 3 replicas, `redis-server` processes on loopback ports, or
each on a test host of its own (tests/netns.py), announcing that host's address to the others and to clients.

Each node is a `RedisServer` (tests/redis_server.py: its own temporary directory, append-only file) started with
`--cluster-enabled yes`; `redis-cli --cluster create ... --cluster-replicas 1` joins them. `LocalCluster.start`
returns once every node reports `cluster_state:ok`, knows all six, and every replica's link to its primary is
up. A cluster's keys are spread over its primaries: `delete_keys` scans each of them. A failover test kills a
primary (`primary_of`, `replica_of`, `RedisServer.kill`) and waits for its replica's promotion (`wait_until_primary`).
"""

from __future__ import annotations

import functools
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot

from tests.netns import LOCAL, Host
from tests.redis_server import RedisServer

NODES = 6
START_SECONDS = 60.0
"""Hang guard of a cluster's start: six servers and the slot assignment take about two seconds on an idle machine."""
PROMOTION_SECONDS = 60.0
"""Hang guard of a replica's promotion once its primary died: about two node timeouts (2 s each) on an idle machine."""
CLUSTER_BUS_OFFSET = 10000
"""A cluster node also listens on its port + 10000 (the cluster bus), which must be free too."""


SHARDED_PUBSUB = (7, 0)
"""The first Redis version with sharded pub/sub (SPUBLISH, SSUBSCRIBE), which the service uses on a cluster."""


@functools.cache
def redis_7_server() -> str:
    """The path of a `redis-server` of version 7.0 or later: the first on PATH, else Debian's (/usr/bin).

    The venv's `redis-server` (the pip package the embedded server comes from, first on PATH under `.ci/run`) is
    6.2, without sharded pub/sub; `.ci/run` installs Debian's package for these tests.

    Raises:
        RuntimeError: no such server on this machine.
    """
    for candidate in (shutil.which("redis-server"), "/usr/bin/redis-server", "/usr/local/bin/redis-server"):
        if candidate is None or not Path(candidate).exists():
            continue
        version = subprocess.run([candidate, "--version"], capture_output=True, text=True, check=True).stdout
        found = re.search(r"v=(\d+)\.(\d+)", version)
        if found and (int(found[1]), int(found[2])) >= SHARDED_PUBSUB:
            return candidate
    raise RuntimeError("the cluster tests need redis-server 7.0 or later (Debian's package redis-server)")


def free_cluster_port(taken: set[int]) -> int:
    """A loopback port free a moment ago whose cluster bus port (+10000) is free too, and not in `taken`."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + CLUSTER_BUS_OFFSET > 65535 or port in taken or port + CLUSTER_BUS_OFFSET in taken:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + CLUSTER_BUS_OFFSET))
            except OSError:
                continue
        return port


class ClusterNode(RedisServer):
    """One node of a `LocalCluster`: a `RedisServer` on a port whose cluster bus port is free, in `host`."""

    def __init__(self, port: int, host: Host = LOCAL, options: Sequence[str] = ()) -> None:
        super().__init__(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--cluster-node-timeout", "2000", "--cluster-announce-ip", host.ip, *options], host)
        self.port = port
        self.binary = redis_7_server()


class LocalCluster:
    """Six `ClusterNode`s made one Redis Cluster with one replica per primary.

    `hosts` (six, default all on this machine's loopback) are where the nodes run. `options` are extra settings of
    every node, later ones winning, e.g. `["--cluster-require-full-coverage", "no"]` (the other shards keep serving
    while one has no primary).
    """

    def __init__(self, hosts: list[Host] | None = None, options: Sequence[str] = ()) -> None:
        ports: set[int] = set()
        self.nodes: list[ClusterNode] = []
        for host in hosts or [LOCAL] * NODES:
            port = free_cluster_port(ports)
            ports.add(port)
            self.nodes.append(ClusterNode(port, host, options))

    @property
    def url(self) -> str:
        """`REDIS_CLUSTER_URL`: two of the nodes as seeds, comma-separated."""
        return ",".join(f"redis://{node.host.ip}:{node.port}" for node in self.nodes[:2])

    def start(self) -> None:
        """Start the nodes, create the cluster, and wait until it serves every slot with a replica in sync.

        Raises:
            RuntimeError: `redis-cli --cluster create` failed, or the cluster was not ready within START_SECONDS.
        """
        for node in self.nodes:
            node.start()
        created = subprocess.run(
            [str(Path(redis_7_server()).with_name("redis-cli")), "--cluster", "create",
             *[f"{node.host.ip}:{node.port}" for node in self.nodes],
             "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True, text=True, timeout=START_SECONDS,
        )
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{created.stdout}\n{created.stderr}")
        deadline = time.monotonic() + START_SECONDS
        while not self.ready():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster on ports {[node.port for node in self.nodes]} is not ready")
            time.sleep(0.1)

    def ready(self) -> bool:
        """Every node sees `cluster_state:ok` and all six nodes, and every replica's link to its primary is up."""
        for node in self.nodes:
            with node.client() as client:
                info = client.cluster("info")
                replication = client.info("replication")
            if info.get("cluster_state") != "ok" or int(info.get("cluster_known_nodes", 0)) != NODES:
                return False
            if replication["role"] == "slave" and replication.get("master_link_status") != "up":
                return False
        return True

    def client(self) -> RedisCluster:
        """A plain redis-py cluster client of the test's own (bytes, default settings)."""
        return RedisCluster.from_url(f"redis://{self.nodes[0].host.ip}:{self.nodes[0].port}")

    def primaries(self) -> list[redis.Redis]:
        """A client of each node that is a primary now."""
        clients = [node.client() for node in self.nodes]
        return [client for client in clients if client.info("replication")["role"] == "master"]

    def live_nodes(self) -> list[ClusterNode]:
        """The nodes whose process runs (a killed one's does not)."""
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def slot_map(self) -> list[tuple[int, int, ClusterNode]]:
        """`(first slot, last slot, primary)` of each slot range, as a live node's `CLUSTER SLOTS` says now."""
        with self.live_nodes()[0].client() as client:
            ranges = client.cluster("slots")
        nodes = {node.port: node for node in self.nodes}
        return [(first, last, nodes[int(primary[1])]) for first, last, primary, *_ in ranges]

    def primary_of(self, key: str) -> ClusterNode:
        """The node that serves `key`'s hash slot now (`slot_map`).

        Raises:
            LookupError: the slot has no primary (e.g. during a failover, with full coverage not required).
        """
        slot = key_slot(key.encode())
        for first, last, primary in self.slot_map():
            if first <= slot <= last:
                return primary
        raise LookupError(f"slot {slot} of {key!r} has no primary")

    def replica_of(self, primary: ClusterNode) -> ClusterNode:
        """The live node that replicates `primary` now.

        Raises:
            LookupError: none does.
        """
        for node in self.live_nodes():
            with node.client() as client:
                replication = client.info("replication")
            if replication["role"] == "slave" and replication.get("master_port") == primary.port:
                return node
        raise LookupError(f"no node replicates the one on port {primary.port}")

    @staticmethod
    def is_primary(node: ClusterNode) -> bool:
        """Whether `node` is a primary now (a replica is, once promoted)."""
        with node.client() as client:
            return client.info("replication")["role"] == "master"

    def wait_until_primary(self, node: ClusterNode) -> None:
        """Return once `node` is a primary: a replica promoted after its primary died.

        Raises:
            RuntimeError: it was not within PROMOTION_SECONDS.
        """
        deadline = time.monotonic() + PROMOTION_SECONDS
        while not self.is_primary(node):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica on port {node.port} was not promoted")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop every node and delete its directory."""
        for node in self.nodes:
            node.remove()
