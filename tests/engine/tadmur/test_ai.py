"""The Tadmur AI, reading only the JSON view (engine/games/tadmur/players.py): `easy`'s target tracking, parity and when
to guess; the search hooks' root moves and opponent model."""

from __future__ import annotations

import random
from typing import Any

from engine.ai.search import Budget, ismcts
from engine.games import tadmur
from engine.games.tadmur import RANKS, TadmurState
from engine.games.tadmur import playout as tadmur_playout
from engine.games.tadmur.players import (
    SEARCH,
    candidates,
    exposure,
    guess_rates,
    least_exposed,
    opponent_guess_rate,
    opponent_turns,
    root_actions,
    target_weights,
)
from engine.games.tadmur.playout import Position, choose
from engine.players import SeatView, choose_action, history_entry, seat_view
from tests.decks import cards
from tests.engine.tadmur.test_scenarios import D1, D2, D3, PASS, deal, play


def easy(view: SeatView, seed: int = 0) -> dict[str, Any]:
    return dict(choose_action(view, "easy", random.Random(seed)))


def test_candidates_weigh_unseen_cards_and_the_opponents_parity() -> None:
    """tadmur.md §3.12: from seat 0's view of D1, each rank counts its unseen cards, three times when the
    opponent's row (chain end KC, 7 empty) can reach it; Q, A (d = ±1) and 3, 10 (d = ±3) cannot be reached.
    """
    weights = candidates(seat_view("tadmur", deal(D1), 0))
    assert weights == {"2": 3, "3": 2, "4": 9, "5": 6, "6": 6, "7": 6, "8": 6, "9": 3, "10": 2, "J": 6, "Q": 2,
                       "K": 3, "A": 3}


def test_candidates_drop_own_wrong_guesses_and_fully_seen_ranks() -> None:
    """tadmur.md §3.6, §3.7: a rank we guessed wrong, or whose four cards we see, is not the opponent's target."""
    state = play(deal(D1), "s0 guess 4")
    weights = candidates(seat_view("tadmur", state, 0))
    assert "4" not in weights
    view = seat_view("tadmur", deal(D1), 1)
    view["state"]["hand"] = [*view["state"]["hand"], "10S", "10H"]  # with its 10D 10C: all four tens seen
    assert "10" not in candidates(view)


def test_easy_places_when_guessing_is_not_worth_it() -> None:
    """tadmur.md §3.12: with a reachable target, low odds and no threat, a wrong guess would only block its row."""
    action = easy(seat_view("tadmur", deal(D1), 0))
    assert action["type"] == "place" and action["card"] in {"4D", "6H", "6D"}


def test_easy_guesses_when_its_own_row_is_parity_blocked() -> None:
    """tadmur.md §3.12, §8.7: seat 0 of D2 (5D to 6S, d = +1, 7 spaces) cannot complete: a wrong guess fixes it.
    It names a rank of the highest weight.
    """
    view = seat_view("tadmur", deal(D2), 0)
    weights = candidates(view)
    action = easy(view)
    assert action["type"] == "guess"
    assert weights[action["rank"]] == max(weights.values())


def test_easy_guesses_when_stuck_then_passes() -> None:
    """tadmur.md §3.10, §8.8: a seat with no placement can only win by guessing; after the guess it passes."""
    state = deal(D3)
    action = easy(seat_view("tadmur", state, 0))
    assert action["type"] == "guess"
    state, _ = tadmur.apply(state, 0, action)
    if tadmur.result(state) is None:
        assert easy(seat_view("tadmur", state, 0)) == {"type": "pass"}


def crafted_view(my_wrong: list[str], their_chain: list[str], their_empty: int) -> SeatView:
    """Seat 0 mid-game: chain 6H 7H (target 9S, 5 empty); seat 1 from KC with `their_chain`."""
    state = {
        "dealer": 1, "turn": 0, "guessed_this_turn": False, "guessing_locked": False, "idle_turns": 0,
        "rows": [
            {"seat": 0, "starter": "5H", "chain": ["6H", "7H"], "spaces": 7 + len(my_wrong), "empty": 5 + len(my_wrong),
             "target": "9S", "wrong_guesses": my_wrong},
            {"seat": 1, "starter": "KC", "chain": their_chain, "spaces": 7, "empty": their_empty, "target": None,
             "wrong_guesses": []},
        ],
        "hand": [card.code for card in cards("2H 2D 3H 4D 5D 6D 7D 8S 8H 9H 9D 10S JS QH KS AD", "tadmur")],
    }
    legal = [{"type": "place", "card": code} for code in ("6D", "8S", "8H")]
    legal += [{"type": "guess", "rank": rank} for rank in RANKS if rank not in my_wrong]
    return {"game": "tadmur", "you": 0, "state": state, "legal_actions": [*legal, {"type": "resign"}]}


def test_easy_guesses_with_good_odds() -> None:
    """tadmur.md §3.6: with ten ranks ruled out by its own wrong guesses, the best of three is worth a guess."""
    ruled_out = ["2", "3", "4", "5", "6", "7", "8", "10", "J", "Q"]
    view = crafted_view(ruled_out, ["AS", "2S", "3S"], 4)
    action = easy(view)
    assert action["type"] == "guess" and action["rank"] in {"9", "K", "A"}


def test_easy_guesses_before_the_opponent_can_lock_and_complete() -> None:
    """tadmur.md §3.8: the opponent two spaces from completing will switch the lock on with its next card, so this
    is the last chance to guess; without that threat the same position is a placement.
    """
    view = crafted_view([], ["AS", "2S", "3S", "4S", "5S"], 2)
    assert easy(view)["type"] == "guess"
    view = crafted_view([], ["AS", "2S", "3S"], 4)
    assert easy(view)["type"] == "place"


def test_easy_keeps_its_target_reachable() -> None:
    """tadmur.md §3.12: from chain end 7 with target 10 and 2 empty spaces, 6 would leave the target 4 ranks away
    with 2 steps left (unreachable); 8 keeps it reachable and 9D can then complete.
    """
    view = crafted_view([], ["AS"], 6)
    mine = view["state"]["rows"][0]
    mine.update({"chain": ["6H", "7H", "8D", "9C", "8C", "7C"], "spaces": 8, "empty": 2, "target": "10S",
                 "wrong_guesses": ["Q"]})
    view["state"]["hand"] = ["5C", "6D", "8S", "9D"]
    view["legal_actions"] = [{"type": "place", "card": "6D"}, {"type": "place", "card": "8S"}, {"type": "resign"}]
    assert {easy(view, seed)["card"] for seed in range(10)} == {"8S"}


def played_with_history(
    moves: list[tuple[int, dict[str, Any]]], seat: int, deck: str = D1
) -> tuple[TadmurState, list[Any]]:
    """`deck` (D1) after `moves`, with the event history as `seat` sees it."""
    state, history = deal(deck), []
    for version, (mover, action) in enumerate(moves, start=2):
        state, events = tadmur.apply(state, mover, action)
        history += [history_entry(version, event, seat) for event in events]
    return state, history


GUESSING_OPPONENT = [
    (0, {"type": "place", "card": "6H"}),
    (1, {"type": "guess", "rank": "4"}), (1, {"type": "place", "card": "QS"}),
    (0, {"type": "place", "card": "7H"}),
    (1, {"type": "place", "card": "JD"}),
    (0, {"type": "place", "card": "8H"}),
    (1, {"type": "guess", "rank": "2"}), (1, {"type": "place", "card": "10D"}),
]
"""D1: seat 1 guesses wrong in two of its three turns (its target is 8D)."""


def test_the_opponent_model_counts_guesses_per_turn() -> None:
    """tadmur.md §3.3, §3.6: seat 1 guessed in 2 of 3 turns; with the prior 0.1 counted as 2 turns the rate is
    (2 + 0.2) / (3 + 2) = 0.44. Its row ends at 10D with 6 empty spaces (three placements, two wrong guesses).
    """
    state, history = played_with_history(GUESSING_OPPONENT, 0)
    view = seat_view("tadmur", state, 0)
    turns = opponent_turns(view, history)
    assert [(t.end, t.empty, t.guessed, t.passed, t.locked) for t in turns] == [
        ("QS", 7, True, False, False), ("JD", 6, False, False, False), ("10D", 6, True, False, False)
    ]
    assert opponent_guess_rate(view, history) == 2.2 / 5


def test_the_opponent_model_leaves_out_locked_turns_and_passes() -> None:
    """tadmur.md §3.9, §8.8: neither seat of D3 can place; seat 0's turns end with a pass and say nothing about
    how often it guesses with a card to place, so for seat 1 it keeps the prior 0.1.
    """
    state = deal(D3)
    history: list[Any] = []
    moves = [(0, PASS), (1, {"type": "guess", "rank": "5"}), (1, PASS), (0, PASS)]
    for version, (mover, action) in enumerate(moves, start=2):
        state, events = tadmur.apply(state, mover, action)
        history += [history_entry(version, event, 1) for event in events]
    view = seat_view("tadmur", state, 1)
    assert [turn.passed for turn in opponent_turns(view, history)] == [True, True]
    assert opponent_guess_rate(view, history) == 0.1


def test_the_opponent_model_marks_turns_under_the_lock() -> None:
    """tadmur.md §3.8: after seat 0's sixth card (JH) its row has one empty space, so seat 1's next turn is locked
    and not counted: 0 guesses in 5 open turns gives (0 + 0.2) / (5 + 2).
    """
    moves = []
    for mine, theirs in zip("6H 7H 8H 9H 10H JH".split(), "QS JD 10D 9C 8C 7C".split(), strict=True):
        moves += [(0, {"type": "place", "card": mine}), (1, {"type": "place", "card": theirs})]
    state, history = played_with_history(moves, 0)
    view = seat_view("tadmur", state, 0)
    assert [turn.locked for turn in opponent_turns(view, history)] == [False] * 5 + [True]
    assert opponent_guess_rate(view, history) == 0.2 / 7


def test_the_search_weighs_the_least_exposed_placement_and_one_guess() -> None:
    """tadmur.md §3.6: every wrong guess costs one space, so only the likeliest rank is weighed: `4` (weight 9 in
    seat 0's view of D1, see the first test). Of the three cards that fit 5H, 4D shows seat 0's only 4 and the 6s
    one of two, so 4D leaves the target 9S less exposed (`least_exposed`).
    """
    assert root_actions(seat_view("tadmur", deal(D1), 0)) == [
        {"type": "place", "card": "4D"}, {"type": "guess", "rank": "4"},
    ]


def test_exposure_is_the_targets_unseen_count_squared_over_all_counts_squared() -> None:
    """Seat 0 of D1 holds 2H 2D 2C 3H 3C 4D 5D 6H 6D 7H 7D 8S 8H 9H 9D 10S 10H JS JH QH QD KS KD AD and its target is
    9S: seat 1 sees none of them, so the unseen counts are 3 for 2, 3 for 9 (two in hand and the target), 1 for 4, 5
    and A, 2 for the other eight ranks; the sum of squares is 53, of which the target's rank has 9."""
    view = seat_view("tadmur", deal(D1), 0)
    assert exposure(view["state"]["hand"], "9S") == 9 / 53
    # placing 4D takes 1 from the sum (1² → 0²), placing a 6 takes 3 (2² → 1²): 9/52 against 9/50
    assert exposure([code for code in view["state"]["hand"] if code != "4D"], "9S") == 9 / 52


def test_a_placement_of_the_targets_rank_hides_it_best() -> None:
    """D1 after §8.3's first six moves: seat 0's chain ends 8H with 4 spaces left, and 7D, 9H and 9D fit. A 9 takes
    the target's rank from 3 unseen cards to 2 (tadmur.md §6.2: seat 1 cannot see them), so both 9s are kept and
    7D is dropped; all three keep the target reachable (§3.12)."""
    state = play(deal(D1), "s0 place 6H, s1 place AS, s0 place 7H, s1 place 2S, s0 place 8H, s1 place 3S")
    view = seat_view("tadmur", state, 0)
    places = [action for action in view["legal_actions"] if action["type"] == "place"]
    assert [action["card"] for action in places] == ["7D", "9H", "9D"]
    assert least_exposed(view, places) == [{"type": "place", "card": "9H"}, {"type": "place", "card": "9D"}]


def placing_view(hand: list[str], chain: list[str], empty: int, their_wrong_guesses: list[str]) -> Any:
    """The part of seat 0's view `least_exposed` reads: its hand, its row (starter 5H, target 9S) and seat 1's."""
    mine = {"seat": 0, "starter": "5H", "chain": chain, "spaces": len(chain) + empty, "empty": empty, "target": "9S",
            "wrong_guesses": []}
    theirs = {"seat": 1, "starter": "KC", "chain": [], "spaces": 7, "empty": 7, "target": None,
              "wrong_guesses": their_wrong_guesses}
    return {"you": 0, "state": {"rows": [mine, theirs], "hand": hand}}


def places_of(*codes: str) -> list[dict[str, Any]]:
    return [{"type": "place", "card": code} for code in codes]


def test_the_least_exposed_placement_must_keep_the_target_reachable() -> None:
    """Target 9S, chain end AS (the ace wraps, tadmur.md §3.1) with 4 spaces left: a 2 would leave the target
    unreachable (distance 7 in 4 steps, §3.12), a K would not (distance -4). The 2 is the seat's only one and would
    expose the target least (1² → 0², where a K takes 3² → 2²), yet the Ks are kept."""
    hand = ["2S", "5S", "7H", "9H", "KH", "KD", "KC"]
    view = placing_view(hand, ["4H", "3S", "2H", "AS"], 4, [])
    assert exposure(hand[1:], "9S") < exposure([code for code in hand if code != "KH"], "9S")
    assert least_exposed(view, places_of("2S", "KH", "KD", "KC")) == places_of("KH", "KD", "KC")


def test_the_least_exposed_placement_must_leave_a_card_to_follow() -> None:
    """Chain end 8H, target 9S, 4 spaces left, no 8 or 10 in hand: 9H would hide the target best but nothing could
    follow it (the seat would be stuck for good, tadmur.md §3.10); 7D keeps 6S to follow, so 7D is kept."""
    view = placing_view(["2C", "6S", "7D", "9H", "QS"], ["6H", "7H", "8H"], 4, [])
    assert exposure(["2C", "6S", "7D", "QS"], "9S") < exposure(["2C", "6S", "9H", "QS"], "9S")
    assert least_exposed(view, places_of("7D", "9H")) == places_of("7D")


def test_the_opponents_wrong_guesses_are_out_of_the_exposure() -> None:
    """Seat 1 guessed 6 wrong, so it cannot name 6 again (tadmur.md §3.7) and the 6s count for nothing: with 4S, 6S,
    6D and 9H in hand the target's rank has 2 unseen cards of 3 that count, not of 5. At chain end 5S, placing a 6
    keeps the 4 as the one other rank (2²/(2² + 1²) = 0.8 against 1.0 after placing 4S); were the 6s counted,
    placing 4S would look best (2²/(2² + 2²) = 0.5 against 4/6)."""
    hand = ["4S", "6S", "6D", "9H"]
    assert exposure(hand, "9S", ["6"]) == 4 / 5
    assert exposure(hand, "9S") == 4 / 9
    assert least_exposed(placing_view(hand, ["6H", "5S"], 5, ["6"]), places_of("4S", "6S", "6D")) == places_of(
        "6S", "6D")
    assert least_exposed(placing_view(hand, ["6H", "5S"], 5, []), places_of("4S", "6S", "6D")) == places_of("4S")


def guesses(move: int) -> bool:
    """Whether a move of the playout's position is a guess (engine/games/tadmur/playout.py)."""
    return tadmur_playout.action(move)["type"] == "guess"


def test_playouts_let_the_opponent_guess_at_its_observed_rate() -> None:
    """The playout guesses for seat 1 at its rate 0.44 (first test) and for the searching seat 0 at the prior 0.1:
    1,000 seeded playout steps for each land within 0.05 of those rates.
    """
    state, history = played_with_history(GUESSING_OPPONENT, 0)
    rates = guess_rates(seat_view("tadmur", state, 0), history)
    assert rates == (0.1, 2.2 / 5)
    rng = random.Random(7)
    position = Position(state)
    mine = sum(guesses(choose(position, rates, rng)) for _ in range(1000))
    position = Position(play(state, "s0 place 9H"))
    theirs = sum(guesses(choose(position, rates, rng)) for _ in range(1000))
    assert abs(mine / 1000 - 0.1) < 0.05
    assert abs(theirs / 1000 - 0.44) < 0.05


def pass_deck() -> str:
    """Starters 8S / 3C, targets KH / 6D; seat 0 holds seven of the eight 4s and 6s, seat 1 the 4S and 5H."""
    codes = [rank + suit for rank in RANKS for suit in "SHDC"]
    mine = ["9S", "10S", "JS", "4H", "4D", "4C", "6S", "6H", "6C"]
    theirs = ["4S", "5H"]
    rest = [code for code in codes if code not in {"8S", "3C", "KH", "6D", *mine, *theirs}]
    mine, theirs = mine + rest[:15], theirs + rest[15:]
    return " ".join(["8S", "3C", "KH", "6D"] + [card for pair in zip(mine, theirs, strict=True) for card in pair])


def test_an_opponent_pass_can_name_its_target_and_the_search_guesses_it() -> None:
    """tadmur.md §3.9, §3.10: seat 1 passed at chain end 5H, so it holds no 4 or 6; seat 0 sees seven of the eight,
    so the eighth, 6D, is seat 1's target. The samples, the root's one guess and the search all say so (the root
    once kept only `candidates`' likeliest rank, which ignores passes, and the search could not win at once)."""
    moves = [(0, {"type": "place", "card": "9S"}), (1, {"type": "place", "card": "4S"}),
             (0, {"type": "place", "card": "10S"}), (1, {"type": "place", "card": "5H"}),
             (0, {"type": "place", "card": "JS"}), (1, {"type": "pass"})]
    state, history = played_with_history(moves, 0, pass_deck())
    view = {**seat_view("tadmur", state, 0), "history": history}
    assert list(target_weights(view, history)) == ["6D"]
    assert {"type": "guess", "rank": "6"} in root_actions(view)
    for seed in range(3):
        assert ismcts(SEARCH, view, random.Random(seed), Budget(60, 60)) == {"type": "guess", "rank": "6"}
