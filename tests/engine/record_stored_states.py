"""Write `stored_states/<game>.json` for a game that has none yet: run once, when the game is first released.

    python -m tests.engine.record_stored_states GAME

tests/engine/test_stored_states.py then holds every later version of the code to loading these states and
answering the same for them. A file that exists is never written again (that would test the new code against
itself): the script refuses. It keeps, from seeded random games at each table size of `seat_counts`, the states
after 0, 1, 2, 3, 5, 8, 13, ... moves and each game's last state, with what this code answers for each.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from engine.games import GAMES
from engine.protocol import Game
from tests.engine.test_properties import seat_counts

STORED = Path(__file__).with_name("stored_states")
"""Where each game's stored states are, one `<game>.json` each."""
SEEDS = range(2)
MOVES = 400


def answers(game: Game[Any, Any], state: Any, seats: int) -> dict[str, Any]:
    """One stored state and what the code answers for it, as test_stored_states reads it."""
    views = {str(viewer): game.view(state, viewer) for viewer in (0, 1, None)}
    result = game.result(state)
    return {
        "seats": seats,
        "state": game.dump_state(state),
        "to_act": sorted(game.to_act(state)),
        "legal": {str(seat): game.legal_actions(state, seat) for seat in sorted(game.to_act(state))},
        "views": {viewer: {"state": view.state, "seats": [dict(seat) for seat in view.seats]}
                  for viewer, view in views.items()},
        "result": None if result is None else result.to_json(),
    }


def record(game_id: str) -> list[dict[str, Any]]:
    """The entries of `game_id`'s file: seeded random games, no resign, states at Fibonacci move counts."""
    game = GAMES[game_id]
    keep, step, following = {0}, 1, 2
    while step <= MOVES:
        keep.add(step)
        step, following = following, step + following
    entries = []
    for seats in seat_counts(game):
        for seed in SEEDS:
            state, rng = game.new_game(seats, game.parse_options({}), seed=seed), random.Random(seed)
            for moves in range(MOVES + 1):
                finished = game.result(state) is not None
                if moves in keep or finished:
                    entries.append(answers(game, state, seats))
                if finished:
                    break
                seat = rng.choice(sorted(game.to_act(state)))
                actions = [action for action in game.legal_actions(state, seat) if action["type"] != "resign"]
                if actions:
                    state, _ = game.apply(state, seat, rng.choice(actions))
    return entries


def main() -> None:
    (game_id,) = sys.argv[1:]
    path = STORED / f"{game_id}.json"
    if path.exists():
        raise SystemExit(f"{path} exists: stored states are recorded once, by the version that first stored them")
    path.write_text(json.dumps(json.loads(json.dumps(record(game_id))), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
