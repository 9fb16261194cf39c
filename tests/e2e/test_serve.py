"""`cardroom serve` with no REDIS_URL (README "Quick start"): its own Redis, a worker, gunicorn; Ctrl-C stops them
in order and the games are still there after a restart (data under `--data-dir`). Killed or hung up, it leaves no
process behind; a second one on a busy port says so and starts nothing; the banner means the server answers."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import requests

from tests.e2e.stack import call, free_port

pytestmark = pytest.mark.e2e

BANNER = "Cardroom on http://"
START_SECONDS = 120.0
"""Hang guard: `cardroom serve` answers within a few seconds here (Redis, then gunicorn importing the app)."""


LAUNCHED: list[subprocess.Popen[bytes]] = []
"""Every `cardroom serve` a test started, and (below) what it started: killed after the test whatever happened."""
STARTED: list[psutil.Process] = []


@pytest.fixture(autouse=True)
def kill_leftovers() -> Iterator[None]:
    yield
    for server in LAUNCHED:
        server.kill()  # a no-op once it was waited for
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    for process in STARTED:
        with contextlib.suppress(psutil.Error):
            process.kill()  # psutil checks that the pid is still this process's
    LAUNCHED.clear()
    STARTED.clear()


def launch(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`cardroom serve` in a process group of its own, as a terminal runs it."""
    environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)],
        env=environment, process_group=0, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    LAUNCHED.append(server)
    return server


def read_until_banner(server: subprocess.Popen[bytes]) -> str:
    """The output up to the banner line; fails if the server exits or stays silent for START_SECONDS."""
    assert server.stdout is not None
    descriptor = server.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(descriptor, selectors.EVENT_READ)
    output = b""
    deadline = time.monotonic() + START_SECONDS
    while BANNER.encode() not in output:
        assert selector.select(timeout=max(0.0, deadline - time.monotonic())), output.decode()[-3000:]
        chunk = os.read(descriptor, 65536)  # unbuffered: a buffered readline could hide the banner from select
        assert chunk, f"cardroom serve exited before its banner:\n{output.decode()[-3000:]}"
        output += chunk
    return output.decode(errors="replace")


def start(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`launch`, returning once the banner is out; at that moment the server must answer."""
    server = launch(data_dir, port)
    read_until_banner(server)
    STARTED.extend(psutil.Process(server.pid).children(recursive=True))
    assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200, "banner before ready"
    return server


def ctrl_c(server: subprocess.Popen[bytes]) -> str:
    """SIGINT to the whole process group, as Ctrl-C in a terminal sends it; returns the output."""
    os.killpg(server.pid, signal.SIGINT)
    output = server.communicate(timeout=60)[0].decode(errors="replace")
    assert server.returncode == 0, output[-3000:]
    return output


def assert_all_gone(processes: list[psutil.Process]) -> None:
    """Every one of `processes` exits within a hang guard (60 s; they stop within a second or two)."""
    gone, alive = psutil.wait_procs(processes, timeout=60)
    assert not alive, [(process.pid, process.cmdline()) for process in alive]


def test_ctrl_c_stops_everything_cleanly_and_games_survive_a_restart(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    session = requests.Session()
    server = start(tmp_path, port)
    try:
        created = call(session, "POST", f"{base}/v1/games", json={
            "game": "durak", "seats": [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "random"}]})
        game_id = created.json()["game_id"]
    finally:
        output = ctrl_c(server)
    assert "Traceback" not in output, output[-3000:]  # the worker never outlives its Redis
    assert (tmp_path / "cardroom.rdb").exists()
    server = start(tmp_path, port)
    try:
        assert call(session, "GET", f"{base}/v1/games/{game_id}").status_code == 200
    finally:
        ctrl_c(server)


def test_a_second_serve_on_a_busy_port_refuses_and_a_killed_serve_leaves_nothing(tmp_path: Path) -> None:
    port = free_port()
    first = start(tmp_path / "first", port)
    children = psutil.Process(first.pid).children(recursive=True)
    assert len(children) >= 4, children  # Redis, gunicorn (and its workers), the RQ worker (and its scheduler)
    second = launch(tmp_path / "second", port)
    output = second.communicate(timeout=START_SECONDS)[0].decode(errors="replace")
    assert second.returncode != 0 and f"127.0.0.1:{port} is already in use" in output, output[-3000:]
    assert BANNER not in output
    assert not (tmp_path / "second").exists(), "the refused serve started its own Redis"
    assert requests.get(f"http://127.0.0.1:{port}/readyz", timeout=10).status_code == 200  # the first one runs on

    first.kill()  # SIGKILL: no chance to stop anything itself
    first.wait()
    assert_all_gone(children)
    third = start(tmp_path / "first", port)  # the port and the data directory are free again
    ctrl_c(third)


def test_a_hung_up_serve_stops_everything(tmp_path: Path) -> None:
    """SIGHUP, as when its terminal closes: the same orderly stop as Ctrl-C."""
    server = start(tmp_path, free_port())
    children = psutil.Process(server.pid).children(recursive=True)
    server.send_signal(signal.SIGHUP)
    output = server.communicate(timeout=60)[0].decode(errors="replace")
    assert server.returncode == 0 and "Traceback" not in output, output[-3000:]
    assert_all_gone(children)


def test_serve_on_a_cluster_without_a_queue_redis_refuses_and_starts_nothing(tmp_path: Path) -> None:
    """Issue 21: with REDIS_CLUSTER_URL and neither RQ_REDIS_URL nor REDIS_URL no embedded Redis is started (a queue
    on this one host would tie every AI turn to it): `serve` says what is missing and exits."""
    environment = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "RQ_REDIS_URL")}
    environment["REDIS_CLUSTER_URL"] = f"redis://127.0.0.1:{free_port()}"
    refused = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "d")],
        env=environment, capture_output=True, text=True, timeout=START_SECONDS,
    )
    assert refused.returncode == 1 and "REDIS_CLUSTER_URL needs a Redis for the job queue" in refused.stderr
    assert BANNER not in refused.stdout and not (tmp_path / "d").exists()
