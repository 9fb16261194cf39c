"""Run a WSGI app under gunicorn (production settings) and optionally one RQ worker, on the real Redis.

Shared by the e2e fixture and `bench/throughput.py`. Each stack gets its own key prefix, RQ queue and port, and
`delete_keys` removes exactly what it created (never FLUSHDB: the Redis may be shared).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import redis
import requests

REPO = Path(__file__).resolve().parents[2]
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Stack:
    """A running gunicorn (and worker): where it listens, its Redis namespace, its processes and log files."""

    base_url: str
    redis_url: str
    prefix: str
    queue: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: dict[str, Path] = field(default_factory=dict)

    def log_text(self, tail_chars: int = 20000) -> str:
        """The end of every process log, labelled, for a failure report."""
        parts = []
        for name, path in self.logs.items():
            text = path.read_text(errors="replace") if path.exists() else ""
            parts.append(f"----- {name} ({path}) -----\n{text[-tail_chars:]}")
        return "\n".join(parts)


def start_stack(
    app: str = "service.wsgi:app", with_worker: bool = True, label: str = "e2e", ready_path: str = "/readyz",
    settings: dict[str, str] | None = None,
) -> Stack:
    """Start gunicorn with `-c python:service.gunicorn_conf` (2 workers) serving `app`, plus `python -m worker`.

    `settings` are more environment variables for both (e.g. `CORS_ORIGINS`). Output goes to temp files
    (`Stack.logs`). Waits until `ready_path` answers 200.

    Raises:
        RuntimeError: a process died or the app was not ready within 30 s (the message holds the logs).
    """
    unique = f"{label}-{uuid.uuid4().hex[:10]}"
    port = free_port()
    stack = Stack(
        base_url=f"http://127.0.0.1:{port}",
        redis_url=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        prefix=unique,
        queue=unique,
    )
    environment = dict(
        os.environ,
        REDIS_URL=stack.redis_url,
        KEY_PREFIX=stack.prefix,
        RQ_QUEUE=stack.queue,
        CARDROOM_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
        **(settings or {}),
    )
    log_dir = Path(tempfile.mkdtemp(prefix=f"cardroom-{unique}-"))
    commands = {"gunicorn": [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", app]}
    if with_worker:
        commands["worker"] = [sys.executable, "-m", "worker"]
    for name, command in commands.items():
        stack.logs[name] = log_dir / f"{name}.log"
        with open(stack.logs[name], "wb") as log:
            stack.processes.append(
                subprocess.Popen(command, cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT)
            )
    try:
        _wait_ready(stack, ready_path)
    except BaseException:
        stop_stack(stack)
        raise
    return stack


def _wait_ready(stack: Stack, path: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in stack.processes):
            raise RuntimeError(f"a process of the stack exited early\n{stack.log_text()}")
        try:
            if requests.get(stack.base_url + path, timeout=1).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass  # gunicorn is not listening yet, or its workers are still importing the app (a loaded machine)
        time.sleep(0.1)
    raise RuntimeError(f"{stack.base_url}{path} not ready within {timeout} s\n{stack.log_text()}")


def stop_stack(stack: Stack) -> None:
    """Terminate the stack's processes (SIGTERM, then SIGKILL after 15 s) and delete its Redis keys."""
    for process in stack.processes:
        if process.poll() is None:
            process.terminate()
    for process in stack.processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    delete_keys(redis.Redis.from_url(stack.redis_url), stack.prefix, stack.queue)


def delete_keys(client: redis.Redis, prefix: str, queue: str) -> int:
    """Delete the keys of one stack by SCAN and return how many: `<prefix>:*`, its games' RQ jobs and results
    (`rq:*ai-<game_id>-*`), the queue's RQ keys (`rq:*<queue>*`) and its dead worker's hash.

    Shared sets (`rq:queues`, `rq:workers`) only lose this queue's members.
    """
    game_ids = set()
    doomed = []
    for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        doomed.append(key)
        name = key.decode()
        if name.endswith(":game") and "{" in name:
            game_ids.add(name[name.index("{") + 1 : name.index("}")])
    patterns = [f"rq:*ai-{game_id}-*" for game_id in game_ids] + [f"rq:*{queue}*"]
    for pattern in patterns:
        doomed.extend(client.scan_iter(match=pattern, count=1000))
    for key in client.scan_iter(match="rq:worker:*", count=1000):
        # A stopped worker leaves its hash behind (with a TTL) naming the queues it served.
        if client.type(key) == b"hash" and client.hget(key, "queues") == queue.encode():
            doomed.append(key)
    client.srem("rq:queues", f"rq:queue:{queue}")
    deleted = 0
    for start in range(0, len(doomed), 500):
        deleted += client.delete(*doomed[start : start + 500])
    return deleted


def call(session: requests.Session, method: str, url: str, timeout: float = 25, **kwargs) -> requests.Response:
    """One HTTP request that must not be a 5xx (the server never fails on legal traffic).

    A long-poll turned away because every slot is busy (304 with `Retry-After`) waits that long, as a client should.
    """
    response = session.request(method, url, timeout=timeout, **kwargs)
    assert response.status_code < 500, f"{method} {url}: {response.status_code} {response.text[:500]}"
    if response.status_code == 304 and "Retry-After" in response.headers:
        time.sleep(float(response.headers["Retry-After"]))
    return response
