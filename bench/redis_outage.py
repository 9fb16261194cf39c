"""A Redis outage while 20 AI games play themselves (issue 15's acceptance: 10 s and 60 s, all games finish, no
worker exits, no AI turn played twice).

    python bench/redis_outage.py [--games 20] [--seconds 60] [--outage killed|frozen] [--workers 2]

Starts a redis-server of its own (append-only file, fsynced on every write), gunicorn (production config) and
`--workers` RQ workers on it (tests/e2e/stack.py), creates `--games` all-AI Durak games (`random` against `easy`),
and once every game has moved a few times takes Redis away for `--seconds`: `killed` (SIGKILL, then started again
on its data: connections refused) or `frozen` (SIGSTOP, then SIGCONT: connections hang until their timeouts).
Meanwhile it sends a view, a lobby, a create and a move request every 0.2 s: each must be 503. Then it waits for
every game to finish and prints what happened: requests during the outage and their statuses, worker exits, how
long the games took to finish once Redis was back, AI moves played with the fallback level (`ai_fallback`), and
whether every version of every game was written once (a turn played twice would show as a second write of a
version). Everything it started is stopped and removed at the end.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.e2e.stack import start_stack, stop_stack  # noqa: E402 - needs the repo root on sys.path
from tests.faults.games import (  # noqa: E402
    assert_each_version_written_once,
    create_ai_games,
    wait_finished,
    wait_until,
)
from tests.redis_server import RedisServer  # noqa: E402


def main() -> None:
    """Run one outage and print its report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--outage", choices=["killed", "frozen"], default="killed")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    server = RedisServer()
    server.start()
    stack = start_stack(label="bench-outage", redis_url=server.url, workers=args.workers)
    try:
        game_ids = create_ai_games(stack, args.games)
        wait_until(stack, game_ids, lambda views: all(view["version"] >= 4 for view in views.values()))
        before = {game_id: requests.get(f"{stack.base_url}/v1/games/{game_id}", timeout=30).json()["version"]
                  for game_id in game_ids}
        server.kill() if args.outage == "killed" else server.pause()
        statuses: collections.Counter[tuple[int, str]] = collections.Counter()
        session = requests.Session()
        seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}]
        ends = time.monotonic() + args.seconds
        while time.monotonic() < ends:
            for method, path, body in [
                ("GET", f"/v1/games/{game_ids[0]}", None), ("GET", "/v1/games", None),
                ("POST", "/v1/games", {"game": "durak", "seats": seats}),
                ("POST", f"/v1/games/{game_ids[0]}/actions", {"type": "resign"}),
            ]:
                answer = session.request(method, stack.base_url + path, json=body, timeout=60)
                statuses[(answer.status_code, answer.json().get("error", ""))] += 1
            time.sleep(0.2)
        server.start() if args.outage == "killed" else server.resume()
        back = time.monotonic()
        finished = wait_finished(stack, game_ids)
        took = time.monotonic() - back
        exits = [worker.returncode for worker in stack.workers if worker.poll() is not None]
        fallbacks, versions = 0, 0
        for game_id in game_ids:
            events = assert_each_version_written_once(stack, game_id)
            fallbacks += sum(event["type"] == "ai_fallback" for event in events)
            versions += finished[game_id]["version"] - before[game_id]
        print(f"outage: Redis {args.outage} for {args.seconds:.0f} s during {args.games} AI games, "
              f"{args.workers} workers")
        print(f"requests while down: {sum(statuses.values())}, by status and error: {dict(statuses)}")
        print(f"games finished: {sum(view['status'] == 'finished' for view in finished.values())}/{args.games}, "
              f"the last {took:.1f} s after Redis was back; versions written after the outage began: {versions}")
        print(f"worker exits: {exits or 'none'}; AI moves by the fallback level: {fallbacks}; "
              "every version of every game written once: yes")
    finally:
        if server.process is not None and server.process.poll() is None:
            server.resume()
        stop_stack(stack, delete_redis_keys=False)
        server.remove()


if __name__ == "__main__":
    main()
