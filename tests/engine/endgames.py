"""Self-play from solved endgames, shared by the Durak and Svoi Koziri endgame tests (engine/ai/solver.py)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from engine.ai.search import budget_for
from engine.ai.solver import solve
from engine.games import GAMES
from engine.players import LEVELS, SEARCH_HOOKS, history_entry, seat_view


def solved_wins_lost(
    game_id: str,
    count: int,
    small: Callable[[Any], bool],
    before: Callable[[Any, list[dict[str, Any]], random.Random], dict[str, Any]],
    key: Callable[[Any], Hashable] | None = None,
) -> list[int]:
    """The seeds, of `count` games that reached a solved win, in which the solved winner did not win.

    Each game is seeded 1, 2, ...; its moves come from `before(state, legal moves, rng)` until the first position
    that is `small`, where the seat to act has at least two moves and the solver finds it a win within the moves
    `hard` would spend on it (its share of the budget, under the suite's cap); from there both seats play `hard`,
    each from its own view and history.
    """
    game = GAMES[game_id]
    solve_moves = int(budget_for(SEARCH_HOOKS[game_id], "hard").moves * SEARCH_HOOKS[game_id].solve_share)
    lost: list[int] = []
    played, seed = 0, 0
    while played < count:
        seed += 1
        state = game.new_game(2, game.parse_options({}), seed=seed)
        rng = random.Random(seed)
        histories: list[list[dict[str, Any]]] = [[], []]
        version, winner = 1, None
        while game.result(state) is None:
            (seat,) = game.to_act(state)
            moves = [action for action in game.legal_actions(state, seat) if action["type"] != "resign"]
            if winner is None and small(state) and len(moves) > 1:
                if solve(game, state, seat, moves, solve_moves, key).value == 1.0:
                    winner = seat
            if winner is None:
                action = before(state, moves, rng)
            else:
                view = {**seat_view(game_id, state, seat), "history": histories[seat]}
                action = LEVELS[game_id]["hard"](view, rng)  # type: ignore[arg-type,assignment]
            state, events = game.apply(state, seat, action)
            version += 1
            for viewer in (0, 1):
                histories[viewer].extend(history_entry(version, event, viewer) for event in events)
        if winner is not None:
            played += 1
            result = game.result(state)
            if result is None or result.winners != (winner,):
                lost.append(seed)
    return lost
