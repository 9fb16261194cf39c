"""Random playouts per second, engine only, one process: how fast the rules run under the search (issue 17).

    python bench/playouts.py [--seconds 5] [--games durak talmut ...]

Per table (Talmut at 3 and 8 seats) it plays whole games from a seeded deal to the end: each move uniform over the
legal actions (but `resign`) of a seat that must act, through the public rules (`new_game`, `to_act`,
`legal_actions`, `apply`, `result`), the same calls a search playout makes. It runs for `--seconds` of the
process's CPU time (`time.process_time`, which other processes' load barely moves) and prints playouts per second
and moves per second. Games that run longer than 20,000 moves are cut there and still counted.

A game with a fast path for the search's playouts (engine/ai/<game>_playout.py: a private mutable position,
checked against the public rules by tests/engine/<game>/test_playout.py) gets a second line, `fast`: the same
uniform random games (the same seeds, seats and choices) on that position, the speed the search's playouts run at.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.games import GAMES  # noqa: E402
from engine.games.durak.playout import Position as DurakPosition  # noqa: E402 - needs the repo root on sys.path
from engine.games.svoi_koziri.playout import Position as SvoiKoziriPosition  # noqa: E402
from engine.games.tadmur.playout import Position as TadmurPosition  # noqa: E402
from engine.games.talmut.playout import Position as TalmutPosition  # noqa: E402
from engine.protocol import capabilities  # noqa: E402

TABLES = [("durak", 2), ("svoi_koziri", 2), ("tadmur", 2), ("talmut", 3), ("talmut", 8)]
MAX_MOVES = 20_000


def _one_mover(position: Any, rng: random.Random) -> None:
    """Durak, Svoi Koziri, Tadmur: one seat acts at a time; `moves()` are its moves."""
    position.play(rng.choice(position.moves()))


def _turn_seat(position: Any, rng: random.Random) -> None:
    """Talmut: the turn seat (`mover()`) is the one seat that must act (talmut.md §4.1), the seat `playout` picks."""
    seat = position.mover()
    position.play(seat, rng.choice(position.moves(seat)))


FAST_PATHS: dict[str, tuple[Callable[[Any], Any], Callable[[Any, random.Random], None]]] = {
    "durak": (DurakPosition, _one_mover),
    "svoi_koziri": (SvoiKoziriPosition, _one_mover),
    "tadmur": (TadmurPosition, _one_mover),
    "talmut": (TalmutPosition, _turn_seat),
}
"""The games whose search playouts have a fast path: their position (built from a state, with `over`) and how one
uniform random move is played on it, choosing as `playout` does."""


def playout(game_id: str, seats: int, seed: int) -> int:
    """Play one uniform random game from deal `seed` to its end (or MAX_MOVES); the number of moves made."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    state = game.new_game(seats, game.parse_options({}), seed=seed)
    optional = capabilities(game).optional_actions | {"resign"}
    moves = 0
    while game.result(state) is None and moves < MAX_MOVES:
        choices = [(seat, actions) for seat in sorted(game.to_act(state))
                   if (actions := [action for action in game.legal_actions(state, seat) if action["type"] != "resign"])]
        # a seat that must act moves; one listed only for optional actions (Talmut's matches) only if none must
        must = [(seat, actions) for seat, actions in choices if any(a["type"] not in optional for a in actions)]
        seat, actions = (must or choices)[0]
        state, _ = game.apply(state, seat, rng.choice(actions))
        moves += 1
    return moves


def fast_playout(game_id: str, seats: int, seed: int) -> int:
    """`playout` on the game's fast path (`FAST_PATHS`): uniform over its moves; the number of moves made."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    make, move = FAST_PATHS[game_id]
    position = make(game.new_game(seats, game.parse_options({}), seed=seed))
    moves = 0
    while not position.over and moves < MAX_MOVES:
        move(position, rng)
        moves += 1
    return moves


def measure(play: Callable[[str, int, int], int], game_id: str, seats: int, seconds: float) -> tuple[float, float]:
    """(playouts per second, moves per second) of `play` over `seconds` of CPU time."""
    started = time.process_time()
    playouts = moves = 0
    while time.process_time() - started < seconds:
        moves += play(game_id, seats, playouts)
        playouts += 1
    spent = time.process_time() - started
    return playouts / spent, moves / spent


def main() -> None:
    """Measure each table and print one line per table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per table")
    parser.add_argument("--games", nargs="*", default=sorted(GAMES))
    args = parser.parse_args()
    print(f"{'table':<19} {'playouts/s':>11} {'moves/s':>9}")
    for game_id, seats in TABLES:
        if game_id not in args.games:
            continue
        per_second, moves = measure(playout, game_id, seats, args.seconds)
        print(f"{game_id + ' ' + str(seats):<19} {per_second:>11.1f} {moves:>9.0f}", flush=True)
        if game_id in FAST_PATHS:
            per_second, moves = measure(fast_playout, game_id, seats, args.seconds)
            print(f"{game_id + ' ' + str(seats) + ' fast':<19} {per_second:>11.1f} {moves:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
