"""Svoi Koziri AI levels; each reads only the seat's JSON view (shared/rules/svoi_koziri.md §6.4), never the state."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from engine.ai.levels import Players
from engine.ai.search import Playout, SearchHooks, actions_to_choose_from
from engine.ai.view import SeatView
from engine.cards import FRENCH_36, FRENCH_36_NUMBER, FRENCH_SUITS, Card, suit_then_rank
from engine.errors import GameError
from engine.games.svoi_koziri import playout as svoi_koziri_playout
from engine.games.svoi_koziri import rules as sk
from engine.games.svoi_koziri.playout import easy_card
from engine.games.svoi_koziri.rules import Step, SvoiKoziriState, parse_card
from engine.protocol import JSON, Action, Seat

_SUITS = {suit.letter: suit for suit in FRENCH_SUITS}
_SUIT_INDEX = {suit.letter: index for index, suit in enumerate(FRENCH_SUITS)}


def easy(view: SeatView, rng: random.Random) -> Action:
    """Level `easy`: a rule bot that lays hard cards and beats cheaply.

    Choosing a trump (blind, before the deal, §7.2) it picks a free suit at random. Leading or playing, it lays the
    card the opponent can least easily beat (`engine.ai.costs.lay_value`). Responding, it beats with the cheapest
    card (`engine.ai.costs.trump_cost`, its own trump counting as the trump); when it cannot, `take` is its only
    move. The card is `svoi_koziri_playout.easy_card`'s. It never resigns. Reads only `view["state"]`
    (svoi_koziri.md §6.4) and `view["legal_actions"]`.

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    actions = actions_to_choose_from(view)
    kind = actions[0]["type"]
    if kind in ("choose_trump", "take"):
        return rng.choice(actions)
    trumps = view["state"]["trumps"]
    cards = [FRENCH_36_NUMBER[parse_card(action["card"])] for action in actions]
    own, theirs = _SUIT_INDEX[trumps[view["you"]]], _SUIT_INDEX[trumps[1 - view["you"]]]
    return actions[cards.index(easy_card(cards, kind == "beat", own, theirs))]


# ---------------------------------------------------------------------------------------------------------------
# Search (engine.ai.search): the determinizer and the playout hooks

_REPLAYED = {"trump_chosen": "choose_trump", "led": "lead", "beat": "beat", "played": "play", "took": "take"}


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> SvoiKoziriState:
    """A full Svoi Koziri state consistent with what `view["you"]` knows.

    Before the deal the undealt deck is a uniform shuffle. After it nothing is hidden from a player that
    remembers: the opponent holds every card that is neither in the seat's hand nor on the pile (all 36 are
    dealt, svoi_koziri.md §2.6). The state is rebuilt by replaying the history from a deal that gives the seat
    the cards of its `dealt` event, so the repetition record (§3.9) is exact too; without a usable history it
    is built from the view alone, with no position recorded.
    """
    state = view["state"]
    me = view["you"]
    trumps = tuple(None if letter is None else _SUITS[letter] for letter in state["trumps"])
    if state["step"] == "choose_trump":
        deck = list(FRENCH_36)
        rng.shuffle(deck)
        return SvoiKoziriState(
            deck=tuple(deck), trumps=trumps, sixes_passed=(None, None), hands=((), ()), pile=(),
            step=Step.CHOOSE_TRUMP, turn=me, positions=(), reason=None, winner=None, seed=rng.randrange(2**31),
        )
    replayed = _replay(view, history, rng)
    if replayed is not None:
        return replayed
    mine = {parse_card(code) for code in state["hand"]}
    pile = tuple(parse_card(code) for code in state["pile"])
    theirs = [card for card in FRENCH_36 if card not in mine and card not in set(pile)]
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[me], hands[1 - me] = suit_then_rank(mine), suit_then_rank(theirs)
    return SvoiKoziriState(
        deck=(), trumps=trumps, sixes_passed=tuple(None if c is None else parse_card(c) for c in state["sixes_passed"]),
        hands=tuple(hands), pile=pile, step=Step(state["step"]), turn=me, positions=(), reason=None, winner=None,
        seed=rng.randrange(2**31),
    )


def prepare_sampler(view: SeatView, history: Sequence[JSON]) -> Callable[[random.Random], SvoiKoziriState]:
    """`sample_state` for one search: after the deal every sample is the same state, so it is built once."""
    if view["state"]["step"] == "choose_trump":
        return lambda rng: sample_state(view, history, rng)
    exact = sample_state(view, history, random.Random(0))
    return lambda rng: exact


def _replay(view: SeatView, history: Sequence[JSON], rng: random.Random) -> SvoiKoziriState | None:
    me = view["you"]
    try:
        state = None
        for replayed, _seat, _action in _replayed_moves(view, history, rng.randrange(2**31)):
            state = replayed
    except GameError:
        return None
    if state is None or sk.view(state, me).state != view["state"] or state.turn != me:
        return None
    return state


def _replayed_moves(view: SeatView, history: Sequence[JSON],
                    seed: int) -> Iterator[tuple[SvoiKoziriState, Seat | None, Action | None]]:
    """The game replayed from the seat's `dealt` event, a move of the history at a time.

    Per move the state before it, the seat and the action; last the state after them all, with `None, None`.
    Yields nothing without a `dealt` event with the seat's cards. Raises `GameError` if the history does not replay.
    """
    me = view["you"]
    dealt = next((event for event in history if event.get("type") == "dealt" and "cards" in event), None)
    if dealt is None:
        return
    mine = [parse_card(code) for code in dealt["cards"]]
    theirs = [card for card in FRENCH_36 if card not in set(mine)]
    deck: list[Card] = [theirs[k // 2] if k % 2 != me else mine[k // 2] for k in range(36)]
    state = sk.new_game(2, sk.parse_options({}), deck, seed=seed)
    for event in history:
        kind = _REPLAYED.get(event.get("type", ""))
        if kind is None:
            continue
        action: dict[str, JSON] = {"type": kind}
        if kind == "choose_trump":
            action["suit"] = event["suit"]
        elif kind != "take":
            action["card"] = event["card"]
        yield state, event["seat"], action
        state, _ = sk.apply(state, event["seat"], action)
    yield state, None, None


def opponent_ways(view: SeatView, history: Sequence[JSON]) -> tuple[int, int, int] | None:
    """How the opponent has played its cards so far: (cheapest lays, hardest lays, other moves); None: no replay.

    Counts the opponent's leads and plays (svoi_koziri.md §3.3, §3.5) in the history where its cheapest card
    (`engine.ai.costs.trump_cost`, `lowest`'s way) and the card hardest to beat (`svoi_koziri_playout.easy_card`,
    `easy`'s way) differ, by which of the two it laid; the third count is its moves neither rule bot makes: a lay
    of a third card, or a beat with another card than the cheapest (§3.4; both bots beat so), or a move the state
    has no step for. Each way's move is `svoi_koziri_playout.expected_action`'s, the move the tree then expects.
    Everything it did is in the history, and after the deal so are its cards (`sample_state`). None before the
    deal, or if the history does not replay.
    """
    opponent = 1 - view["you"]
    counts = [0, 0, 0]  # [cheapest, hardest, other]
    replayed = False
    try:
        for state, seat, action in _replayed_moves(view, history, seed=0):
            replayed = True
            if seat != opponent or action is None or action["type"] not in ("lead", "play", "beat"):
                continue
            # checked against the state before `apply` checks the action: a move of no step is of neither way
            ways = [svoi_koziri_playout.expected_action(state, lays_cheapest) for lays_cheapest in (True, False)]
            if action not in ways:
                counts[2] += 1
            elif ways[0] != ways[1]:  # a beat never: both bots beat with the cheapest card
                counts[ways.index(action)] += 1
    except GameError:
        return None
    return (counts[0], counts[1], counts[2]) if replayed else None


def opponent_lays_cheapest(view: SeatView, history: Sequence[JSON]) -> bool | None:
    """Whether the opponent has laid its cards `lowest`'s way (True) or `easy`'s way (False) more often so far.

    By `opponent_ways`' first two counts; None on a tie, before the deal, or if the history does not replay.
    """
    ways = opponent_ways(view, history)
    if ways is None or ways[0] == ways[1]:
        return None
    return ways[0] > ways[1]


TRUSTED_AFTER = 3
"""Lays that must all have gone one rule bot's way, with no move of neither way, before the tree expects that way."""


def prepare_opponent(view: SeatView, history: Sequence[JSON]) -> Callable[[SvoiKoziriState], Action | None] | None:
    """The opponent's move as the search's tree expects it (`SearchHooks.prepare_opponent`), or None.

    Only an opponent that has played one rule bot's way in every move `opponent_ways` counts, and laid that way
    at least `TRUSTED_AFTER` times where the two ways differ, is expected to go on so
    (`svoi_koziri_playout.expected_action`); against anyone else the tree weighs every move of the opponent.
    """
    ways = opponent_ways(view, history)
    if ways is None or ways[2] or min(ways[0], ways[1]) or max(ways[0], ways[1]) < TRUSTED_AFTER:
        return None
    lays_cheapest = ways[0] > 0

    def expected(state: SvoiKoziriState) -> Action | None:
        return svoi_koziri_playout.expected_action(state, lays_cheapest)

    return expected


ROLLOUT_LIMIT = 40
"""Random Svoi Koziri play runs about a thousand moves (svoi_koziri.md §8.13): playouts stop here and guess
(`svoi_koziri_playout.estimate`)."""


SOLVABLE_CARDS = 8
"""Cards in the two hands up to which a search level tries to solve the rest: of the positions met in 30 `easy`
self-play games, the solver settled about half of those with 6 to 8 cards within 200 moves, and nearly none of
the others within 8,000 (the pile's takes make lines long, §3.6, §3.9); hence a small share of the moves too."""
SOLVE_SHARE = 1 / 16
"""The share of a search level's moves a solve may spend: 3,000 of `hard`'s 48,000."""


def exact_state(view: SeatView, history: Sequence[JSON]) -> SvoiKoziriState | None:
    """The whole position once the hands hold at most `SOLVABLE_CARDS` together, else None (engine/ai/solver.py).

    After the deal nothing is hidden from a player that remembers (`sample_state`), so this is `sample_state`
    itself, its repetition record replayed from the history (svoi_koziri.md §3.9); None before the deal.
    """
    state = view["state"]
    if state["step"] == "choose_trump" or sum(state["hand_sizes"]) > SOLVABLE_CARDS:
        return None
    return sample_state(view, history, random.Random(0))


def prepare_playout(view: SeatView, history: Sequence[JSON]) -> Playout[SvoiKoziriState]:
    """The playouts of one search (`SearchHooks.prepare_playout`), on the fast path.

    `svoi_koziri_playout.playout` with the opponent laying its cards the way it has laid them so far
    (`opponent_lays_cheapest`), without uniform moves: against `lowest`, `medium` scored 86% where the same playouts
    for both seats scored 75% (the same 400 deals), `hard` 76% and 89% against `lowest` and `easy` where they
    scored 73% and 83% (the same 100 deals each; docs/benchmarks.md).
    """
    opponent = 1 - view["you"], opponent_lays_cheapest(view, history)

    def playout(state: SvoiKoziriState, start: SvoiKoziriState, rng: random.Random,
                limit: int) -> tuple[list[float], int]:
        return svoi_koziri_playout.playout(state, start, rng, limit, opponent)

    return playout
HARD_MOVES = 48_000
"""The moves one `hard` decision may apply (engine/ai/search.py `SearchHooks.hard_moves`), at
about 6 microseconds a move with its share of sampling and the tree."""
SEARCH: SearchHooks[SvoiKoziriState] = SearchHooks(
    sk, sample_state, hard_moves=HARD_MOVES, prepare_sampler=prepare_sampler, prepare_playout=prepare_playout,
    prepare_opponent=prepare_opponent, rollout_limit=ROLLOUT_LIMIT, exact_state=exact_state, solve_share=SOLVE_SHARE,
)
"""Svoi Koziri's hooks for the search levels (engine.ai.search)."""

PLAYERS = Players(easy=easy, search=SEARCH, easy_reads_history=False)
"""Svoi Koziri's AI levels."""
