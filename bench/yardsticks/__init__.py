"""A benchmark opponent for every game: plain determinized UCT, the textbook search a strong player would bring.

Not an AI level: it exists to measure the levels against (bench/ai_strength.py `--opponent yardstick:ROLLOUTS`).
The method is "determinized UCT" (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE
TCIAIG 4(2), 2012, §IV-B; Powley, Whitehouse and Cowling 2011 for Dou Di Zhu): draw `determinizations` deals of
the hidden cards from what the seat sees (bench/yardsticks/deals.py, the one piece that differs per game), run
plain UCT on each as a game of perfect information with `rollouts // determinizations` iterations, and play the
move with the most root visits summed over the deals.

One UCT iteration walks down the tree by UCB1 (each edge's mean reward for the seat that moves there, plus
`EXPLORATION` * sqrt(ln parent visits / edge visits), Kocsis and Szepesvári 2006), expands one untried move chosen
at random, plays a uniform random rollout to the end of the game (every legal move but `resign` of a seat that
must act equally likely; on the engine's fast-path position where the game has one, the same rollout faster,
bench/yardsticks/rollouts.py), and credits every edge on the path with its mover's reward: 1 shared among the
result's winners, 1/seats each in a draw or a rollout cut off at `ROLLOUT_LIMIT` moves.

It sees only the seat's `SeatView` and the history redacted for it, as an AI level does, and uses the engine's
public rules (`engine.games.GAMES[game]`: `to_act`, `legal_actions`, `apply`, `result`) on the deals it drew.
Where several seats may act at once (Talmut's matches, talmut.md §4.1) every seat's moves are edges of the same
node; a seat listed only for optional actions returns None (does nothing) when the moves of the other seats got
more root visits than its best own move. The choice is a pure function of (view, history, rollouts, rng seed).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine.ai.view import SeatView
from engine.games import GAMES
from engine.protocol import Action, Game, Seat, capabilities

from .deals import DEALS
from .rollouts import FAST_ROLLOUTS, Rollout

EXPLORATION = 0.7
"""UCB1's constant for rewards in [0, 1] (about 1/sqrt(2), as in Cowling et al. 2012)."""
DETERMINIZATIONS = 10
"""Deals per decision by default; each gets an equal share of the rollouts."""
ROLLOUT_LIMIT = 5_000
"""A rollout longer than this many moves stops and counts as a draw (a guard: random games end far sooner)."""

Move = tuple[Seat, Action]


def _key(action: Action) -> tuple[Any, ...]:
    return tuple((name, _key(value) if isinstance(value, Mapping) else value) for name, value in action.items())


@dataclass(slots=True)
class _Node:
    state: Any
    untried: list[Move] | None = None  # filled at the first visit, in the rules' order
    edges: list[_Edge] = field(default_factory=list)
    visits: int = 0


@dataclass(slots=True)
class _Edge:
    move: Move
    child: _Node
    visits: int = 0
    reward: float = 0.0


def _moves(game: Game[Any, Any], state: Any) -> list[Move]:
    return [(seat, action) for seat in sorted(game.to_act(state))
            for action in game.legal_actions(state, seat) if action["type"] != "resign"]


def _rewards(game: Game[Any, Any], state: Any, seats: int) -> list[float]:
    result = game.result(state)
    if result is None or result.draw or not result.winners:
        return [1 / seats] * seats
    return [1 / len(result.winners) if seat in result.winners else 0.0 for seat in range(seats)]


def public_rollout(game: Game[Any, Any], seats: int, state: Any, rng: random.Random, limit: int) -> list[float]:
    """A uniform random rollout from `state`, a game of `seats` seats, on the public rules: `Rollout`'s rewards."""
    optional = capabilities(game).optional_actions
    for _ in range(limit):
        if game.result(state) is not None:
            break
        moves = _moves(game, state)
        # a seat listed only for optional actions may let the game go on, so the rollout plays a seat that must act
        must = [move for move in moves if move[1]["type"] not in optional] or moves
        seat, action = rng.choice(must)
        state, _ = game.apply(state, seat, action)
    return _rewards(game, state, seats)


def _uct(game: Game[Any, Any], root_state: Any, seats: int, iterations: int, rng: random.Random,
         rollout: Rollout) -> list[_Edge]:
    """Plain UCT from `root_state` for `iterations` iterations; the root's edges with their visits."""
    root = _Node(root_state)
    for _ in range(iterations):
        node, path = root, []
        while True:
            if node.untried is None:
                node.untried = [] if game.result(node.state) is not None else _moves(game, node.state)
            if node.untried:
                seat, action = node.untried.pop(rng.randrange(len(node.untried)))
                child = _Node(game.apply(node.state, seat, action)[0])
                edge = _Edge((seat, action), child)
                node.edges.append(edge)
                path.append((node, edge))
                node = child
                break
            if not node.edges:
                break  # the game is over here
            log_visits = math.log(node.visits)
            edge = max(node.edges, key=lambda e: e.reward / e.visits + EXPLORATION * math.sqrt(log_visits / e.visits))
            path.append((node, edge))
            node = edge.child
        rewards = rollout(node.state, rng, ROLLOUT_LIMIT)
        for parent, edge in path:
            parent.visits += 1
            edge.visits += 1
            edge.reward += rewards[edge.move[0]]
    return root.edges


def yardstick_action(
    view: SeatView, rollouts: int, rng: random.Random, determinizations: int = DETERMINIZATIONS
) -> Action | None:
    """The yardstick's move for `view`: one of `view["legal_actions"]` (never `resign`), or None.

    `rollouts` is the work per decision (UCT iterations, one rollout each) shared by `determinizations` deals; the
    history it reads is `view["history"]` (what the seat was shown). None only where the seat is listed just for
    optional actions and chooses to do nothing (module docstring).

    Raises:
        KeyError: a game bench/yardsticks/deals.py has no deals for.
        ValueError: `rollouts` < 1, or the seat has nothing to play but `resign`.
    """
    if rollouts < 1:
        raise ValueError("rollouts must be at least 1")
    game = GAMES[view["game"]]
    me = view["you"]
    mine = {_key(action): action for action in view["legal_actions"] if action["type"] != "resign"}
    if not mine:
        raise ValueError("no legal action to choose from")
    optional_only = all(action["type"] in capabilities(game).optional_actions for action in mine.values())
    if len(mine) == 1 and not optional_only:
        return next(iter(mine.values()))
    deal = DEALS[view["game"]](view, view.get("history", ()))
    deals = max(1, min(determinizations, rollouts))
    visits: dict[tuple[Any, ...], int] = defaultdict(int)
    others = 0
    for index in range(deals):
        state = deal(rng)
        share = rollouts // deals + (index < rollouts % deals)
        seats = len(game.view(state, me).seats)
        rollout = FAST_ROLLOUTS.get(view["game"]) or partial(public_rollout, game, seats)
        for edge in _uct(game, state, seats, share, rng, rollout):
            seat, action = edge.move
            if seat == me:
                visits[_key(action)] += edge.visits
            else:
                others += edge.visits
    ranked = sorted(mine, key=lambda key: -visits.get(key, 0))  # stable: ties keep the rules' order
    best = ranked[0]
    if optional_only and others > visits.get(best, 0):
        return None
    return mine[best]


__all__ = ["DEALS", "DETERMINIZATIONS", "EXPLORATION", "FAST_ROLLOUTS", "ROLLOUT_LIMIT", "public_rollout",
           "yardstick_action"]
