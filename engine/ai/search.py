"""Information-set Monte Carlo tree search: the `medium` and `hard` AI levels of every game.

The search never receives a game state. Its input is a `SeatView` (what the seat's player sees over HTTP: its
view and legal actions) plus `history`, the game's events as that seat may see them. Each iteration asks the
game's determinizer (`sample_state(view, history, rng)` in `engine/ai/<game>.py`) for one full state consistent
with everything the seat knows; the hidden cards in it are the AI's guess, never the real ones. It then walks one
tree shared by all those guesses (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012; the model is
OpenSpiel's `open_spiel/python/algorithms/ismcts.py`): nodes are reached by the sequence of moves from the root,
an edge is `(seat, action)`, and UCB compares an edge's mean reward for its mover with how often the edge was
*available* (legal in the sampled state) rather than how often its parent was visited. Unvisited edges are
expanded first, then a rollout plays on to the end (or to the game's cut-off) and every edge on the path is
credited with its mover's reward. The move is the root edge with the most visits.

Budgets are per level: an iteration count and a wall-time limit; whichever runs out first ends the search,
which then plays its best move so far. With the wall time well above what the iterations need, the choice is
a pure function of (view, history, rng seed). The search also stops once its most visited move is further ahead
of the next than the iterations it has left (by count, and by time at `RATE_MARGIN` times its rate so far): no
later iteration could change the move, so that stop only saves time (exactly so when the count bounds it).

Per-game hooks (module attributes of `engine/ai/<game>.py`):
- `sample_state(view, history, rng) -> State` (required): the determinizer.
- `prepare_sampler(view, history) -> (rng -> State)`: the same, with the work every sample shares done once per
  search (Svoi Koziri replays its history once).
- `root_actions(view) -> list[Action]`: the moves weighed at the root (default: every legal action but `resign`;
  Talmut drops matches on cards the seat does not know).
- `rollout_action(state, rng) -> (seat, action) | None`: the playout policy (default: uniform over the legal
  actions of the seat that must act).
- `prepare_rollout(view, history) -> rollout_action`: the same, built once per search from what the seat has seen
  (Tadmur models how often the opponent guesses).
- `evaluate(state, start) -> list[float] | None`: rewards per seat in [0, 1] if the playout stops here (default:
  only at the game's end, 1 for a winner, 0 for a loser, 0.5 for a draw); `start` is the sampled root state.
- `ROLLOUT_LIMIT: int`, `estimate(state) -> list[float]`: a playout longer than this many moves stops and is
  scored by `estimate` (default 0.5 each).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.games import GAMES
from engine.protocol import JSON, Action, Seat

if TYPE_CHECKING:
    from engine.ai import SeatView

EXPLORATION = 0.7
"""UCB constant for rewards in [0, 1]."""
DEFAULT_ROLLOUT_LIMIT = 400
CHECK_EVERY = 16
"""Iterations between two checks whether the move is already decided."""
RATE_MARGIN = 1.5
"""How much faster than so far the rest of a search is assumed able to run when judging if its move is decided."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one decision may search: at most `iterations` samples and at most `seconds` of wall time."""

    iterations: int
    seconds: float


BUDGETS: dict[str, Budget] = {"medium": Budget(iterations=60, seconds=0.1), "hard": Budget(iterations=600, seconds=0.8)}
"""The default budget of each search level (docs/benchmarks.md measures them)."""

_cap: Budget | None = None


def cap_budgets(cap: Budget | None) -> None:
    """Cap every level's budget at `cap` for this process (None: no cap). Tests use tiny caps to stay fast."""
    global _cap
    _cap = cap


def budget_for(level: str) -> Budget:
    """The budget `level` searches with now: its default, lowered by any `cap_budgets` cap."""
    budget = BUDGETS[level]
    if _cap is None:
        return budget
    return Budget(min(budget.iterations, _cap.iterations), min(budget.seconds, _cap.seconds))


def _key(action: Action) -> tuple[Any, ...]:
    return tuple((name, _key(value) if isinstance(value, Mapping) else value) for name, value in action.items())


@dataclass(slots=True)
class _Edge:
    action: Action
    seat: Seat
    node: _Node
    visits: int = 0
    reward: float = 0.0
    available: int = 0


@dataclass(slots=True)
class _Node:
    edges: dict[tuple[Any, ...], _Edge] = field(default_factory=dict)


@dataclass(slots=True)
class SearchStats:
    """What a finished search did: iterations run, seconds spent, root visits per action key."""

    iterations: int = 0
    seconds: float = 0.0
    visits: dict[str, int] = field(default_factory=dict)


def _moves(game: Any, state: Any, optional: frozenset[str]) -> list[tuple[Seat, Action]]:
    """Every (seat, action) that may happen next in the tree: all seats to act, `resign` left out."""
    moves: list[tuple[Seat, Action]] = []
    for seat in sorted(game.to_act(state)):
        moves.extend((seat, action) for action in game.legal_actions(state, seat) if action["type"] != "resign")
    return moves


def _default_rollout(game: Any, optional: frozenset[str]) -> Callable[[Any, random.Random], Any]:
    def rollout(state: Any, rng: random.Random) -> tuple[Seat, Action] | None:
        seats = sorted(game.to_act(state))
        fallback = None
        for seat in seats:
            actions = [a for a in game.legal_actions(state, seat) if a["type"] != "resign"]
            if any(a["type"] not in optional for a in actions):
                return seat, rng.choice(actions)
            if actions and fallback is None:
                fallback = (seat, rng.choice(actions))
        return fallback

    return rollout


def _result_rewards(game: Any, state: Any, seats: int) -> list[float] | None:
    result = game.result(state)
    if result is None:
        return None
    if result.draw:
        return [0.5] * seats
    return [1.0 if seat in result.winners else 0.0 for seat in range(seats)]


def ismcts(
    view: SeatView,
    rng: random.Random,
    budget: Budget,
    stats: SearchStats | None = None,
) -> Action | None:
    """The action for `view["you"]` chosen by information-set MCTS within `budget` (module docstring).

    Reads `view` and `view.get("history", [])` only. Returns None when the seat has no move worth weighing:
    nothing but `resign`, or (game hook `root_actions`) only optional actions the game's AI leaves alone.
    """
    from engine.ai import DETERMINIZERS, SEARCH_HOOKS  # the per-game modules live beside engine.ai

    started = time.perf_counter()
    me: Seat = view["you"]
    game_id = view["game"]
    hooks = SEARCH_HOOKS.get(game_id)
    candidates = getattr(hooks, "root_actions", None)
    if candidates is not None:
        root_actions = candidates(view)
    else:
        root_actions = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not root_actions:
        return None
    if len(root_actions) == 1:
        return root_actions[0]
    game = GAMES[game_id]
    history: Sequence[JSON] = view.get("history", ())
    prepare = getattr(hooks, "prepare_sampler", None)
    if prepare is not None:
        sample = prepare(view, history)
    else:
        determinize = DETERMINIZERS[game_id]

        def sample(rng: random.Random) -> Any:
            return determinize(view, history, rng)

    optional: frozenset[str] = getattr(game, "OPTIONAL_ACTIONS", frozenset())
    prepare_rollout = getattr(hooks, "prepare_rollout", None)
    if prepare_rollout is not None:
        rollout_action = prepare_rollout(view, history)
    else:
        rollout_action = getattr(hooks, "rollout_action", None) or _default_rollout(game, optional)
    evaluate = getattr(hooks, "evaluate", None)
    estimate = getattr(hooks, "estimate", None)
    limit: int = getattr(hooks, "ROLLOUT_LIMIT", DEFAULT_ROLLOUT_LIMIT)
    root_keys = {_key(action): action for action in root_actions}
    root = _Node()
    deadline = started + budget.seconds
    iterations = 0
    seats = 0

    while iterations < budget.iterations and (iterations == 0 or time.perf_counter() < deadline):
        if iterations % CHECK_EVERY == 0 and iterations and _decided(root, me, started, iterations, budget):
            break
        iterations += 1
        state = sample(rng)
        start = state
        if not seats:
            seats = len(game.view(state, None).seats)
        node = root
        path: list[_Edge] = []
        rewards = None
        # selection and expansion
        while True:
            rewards = _stop(game, state, start, seats, evaluate)
            if rewards is not None:
                break
            if node is root:
                moves = [(me, action) for action in game.legal_actions(state, me) if _key(action) in root_keys]
            else:
                moves = _moves(game, state, optional)
            if not moves:
                break
            untried = []
            available = []
            for seat, action in moves:
                key = (seat, _key(action))
                edge = node.edges.get(key)  # type: ignore[arg-type]
                if edge is None:
                    untried.append((key, seat, action))
                else:
                    available.append(edge)
            for edge in available:
                edge.available += 1
            if untried:
                key, seat, action = untried[rng.randrange(len(untried))]
                edge = _Edge(action=action, seat=seat, node=_Node(), available=1)
                node.edges[key] = edge  # type: ignore[index]
                state, _ = game.apply(state, seat, action)
                path.append(edge)
                break
            edge = max(
                available,
                key=lambda e: e.reward / e.visits + EXPLORATION * math.sqrt(math.log(e.available) / e.visits),
            )
            state, _ = game.apply(state, edge.seat, edge.action)
            path.append(edge)
            node = edge.node
        # playout
        depth = 0
        while rewards is None:
            rewards = _stop(game, state, start, seats, evaluate)
            if rewards is not None:
                break
            if depth >= limit:
                rewards = estimate(state) if estimate is not None else [0.5] * seats
                break
            move = rollout_action(state, rng)
            if move is None:
                rewards = [0.5] * seats
                break
            state, _ = game.apply(state, *move)
            depth += 1
        # backpropagation
        for edge in path:
            edge.visits += 1
            edge.reward += rewards[edge.seat]

    best = max(
        (edge for (seat, key), edge in root.edges.items() if seat == me),  # type: ignore[misc]
        key=lambda e: (e.visits, e.reward),
        default=None,
    )
    if stats is not None:
        stats.iterations = iterations
        stats.seconds = time.perf_counter() - started
        stats.visits = {str(dict(edge.action)): edge.visits for edge in root.edges.values()}
    if best is None:
        return root_actions[0]
    return root_keys[_key(best.action)]


def _decided(root: _Node, me: Seat, started: float, iterations: int, budget: Budget) -> bool:
    """Whether the most visited root move leads the next by more than the iterations the search may still run."""
    visits = sorted((edge.visits for (seat, _), edge in root.edges.items() if seat == me), reverse=True)  # type: ignore[misc]
    if len(visits) < 2:
        return False
    now = time.perf_counter()
    by_time = RATE_MARGIN * iterations * (started + budget.seconds - now) / max(now - started, 1e-9)
    return visits[0] - visits[1] > min(budget.iterations - iterations, math.ceil(by_time))


def _stop(game: Any, state: Any, start: Any, seats: int, evaluate: Any) -> list[float] | None:
    if evaluate is not None:
        return evaluate(state, start)  # type: ignore[no-any-return]
    return _result_rewards(game, state, seats)


def level(name: str, before: Callable[[SeatView, random.Random], Action | str | None] | None = None) -> Any:
    """The chooser of search level `name` (`medium`, `hard`), with its budget from `budget_for(name)`.

    `before(view, rng)`, if given, may answer first (e.g. Talmut's optional-only turns go to `easy`); its
    result is used unless it is the string "search".
    """

    def choose(view: SeatView, rng: random.Random) -> Action | None:
        if before is not None:
            early = before(view, rng)
            if not isinstance(early, str):
                return early
        action = ismcts(view, rng, budget_for(name))
        if action is None:
            raise ValueError("no legal action to choose from")
        return action

    choose.__name__ = name
    choose.__doc__ = f"Level `{name}`: information-set MCTS (engine.ai.search) within `budget_for({name!r})`."
    return choose


def reward_result(game: Any, state: Any, seats: int) -> list[float] | None:
    """Rewards at the game's end: 1 per winner, 0 per loser, 0.5 each in a draw; None while in play."""
    return _result_rewards(game, state, seats)
