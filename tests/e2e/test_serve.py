"""`cardroom serve` with no REDIS_URL (README "Quick start"): its own Redis, a worker, gunicorn; Ctrl-C stops them
in order and the games are still there after a restart (data under `--data-dir`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.e2e.stack import call, free_port

pytestmark = pytest.mark.e2e


def start(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`cardroom serve` in a process group of its own, as a terminal runs it; returns once it answers."""
    environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)],
        env=environment, process_group=0, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200:
                return server
        except requests.RequestException:  # not listening yet, or still starting
            time.sleep(0.2)
    server.kill()
    raise AssertionError(server.communicate()[0].decode(errors="replace")[-3000:])


def ctrl_c(server: subprocess.Popen[bytes]) -> str:
    """SIGINT to the whole process group, as Ctrl-C in a terminal sends it; returns the output."""
    os.killpg(server.pid, signal.SIGINT)
    output = server.communicate(timeout=60)[0].decode(errors="replace")
    assert server.returncode == 0, output[-3000:]
    return output


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
