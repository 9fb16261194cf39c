"""Several hosts on one machine: Linux network namespaces joined by a bridge, for tests that must show that nothing
relies on loopback (issue 21).

A `Network` is a bridge in a namespace of its own (a switch) on a /24 of 10.0.0.0/8 that no route of this machine
uses yet; this machine's own namespace (where pytest runs) joins it at .1 by a veth pair, so a test talks to every
host by its address. Each `Host` is a namespace with one veth to the bridge and its own address (.2 and up); its
loopback stays DOWN, so a process in it cannot reach anything at 127.0.0.1, neither its own nor this machine's, and
fails loudly if it tries. A process runs in a host by `ip netns exec` (`Host.command`); `LOCAL` stands for this
machine's loopback, the default of every helper that takes a host. The hosts share this machine's file system.

Namespace names carry PREFIX and the creating pid (runs in parallel never clash); `remove_stale_namespaces` deletes
those whose process is gone (an earlier run killed before its cleanup), with what still runs in them. Needs root or
CAP_NET_ADMIN and iproute2's `ip`: `skip_if_forbidden()` skips a test where namespaces cannot be made, saying why.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

PREFIX = "cardroom-"
"""The start of every namespace name made here: `cardroom-<pid>-<network>` and `cardroom-<pid>-<network>-<host>`."""
_serial = itertools.count()


@dataclass(frozen=True)
class Host:
    """Where a process runs: `namespace` (None: this machine's own) and the IPv4 address it listens on there."""

    ip: str
    namespace: str | None = None

    def command(self, argv: list[str]) -> list[str]:
        """`argv` as run in this host: prefixed by `ip netns exec <namespace>` (which execs it: same pid)."""
        return argv if self.namespace is None else ["ip", "netns", "exec", self.namespace, *argv]


LOCAL = Host("127.0.0.1")
"""This machine's loopback: the processes run in the current namespace, as without namespaces."""


def ip(*arguments: str) -> str:
    """Run `ip <arguments>` and return its output.

    Raises:
        subprocess.CalledProcessError: `ip` failed (its stderr is in the exception).
    """
    return subprocess.run(["ip", *arguments], capture_output=True, text=True, check=True).stdout


def forbidden() -> str | None:
    """Why this machine cannot make network namespaces (no `ip` program, or not allowed: not root and no
    CAP_NET_ADMIN), or None when it can (it makes and deletes one to find out)."""
    if shutil.which("ip") is None:
        return "no `ip` program (Debian's package iproute2)"
    probe = f"{PREFIX}{os.getpid()}-probe"
    try:
        ip("netns", "add", probe)
    except subprocess.CalledProcessError as error:
        return f"`ip netns add` failed (needs root or CAP_NET_ADMIN): {error.stderr.strip()}"
    ip("netns", "del", probe)
    return None


def skip_if_forbidden() -> None:
    """Skip the calling test, saying why, where this machine cannot make network namespaces (`forbidden`)."""
    why = forbidden()
    if why is not None:
        pytest.skip(f"network namespaces cannot be made on this machine: {why}")


def remove_stale_namespaces() -> list[str]:
    """Delete the namespaces made here by a process that no longer runs, after SIGKILLing what still runs in them
    (the servers of a test run killed before its clean-up); return their names."""
    removed = []
    for line in ip("netns", "list").splitlines():
        name = line.split()[0] if line.strip() else ""
        pid = name.removeprefix(PREFIX).split("-")[0]
        if not name.startswith(PREFIX) or not pid.isdigit() or _running(int(pid)):
            continue
        for left_over in ip("netns", "pids", name).split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(left_over), signal.SIGKILL)
        ip("netns", "del", name)
        removed.append(name)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it runs
    return True


def free_subnet() -> ipaddress.IPv4Network:
    """A /24 of 10.0.0.0/8 that overlaps no address or route of this machine's namespace, the first from a place
    that this process's pid picks (so that parallel runs look in different places first).

    Raises:
        RuntimeError: every /24 of 10.0.0.0/8 is in use.
    """
    used = []
    for line in ip("-4", "route", "show", "table", "all").splitlines():
        destination = line.split()[0]
        if destination[0].isdigit():
            used.append(ipaddress.IPv4Network(destination, strict=False))
    start = os.getpid() % 65536
    for offset in range(65536):
        index = (start + offset) % 65536
        candidate = ipaddress.IPv4Network(f"10.{index >> 8}.{index & 255}.0/24")
        if not any(candidate.overlaps(network) for network in used):
            return candidate
    raise RuntimeError("no free /24 in 10.0.0.0/8 for a test network")


class Network:
    """A bridge in a namespace of its own, joined by this machine's namespace (at .1) and by `add` hosts."""

    def __init__(self, label: str = "net") -> None:
        serial = next(_serial)
        self.namespace = f"{PREFIX}{os.getpid()}-{label}{serial}"
        # The one interface in this machine's namespace: 15 characters at most (IFNAMSIZ).
        self.local_link = f"crn{os.getpid():x}{serial}"[:15]
        self.subnet = free_subnet()
        self.hosts: dict[str, Host] = {}

    @property
    def local_ip(self) -> str:
        """This machine's address on the network (where its tests' connections to the hosts come from)."""
        return str(self.subnet[1])

    def start(self) -> None:
        """Make the bridge's namespace and join this machine's namespace to it.

        Raises:
            subprocess.CalledProcessError: an `ip` command failed (e.g. not allowed: see `forbidden`).
        """
        ip("netns", "add", self.namespace)
        ip("-n", self.namespace, "link", "add", "bridge", "type", "bridge")
        ip("-n", self.namespace, "link", "set", "bridge", "up")
        ip("link", "add", self.local_link, "type", "veth", "peer", "name", "local", "netns", self.namespace)
        ip("-n", self.namespace, "link", "set", "local", "master", "bridge", "up")
        ip("addr", "add", f"{self.local_ip}/24", "dev", self.local_link)
        ip("link", "set", self.local_link, "up")

    def add(self, name: str) -> Host:
        """A new host on the network: a namespace with a veth `eth0` on the bridge and the next free address; its
        loopback is left DOWN.

        Raises:
            subprocess.CalledProcessError: an `ip` command failed.
            ValueError: the /24 is full (253 hosts).
        """
        number = len(self.hosts)
        if number + 2 >= self.subnet.num_addresses - 1:
            raise ValueError(f"no address left on {self.subnet} for host {name}")
        namespace = f"{self.namespace}-{name}"
        host = Host(str(self.subnet[number + 2]), namespace)
        ip("netns", "add", namespace)
        self.hosts[name] = host  # before the links: `stop` deletes the namespace even if they fail
        ip("link", "add", "eth0", "netns", namespace, "type", "veth",
           "peer", "name", f"host{number}", "netns", self.namespace)
        ip("-n", self.namespace, "link", "set", f"host{number}", "master", "bridge", "up")
        ip("-n", namespace, "addr", "add", f"{host.ip}/24", "dev", "eth0")
        ip("-n", namespace, "link", "set", "eth0", "up")
        return host

    def stop(self) -> None:
        """Delete this machine's veth to the bridge, every host's namespace and the bridge's. Processes still
        running in a host keep its interfaces alive: stop them first."""
        # At once, by name: a deleted namespace's interfaces go only when the kernel gets round to it.
        subprocess.run(["ip", "link", "del", self.local_link], capture_output=True)
        for name in [f"{self.namespace}-{host}" for host in self.hosts] + [self.namespace]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@contextlib.contextmanager
def started_network(*names: str, label: str = "net") -> Iterator[Network]:
    """A started `Network` with one host per name (`Network.hosts[name]`); everything deleted on exit. Stale namespaces
    of dead earlier runs are removed first.

    Raises:
        subprocess.CalledProcessError: an `ip` command failed (call `forbidden` first to skip instead).
    """
    remove_stale_namespaces()
    network = Network(label)
    try:
        network.start()
        for name in names:
            network.add(name)
        yield network
    finally:
        network.stop()
