"""How fast the search plays: iterations per second of `ismcts`, and the cost of one `apply` on playout moves.

    python bench/search_playouts.py [--views 6] [--iterations 300] [--repeats 5] [--games durak talmut ...]

Issue 16 made every game's `apply` check its action against `legal_actions`; the search applies only listed
actions, so the check is pure cost to it. Per game (Talmut at 3 and 8 seats) this builds `--views` seat views
from seeded random positions (seed k: k * 7 random legal moves, no resign) and times `ismcts` on each with
`--iterations` iterations and no time limit (the same search for the same seed, so two versions of the code run
exactly the same iterations), and it times `apply` alone on every move of seeded random games. Times are the
process's CPU time (`time.process_time`), not wall time, and each is the best of `--repeats` runs: on a shared
machine other processes' load then barely moves them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.ai.search import Budget, SearchStats, ismcts  # noqa: E402
from engine.games import GAMES  # noqa: E402
from engine.players import SEARCH_HOOKS, history_entry, seat_view  # noqa: E402 - needs the repo root on sys.path
from engine.protocol import capabilities  # noqa: E402

TABLES = [("durak", 2), ("svoi_koziri", 2), ("tadmur", 2), ("talmut", 3), ("talmut", 8)]


def random_moves(game_id: str, seats: int, seed: int, steps: int) -> tuple[object, list[tuple[object, int, dict]]]:
    """The state after up to `steps` seeded random moves (a seat that must act, no resign), and every move made."""
    game = GAMES[game_id]
    state = game.new_game(seats, game.parse_options({}), seed=seed)
    rng = random.Random(seed)
    optional = capabilities(game).optional_actions | {"resign"}
    moves = []
    for _ in range(steps):
        if game.result(state) is not None:
            break
        must = [s for s in sorted(game.to_act(state))
                if any(a["type"] not in optional for a in game.legal_actions(state, s))]
        seat = must[0]
        action = rng.choice([a for a in game.legal_actions(state, seat) if a["type"] != "resign"])
        moves.append((state, seat, action))
        state, _ = game.apply(state, seat, action)
    return state, moves


def views(game_id: str, seats: int, count: int) -> list[dict]:
    """`count` seat views with a real choice, each with its seat's history, from seeded random positions."""
    game = GAMES[game_id]
    found = []
    seed = 0
    while len(found) < count:
        seed += 1
        state, moves = random_moves(game_id, seats, seed, 7 * seed % 120)
        if game.result(state) is not None:
            continue
        optional = capabilities(game).optional_actions | {"resign"}
        seat = next(s for s in sorted(game.to_act(state))
                    if any(a["type"] not in optional for a in game.legal_actions(state, s)))
        history = []
        for version, (before, mover, action) in enumerate(moves, start=2):
            _, events = game.apply(before, mover, action)
            history.extend(history_entry(version, event, seat) for event in events)
        view = seat_view(game_id, state, seat, history)
        if len([a for a in view["legal_actions"] if a["type"] != "resign"]) > 1:
            found.append(view)
    return found


def time_searches(found: list[dict], iterations: int, repeats: int) -> tuple[float, int]:
    """The best total seconds of searching every view once with seed 0, and the iterations run."""
    best, total = float("inf"), 0
    for _ in range(repeats):
        started, total = time.process_time(), 0
        for view in found:
            stats = SearchStats()
            ismcts(SEARCH_HOOKS[view["game"]], view, random.Random(0), Budget(iterations, 1e9), stats)
            total += stats.iterations
        best = min(best, time.process_time() - started)
    return best, total


def time_applies(game_id: str, seats: int, repeats: int) -> tuple[float, int]:
    """The best seconds per `apply` over every move of 20 seeded random games, and the number of moves."""
    game = GAMES[game_id]
    moves = [move for seed in range(20) for move in random_moves(game_id, seats, seed, 400)[1]]
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for state, seat, action in moves:
            game.apply(state, seat, action)
        best = min(best, (time.process_time() - started) / len(moves))
    return best, len(moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", nargs="*", default=sorted({game_id for game_id, _ in TABLES}))
    args = parser.parse_args()
    print(f"{'table':<14} {'iterations':>10} {'search s':>9} {'iter/s':>8} {'moves':>6} {'apply us':>9}")
    for game_id, seats in [(game_id, seats) for game_id, seats in TABLES if game_id in args.games]:
        seconds, iterations = time_searches(views(game_id, seats, args.views), args.iterations, args.repeats)
        per_apply, moves = time_applies(game_id, seats, args.repeats)
        print(f"{game_id + ' ' + str(seats):<14} {iterations:>10} {seconds:>9.3f} {iterations / seconds:>8.0f} "
              f"{moves:>6} {per_apply * 1e6:>9.1f}")


if __name__ == "__main__":
    main()
