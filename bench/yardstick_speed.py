"""How fast the yardstick (bench/yardsticks) searches: rollouts per second per game, from the opening position.

The opening is where a uniform random rollout runs longest, so these are the slowest decisions of a game. Per
game, one decision of `--rollouts` rollouts at each of `--deals` opening positions (deals seeded 0, 1, ...), timed
in wall and CPU time (the deciding process's, which a busy machine inflates less).

    python bench/yardstick_speed.py --rollouts 200 --deals 3
"""

from __future__ import annotations

import argparse
import random
import time

from yardsticks import yardstick_action

from engine.games import GAMES
from engine.players import seat_view
from engine.protocol import capabilities


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated game ids (default: all four)")
    args = parser.parse_args()
    print("| game | decisions | rollouts each | rollouts/s (wall) | rollouts/s (CPU) | s per 1,000 rollouts (CPU) |")
    print("|---|---:|---:|---:|---:|---:|")
    for game_id in args.only.split(",") if args.only else sorted(GAMES):
        game = GAMES[game_id]
        seats = game.SEATS.start
        wall = cpu = 0.0
        for seed in range(args.deals):
            state = capabilities(game).with_ai_seats(game.new_game(seats, game.parse_options({}), seed=seed),
                                                     range(seats))
            view = seat_view(game_id, state, min(game.to_act(state)))
            started, cpu_started = time.perf_counter(), time.process_time()
            yardstick_action(view, args.rollouts, random.Random(seed))
            wall += time.perf_counter() - started
            cpu += time.process_time() - cpu_started
        total = args.rollouts * args.deals
        print(f"| {game_id} | {args.deals} | {args.rollouts} | {total / wall:,.0f} | {total / cpu:,.0f} | "
              f"{1000 * cpu / total:.1f} |")


if __name__ == "__main__":
    main()
