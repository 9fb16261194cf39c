"""How long a Talmut game runs: rounds and turns of AI games in the engine, or time per turn on the stack (issue 45).

    python bench/talmut_length.py [--level easy] [--games 20] [--seats 3] [--target 50]
    python bench/talmut_length.py --stack [--level easy] [--games 3] [--target 10] [--match-pause-ms 1500]

Seeded games (seeds 0 to games-1) of `--seats` AI seats of one level, options default but `target`.

In the engine (the default): each step asks the seats that may only match or withdraw first, then the turn seat,
as the service enqueues their turns (service/turns.py); the first seat whose level chooses an action plays it. A
turn is a draw or a call of the turn seat. Prints the median and range of rounds per game, the median and
quartiles of turns per round, and the time.

`--stack`: starts gunicorn and one RQ worker (tests/e2e/stack.py: own key prefix and queue on the Redis of
REDIS_URL, keys deleted at the end), creates each game over HTTP with `match_pause_ms`, long-polls it to its end
and counts its turns (`drew` and `called` events): the time per turn is the game's wall time over its turns, AI
decisions, jobs, writes and any match pause included.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.games import talmut  # noqa: E402
from engine.players import choose_action, seat_view  # noqa: E402 - needs the repo root on sys.path
from tests.e2e.stack import call, start_stack, stop_stack  # noqa: E402


def play_game(level: str, seats: int, target: int, seed: int) -> list[int]:
    """The turns of each round of one game played in the engine, in order."""
    options = talmut.parse_options({"target": target})
    state = talmut.with_ai_seats(talmut.new_game(seats, options, seed=seed), range(seats))
    rng = random.Random(seed)
    rounds: list[int] = []
    turns = 0
    while talmut.result(state) is None:
        for seat in sorted(talmut.to_act(state), key=lambda seat: seat == state.turn):
            action = choose_action(seat_view("talmut", state, seat), level, random.Random(rng.random()))
            if action is not None:
                break
        assert action is not None, "the turn seat always acts"
        turns += seat == state.turn and action["type"] in ("draw", "call")
        before = state.round
        state, _ = talmut.apply(state, seat, action)
        if state.round != before or talmut.result(state) is not None:
            rounds.append(turns)
            turns = 0
    return rounds


def in_the_engine(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    games = [play_game(args.level, args.seats, args.target, seed) for seed in range(args.games)]
    rounds = [len(game) for game in games]
    turns = [count for game in games for count in game]
    quartiles = statistics.quantiles(turns, n=4) if len(turns) > 1 else turns * 3
    print(f"{args.level} x{args.seats}, target {args.target}, {args.games} games: rounds per game median "
          f"{statistics.median(rounds):g} ({min(rounds)}-{max(rounds)}); turns per round median "
          f"{statistics.median(turns):g} (quartiles {quartiles[0]:g}-{quartiles[2]:g}); "
          f"{time.perf_counter() - started:.1f} s")


def on_the_stack(args: argparse.Namespace) -> None:
    stack = start_stack(label="talmut-length")
    try:
        per_turn = []
        for seed in range(args.games):
            session = requests.Session()
            started = time.monotonic()
            view = call(session, "POST", f"{stack.base_url}/v1/games", json={
                "game": "talmut", "seed": seed,
                "options": {"target": args.target, "match_pause_ms": args.match_pause_ms},
                "seats": [{"kind": "ai", "level": args.level}] * args.seats,
            }).json()
            url = f"{stack.base_url}/v1/games/{view['game_id']}"
            while view["status"] != "finished":
                polled = call(session, "GET", f"{url}?after_version={view['version']}&wait=5")
                if polled.status_code == 200:
                    view = polled.json()
            elapsed = time.monotonic() - started
            events = call(session, "GET", f"{url}/events?after=0").json()["events"]
            turns = sum(1 for event in events if event["type"] in ("drew", "called"))
            per_turn.append(elapsed / turns)
            print(f"seed {seed}: {turns} turns, {len(view['result']['scores']['rounds'])} rounds, {elapsed:.1f} s",
                  flush=True)
        print(f"{args.level} x{args.seats}: median {statistics.median(per_turn) * 1000:.0f} ms per turn over "
              f"{args.games} games")
    finally:
        stop_stack(stack)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stack", action="store_true", help="time whole games on gunicorn and one RQ worker")
    parser.add_argument("--level", default="easy")
    parser.add_argument("--games", type=int, help="default 20 in the engine, 3 on the stack")
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--target", type=int, help="default 50 in the engine, 10 on the stack")
    parser.add_argument("--match-pause-ms", type=int, default=1500, help="on the stack")
    args = parser.parse_args()
    args.games = args.games or (3 if args.stack else 20)
    args.target = args.target or (10 if args.stack else 50)
    (on_the_stack if args.stack else in_the_engine)(args)


if __name__ == "__main__":
    main()
