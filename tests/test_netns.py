"""The test hosts of tests/netns.py: network namespaces on a bridge, reachable by address, cut off from loopback,
deleted afterwards, and those of a dead earlier run deleted by the next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cluster import redis_7_server
from tests.netns import PREFIX, Host, forbidden, ip, remove_stale_namespaces, skip_if_forbidden, started_network
from tests.redis_server import RedisServer


@pytest.fixture
def namespaces_allowed() -> None:
    skip_if_forbidden()


def ping_from(host: Host, server: RedisServer) -> subprocess.CompletedProcess[str]:
    """`redis-cli PING` to `server`'s address, run in `host`."""
    cli = str(Path(redis_7_server()).with_name("redis-cli"))
    return subprocess.run(host.command([cli, "-h", server.host.ip, "-p", str(server.port), "PING"]),
                          capture_output=True, text=True, timeout=30)


def namespaces() -> set[str]:
    return {line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()}


@pytest.mark.usefixtures("namespaces_allowed")
def test_hosts_reach_each_other_and_this_machine_reaches_them_by_address() -> None:
    with started_network("server", "client") as network:
        server = RedisServer(host=network.hosts["server"])
        try:
            server.start()  # returns once this machine's namespace gets its PING answered over the bridge
            answer = ping_from(network.hosts["client"], server)
            assert (answer.returncode, answer.stdout.strip()) == (0, "PONG"), answer.stderr
            assert server.url == f"redis://{network.hosts['server'].ip}:{server.port}/0"
            assert network.hosts["server"].ip != network.hosts["client"].ip
        finally:
            server.remove()


@pytest.mark.usefixtures("namespaces_allowed")
def test_a_host_cannot_reach_this_machines_loopback(make_redis: Callable[..., RedisServer]) -> None:
    local = make_redis()
    with started_network("alone") as network:
        assert ping_from(Host("127.0.0.1"), local).stdout.strip() == "PONG"
        answer = ping_from(network.hosts["alone"], local)
        assert answer.stdout.strip() != "PONG"
        assert "Could not connect" in answer.stdout + answer.stderr


@pytest.mark.usefixtures("namespaces_allowed")
def test_networks_at_the_same_time_get_subnets_of_their_own() -> None:
    """Parallel runs (and one run's networks) each take a /24 that no route uses yet: this run's pid picks the same
    first candidate for both here."""
    with started_network("a") as first, started_network("b") as second:
        assert not first.subnet.overlaps(second.subnet)
        assert first.namespace != second.namespace and first.local_link != second.local_link


@pytest.mark.usefixtures("namespaces_allowed")
def test_leaving_the_network_deletes_its_namespaces_and_link() -> None:
    with started_network("a", "b") as network:
        made = {network.namespace, *(host.namespace for host in network.hosts.values())}
        assert made <= namespaces()
        assert network.local_link in ip("-o", "link", "show")
    assert not made & namespaces()
    assert network.local_link not in ip("-o", "link", "show")


@pytest.mark.usefixtures("namespaces_allowed")
def test_namespaces_of_a_dead_run_are_removed_with_what_runs_in_them_and_a_live_runs_kept() -> None:
    """A run killed before its clean-up leaves its hosts and their servers: the next run removes both."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale, live = f"{PREFIX}{dead.pid}-net0-web", f"{PREFIX}{os.getpid()}-stale-test"
    ip("netns", "add", stale)
    ip("netns", "add", live)
    left_over = subprocess.Popen(Host("10.0.0.2", stale).command(["sleep", "600"]))
    try:
        deadline = time.monotonic() + 10  # a hang guard: `ip netns exec` enters the namespace in milliseconds
        while str(left_over.pid) not in ip("netns", "pids", stale).split():
            assert time.monotonic() < deadline, "the left-over process never entered its namespace"
            time.sleep(0.01)
        removed = remove_stale_namespaces()
        assert stale in removed and stale not in namespaces()
        assert live in namespaces()
        assert left_over.wait(timeout=10) == -signal.SIGKILL
    finally:
        left_over.kill()
        left_over.wait()
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)
        ip("netns", "del", live)


def test_without_the_ip_program_namespaces_are_forbidden_and_the_reason_names_its_package(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert forbidden() == "no `ip` program (Debian's package iproute2)"
