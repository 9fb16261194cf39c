"""Information-set Monte Carlo tree search: the `medium` and `hard` AI levels of every game.

The search never receives a game state. Its input is a `SeatView` (what the seat's player sees over HTTP: its
view and legal actions) plus `history`, the game's events as that seat may see them. Each iteration asks the
game's determinizer (`sample_state(view, history, rng)` in engine/games/<game>/players.py) for one full state consistent
with everything the seat knows; the hidden cards in it are the AI's guess, never the real ones. It then walks one
tree shared by all those guesses (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012; the model is
OpenSpiel's `open_spiel/python/algorithms/ismcts.py`): nodes are reached by the sequence of moves from the root,
an edge is `(seat, action)`, and UCB compares an edge's mean reward for its mover with how often the edge was
*available* (legal in the sampled state) rather than how often its parent was visited. Unvisited edges are
expanded first, then a rollout plays on to the end (or to the game's cut-off) and every edge on the path is
credited with its mover's reward. The move is the root edge with the most visits.

Budgets are per game and level, counted in work: iterations (samples) and moves applied (down the tree and in
playouts together), whichever runs out first. Work does not depend on the machine, so the choice is a pure
function of (view, history, rng seed) on an idle or a loaded machine alike. A wall-time limit stays as a safety
cap only, several times what a decision takes on an idle core (docs/benchmarks.md): a decision that reaches it
plays its best move so far. The search also stops once its most visited move is further ahead of the next than
the iterations it has left (by count, and by the moves left at `RATE_MARGIN` times its moves per iteration so
far): no later iteration could change the move, so that stop only saves time (exactly so when the count bounds
it).

Per-game hooks: each engine/games/<game>/players.py hands the search its `SEARCH = SearchHooks(...)`, and `level(name,
hooks)` makes a level of it (engine/ai/levels.py `Players.levels`). One iteration is `_select_and_expand` (down the
tree by UCB to a new edge), `_playout` (on to the end or the cut-off) and `_backpropagate` (credit every edge on
the path).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from engine.ai.solver import Solution, solve
from engine.ai.view import SeatView
from engine.protocol import JSON, Action, Game, Seat, capabilities

EXPLORATION = 0.7
"""UCB constant for rewards in [0, 1]."""
DEFAULT_ROLLOUT_LIMIT = 400
"""A playout longer than this many moves stops and is scored by the game's `estimate` (default 0.5 each)."""
CHECK_EVERY = 16
"""Iterations between two checks whether the move is already decided."""
RATE_MARGIN = 1.5
"""How many times fewer moves per iteration than so far the rest of a search is assumed able to take when judging
if its move is decided."""
UNLIMITED_MOVES = 2**62
"""A `Budget.moves` that never runs out: the search is bounded by its iterations (and the time cap) only."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one decision may search.

    At most `iterations` samples and `moves` moves applied (the work), and at most `seconds` of wall time (a safety
    cap, not a budget: module docstring).
    """

    iterations: int
    seconds: float
    moves: int = UNLIMITED_MOVES


SEARCH_LEVELS = ("medium", "hard")
"""The levels that search (the others are rule bots)."""
_cap: Budget | None = None


def cap_budgets(cap: Budget | None) -> None:
    """Cap every level's budget at `cap` for this process (None: no cap). Tests use tiny caps to stay fast."""
    global _cap
    _cap = cap


def default_budget(hooks: SearchHooks[Any], level: str) -> Budget:
    """The budget `level` searches with in `hooks`' game before any cap: `medium` a tenth of `hard`'s work.

    `hard`: 1,000 samples and `hooks.hard_moves` moves at most, with a 5 s safety cap; `medium`: 100 samples and a
    tenth of the moves, with a 1 s cap.

    Raises:
        KeyError: `level` does not search.
    """
    hard = Budget(iterations=1000, seconds=5.0, moves=hooks.hard_moves)
    return {"medium": Budget(iterations=hard.iterations // 10, seconds=1.0, moves=hard.moves // 10),
            "hard": hard}[level]


def budget_for(hooks: SearchHooks[Any], level: str) -> Budget:
    """The budget `level` searches with now in `hooks`' game: `default_budget`, lowered by any `cap_budgets` cap.

    Raises:
        KeyError: `level` does not search.
    """
    budget = default_budget(hooks, level)
    if _cap is None:
        return budget
    return Budget(min(budget.iterations, _cap.iterations), min(budget.seconds, _cap.seconds),
                  min(budget.moves, _cap.moves))


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
    """What a finished search did: iterations run, moves applied, seconds spent, root visits per action key."""

    iterations: int = 0
    moves: int = 0
    seconds: float = 0.0
    visits: dict[str, int] = field(default_factory=dict)


StateT = TypeVar("StateT")
Move = tuple[Seat, Action]
"""One step of a playout: the seat that acts and its action."""
Playout = Callable[[StateT, StateT, random.Random, int], tuple[list[float], int]]
"""A whole playout on a game's fast path: `(state, start, rng, limit) -> (rewards per seat, moves played)`."""


def playable_actions(view: SeatView) -> list[Action]:
    """Every legal action of the view but `resign`: the root moves a search weighs unless its game says otherwise."""
    return [action for action in view["legal_actions"] if action["type"] != "resign"]


def actions_to_choose_from(view: SeatView) -> list[Action]:
    """`playable_actions`, at least one: what every level of every game first asks of its view.

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    playable = playable_actions(view)
    if not playable:
        raise ValueError("no legal action to choose from")
    return playable


@dataclass(frozen=True, slots=True)
class SearchHooks(Generic[StateT]):
    """What the search needs of one game; engine/games/<game>/players.py builds its `SEARCH` of these.

    Attributes:
        game: the game's rules module.
        sample_state: `(view, history, rng) -> state`, the determinizer: a full state consistent with what the
            seat knows; the hidden cards in it are a guess.
        hard_moves: the moves one `hard` decision may apply, besides its 1,000 samples at most (`medium`: a
            tenth): about 0.8 s on an idle core of the reference machine at the 95th percentile of the positions
            met in games, and the same number of moves, so the same decision, on a busy machine
            (docs/benchmarks.md; each game's players.py says what a move costs there).
        prepare_sampler: `(view, history) -> (rng -> state)`, the same with the work every sample shares done once
            per search (Svoi Koziri replays its history once). Default: `sample_state` per sample.
        root_actions: `view -> actions`, the moves weighed at the root. Default: `playable_actions` (Talmut
            drops matches on cards the seat does not know, and a call `easy` would not make).
        rollout_action: `(state, rng) -> (seat, action) | None`, the playout policy. Default: uniform over the
            legal actions (but `resign`) of a seat that must act.
        playout: `(state, start, rng, limit) -> (rewards, moves played)`, a game's fast path for a whole playout
            (engine/games/<game>/playout.py), used instead of the loop over the public rules and the game's policy:
            it returns what that loop returns with the same `rng` (the rewards where the game or its `evaluate`
            stops, else its `estimate` after `limit` moves), and a differential test in the game's tests holds it
            to that.
        prepare_playout: `(view, history) -> playout`, the fast path built once per search from what the seat has
            seen (Tadmur's policy models how often the opponent guesses: engine/games/tadmur/playout.py); used
            instead of `playout`, which it matches in shape and in what it must return.
        prepare_opponent: `(view, history) -> (state -> action | None) | None`, the opponent's move as the tree
            expects it, built once per search: where the opponent has played one rule bot's way in every move the
            history shows (engine/games/svoi_koziri/players.py and engine/games/durak/players.py `prepare_opponent`),
            the tree weighs only that bot's move at the opponent's nodes (an action it answers, legal there) instead of
            all of them; None, or an answer of None, keeps every move. For games where one seat acts at a time: the move
            stands for the whole list of moves at a node where the searching seat is not to act (they are then not
            worked out).
        evaluate: `(state, start) -> rewards | None`, rewards per seat in [0, 1] if the playout stops here; `start`
            is the sampled root state. Default: only at the game's end, 1 for a winner, 0 for a loser, 0.5 each
            in a draw.
        rollout_limit: a playout longer than this many moves stops and is scored by `estimate`.
        estimate: `state -> rewards`, the rewards of a playout cut off at `rollout_limit`. Default: 0.5 each.
        before_search: `(view, rng) -> action | None | "search"`, asked first by a search level; its answer is
            played unless it is the string "search" (Talmut's optional-only turns go to a rule bot).
        exact_state: `(view, history) -> state | None`, the full state when the seat knows every card in it (Durak
            once the stock is empty), else None: a search level then solves the rest exactly (engine/ai/solver.py).
        solve: `(state, seat, actions, max_moves) -> Solution`, a game's fast path for solving
            (engine/games/<game>/playout.py), used instead of engine/ai/solver.py `solve` over the public rules: it
            returns what that returns with the game's transposition key, moves spent included, and a differential
            test in the game's tests holds it to that. Default: `solve` over the public rules, each state its key.
        solve_share: the share of a level's moves a solve may spend (the rest goes to the search if it fails).
        rule_move: `state -> (seat, action) | None`, a move the tree makes by rule below the root instead of
            branching (Talmut: what the turn seat does with the card it drew). A tree node is shared by every
            sample: where the mover's choice turns on a card only it sees, branching makes one choice for every
            card the samples guessed, and where several moves are alike, the best of their noisy means overrates
            them. None, or an answer of None: branch as usual. The answer stands for the whole node: other seats'
            moves there (Talmut: a standing caller's `withdraw`, which no search level plays) are not offered, and
            `prepare_opponent` is not asked.
    """

    game: Game[StateT, Any]
    sample_state: Callable[[SeatView, Sequence[JSON], random.Random], StateT]
    hard_moves: int
    prepare_sampler: Callable[[SeatView, Sequence[JSON]], Callable[[random.Random], StateT]] | None = None
    root_actions: Callable[[SeatView], list[Action]] = playable_actions
    rollout_action: Callable[[StateT, random.Random], Move | None] | None = None
    playout: Playout[StateT] | None = None
    prepare_playout: Callable[[SeatView, Sequence[JSON]], Playout[StateT]] | None = None
    prepare_opponent: Callable[[SeatView, Sequence[JSON]], Callable[[StateT], Action | None] | None] | None = None
    evaluate: Callable[[StateT, StateT], list[float] | None] | None = None
    rollout_limit: int = DEFAULT_ROLLOUT_LIMIT
    estimate: Callable[[StateT], list[float]] | None = None
    before_search: Callable[[SeatView, random.Random], Action | str | None] | None = None
    exact_state: Callable[[SeatView, Sequence[JSON]], StateT | None] | None = None
    solve: Callable[[StateT, Seat, list[Action], int], Solution] | None = None
    solve_share: float = 0.5
    rule_move: Callable[[StateT], Move | None] | None = None

    def sampler(self, view: SeatView, history: Sequence[JSON]) -> Callable[[random.Random], StateT]:
        """The sampler of one search: `prepare_sampler`'s, or `sample_state` per sample."""
        if self.prepare_sampler is not None:
            return self.prepare_sampler(view, history)
        sample_state = self.sample_state

        def sample(rng: random.Random) -> StateT:
            return sample_state(view, history, rng)

        return sample

    def rollout(self) -> Callable[[StateT, random.Random], Move | None]:
        """The playout policy over the public rules: `rollout_action`, else uniform."""
        if self.rollout_action is not None:
            return self.rollout_action
        return _uniform_rollout(self.game)

    def fast_playout(self, view: SeatView, history: Sequence[JSON]) -> Playout[StateT] | None:
        """The fast path of one search: `prepare_playout`'s, else `playout`, else None (the loop over the rules)."""
        if self.prepare_playout is not None:
            return self.prepare_playout(view, history)
        return self.playout

    def rewards(self, state: StateT, start: StateT, seats: int) -> list[float] | None:
        """The rewards per seat if a playout stops at `state` (`evaluate`, or the game's result), else None."""
        if self.evaluate is not None:
            return self.evaluate(state, start)
        result = self.game.result(state)
        if result is None:
            return None
        if result.draw:
            return [0.5] * seats
        return [1.0 if seat in result.winners else 0.0 for seat in range(seats)]

    def cut_off(self, state: StateT, seats: int) -> list[float]:
        """The rewards of a playout stopped at `rollout_limit`: `estimate`, or 0.5 each."""
        return self.estimate(state) if self.estimate is not None else [0.5] * seats


def _uniform_rollout(game: Game[StateT, Any]) -> Callable[[StateT, random.Random], Move | None]:
    optional = capabilities(game).optional_actions

    def rollout(state: StateT, rng: random.Random) -> Move | None:
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


def _moves(game: Game[StateT, Any], state: StateT) -> list[Move]:
    """Every (seat, action) that may happen next in the tree: all seats to act, `resign` left out."""
    moves: list[Move] = []
    for seat in sorted(game.to_act(state)):
        moves.extend((seat, action) for action in game.legal_actions(state, seat) if action["type"] != "resign")
    return moves


@dataclass(slots=True)
class _Search(Generic[StateT]):
    """What one search fixes at its start: the game's hooks, the seat, the tree, the root's moves, the playout.

    The playout is `playout`, the game's fast path, or else the loop over the public rules with `rollout`'s policy.
    `opponent` is the opponent's expected move in a state, where the game's hooks trust one
    (`SearchHooks.prepare_opponent`).
    """

    hooks: SearchHooks[StateT]
    me: Seat
    root_keys: dict[tuple[Any, ...], Action]
    rollout: Callable[[StateT, random.Random], Move | None]
    playout: Playout[StateT] | None
    opponent: Callable[[StateT], Action | None] | None = None
    root: _Node = field(default_factory=_Node)
    seats: int = 0
    moves: int = 0
    """Moves applied so far, down the tree and in playouts (the work `Budget.moves` bounds)."""


def ismcts(
    hooks: SearchHooks[Any],
    view: SeatView,
    rng: random.Random,
    budget: Budget,
    stats: SearchStats | None = None,
) -> Action | None:
    """The action for `view["you"]` chosen by information-set MCTS within `budget` (module docstring).

    Reads `view` and `view.get("history", [])` only, with the hooks of `view["game"]`. Returns None when the seat
    has no move worth weighing: nothing but `resign`, or (`hooks.root_actions`) only optional actions the game's
    AI leaves alone.

    Raises:
        ValueError: `hooks` are another game's.
    """
    started = time.perf_counter()
    if hooks.game.ID != view["game"]:
        raise ValueError(f"{hooks.game.ID} search hooks for a {view['game']} view")
    root_actions = hooks.root_actions(view)
    if not root_actions:
        return None
    if len(root_actions) == 1:
        return root_actions[0]
    history: Sequence[JSON] = view.get("history", ())
    sample = hooks.sampler(view, history)
    root_keys = {_key(action): action for action in root_actions}
    search = _Search(hooks, view["you"], root_keys, hooks.rollout(), hooks.fast_playout(view, history),
                     None if hooks.prepare_opponent is None else hooks.prepare_opponent(view, history))
    deadline = started + budget.seconds
    iterations = 0

    while iterations < budget.iterations and search.moves < budget.moves and (
        iterations == 0 or time.perf_counter() < deadline
    ):
        if iterations % CHECK_EVERY == 0 and iterations and _decided(search, iterations, budget):
            break
        iterations += 1
        start = sample(rng)
        if not search.seats:
            search.seats = len(hooks.game.view(start, None).seats)
        state, path, rewards = _select_and_expand(search, start, rng)
        if rewards is None:
            rewards = _playout(search, state, start, rng)
        _backpropagate(path, rewards)

    best = max(
        (edge for (seat, key), edge in search.root.edges.items() if seat == search.me),  # type: ignore[misc]
        key=lambda e: (e.visits, e.reward),
        default=None,
    )
    if stats is not None:
        stats.iterations = iterations
        stats.moves = search.moves
        stats.seconds = time.perf_counter() - started
        stats.visits = {str(dict(edge.action)): edge.visits for edge in search.root.edges.values()}
    if best is None:
        return root_actions[0]
    return search.root_keys[_key(best.action)]


def _select_and_expand(search: _Search[StateT], start: StateT, rng: random.Random) -> tuple[
    StateT, list[_Edge], list[float] | None
]:
    """Walk down from the root by UCB over the edges available in this sample until an untried edge, and add it.

    The root offers every root action; below it a node offers the game's `rule_move` if it answers one, else the
    opponent's expected move (`prepare_opponent`) where the searching seat is not to act, else every move.
    Returns the state reached, the edges walked and, if the walk stopped where the game (or `evaluate`) ends,
    the rewards; otherwise None, and a playout goes on from the state.
    """
    game, state, node = search.hooks.game, start, search.root
    path: list[_Edge] = []
    while True:
        rewards = search.hooks.rewards(state, start, search.seats)
        if rewards is not None:
            return state, path, rewards
        if node is search.root:
            moves = [(search.me, action) for action in game.legal_actions(state, search.me)
                     if _key(action) in search.root_keys]
        elif search.hooks.rule_move is not None and (ruled := search.hooks.rule_move(state)) is not None:
            moves = [ruled]
        else:
            to_act = game.to_act(state)
            expected = None
            if search.opponent is not None and to_act and search.me not in to_act:
                expected = search.opponent(state)
            moves = _moves(game, state) if expected is None else [(min(to_act), expected)]
        if not moves:
            return state, path, None
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
            search.moves += 1
            path.append(edge)
            return state, path, None
        edge = max(
            available,
            key=lambda e: e.reward / e.visits + EXPLORATION * math.sqrt(math.log(e.available) / e.visits),
        )
        state, _ = game.apply(state, edge.seat, edge.action)
        search.moves += 1
        path.append(edge)
        node = edge.node


def _playout(search: _Search[StateT], state: StateT, start: StateT, rng: random.Random) -> list[float]:
    """Play on from `state` to the end, the game's `evaluate` stop, or the cut-off.

    On the game's fast path (`search.playout`) if it has one, else by the rollout policy over the public rules.
    """
    hooks = search.hooks
    if search.playout is not None:
        fast_rewards, played = search.playout(state, start, rng, hooks.rollout_limit)
        search.moves += played
        return fast_rewards
    depth = 0
    while True:
        rewards = hooks.rewards(state, start, search.seats)
        if rewards is not None:
            return rewards
        if depth >= hooks.rollout_limit:
            return hooks.cut_off(state, search.seats)
        move = search.rollout(state, rng)
        if move is None:
            return [0.5] * search.seats
        state, _ = hooks.game.apply(state, *move)
        search.moves += 1
        depth += 1


def _backpropagate(path: Sequence[_Edge], rewards: Sequence[float]) -> None:
    """Credit every edge walked with one visit and its mover's reward."""
    for edge in path:
        edge.visits += 1
        edge.reward += rewards[edge.seat]


def _decided(search: _Search[Any], iterations: int, budget: Budget) -> bool:
    """Whether the most visited root move leads the next by more than the iterations the search may still run.

    Counted in work only (never in time), so the stop is the same on any machine.
    """
    root, me = search.root, search.me
    visits = sorted((edge.visits for (seat, _), edge in root.edges.items() if seat == me), reverse=True)  # type: ignore[misc]
    if len(visits) < 2:
        return False
    by_moves = RATE_MARGIN * iterations * (budget.moves - search.moves) / max(search.moves, 1)
    return visits[0] - visits[1] > min(budget.iterations - iterations, math.ceil(by_moves))


def solve_exactly(hooks: SearchHooks[Any], view: SeatView, max_moves: int) -> Solution | None:
    """The solution of a position the seat knows entirely (`hooks.exact_state`), within `max_moves` moves applied.

    None, with no work done, when the game has no `exact_state`, the seat does not know every card yet, or it has
    fewer than two moves to weigh; a `Solution` without a value when the position is too big (engine/ai/solver.py).
    """
    if hooks.exact_state is None:
        return None
    state = hooks.exact_state(view, view.get("history", ()))
    actions = hooks.root_actions(view)
    if state is None or len(actions) < 2:
        return None
    if hooks.solve is not None:
        return hooks.solve(state, view["you"], actions, max_moves)
    return solve(hooks.game, state, view["you"], actions, max_moves)


def level(name: str, hooks: SearchHooks[Any]) -> Callable[[SeatView, random.Random], Action | None]:
    """The chooser of search level `name` (`medium`, `hard`) for `hooks`' game, within `budget_for(hooks, name)`.

    `hooks.before_search`, if set, may answer first (module docstring of `SearchHooks`). Where the seat knows
    every card (`hooks.exact_state`), `hooks.solve_share` of the budget's moves go to solving the rest of the game
    exactly: a won or drawn position is played by its solved move, so a won endgame is never lost. A lost one, or
    one too big to solve, goes to the search with the moves left (against a fallible opponent the search finds
    chances).
    """

    def choose(view: SeatView, rng: random.Random) -> Action | None:
        if hooks.before_search is not None:
            early = hooks.before_search(view, rng)
            if not isinstance(early, str):
                return early
        budget = budget_for(hooks, name)
        solved = solve_exactly(hooks, view, int(budget.moves * hooks.solve_share))
        if solved is not None:
            if solved.keeping_move is not None:
                return solved.keeping_move
            budget = replace(budget, moves=budget.moves - solved.moves)
        action = ismcts(hooks, view, rng, budget)
        if action is None:
            raise ValueError("no legal action to choose from")
        return action

    choose.__name__ = name
    choose.__doc__ = (f"Level `{name}`: information-set MCTS (engine.ai.search) within the {hooks.game.ID} "
                      f"hooks' `budget_for(hooks, {name!r})`.")
    return choose
