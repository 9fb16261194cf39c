"""The search's fast path for Svoi Koziri playouts (engine/games/svoi_koziri/playout.py) against the public rules.

Differential tests: random games played through both (svoi_koziri.py's `legal_actions` and `apply`, the position's
`moves` and `play`), move by move, must list the same moves in the same order and reach the same states; a whole
playout must return what the search's loop over the public rules returns with the same policy and the same random
numbers.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

from engine.ai.costs import lay_value, trump_cost
from engine.ai.search import Budget, ismcts
from engine.cards import FRENCH_36, FRENCH_36_NUMBER, FRENCH_SUITS
from engine.games import svoi_koziri as sk
from engine.games.svoi_koziri import SvoiKoziriState
from engine.games.svoi_koziri import playout as svoi_koziri_playout
from engine.games.svoi_koziri.players import (
    SEARCH,
    TRUSTED_AFTER,
    easy,
    opponent_lays_cheapest,
    opponent_ways,
    prepare_opponent,
)
from engine.games.svoi_koziri.playout import Position
from engine.players import history_entry, seat_view
from engine.protocol import Action
from tests.decks import cards
from tests.engine import lockstep
from tests.engine.lockstep import Choose, uniform

OPTIONS = sk.parse_options({})
DEALS = 40
"""Uniform random games from a deal: about a thousand moves each (svoi_koziri.md §8.13)."""
ENDGAMES = 2_000
"""Uniform random games from positions with 1-3 cards in each hand: half end within 4 moves, every way."""
ENDGAME_MOVES = 40
"""Where an endgame's check stops: one that has not ended by then has taken from the pile into a long game."""
POLICY_GAMES = 200
"""Games played by the search's playout policy, and as many by `easy`'s (which often repeats, §3.9)."""
EASY_EXPLORE = 0.2
"""How often the `easy` games play a uniform move instead: about 130 moves each, one in seven ends by repetition."""


def fast_actions(position: Position) -> list[Action]:
    """The position's moves as action bodies."""
    assert position.step is not None
    return [svoi_koziri_playout.action(move, position.step) for move in position.moves()]


def listed(state: SvoiKoziriState) -> list[Action]:
    """The public legal actions of the seat to act, without `resign`."""
    return lockstep.listed(sk, state)


def rewards(state: SvoiKoziriState) -> list[float]:
    """The search's rewards of a finished game."""
    return lockstep.rewards(sk, state)


def reference_action(state: SvoiKoziriState, rng: random.Random, cheapest: bool = True, steady: bool = False) -> Action:
    """The search's playout policy written on the public rules' action bodies: a uniform move on a trump choice or a
    take, else (unless `steady`) one time in `1 / EXPLORE` a uniform card, else the cheapest beat by `trump_cost` (the
    seat's own trumps above every plain card) and, laying, the cheapest card if `cheapest` (bench/lowest.py's way)
    or else the highest `lay_value` (`easy`'s way); the first of equals."""
    actions = listed(state)
    kind = actions[0]["type"]
    if kind in ("choose_trump", "take") or (not steady and rng.random() < svoi_koziri_playout.EXPLORE):
        return rng.choice(actions)
    own, theirs = state.trumps[state.turn], state.trumps[1 - state.turn]
    assert own is not None and theirs is not None
    if cheapest or kind == "beat":
        return min(actions, key=lambda action: trump_cost(action["card"], own.letter))
    return max(actions, key=lambda action: lay_value(action["card"], own.letter, theirs.letter))


def by_policy(state: SvoiKoziriState, actions: list[Action], rng: random.Random) -> int:
    """The index of the playout policy's action laying the cheapest card (`reference_action`)."""
    return actions.index(reference_action(state, rng))


def play_both(state: SvoiKoziriState, choose: Choose, rng: random.Random, moves: int = 100_000) -> SvoiKoziriState:
    """`tests.engine.lockstep.play_both` for Svoi Koziri: every kind of state (the trump choice, a `play` step, a last
    card to answer, a repetition record, §3.9) is met, and also a starting point."""
    return lockstep.play_both(sk, Position, fast_actions, state, choose, rng, moves)


def endgame(rng: random.Random) -> SvoiKoziriState:
    """A random position (svoi_koziri.md §8's "Positions") with 1-3 cards in each hand and the rest on the pile."""
    deck = list(FRENCH_36)
    rng.shuffle(deck)
    first, second = rng.randint(1, 3), rng.randint(1, 3)
    trumps = rng.sample(FRENCH_SUITS, 2)
    hands = [deck[:first], deck[first:first + second]]
    return sk.position((trumps[0], trumps[1]), hands, deck[first + second:], rng.randrange(2))


def test_position_plays_every_random_game_as_the_public_rules_do() -> None:
    """Uniform random play: 40 games from a deal (trump choices, the deal and the sixes of svoi_koziri.md §2.5-§2.7,
    then about a thousand moves of takes of 3, 5 and the whole pile, §3.6) and 2,000 from random endgames (going out
    by a lead, a beat or a play, a single last card that must answer, the draw, §3.8; each for up to 40 moves): at
    every move the same moves in the same order, after it the same state, and at the end the same result."""
    sixes: Counter[int] = Counter()
    ends: Counter[sk.Reason | None] = Counter()
    for seed in range(DEALS):
        state = play_both(sk.new_game(2, OPTIONS, seed=seed), uniform, random.Random(seed))
        sixes[sum(six is not None for six in state.sixes_passed)] += 1
        ends[state.reason] += 1
    for seed in range(ENDGAMES):
        rng = random.Random(seed)
        ends[play_both(endgame(rng), uniform, rng, ENDGAME_MOVES).reason] += 1
    assert set(sixes) == {0, 1, 2}  # no six, one or both handed over (§2.7)
    assert ends[sk.Reason.OUT_OF_CARDS] > 1_000 and ends[sk.Reason.DRAW] > 50


def by_easy(state: SvoiKoziriState, actions: list[Action], rng: random.Random) -> int:
    """The index of the `easy` level's action, or one time in `1 / EASY_EXPLORE` a uniform one."""
    if rng.random() < EASY_EXPLORE:
        return rng.randrange(len(actions))
    return actions.index(easy(seat_view("svoi_koziri", state, state.turn), rng))


def test_position_plays_the_policies_games_as_the_public_rules_do() -> None:
    """200 games from a deal played by the search's playout policy and 200 by `easy`'s, which often comes back to a
    position it took into (§3.9): the same moves, states and results, repetition draws included, also where the
    position was built after some of the repeated positions were recorded."""
    ends: Counter[sk.Reason | None] = Counter()
    for choose in (by_policy, by_easy):
        for seed in range(POLICY_GAMES):
            ends[play_both(sk.new_game(2, OPTIONS, seed=seed), choose, random.Random(seed)).reason] += 1
    assert ends[sk.Reason.REPETITION] > 0 and ends[sk.Reason.DRAW] > 0 and ends[sk.Reason.OUT_OF_CARDS] > 0


def reference_playout(state: SvoiKoziriState, rng: random.Random, limit: int,
                      opponent: tuple[int, bool | None] | None = None) -> tuple[list[float], int]:
    """The fast playout's loop written on the public rules: one `random()` chooses how the playout lays
    (`CHEAPEST_SHARE`), then the `opponent` seat's way is its own or, if None, a second `random()`'s; then
    `reference_action` moves, the opponent's `steady`; the result's rewards at the end, `estimate` after `limit`."""
    cheapest = rng.random() < svoi_koziri_playout.CHEAPEST_SHARE
    ways = [cheapest, cheapest]
    if opponent is not None:
        seat, lays_cheapest = opponent
        ways[seat] = rng.random() < svoi_koziri_playout.CHEAPEST_SHARE if lays_cheapest is None else lays_cheapest
    for played in range(limit + 1):
        if sk.result(state) is not None:
            return rewards(state), played
        if played == limit:
            break
        steady = opponent is not None and state.turn == opponent[0]
        state, _ = sk.apply(state, state.turn, reference_action(state, rng, ways[state.turn], steady))
    return svoi_koziri_playout.estimate([len(hand) for hand in state.hands]), limit


OPPONENTS = (None, (1, True), (0, False), (1, None))
"""Playouts without an opponent model, and with an opponent laying `lowest`'s way, `easy`'s, or undecided."""


def test_playout_returns_what_the_loop_over_the_public_rules_returns() -> None:
    """From 532 positions (both trump choices and every 7th move of the first 140 of 30 random games from a deal,
    half played by `easy`, half uniformly: both play long games), the fast playout and the reference loop with the
    same seed give the same rewards after the same number of moves, with the search's limit of 40 and with a limit
    of 6 that cuts most playouts off, with no opponent model and with each kind of one (`prepare_playout`)."""
    checked = 0
    ends: Counter[bool] = Counter()
    for seed in range(30):
        rng = random.Random(seed)
        state = sk.new_game(2, OPTIONS, seed=seed)
        moves = 0
        while sk.result(state) is None and moves <= 140:
            if moves % 7 == 0 or moves == 1:
                for limit, opponent in product((40, 6), OPPONENTS):
                    fast = svoi_koziri_playout.playout(state, state, random.Random(moves), limit, opponent)
                    assert fast == reference_playout(state, random.Random(moves), limit, opponent)
                    ends[fast[1] < limit] += 1
                    checked += 1
            actions = listed(state)
            index = by_easy(state, actions, rng) if seed % 2 else uniform(state, actions, rng)
            state, _ = sk.apply(state, state.turn, actions[index])
            moves += 1
    assert checked == 1_064 * len(OPPONENTS)
    assert ends[True] > 0 and ends[False] > 0  # some played to the end, some cut off


def test_playout_counts_the_moves_to_a_known_end() -> None:
    """svoi_koziri.md §8.10: seat 0 `KC 7D`, seat 1 `9D`, pile `… 10C`. The policy beats with KC and plays 7D (its
    only moves), seat 1 answers with its single last card 9D: a draw after 3 moves. With `6D` instead seat 1 cannot
    answer: seat 0 wins after 2 moves."""
    spades, hearts = FRENCH_SUITS[0], FRENCH_SUITS[1]
    for last, expected in (("9D", ([0.5, 0.5], 3)), ("6D", ([1.0, 0.0], 2))):
        hands = [cards("KC 7D"), cards(last)]
        pile = [card for card in FRENCH_36 if card not in {*hands[0], *hands[1], *cards("10C")}] + cards("10C")
        start = sk.position((spades, hearts), hands, pile, 0)
        assert svoi_koziri_playout.playout(start, start, random.Random(1), 40) == expected


def test_repetition_counts_the_positions_recorded_before_the_position_was_built() -> None:
    """svoi_koziri.md §8.11: cycle C played twice through the public rules records each post-take position twice;
    a position built then and played `s0 lead 7C, s1 beat 8C, s1 play AD, s0 take` ends in a draw by repetition."""
    hands = [cards("6H 7H 8H 9H 10H JH QH KH AH 7C 9C 10C JC 6D 7D 8D 9D"),
             cards("6S 7S 8S 9S 10S JS QS KS AS 6C 8C QC KC AC 10D JD QD KD AD")]
    state = sk.position((FRENCH_SUITS[0], FRENCH_SUITS[1]), hands, [], 0)
    cycle = ["lead 7C", "beat 8C", "play AD", "take", "lead 6C", "beat 8C", "play AD", "take"]
    for step in cycle * 2:
        kind, *card = step.split()
        state, _ = sk.apply(state, state.turn, {"type": kind, **({"card": card[0]} if card else {})})
    assert len(state.positions) == 4 and sk.result(state) is None
    position = Position(state)
    for step in cycle[:4]:
        kind, *card = step.split()
        move = svoi_koziri_playout.TAKE if kind == "take" else FRENCH_36_NUMBER[cards(card[0])[0]]
        assert move in position.moves()
        position.play(move)
        state, _ = sk.apply(state, state.turn, {"type": kind, **({"card": card[0]} if card else {})})
    assert position.over and position.reason == sk.Reason.REPETITION
    assert position.state() == state


def test_the_opponent_model_names_the_way_the_opponent_has_played() -> None:
    """Seat 0 plays `easy`; from the same deal seat 1 lays steadily its cheapest card (`lowest`'s way) in one game,
    the card hardest to beat (`easy`'s way) in another, and plays uniformly in a third. Seat 0's view of the history
    names the steady way once seat 1 has laid a card where the two ways differ, and nothing before (svoi_koziri.md
    §3.3, §3.5); once seat 1 has laid `TRUSTED_AFTER` such cards the tree expects its moves
    (`prepare_opponent`), and each move seat 1 then makes is the expected one. Uniform play makes moves of neither
    way, and the tree never expects it."""
    for way in ("cheapest", "hardest", "uniform"):
        state = sk.new_game(2, OPTIONS, seed=5)
        history: list[dict[str, object]] = []
        seen: list[bool | None] = []
        expected = None
        checked = 0
        for version in range(2, 200):
            if sk.result(state) is not None:
                break
            seat = state.turn
            if seat == 0:
                view = seat_view("svoi_koziri", state, 0, history)
                seen.append(opponent_lays_cheapest(view, history))
                expected = prepare_opponent(view, history)
                action = easy(view, random.Random(version))
            elif way == "uniform":
                action = random.Random(version).choice(listed(state))
            else:
                action = reference_action(state, random.Random(version), way == "cheapest", steady=True)
                if expected is not None:
                    assert expected(state) == action
                    checked += 1
            state, events = sk.apply(state, seat, action)
            history.extend(history_entry(version, event, 0) for event in events)
        final = opponent_ways(view, history)
        assert final is not None
        if way == "uniform":
            assert final[2] > 0 and expected is None
            continue
        cheapest = way == "cheapest"
        assert seen[0] is None and seen[-1] is cheapest
        assert set(seen) == {None, cheapest}
        steady, other = (final[0], final[1]) if cheapest else (final[1], final[0])
        assert steady >= TRUSTED_AFTER and other == 0 and final[2] == 0
        assert checked > 10


def test_the_opponent_model_reads_a_history_that_does_not_replay_as_none() -> None:
    """A history that does not replay (here the opponent `beat`s where seat 0 is to lead, the pile empty, §3.3, §3.4)
    tells the opponent model nothing: `opponent_ways` and `prepare_opponent` say None, as `sample_state` falls back
    to the view, and the search still answers (it raised IndexError on the empty pile before the model checked the
    step)."""
    state = sk.new_game(2, OPTIONS, seed=5)
    history: list[dict[str, object]] = []
    for version, (seat, suit) in enumerate(((0, "S"), (1, "H")), start=2):
        state, events = sk.apply(state, seat, {"type": "choose_trump", "suit": suit})
        history.extend(history_entry(version, event, 0) for event in events)
    forged = [*history, {"version": 4, "type": "beat", "seat": 1, "card": state.hands[1][0].code, "against": "6S"}]
    view = seat_view("svoi_koziri", state, 0, forged)
    assert opponent_ways(view, forged) is None
    assert opponent_lays_cheapest(view, forged) is None
    assert prepare_opponent(view, forged) is None
    assert ismcts(SEARCH, view, random.Random(0), Budget(iterations=50, seconds=600)) in view["legal_actions"]
