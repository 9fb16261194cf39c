"""GET-view and POST-action throughput of Cardroom vs a bare Flask + redis-py app, side by side, in one run.

    python bench/throughput.py [--duration 3] [--rounds 3] [--clients 2] [--threads 8] [--max-requests 4000]

Both apps run under gunicorn with Cardroom's production config (`-c python:service.gunicorn_conf`, 2 workers,
gthread) on the real Redis (REDIS_URL, default redis://127.0.0.1:6379/0), each under its own key prefix, and
their keys are deleted at the end. Load comes from `--clients` separate processes of `--threads` threads, each
with its own keep-alive `http.client` connection, over loopback. Rounds alternate the two targets (and their
order) so that noise on this shared machine hits both alike.

Cardroom GETs read a seated view of an active game. Cardroom POSTs are real legal moves of games with two human
seats: a few template games are first played over HTTP with random moves read from each seat's view, then fresh
games with the same seeds (hence the same deal) replay those moves during the measurement, so a timed phase
sends POSTs only. The bare app's GET returns a stored copy of a real Cardroom view; its POST bumps a version.
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
# Cardroom POSTs need games created beforehand: enough for this rate per thread during a whole phase.
MAX_POST_RATE_PER_THREAD = 100
TWO_HUMANS = [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]


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


def new_two_human_game(base: str, seed: int) -> tuple[str, list[str], dict[str, Any]]:
    """Create a Durak game with two human seats and join the second; its id, both tokens and seat 0's view."""
    created = post_json(f"{base}/v1/games", {"game": "durak", "seats": TWO_HUMANS, "seed": seed}, expect=201)
    joined = post_json(f"{base}/v1/games/{created['game_id']}/seats", {"name": "B"}, expect=201)
    return created["game_id"], [created["player_token"], joined["player_token"]], created


def record_script(base: str, seed: int) -> list[tuple[int, dict[str, Any]]]:
    """Play one two-human game to the end with random legal moves read from the views; the (seat, action) list."""
    game_id, tokens, _ = new_two_human_game(base, seed)
    url, rng, script = f"{base}/v1/games/{game_id}", random.Random(seed), []
    view = requests.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10).json()
    while view["status"] != "finished":
        seat = view["to_act"][0]
        if view["you"] != seat:
            view = requests.get(url, headers={"Authorization": f"Bearer {tokens[seat]}"}, timeout=10).json()
        action = rng.choice([move for move in view["legal_actions"] if move["type"] != "resign"])
        script.append((seat, action))
        view = post_json(f"{url}/actions", action, tokens[seat])
    return script


def cardroom_post_plans(base: str, scripts: dict[int, list], plans: int, per_plan: int) -> list[list[Request]]:
    """`plans` request lists of at least `per_plan` scripted POSTs each, over freshly created games."""
    seeds = list(scripts)
    result = []
    for number in range(plans):
        plan: list[Request] = []
        while len(plan) < per_plan:
            seed = seeds[(number + len(plan)) % len(seeds)]
            game_id, tokens, _ = new_two_human_game(base, seed)
            # After the join the game is at version 2; each move adds exactly one (no AI seat).
            for step, (seat, action) in enumerate(scripts[seed]):
                headers = {"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{2 + step}"'}
                plan.append(("POST", f"{base}/v1/games/{game_id}/actions", headers, action))
        result.append(plan)
    return result


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile of `values` (nearest rank), in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    """Start both apps, run the rounds, print the table and the ratios, clean up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per target and operation per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2, help="load processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per load process")
    parser.add_argument("--max-requests", type=int, default=20000, help="cap per target, operation and round")
    args = parser.parse_args()
    plans_per_phase = args.clients * args.threads
    cap = max(1, args.max_requests // plans_per_phase)

    stacks: dict[str, Stack] = {}
    try:
        stacks["cardroom"] = start_stack(label="bench-cardroom", with_worker=False)
        stacks["bare"] = start_stack(app="bench.bare_app:app", with_worker=False, label="bench-bare")
        cardroom, bare = stacks["cardroom"].base_url, stacks["bare"].base_url
        print(f"recording {TEMPLATE_GAMES} template games ...", flush=True)
        scripts = {seed: record_script(cardroom, seed) for seed in range(TEMPLATE_GAMES)}
        get_plans: dict[str, list[list[Request]]] = {"cardroom": [], "bare": []}
        client = redis.Redis.from_url(stacks["bare"].redis_url)
        for number in range(plans_per_phase):
            game_id, tokens, view = new_two_human_game(cardroom, number)
            get_plans["cardroom"].append(
                [("GET", f"{cardroom}/v1/games/{game_id}", {"Authorization": f"Bearer {tokens[0]}"}, None)]
            )
            # The bare app serves a copy of a real view, so both answer bodies of about the same size.
            client.set(f"{stacks['bare'].prefix}:item:{number}", json.dumps(view))
            get_plans["bare"].append([("GET", f"{bare}/items/{number}", {}, None)])
        bare_post_plans = [[("POST", f"{bare}/items/{number}", {}, None)] for number in range(plans_per_phase)]
        print("creating games for the POST phases ...", flush=True)
        per_plan = min(cap, int(MAX_POST_RATE_PER_THREAD * args.duration))
        cardroom_posts = [cardroom_post_plans(cardroom, scripts, plans_per_phase, per_plan) for _ in range(args.rounds)]

        totals = {(target, op): Outcome() for target in ("cardroom", "bare") for op in ("GET", "POST")}
        with ProcessPoolExecutor(max_workers=args.clients) as pool:
            for round_number in range(args.rounds):
                order = ["cardroom", "bare"] if round_number % 2 == 0 else ["bare", "cardroom"]
                for op in ("GET", "POST"):
                    for target in order:
                        if op == "GET":
                            plans, repeat = get_plans[target], True
                        elif target == "bare":
                            plans, repeat = bare_post_plans, True
                        else:
                            plans, repeat = cardroom_posts[round_number], False
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

    print(f"\n{'target':9} {'op':4} {'requests':>8} {'fail':>4} {'req/s':>8} {'p50 ms':>7} {'p95 ms':>7}")
    rates = {}
    for (target, op), total in totals.items():
        rates[target, op] = total.requests / total.seconds
        print(
            f"{target:9} {op:4} {total.requests:8} {total.failures:4} {rates[target, op]:8.0f} "
            f"{percentile(total.latencies, 0.5):7.2f} {percentile(total.latencies, 0.95):7.2f}"
        )
    for op in ("GET", "POST"):
        print(f"cardroom/bare {op}: {rates['cardroom', op] / rates['bare', op]:.2f}")
    if any(total.failures for total in totals.values()):
        sys.exit("some requests failed (status >= 300): the figures are not valid")


if __name__ == "__main__":
    main()
