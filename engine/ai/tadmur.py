"""Tadmur AI levels; each reads only the seat's JSON view (shared/rules/tadmur.md §6.4), never the state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.cards import Card
from engine.games import tadmur as tadmur_game
from engine.games.tadmur import Row, TadmurState
from engine.protocol import JSON, Action

if TYPE_CHECKING:  # engine.ai imports this module, so the type is only needed for checking
    from engine.ai import SeatView

CYCLE = 13
RANK_VALUES = {"A": 1, **{str(value): value for value in range(2, 11)}, "J": 11, "Q": 12, "K": 13}
"""Rank code -> position on the cycle `A 2 … K` (tadmur.md §3.1)."""

GOOD_ODDS = 1 / 3
"""A guess is worth its cost (one more space, parity flipped) when it is right at least this often."""
REACHABLE_WEIGHT = 3
"""How much likelier a target is when the opponent's row can still be completed towards it (see `candidates`)."""
THREAT = 0.5
"""Guess before the lock when the opponent can complete with at least this chance."""


def rank_of(code: str) -> int:
    """The cycle position (A=1 … K=13) of a card code or rank code.

    >>> rank_of("AS"), rank_of("10H"), rank_of("K"), rank_of("7")
    (1, 10, 13, 7)
    """
    rank = code if code in RANK_VALUES else code[:-1]
    return RANK_VALUES[rank]


def reachable(distance: int, steps: int) -> bool:
    """Whether `steps` moves of ±1 on the 13-rank cycle can end `distance` (mod 13) away (tadmur.md §3.12).

    A row with `e` empty spaces needs `e + 1` steps from its chain end to its target.

    >>> [d for d in range(-6, 7) if not reachable(d, 8)]
    [-3, -1, 1, 3]
    >>> [d for d in range(-6, 7) if not reachable(d, 11)], reachable(5, 12)
    ([0], True)
    """
    return any((2 * up - steps - distance) % CYCLE == 0 for up in range(steps + 1))


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
    actions = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not actions:
        raise ValueError("no legal action to choose from")
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


def _best_placement(
    places: Sequence[Action], hand: Sequence[str], mine: Mapping[str, Any], rng: random.Random
) -> Action:
    target = rank_of(mine["target"])
    empty_after = mine["empty"] - 1

    def score(action: Action) -> tuple[bool, bool, int, float]:
        card = action["card"]
        value = rank_of(card)
        rest = [rank_of(code) for code in hand if code != card]
        followers = [other for other in rest if _adjacent(other, value)]
        if empty_after == 1:  # the next card must complete (tadmur.md §3.4)
            followers = [other for other in followers if _adjacent(other, target)]
        keeps_reach = empty_after == 0 or reachable(target - value, empty_after + 1)
        return keeps_reach, bool(followers), len(followers), rng.random()

    return max(places, key=score)


# ---------------------------------------------------------------------------------------------------------------
# Search (engine.ai.search): the determinizer


def opponent_passes(view: SeatView, history: Sequence[JSON]) -> list[tuple[str, int]]:
    """(chain end, empty spaces) of the opponent's row at each of its passes, replayed from the history.

    A pass is legal only with no placeable card (tadmur.md §3.9), and hands only shrink (§2.5), so at each such
    moment none of the opponent's current cards fitted its row then.
    """
    opponent = 1 - view["you"]
    end = view["state"]["rows"][opponent]["starter"]
    empty = 7
    passes = []
    for event in history:
        if event.get("seat") != opponent:
            continue
        kind = event.get("type")
        if kind == "placed":
            end, empty = event["card"], event["empty"]
        elif kind == "guessed" and not event["correct"]:
            empty += 1
        elif kind == "passed":
            passes.append((end, empty))
    return passes


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> TadmurState:
    """A full Tadmur state consistent with what `view["you"]` knows.

    Every card the seat cannot see is the opponent's target or in its hand, so choosing the target fixes the
    rest. A target is possible when its rank is none of the seat's wrong guesses (tadmur.md §3.6) and the hand
    it leaves agrees with every opponent pass (`opponent_passes`); each possible card is weighted like `easy`'s
    `candidates` (more when the opponent's row can still reach it). If no card passes the test (an incomplete
    history), the pass test is dropped.
    """
    state, me = view["state"], view["you"]
    opponent = 1 - me
    rows = state["rows"]
    seen = {*state["hand"], rows[me]["target"]}
    for row in rows:
        seen.update([row["starter"], *row["chain"]])
    pool = [card.code for card in tadmur_game.full_deck(tadmur_game.parse_options({})) if card.code not in seen]
    theirs = rows[opponent]
    wrong = set(rows[me]["wrong_guesses"])
    passes = opponent_passes(view, history)
    end = rank_of(_chain_end(theirs))
    weights: list[float] = []
    options: list[str] = []
    for code in pool:
        if code[:-1] in wrong:
            continue
        hand = [rank_of(other) for other in pool if other != code]
        if not all(_no_fit(hand, rank_of(chain_end), empty, rank_of(code)) for chain_end, empty in passes):
            continue
        options.append(code)
        weights.append(REACHABLE_WEIGHT if reachable(rank_of(code) - end, theirs["empty"] + 1) else 1)
    if not options:
        options = [code for code in pool if code[:-1] not in wrong] or pool
        weights = [1.0] * len(options)
    target = rng.choices(options, weights)[0]
    parse = tadmur_game.parse_card
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[me] = tadmur_game.hand_order(parse(code) for code in state["hand"])
    hands[opponent] = tadmur_game.hand_order(parse(code) for code in pool if code != target)
    targets = {me: rows[me]["target"], opponent: target}
    return TadmurState(
        rows=tuple(
            Row(
                starter=parse(row["starter"]),
                target=parse(targets[seat]),
                chain=tuple(parse(code) for code in row["chain"]),
                spaces=row["spaces"],
                wrong_guesses=tuple(row["wrong_guesses"]),
            )
            for seat, row in enumerate(rows)
        ),
        hands=tuple(hands),
        turn=me,
        guessed_this_turn=state["guessed_this_turn"],
        idle_turns=state["idle_turns"],
        reason=None,
        winner=None,
        seed=rng.randrange(2**31),
    )


def _no_fit(hand: Sequence[int], end: int, empty: int, target: int) -> bool:
    return not any(_adjacent(card, end) and (empty != 1 or _adjacent(card, target)) for card in hand)


def rollout_action(state: TadmurState, rng: random.Random) -> tuple[int, Action] | None:
    """The playout policy: place (preferring cards that keep the own target reachable), guess now and then.

    It reads the sampled state's own row only; a guess names a uniform allowed rank, never the sampled target.
    """
    seat = state.turn
    actions = [action for action in tadmur_game.legal_actions(state, seat) if action["type"] != "resign"]
    if not actions:
        return None
    places = [action for action in actions if action["type"] == "place"]
    guesses = [action for action in actions if action["type"] == "guess"]
    if guesses and (not places or rng.random() < 0.1):
        return seat, rng.choice(guesses)
    if not places:
        return seat, actions[-1]
    row = state.rows[seat]
    target = row.target.rank
    keep = [a for a in places if row.empty == 1 or reachable(target - rank_of(a["card"]), row.empty)]
    return seat, rng.choice(keep or places)
