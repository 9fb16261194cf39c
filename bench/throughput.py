"""GET-view and POST-action throughput of Cardroom vs a bare Flask + redis-py app, side by side, in one run.

    python bench/throughput.py [--duration 3] [--rounds 3] [--clients 2] [--threads 8] [--max-requests 4000]
        [--game durak] [--seats 2] [--baseline /path/to/older/checkout]

Both apps run under gunicorn with Cardroom's production config (`-c python:service.gunicorn_conf`, 2 workers,
gevent) on the real Redis (REDIS_URL, default redis://127.0.0.1:6379/0), each under its own key prefix, and
their keys are deleted at the end. Load comes from `--clients` separate processes of `--threads` threads, each
with its own keep-alive `http.client` connection, over loopback. Rounds alternate the two targets (and their
order) so that noise on this shared machine hits both alike.

`--baseline` adds a third target: Cardroom as an older checkout (e.g. a `git worktree` of an earlier commit) runs
it, with that checkout's own gunicorn config, measured in the same rounds; its ratios to the bare app are printed
beside this code's.

Cardroom GETs read a seated view of an active game. Cardroom POSTs are real legal moves of games of `--game` with
`--seats` human seats (default: Durak, two): a few template games are first played over HTTP with random moves
read from each seat's view, then fresh games with the same seeds (hence the same deal) replay those moves during
the measurement, so a timed phase sends POSTs only. The bare app's GET returns a stored copy of a real Cardroom
view; its POST bumps a version.
"""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import json
import random
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.e2e.stack import Stack, start_stack, stop_stack  # noqa: E402 - needs the repo root on sys.path

# One request: method, URL, headers, JSON body (None for a GET).
Request = tuple[str, str, dict[str, str], Any]
TEMPLATE_GAMES = 8
SCRIPT_MOVES = 400
"""A template game is played to its end or this many moves (a Talmut table of 8 random players takes thousands)."""
# Cardroom POSTs need games created beforehand: enough for this rate per thread during a whole phase.
MAX_POST_RATE_PER_THREAD = 100


@dataclass
class Outcome:
    """What some load measured: request count, failures (status >= 300), latencies and busy time (s)."""

    requests: int = 0
    failures: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, other: Outcome) -> None:
        """Fold another measurement of the same target and operation into this one."""
        self.requests += other.requests
        self.failures += other.failures
        self.latencies.extend(other.latencies)
        self.seconds += other.seconds


def run_load(threads: list[list[Request]], repeat: bool, start_at: float, duration: float, cap: int) -> Outcome:
    """Run in a load process: each thread sends its requests in order (cycling if `repeat`) until `duration`
    seconds after `start_at` (a shared wall-clock time, so all processes start together) or `cap` requests.

    `seconds` is the time from `start_at` until the last thread finished.
    """
    outcome = Outcome()
    lock = threading.Lock()

    def drive(plan: list[Request]) -> None:
        # http.client rather than requests: a cheaper client leaves more of the 2 cores to the servers.
        address = urlsplit(plan[0][1])
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
        latencies, failures = [], 0
        time.sleep(max(0.0, start_at - time.time()))
        stop = start_at + duration
        index = 0
        while len(latencies) < cap and time.time() < stop and (repeat or index < len(plan)):
            method, url, headers, body = plan[index % len(plan)]
            index += 1
            if body is not None:
                headers = {**headers, "Content-Type": "application/json"}
            payload = None if body is None else json.dumps(body).encode()
            sent = time.perf_counter()
            connection.request(method, urlsplit(url).path, body=payload, headers=headers)
            response = connection.getresponse()
            response.read()
            latencies.append(time.perf_counter() - sent)
            failures += response.status >= 300
        with lock:
            outcome.latencies.extend(latencies)
            outcome.failures += failures
            outcome.seconds = max(outcome.seconds, time.time() - start_at)

    workers = [threading.Thread(target=drive, args=(plan,)) for plan in threads]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    outcome.requests = len(outcome.latencies)
    return outcome


def post_json(url: str, body: Any, token: str | None = None, expect: int = 200) -> dict[str, Any]:
    """A setup request that must succeed; its JSON answer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.post(url, json=body, headers=headers, timeout=10)
    assert response.status_code == expect, (url, response.status_code, response.text)
    return response.json()


@dataclass(frozen=True)
class Table:
    """The games the Cardroom phases play: `game` with `seats` human seats."""

    game: str = "durak"
    seats: int = 2

    @property
    def started_at(self) -> int:
        """The version of a game once its last seat is taken (creation is 1, each join adds one)."""
        return self.seats


def new_human_game(base: str, table: Table, seed: int) -> tuple[str, list[str], dict[str, Any]]:
    """Create a game of human seats and take the others; its id, every seat's token and seat 0's view."""
    seats = [{"kind": "human", "name": f"P{number}"} for number in range(table.seats)]
    created = post_json(f"{base}/v1/games", {"game": table.game, "seats": seats, "seed": seed}, expect=201)
    tokens = [created["player_token"]]
    for number in range(1, table.seats):
        joined = post_json(f"{base}/v1/games/{created['game_id']}/seats", {"name": f"P{number}"}, expect=201)
        tokens.append(joined["player_token"])
    return created["game_id"], tokens, created


def record_script(base: str, table: Table, seed: int) -> list[tuple[int, dict[str, Any]]]:
    """Play one game (to its end, or `SCRIPT_MOVES` moves) with random legal moves read from the views; the (seat,
    action) list.

    The seat to move is the first of `to_act` (in Talmut's matching window the others may also act).
    """
    game_id, tokens, _ = new_human_game(base, table, seed)
    url, rng, script = f"{base}/v1/games/{game_id}", random.Random(seed), []
    view = requests.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10).json()
    while view["status"] != "finished" and len(script) < SCRIPT_MOVES:
        seat = view["to_act"][0]
        if view["you"] != seat:
            view = requests.get(url, headers={"Authorization": f"Bearer {tokens[seat]}"}, timeout=10).json()
        action = rng.choice([move for move in view["legal_actions"] if move["type"] != "resign"])
        script.append((seat, action))
        view = post_json(f"{url}/actions", action, tokens[seat])
    return script


def cardroom_post_plans(
    base: str, table: Table, scripts: dict[int, list], plans: int, per_plan: int
) -> list[list[Request]]:
    """`plans` request lists of at least `per_plan` scripted POSTs each, over freshly created games."""
    seeds = list(scripts)
    result = []
    for number in range(plans):
        plan: list[Request] = []
        while len(plan) < per_plan:
            seed = seeds[(number + len(plan)) % len(seeds)]
            game_id, tokens, _ = new_human_game(base, table, seed)
            # Each move adds exactly one version (no AI seat).
            for step, (seat, action) in enumerate(scripts[seed]):
                headers = {"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{table.started_at + step}"'}
                plan.append(("POST", f"{base}/v1/games/{game_id}/actions", headers, action))
        result.append(plan)
    return result


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile of `values` (nearest rank), in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    """Start the apps, run the rounds, print the table and the ratios, clean up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per target and operation per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2, help="load processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per load process")
    parser.add_argument("--max-requests", type=int, default=20000, help="cap per target, operation and round")
    parser.add_argument("--game", default="durak", help="the game of the Cardroom phases")
    parser.add_argument("--seats", type=int, default=2, help="human seats of each game")
    parser.add_argument("--baseline", type=Path, help="an older checkout, measured as a third target")
    args = parser.parse_args()
    table = Table(args.game, args.seats)
    plans_per_phase = args.clients * args.threads
    cap = max(1, args.max_requests // plans_per_phase)
    apps = ["cardroom", "baseline"] if args.baseline else ["cardroom"]

    stacks: dict[str, Stack] = {}
    try:
        stacks["cardroom"] = start_stack(label="bench-cardroom", with_worker=False)
        if args.baseline:
            stacks["baseline"] = start_stack(label="bench-baseline", with_worker=False, source=args.baseline)
        stacks["bare"] = start_stack(app="bench.bare_app:app", with_worker=False, label="bench-bare")
        bare = stacks["bare"].base_url
        print(f"recording {TEMPLATE_GAMES} template games ...", flush=True)
        scripts = {seed: record_script(stacks["cardroom"].base_url, table, seed) for seed in range(TEMPLATE_GAMES)}
        get_plans: dict[str, list[list[Request]]] = {target: [] for target in [*apps, "bare"]}
        client = redis.Redis.from_url(stacks["bare"].redis_url)
        for number in range(plans_per_phase):
            views = {}
            for app in apps:
                base = stacks[app].base_url
                game_id, tokens, views[app] = new_human_game(base, table, number)
                get_plans[app].append([("GET", f"{base}/v1/games/{game_id}", {"Authorization": f"Bearer {tokens[0]}"},
                                        None)])
            # The bare app serves a copy of a real view of this code, so the answers are of about the same size.
            client.set(f"{stacks['bare'].prefix}:item:{number}", json.dumps(views["cardroom"]))
            get_plans["bare"].append([("GET", f"{bare}/items/{number}", {}, None)])
        post_plans: dict[str, list[list[list[Request]]]] = {
            "bare": [[[("POST", f"{bare}/items/{number}", {}, None)] for number in range(plans_per_phase)]]
            * args.rounds
        }
        print("creating games for the POST phases ...", flush=True)
        per_plan = min(cap, int(MAX_POST_RATE_PER_THREAD * args.duration))
        for app in apps:
            post_plans[app] = [cardroom_post_plans(stacks[app].base_url, table, scripts, plans_per_phase, per_plan)
                               for _ in range(args.rounds)]

        targets = [*apps, "bare"]
        totals = {(target, op): Outcome() for target in targets for op in ("GET", "POST")}
        with ProcessPoolExecutor(max_workers=args.clients) as pool:
            for round_number in range(args.rounds):
                shift = round_number % len(targets)  # each target goes first in turn
                order = targets[shift:] + targets[:shift]
                for op in ("GET", "POST"):
                    for target in order:
                        if op == "GET":
                            plans, repeat = get_plans[target], True
                        else:
                            plans, repeat = post_plans[target][round_number], target == "bare"
                        start_at = time.time() + 0.5
                        futures = [
                            pool.submit(run_load, plans[n :: args.clients], repeat, start_at, args.duration, cap)
                            for n in range(args.clients)
                        ]
                        phase = Outcome()
                        for future in futures:
                            part = future.result()
                            phase.add(dataclasses.replace(part, seconds=0.0))
                            # The processes ran side by side: the phase lasted as long as the slowest one.
                            phase.seconds = max(phase.seconds, part.seconds)
                        totals[target, op].add(phase)
                        print(
                            f"round {round_number + 1} {op:4} {target:8} {phase.requests / phase.seconds:8.0f} req/s",
                            flush=True,
                        )
    finally:
        for stack in stacks.values():
            stop_stack(stack)

    print(f"\n{table.game}, {table.seats} seats")
    print(f"{'target':9} {'op':4} {'requests':>8} {'fail':>4} {'req/s':>8} {'p50 ms':>7} {'p95 ms':>7}")
    rates = {}
    for (target, op), total in totals.items():
        rates[target, op] = total.requests / total.seconds
        print(
            f"{target:9} {op:4} {total.requests:8} {total.failures:4} {rates[target, op]:8.0f} "
            f"{percentile(total.latencies, 0.5):7.2f} {percentile(total.latencies, 0.95):7.2f}"
        )
    for app in apps:
        for op in ("GET", "POST"):
            print(f"{app}/bare {op}: {rates[app, op] / rates['bare', op]:.2f}")
    if any(total.failures for total in totals.values()):
        sys.exit("some requests failed (status >= 300): the figures are not valid")


if __name__ == "__main__":
    main()
