"""Write `same_moves.json`: the move every AI level of every game plays from a few seeded positions.

    python -m tests.engine.record_same_moves

tests/engine/test_same_moves.py then holds every later version of the code to the same moves: a restructuring of
the AI (issue 40) must not change how it plays. Record anew only in a change meant to make the AI play differently,
and say in its commit which moves changed and why. Each position is a seeded game (`new_game(seats, defaults,
seed=seed)`) after `moves` random moves (`position`); each level answers through `engine.players.choose_action` with
`random.Random(rng)`, at its default budget (the search levels: engine/ai/search.py `default_budget`, counted in work),
from the view the worker would give it (the history only to a level that reads it, `reads_history`).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.ai import search
from engine.games import GAMES
from engine.players import choose_action, history_entry, reads_history, seat_view
from engine.protocol import JSON, Seat

RECORDED = Path(__file__).with_name("same_moves.json")
"""The recorded moves: a list of `{"game", "seats", "seed", "moves", "seat", "level", "rng", "action"}`."""
TABLES = [("durak", 2), ("svoi_koziri", 2), ("tadmur", 2), ("talmut", 3)]
"""The tables played: each game, Talmut at its smallest table."""
MOVES = (0, 9, 24, 45, 90)
"""Random moves into each table's game of seed 0, 1, 2, 3, 4 (fewer where the game ends sooner: its last position
but one). At 90 Durak's stock is spent and its endgame small enough for `easy` and the search to solve it."""
LEVELS = ("random", "easy", "medium")
"""The levels recorded at every position and seat to act."""
HARD_AT = (1, 4)
"""The positions (indices into `MOVES`) where `hard` is recorded too: about a second a move, so two per game."""
SAFETY_SECONDS = 120.0
"""The wall-time cap of the search levels while recording and testing: a hang guard only. Their default caps (a
second or five) never bind on an idle core, but would cut a search short on a loaded machine and change its move;
within this one the move depends on the work budget alone."""


def position(game_id: str, seats: int, seed: int, moves: int) -> tuple[Any, dict[Seat, list[JSON]]]:
    """The game of `seed` after up to `moves` random moves, and each seat's history as it sees it.

    A move: a uniform seat to act, then a uniform legal action of it other than `resign` (seeded by `seed`). The
    game stops one move short of its end, so that some seat is to act.
    """
    game = GAMES[game_id]
    state = game.new_game(seats, game.parse_options({}), seed=seed)
    rng = random.Random(seed)
    histories: dict[Seat, list[JSON]] = {seat: [] for seat in range(seats)}
    version = 1
    for _ in range(moves):
        seat = rng.choice(sorted(game.to_act(state)))
        actions = [action for action in game.legal_actions(state, seat) if action["type"] != "resign"]
        if not actions:
            continue
        after, events = game.apply(state, seat, rng.choice(actions))
        if game.result(after) is not None:
            break
        state, version = after, version + 1
        for viewer in histories:
            histories[viewer].extend(history_entry(version, event, viewer) for event in events)
    return state, histories


def cases() -> Iterator[dict[str, Any]]:
    """Every recorded case without its action: each table, position, seat to act (ascending) and level."""
    for game_id, seats in TABLES:
        for index, moves in enumerate(MOVES):
            state, _ = position(game_id, seats, index, moves)
            levels = LEVELS + (("hard",) if index in HARD_AT else ())
            for seat in sorted(GAMES[game_id].to_act(state)):
                for level in levels:
                    yield {"game": game_id, "seats": seats, "seed": index, "moves": moves, "seat": seat,
                           "level": level, "rng": index}


def play(case: dict[str, Any]) -> JSON:
    """The action (None: nothing) the case's level chooses, as JSON, with `SAFETY_SECONDS` as the time cap.

    The caller lifts any `search.cap_budgets` cap first (tests/conftest.py sets a tiny one).
    """
    state, histories = position(case["game"], case["seats"], case["seed"], case["moves"])
    seat, level = case["seat"], case["level"]
    history = histories[seat] if reads_history(case["game"], level) else ()
    view = seat_view(case["game"], state, seat, history)
    default = search.default_budget
    search.default_budget = lambda hooks, level: dataclasses.replace(default(hooks, level), seconds=SAFETY_SECONDS)
    try:
        action = choose_action(view, level, random.Random(case["rng"]))
    finally:
        search.default_budget = default
    return json.loads(json.dumps(action))


def main() -> None:
    if sys.argv[1:]:
        raise SystemExit(__doc__)
    search.cap_budgets(None)
    RECORDED.write_text(json.dumps([{**case, "action": play(case)} for case in cases()], separators=(",", ":"))
                        + "\n")


if __name__ == "__main__":
    main()
