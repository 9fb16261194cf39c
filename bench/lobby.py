"""How long a lobby request takes beside many finished games (issue 15: 20 waiting + 5,000 finished, each <= 50 ms).

    python bench/lobby.py [--waiting 20] [--finished 5000] [--repeat 30]

Starts gunicorn (production config, no worker) on the real Redis (REDIS_URL, default redis://127.0.0.1:6379/0)
under its own key prefix, and fills it through the service's own write path (`service.turns.create_game` and
`play`, in this process): `--waiting` Durak games with an open seat, then `--finished` two-human games of Durak,
Svoi Koziri and Tadmur in turn, each ended by a resign (in Talmut a resigned seat plays on as an AI). Then it GETs
each lobby URL below `--repeat` times over one keep-alive connection and prints the latency of each (p50, p95,
max, in ms): the default page, full pages of finished games at the start, the middle and the end, the `game`
filter, a game with none, and a huge offset. Rate limits are off (one client sends every request). Keys are
deleted at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.throughput import percentile  # noqa: E402 - needs the repo root on sys.path
from service.records import SeatRecord  # noqa: E402
from service.redis_clients import redis_client  # noqa: E402
from service.scheduling import Queues  # noqa: E402
from service.store import GameStore  # noqa: E402
from service.turns import create_game, make_queue, play  # noqa: E402
from tests.e2e.stack import start_stack, stop_stack  # noqa: E402


def fill(store: GameStore, queue_name: str, waiting: int, finished: int) -> None:
    """`waiting` games with an open seat, then `finished` games ended by a resign, through the service's code."""
    queues = Queues([make_queue(store.client, queue_name)])
    for seed in range(waiting):
        create_game(store, queues, "durak", [SeatRecord("human", "Ann", token_hash="a" * 64), SeatRecord("human")],
                    {}, seed=seed)
    names = ["durak", "svoi_koziri", "tadmur"]
    for number in range(finished):
        game = names[number % len(names)]
        seats = [SeatRecord("human", f"P{seat}", token_hash=f"{seat}" * 64) for seat in range(2)]
        record = create_game(store, queues, game, seats, {}, seed=number)
        assert play(store, queues, record, 0, {"type": "resign"}).status == "finished"


def main() -> None:
    """Fill, measure, print, clean up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiting", type=int, default=20)
    parser.add_argument("--finished", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    stack = start_stack(with_worker=False, label="bench-lobby", environment={"RATE_LIMIT_ENABLED": "0"})
    try:
        store = GameStore(redis_client(stack.redis_url), stack.prefix)
        started = time.monotonic()
        fill(store, stack.queue, args.waiting, args.finished)
        print(f"{args.waiting} waiting and {args.finished} finished games stored in {time.monotonic() - started:.0f} s")
        half, last = args.finished // 2, max(0, args.finished - 100)
        paths = [
            "/v1/games", "/v1/games?limit=100", "/v1/games?status=finished&limit=100",
            f"/v1/games?status=finished&limit=100&offset={half}", f"/v1/games?status=finished&limit=100&offset={last}",
            f"/v1/games?status=finished&game=durak&limit=100&offset={args.finished // 8}",
            "/v1/games?game=talmut", "/v1/games?limit=1&offset=100000000",
            "/v1/games?status=finished&limit=1&offset=100000000",
        ]
        session = requests.Session()
        print("| request | games | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|")
        for path in paths:
            latencies, count = [], 0
            for _ in range(args.repeat):
                began = time.perf_counter()
                answer = session.get(stack.base_url + path, timeout=60)
                latencies.append(time.perf_counter() - began)
                assert answer.status_code == 200, answer.text
                count = len(answer.json()["games"])
            print(f"| `GET {path}` | {count} | {percentile(latencies, 0.5):.1f} | {percentile(latencies, 0.95):.1f} "
                  f"| {1000 * max(latencies):.1f} |")
    finally:
        stop_stack(stack)


if __name__ == "__main__":
    main()
