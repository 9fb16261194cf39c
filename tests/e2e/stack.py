"""Run a WSGI app under gunicorn (production settings) and optionally one RQ worker, on the real Redis.

Shared by the e2e fixture and `bench/throughput.py`. Each stack gets its own key prefix, RQ queue and port, and
`delete_keys` removes exactly what it created (never FLUSHDB: the Redis may be shared).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import redis
import requests
from redis.cluster import RedisCluster

from tests.netns import LOCAL, Host
from tests.redis_server import free_port

REPO = Path(__file__).resolve().parents[2]
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
STALL_SECONDS = 120.0
"""The e2e hang guard: a game that made no progress (no new version) for this long is stuck. An AI move takes
milliseconds, a revived one AI_JOB_STALE_SECONDS plus a sweep (25 s): this is ten times a slow normal wait, and it
holds at any machine load, where a deadline for a whole game does not (issue 15, point 11)."""
START_SECONDS = 120.0
"""Hang guard of a stack's start: gunicorn importing the app takes a few seconds, several times that on a loaded
machine."""


class StallGuard:
    """A hang guard that judges progress, not time: `check(marker)` fails once `marker` (e.g. a game's version)
    has stayed the same for `seconds`."""

    def __init__(self, what: str, seconds: float = STALL_SECONDS) -> None:
        self.what = what
        self.seconds = seconds
        self.marker: object = None
        self.since = time.monotonic()

    def check(self, marker: object) -> None:
        """Note `marker` now; fail if it has not changed for `seconds`."""
        if marker != self.marker:
            self.marker, self.since = marker, time.monotonic()
        assert time.monotonic() - self.since < self.seconds, f"{self.what}: no progress for {self.seconds} s"
__all__ = ["free_port"]  # re-exported for the tests that start servers of their own


@dataclass
class Stack:
    """A running gunicorn (and worker): where it listens, its Redis namespace, its processes and log files."""

    base_url: str
    redis_url: str
    prefix: str
    queue: str
    cluster_url: str | None = None  # REDIS_CLUSTER_URL: the games on a cluster, the queue at `redis_url`
    base_urls: list[str] = field(default_factory=list)  # every gunicorn's, `base_url` first
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: dict[str, Path] = field(default_factory=dict)
    environment: dict[str, str] = field(default_factory=dict)
    log_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cardroom-stack-")))
    source: Path = REPO  # the checkout whose code the processes run

    @property
    def workers(self) -> list[subprocess.Popen[bytes]]:
        """The RQ worker processes (each leads its own process group, with its work horse and scheduler)."""
        return [process for name, process in zip(self.logs, self.processes, strict=True) if name.startswith("worker")]

    def log_text(self, tail_chars: int = 20000) -> str:
        """The end of every process log, labelled, for a failure report."""
        parts = []
        for name, path in self.logs.items():
            text = path.read_text(errors="replace") if path.exists() else ""
            parts.append(f"----- {name} ({path}) -----\n{text[-tail_chars:]}")
        return "\n".join(parts)


def start_stack(
    app: str = "service.wsgi:app",
    with_worker: bool = True,
    label: str = "e2e",
    ready_path: str = "/readyz",
    redis_url: str | None = None,
    workers: int = 1,
    environment: dict[str, str] | None = None,
    source: Path = REPO,
    cluster_url: str | None = None,
    servers: int = 1,
    web_hosts: list[Host] | None = None,
    worker_host: Host = LOCAL,
) -> Stack:
    """Start gunicorn with `-c python:service.gunicorn_conf` (2 workers) serving `app`, plus `workers` times
    `python -m worker` (none without `with_worker`), on `redis_url` (default REDIS_URL, else the local server).

    With `cluster_url` the game state lives on that Redis Cluster (`REDIS_CLUSTER_URL`) and the queue at
    `redis_url` (`RQ_REDIS_URL`). `servers` gunicorns (each on a port of its own, `Stack.base_urls`) serve the
    same games, as web pods behind a load balancer. `web_hosts` puts one gunicorn on each of those hosts instead
    (tests/netns.py: listening on the host's address), `worker_host` the workers on that host.

    `environment` adds settings (e.g. `AI_JOB_STALE_SECONDS`) for every process; `source` is the checkout whose
    code runs (another commit's worktree, for a benchmark side by side). Output goes to temp files
    (`Stack.logs`). Waits until `ready_path` answers 200.

    Raises:
        RuntimeError: a process died or the app was not ready within START_SECONDS (the message holds the logs).
    """
    unique = f"{label}-{uuid.uuid4().hex[:10]}"
    web = [(host, free_port()) for host in web_hosts or [LOCAL] * servers]
    stack = Stack(
        base_url=f"http://{web[0][0].ip}:{web[0][1]}",
        redis_url=redis_url or os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        prefix=unique,
        queue=unique,
        source=source,
        cluster_url=cluster_url,
    )
    cluster = {"REDIS_CLUSTER_URL": cluster_url, "RQ_REDIS_URL": stack.redis_url} if cluster_url else {}
    stack.environment = dict(
        os.environ,
        REDIS_URL=stack.redis_url,
        **cluster,
        KEY_PREFIX=stack.prefix,
        RQ_QUEUE=stack.queue,
        WEB_CONCURRENCY="2",
        **(environment or {}),
    )
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", app]
    for number, (host, port) in enumerate(web):
        stack.base_urls.append(f"http://{host.ip}:{port}")
        start_process(stack, f"gunicorn-{number}" if number else "gunicorn", gunicorn,
                      {"CARDROOM_BIND": f"{host.ip}:{port}"}, host)
    for number in range(workers if with_worker else 0):
        start_process(stack, f"worker-{number}", [sys.executable, "-m", "worker"], host=worker_host)
    try:
        _wait_ready(stack, ready_path)
    except BaseException:
        stop_stack(stack)
        raise
    return stack


def start_process(
    stack: Stack, name: str, command: list[str], environment: dict[str, str] | None = None, host: Host = LOCAL
) -> subprocess.Popen[bytes]:
    """Start one more process of the stack (its environment with `environment`'s changes, output to
    `stack.logs[name]`) in `host` (tests/netns.py; there with a temporary directory of its own, `TMPDIR`, under
    `stack.log_dir`), in a process group of its own, so that a test can kill a worker together with its work horse
    and scheduler, like a lost pod."""
    stack.logs[name] = stack.log_dir / f"{name}.log"
    if host != LOCAL:
        # Parts on different hosts must not meet through temporary files, nor two processes of one host.
        environment = {"TMPDIR": str(stack.log_dir / f"{name}.tmp"), **(environment or {})}
        Path(environment["TMPDIR"]).mkdir(exist_ok=True)
    with open(stack.logs[name], "wb") as log:
        process = subprocess.Popen(host.command(command), cwd=stack.source,
                                   env={**stack.environment, **(environment or {})},
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    stack.processes.append(process)
    return process


def _wait_ready(stack: Stack, path: str, timeout: float = START_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in stack.processes):
            raise RuntimeError(f"a process of the stack exited early\n{stack.log_text()}")
        try:
            if all(requests.get(url + path, timeout=1).status_code == 200 for url in stack.base_urls):
                return
        except (requests.ConnectionError, requests.Timeout):
            pass  # gunicorn is not listening yet, or its workers are still importing the app (a loaded machine)
        time.sleep(0.1)
    raise RuntimeError(f"{stack.base_url}{path} not ready within {timeout} s\n{stack.log_text()}")


def stop_stack(stack: Stack, delete_redis_keys: bool = True) -> None:
    """Terminate the stack's processes (SIGTERM, then SIGKILL after 15 s), delete its logs and its Redis keys
    (unless `delete_redis_keys` is false: a Redis of the test's own goes with its keys)."""
    for process in stack.processes:
        if process.poll() is None:
            process.terminate()
    for process in stack.processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    shutil.rmtree(stack.log_dir, ignore_errors=True)
    if not delete_redis_keys:
        return
    with redis.Redis.from_url(stack.redis_url) as queue:
        if stack.cluster_url is None:
            delete_keys(queue, stack.prefix, stack.queue)
            return
        with RedisCluster.from_url(stack.cluster_url.split(",")[0]) as cluster:
            try:
                games = [cluster.get_redis_connection(node) for node in cluster.get_primaries()]
                delete_keys(queue, stack.prefix, stack.queue, games)
            finally:
                # RedisCluster.close leaves its nodes' pools open: their sockets would last until the garbage
                # collector breaks their reference cycles.
                cluster.disconnect_connection_pools()


def delete_keys(client: redis.Redis, prefix: str, queue: str, games: list[redis.Redis] | None = None) -> int:
    """Delete the keys of one stack by SCAN and return how many: `<prefix>:*`, its games' RQ jobs and results
    (`rq:*ai-<game_id>-*`, `rq:*clock-<game_id>-*`, webhook deliveries' `rq:*hook-<game_id>-*`), the queue's RQ keys
    (`rq:*<queue>*`) and its dead worker's hash.

    `client` is the queue's Redis; `games` the Redis servers of the game state when it lives elsewhere (each
    primary of a Redis Cluster: a SCAN sees one node's keys only), else `client`'s too. Shared sets (`rq:queues`,
    `rq:workers`) only lose this queue's members.
    """
    game_ids = set()
    deleted = 0
    for server in [client] if games is None else [*games, client]:
        mine = list(server.scan_iter(match=f"{prefix}:*", count=1000))
        for key in mine:
            name = key.decode()
            if name.endswith(":game") and "{" in name:
                game_ids.add(name[name.index("{") + 1 : name.index("}")])
        with server.pipeline(transaction=False) as pipe:
            for key in mine:
                pipe.delete(key)  # one key a command: a cluster node's keys span slots
            deleted += sum(pipe.execute())
    doomed: list[bytes] = []
    patterns = [f"rq:*{kind}-{game_id}-*" for game_id in game_ids for kind in ("ai", "clock", "hook")]
    patterns.append(f"rq:*{queue}*")
    for pattern in patterns:
        doomed.extend(client.scan_iter(match=pattern, count=1000))
    for key in client.scan_iter(match="rq:worker:*", count=1000):
        # A stopped worker leaves its hash behind (with a TTL) naming the queues it served.
        if client.type(key) == b"hash" and client.hget(key, "queues") == queue.encode():
            doomed.append(key)
    client.srem("rq:queues", f"rq:queue:{queue}")
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
