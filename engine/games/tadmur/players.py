"""Tadmur AI levels; each reads only the seat's JSON view (shared/rules/tadmur.md §6.4), never the state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.ai.levels import Players
from engine.ai.search import Playout, SearchHooks, actions_to_choose_from, playable_actions
from engine.ai.view import SeatView
from engine.games.tadmur import playout as tadmur_playout
from engine.games.tadmur import rules as tadmur_game
from engine.games.tadmur.playout import CYCLE, reachable
from engine.games.tadmur.rules import Row, TadmurState
from engine.protocol import JSON, Action, Seat

RANK_VALUES = {"A": 1, **{str(value): value for value in range(2, 11)}, "J": 11, "Q": 12, "K": 13}
"""Rank code -> position on the cycle `A 2 … K` (tadmur.md §3.1)."""

GOOD_ODDS = 1 / 3
"""A guess is worth its cost (one more space, parity flipped) when it is right at least this often."""
REACHABLE_WEIGHT = 3
"""How much likelier a target is when the opponent's row can still be completed towards it (see `candidates`)."""
THREAT = 0.5
"""Guess before the lock when the opponent can complete with at least this chance."""
GUESS_PRIOR = 0.1
"""The search's playouts: how often a seat guesses in a turn, before the opponent has shown its own rate."""
PRIOR_TURNS = 2
"""How many observed turns `GUESS_PRIOR` counts as."""


def rank_of(code: str) -> int:
    """The cycle position (A=1 … K=13) of a card code or rank code.

    >>> rank_of("AS"), rank_of("10H"), rank_of("K"), rank_of("7")
    (1, 10, 13, 7)
    """
    rank = code if code in RANK_VALUES else code[:-1]
    return RANK_VALUES[rank]


def candidates(view: SeatView) -> dict[str, float]:
    """The ranks the opponent's target can still be, each with a weight proportional to its chance.

    A rank is out when it is one of our own wrong guesses (tadmur.md §3.6) or all four of its cards are visible
    to us (our hand and target, both starters and chains). The weight is the number of its cards we cannot see,
    times `REACHABLE_WEIGHT` when the opponent's row can still reach that rank from its chain end with its empty
    spaces (the parity of §3.12): an opponent who keeps placing without guessing most likely has a reachable
    target, and one who had to fix its parity did so with a wrong guess that is already counted in its spaces.
    """
    state, you = view["state"], view["you"]
    mine, theirs = state["rows"][you], state["rows"][1 - you]
    seen = [*state["hand"], mine["target"]]
    for row in state["rows"]:
        seen += [row["starter"], *row["chain"]]
    visible = Counter(rank_of(code) for code in seen)
    end = rank_of(_chain_end(theirs))
    weights: dict[str, float] = {}
    for rank, value in RANK_VALUES.items():
        unseen = 4 - visible[value]
        if rank in mine["wrong_guesses"] or unseen == 0:
            continue
        parity = REACHABLE_WEIGHT if reachable(value - end, theirs["empty"] + 1) else 1
        weights[rank] = unseen * parity
    return weights


def easy(view: SeatView, rng: random.Random) -> Action:
    """Level `easy`: keeps its own target reachable and guesses when a guess is worth it.

    Guessing (when allowed): always when it cannot place (a stuck seat's only chance, tadmur.md §3.10) or when
    its own row is parity-blocked (a wrong guess then helps, §3.12); otherwise when the best rank of `candidates`
    is right with odds of at least `GOOD_ODDS`, or when the opponent is two spaces from completing (its next
    placement switches on the lock, §3.8) with a reachable target at least `THREAT` likely. It names the most
    likely rank. Placing: prefers a card that keeps its target reachable, then one that can be followed by a
    card still in hand (and, at the last space but one, by a card that completes), then the most follow-ups;
    `rng` breaks the remaining ties, which hides the chain's direction a little. It never resigns.

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    actions = actions_to_choose_from(view)
    by_type: dict[str, list[Action]] = {}
    for action in actions:
        by_type.setdefault(action["type"], []).append(action)
    state, you = view["state"], view["you"]
    mine, theirs = state["rows"][you], state["rows"][1 - you]

    guesses = by_type.get("guess", [])
    if guesses and _worth_guessing(view, mine, theirs, bool(by_type.get("place"))):
        allowed = {action["rank"] for action in guesses}
        weights = {rank: weight for rank, weight in candidates(view).items() if rank in allowed}
        if weights:
            best = max(weights.values())
            rank = rng.choice(sorted(rank for rank, weight in weights.items() if weight == best))
            return {"type": "guess", "rank": rank}
    places = by_type.get("place", [])
    if places:
        return _best_placement(places, state["hand"], mine, rng)
    return by_type["pass"][0]


def _chain_end(row: Mapping[str, Any]) -> str:
    chain: Sequence[str] = row["chain"]
    return chain[-1] if chain else row["starter"]


def _blocked(row: Mapping[str, Any]) -> bool:
    return not reachable(rank_of(row["target"]) - rank_of(_chain_end(row)), row["empty"] + 1)


def _worth_guessing(view: SeatView, mine: Mapping[str, Any], theirs: Mapping[str, Any], can_place: bool) -> bool:
    if not can_place or _blocked(mine):
        return True
    weights = candidates(view)
    total = sum(weights.values())
    if not total:
        return False
    if max(weights.values()) / total >= GOOD_ODDS:
        return True
    end = rank_of(_chain_end(theirs))
    threat = sum(weight for rank, weight in weights.items() if reachable(rank_of(rank) - end, theirs["empty"] + 1))
    return theirs["empty"] == 2 and mine["empty"] > 2 and threat / total >= THREAT


def _adjacent(first: int, second: int) -> bool:
    return (first - second) % CYCLE in (1, CYCLE - 1)


def _prospects(card: str, hand: Sequence[str], mine: Mapping[str, Any]) -> tuple[bool, int]:
    """What placing `card` leaves the seat's row: (target still reachable, cards of the rest of `hand` that fit next).

    Reachable by tadmur.md §3.12, and always once the placement fills the last space; at the last space but one,
    only cards that would complete fit next (§3.4).
    """
    target = rank_of(mine["target"])
    empty_after = mine["empty"] - 1
    value = rank_of(card)
    rest = [rank_of(code) for code in hand if code != card]
    followers = [other for other in rest if _adjacent(other, value)]
    if empty_after == 1:  # the next card must complete (tadmur.md §3.4)
        followers = [other for other in followers if _adjacent(other, target)]
    keeps_reach = empty_after == 0 or reachable(target - value, empty_after + 1)
    return keeps_reach, len(followers)


def _best_placement(
    places: Sequence[Action], hand: Sequence[str], mine: Mapping[str, Any], rng: random.Random
) -> Action:
    def score(action: Action) -> tuple[bool, bool, int, float]:
        keeps_reach, followers = _prospects(action["card"], hand, mine)
        return keeps_reach, followers > 0, followers, rng.random()

    return max(places, key=score)


# ---------------------------------------------------------------------------------------------------------------
# Search (engine.ai.search): the determinizer


@dataclass(frozen=True, slots=True)
class OpponentTurn:
    """One finished turn of the opponent, replayed from the history (tadmur.md §3.3).

    `end` and `empty` are its row's chain end and empty spaces when the turn ended; `guessed` says it made a
    (wrong) guess in the turn (§3.6), `passed` that the turn ended with a pass (§3.9), `locked` that guessing
    was locked for the whole turn (§3.8).
    """

    end: str
    empty: int
    guessed: bool
    passed: bool
    locked: bool


def opponent_turns(view: SeatView, history: Sequence[JSON]) -> list[OpponentTurn]:
    """Every finished turn of the opponent of `view["you"]`, oldest first, replayed from the public events."""
    opponent = 1 - view["you"]
    ends = [row["starter"] for row in view["state"]["rows"]]
    empty = [7, 7]
    guessed = False
    turns = []
    for event in history:
        seat, kind = event.get("seat"), event.get("type")
        if kind == "guessed" and not event["correct"]:
            empty[seat] += 1
            guessed = guessed or seat == opponent
        elif kind in ("placed", "passed"):  # a turn ends
            locked = not guessed and 1 in empty
            if kind == "placed":
                ends[seat], empty[seat] = event["card"], event["empty"]
            if seat == opponent:
                turns.append(OpponentTurn(ends[seat], empty[seat], guessed, kind == "passed", locked))
            guessed = False
    return turns


def opponent_passes(view: SeatView, history: Sequence[JSON]) -> list[tuple[str, int]]:
    """(chain end, empty spaces) of the opponent's row at each of its passes, replayed from the history.

    A pass is legal only with no placeable card (tadmur.md §3.9), and hands only shrink (§2.5), so at each such
    moment none of the opponent's current cards fitted its row then.
    """
    return [(turn.end, turn.empty) for turn in opponent_turns(view, history) if turn.passed]


def opponent_guess_rate(view: SeatView, history: Sequence[JSON]) -> float:
    """How often the opponent guesses in a turn where it may guess and can place, as the playouts assume.

    The share of such turns (not locked, not ended by a pass) in which it guessed, starting from the prior
    `GUESS_PRIOR` counted as `PRIOR_TURNS` turns: a uniform random seat guesses in about 4 turns of 5 (13 guesses
    against a few placements listed), a careful one rarely, and the first turns tell them apart.
    """
    turns = [turn for turn in opponent_turns(view, history) if not turn.locked and not turn.passed]
    guesses = sum(turn.guessed for turn in turns)
    return (guesses + GUESS_PRIOR * PRIOR_TURNS) / (len(turns) + PRIOR_TURNS)


def _unseen(view: SeatView) -> list[str]:
    """The codes the seat cannot see (the opponent's hand and target), in deck order."""
    state, me = view["state"], view["you"]
    seen = {*state["hand"], state["rows"][me]["target"]}
    for row in state["rows"]:
        seen.update([row["starter"], *row["chain"]])
    return [card.code for card in tadmur_game.full_deck(tadmur_game.parse_options({})) if card.code not in seen]


def target_weights(view: SeatView, history: Sequence[JSON], *, prior: bool = True) -> dict[str, float]:
    """The cards the opponent's target can be, by code, each with a weight proportional to its chance.

    Every card the seat cannot see is the opponent's target or in its hand. A target is possible when its rank is
    none of the seat's wrong guesses (tadmur.md §3.6) and the hand it leaves agrees with every opponent pass
    (`opponent_passes`); each possible card weighs like one card of `easy`'s `candidates` (`REACHABLE_WEIGHT` when
    the opponent's row can still reach it, else 1; with `prior` False, 1 each). If no card passes the test (an
    incomplete history), the pass test is dropped and every card not ruled out by a wrong guess weighs 1.
    """
    state, me = view["state"], view["you"]
    pool = _unseen(view)
    theirs = state["rows"][1 - me]
    wrong = set(state["rows"][me]["wrong_guesses"])
    passes = opponent_passes(view, history)
    end = rank_of(_chain_end(theirs))
    weights: dict[str, float] = {}
    for code in pool:
        if code[:-1] in wrong:
            continue
        hand = [rank_of(other) for other in pool if other != code]
        if all(_no_fit(hand, rank_of(chain_end), empty, rank_of(code)) for chain_end, empty in passes):
            weights[code] = REACHABLE_WEIGHT if prior and reachable(rank_of(code) - end, theirs["empty"] + 1) else 1
    if not weights:
        weights = dict.fromkeys([code for code in pool if code[:-1] not in wrong] or pool, 1.0)
    return weights


def prepare_sampler(
    view: SeatView, history: Sequence[JSON], *, prior: bool = True
) -> Callable[[random.Random], TadmurState]:
    """`sample_state` for one search: both rows and hands for every possible target are built once.

    A sample then only draws the target (`target_weights`, with its `prior`: False draws every possible target
    alike, the plain determinization of bench/yardsticks); the opponent's hand is the rest of the cards the seat
    cannot see.
    """
    state, me = view["state"], view["you"]
    opponent = 1 - me
    parse = tadmur_game.parse_card
    weights = target_weights(view, history, prior=prior)
    unseen = tadmur_game.hand_order(parse(code) for code in _unseen(view))

    def row_with(seat: Seat, target: str) -> Row:
        row = state["rows"][seat]
        return Row(
            starter=parse(row["starter"]),
            target=parse(target),
            chain=tuple(parse(code) for code in row["chain"]),
            spaces=row["spaces"],
            wrong_guesses=tuple(row["wrong_guesses"]),
        )

    my_row = row_with(me, state["rows"][me]["target"])
    my_hand = tadmur_game.hand_order(parse(code) for code in state["hand"])
    deals = []  # per possible target, in `weights` order: (rows, hands), each indexed by seat
    for code in weights:
        their_row = row_with(opponent, code)
        their_hand = tuple(card for card in unseen if card != their_row.target)  # `unseen` is in hand order
        if me == 0:
            deals.append(((my_row, their_row), (my_hand, their_hand)))
        else:
            deals.append(((their_row, my_row), (their_hand, my_hand)))
    chances = list(weights.values())

    def sample(rng: random.Random) -> TadmurState:
        rows, hands = rng.choices(deals, chances)[0]
        return TadmurState(
            rows=rows,
            hands=hands,
            turn=me,
            guessed_this_turn=state["guessed_this_turn"],
            idle_turns=state["idle_turns"],
            reason=None,
            winner=None,
            seed=rng.randrange(2**31),
        )

    return sample


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> TadmurState:
    """A full Tadmur state consistent with what `view["you"]` knows.

    The opponent's target is drawn by `target_weights`; the rest of the cards the seat cannot see are its hand.
    """
    return prepare_sampler(view, history)(rng)


def _no_fit(hand: Sequence[int], end: int, empty: int, target: int) -> bool:
    return not any(_adjacent(card, end) and (empty != 1 or _adjacent(card, target)) for card in hand)


def root_actions(view: SeatView) -> list[Action]:
    """The moves the search weighs: the `least_exposed` placements, the pass, and one guess, of the likeliest rank.

    Every wrong guess costs the same (one space, tadmur.md §3.6), so a guess of a less likely rank only lowers the
    chance of winning; dropping those leaves the search its samples for the real choice, guess or not. Ranks are
    weighed as the samples are drawn (`target_weights`, which reads the opponent's passes in `view["history"]`;
    ties go to the first in rank order). Placements are narrowed by rule, not by the search: of those that keep
    the row's way on as well as any, a placement changes the chance that the opponent's next guesses are right by a
    few points, which the tree cannot tell apart within its samples (its opponent guesses as one that knew the
    seat's target would; docs/benchmarks.md, issue 44).
    """
    actions = playable_actions(view)
    places = least_exposed(view, [action for action in actions if action["type"] == "place"])
    passes = [action for action in actions if action["type"] == "pass"]
    guesses = [action for action in actions if action["type"] == "guess"]
    if not guesses:
        return places + passes
    by_rank: dict[str, float] = {}
    for code, weight in target_weights(view, view.get("history", ())).items():
        by_rank[code[:-1]] = by_rank.get(code[:-1], 0.0) + weight
    best = max(guesses, key=lambda action: by_rank.get(action["rank"], 0.0))
    return places + passes + [best]


def exposure(hand: Sequence[str], target: str, ruled_out: Sequence[str] = ()) -> float:
    """How likely the opponent is to name `target`'s rank, as one that names ranks by their unseen cards would.

    The opponent cannot see the seat's hand and target (tadmur.md §6.2), so a rank's unseen cards are the seat's
    cards of that rank plus one for the target's; the ranks in `ruled_out` (the opponent's wrong guesses, which it
    may not name again, §3.7) count for nothing. A guesser that favours the likeliest ranks, as the plurality of a
    sampling search's deals does, names the target's rank about as often as its count squared over the sum of all
    counts squared (docs/benchmarks.md, issue 44).
    """
    out = {rank_of(rank) for rank in ruled_out}
    unseen = Counter(rank for rank in map(rank_of, hand) if rank not in out)
    unseen[rank_of(target)] += 1
    return unseen[rank_of(target)] ** 2 / sum(count**2 for count in unseen.values())


def least_exposed(view: SeatView, places: list[Action]) -> list[Action]:
    """Of the placements with the best `_prospects`, those after which the seat's target is least `exposure`d.

    A placement shows a card and so lowers its rank's unseen count: a card of the target's rank hides the target,
    a card of a rank the seat holds few of gives it away least. Only the placements that keep the target reachable
    (tadmur.md §3.12) and can be followed by a card in hand are weighed when there are any, then those that keep
    it reachable: hiding never costs the row its way on.
    """
    state, you = view["state"], view["you"]
    mine, theirs = state["rows"][you], state["rows"][1 - you]
    hand = state["hand"]
    outlooks = {}  # per card: (target still reachable, a card to follow)
    for action in places:
        reach, followers = _prospects(action["card"], hand, mine)
        outlooks[action["card"]] = (reach, followers > 0)
    best = max(outlooks.values(), default=None)
    weighed = [action for action in places if outlooks[action["card"]] == best]
    scores = {action["card"]: exposure([code for code in hand if code != action["card"]], mine["target"],
                                       theirs["wrong_guesses"])
              for action in weighed}
    least = min(scores.values(), default=0.0)
    return [action for action in weighed if scores[action["card"]] == least]


def guess_rates(view: SeatView, history: Sequence[JSON]) -> tuple[float, float]:
    """Per seat, how often the search's playouts let it guess in a turn where it may also place.

    The searching seat at `GUESS_PRIOR`, the opponent at its `opponent_guess_rate`.
    """
    me = view["you"]
    opponent = opponent_guess_rate(view, history)
    return (GUESS_PRIOR, opponent) if me == 0 else (opponent, GUESS_PRIOR)


def prepare_playout(view: SeatView, history: Sequence[JSON]) -> Playout[TadmurState]:
    """The playouts of one search, on the fast path (playout.py): `SearchHooks.prepare_playout`.

    The seats' `guess_rates` are worked out once, from what the seat has seen; the policy is `tadmur_playout.choose`
    (place keeping the own target reachable, tadmur.md §3.12, and guess now and then).
    """
    rates = guess_rates(view, history)

    def playout(state: TadmurState, start: TadmurState, rng: random.Random, limit: int) -> tuple[list[float], int]:
        return tadmur_playout.playout(state, rates, rng, limit)

    return playout
HARD_MOVES = 15_000
"""The moves one `hard` decision may apply (engine/ai/search.py `SearchHooks.hard_moves`), at
about 9 microseconds a move, where the 1,000 samples bind first."""
SEARCH: SearchHooks[TadmurState] = SearchHooks(
    tadmur_game, sample_state, hard_moves=HARD_MOVES, prepare_sampler=prepare_sampler, root_actions=root_actions,
    prepare_playout=prepare_playout,
)
"""Tadmur's hooks for the search levels (engine.ai.search)."""

PLAYERS = Players(easy=easy, search=SEARCH, easy_reads_history=False)
"""Tadmur's AI levels."""
