"""The `easy` Tadmur AI: target tracking, parity and when to guess, reading only the JSON view (engine/ai/tadmur.py)."""

from __future__ import annotations

import random
from typing import Any

from engine.ai import SeatView, choose_action
from engine.ai.tadmur import candidates
from engine.games import tadmur
from engine.games.tadmur import RANKS, TadmurState
from tests.decks import cards
from tests.engine.tadmur.test_scenarios import D1, D2, D3, deal, play


def seat_view(state: TadmurState, seat: int) -> SeatView:
    return {
        "game": "tadmur",
        "you": seat,
        "state": tadmur.view(state, seat).state,
        "legal_actions": tadmur.legal_actions(state, seat),
    }


def easy(view: SeatView, seed: int = 0) -> dict[str, Any]:
    return dict(choose_action(view, "easy", random.Random(seed)))


def test_candidates_weigh_unseen_cards_and_the_opponents_parity() -> None:
    """tadmur.md §3.12: from seat 0's view of D1, each rank counts its unseen cards, three times when the
    opponent's row (chain end KC, 7 empty) can reach it; Q, A (d = ±1) and 3, 10 (d = ±3) cannot be reached.
    """
    weights = candidates(seat_view(deal(D1), 0))
    assert weights == {"2": 3, "3": 2, "4": 9, "5": 6, "6": 6, "7": 6, "8": 6, "9": 3, "10": 2, "J": 6, "Q": 2,
                       "K": 3, "A": 3}


def test_candidates_drop_own_wrong_guesses_and_fully_seen_ranks() -> None:
    """tadmur.md §3.6, §3.7: a rank we guessed wrong, or whose four cards we see, is not the opponent's target."""
    state = play(deal(D1), "s0 guess 4")
    weights = candidates(seat_view(state, 0))
    assert "4" not in weights
    view = seat_view(deal(D1), 1)
    view["state"]["hand"] = [*view["state"]["hand"], "10S", "10H"]  # with its 10D 10C: all four tens seen
    assert "10" not in candidates(view)


def test_easy_places_when_guessing_is_not_worth_it() -> None:
    """tadmur.md §3.12: with a reachable target, low odds and no threat, a wrong guess would only block its row."""
    action = easy(seat_view(deal(D1), 0))
    assert action["type"] == "place" and action["card"] in {"4D", "6H", "6D"}


def test_easy_guesses_when_its_own_row_is_parity_blocked() -> None:
    """tadmur.md §3.12, §8.7: seat 0 of D2 (5D to 6S, d = +1, 7 spaces) cannot complete: a wrong guess fixes it.
    It names a rank of the highest weight.
    """
    view = seat_view(deal(D2), 0)
    weights = candidates(view)
    action = easy(view)
    assert action["type"] == "guess"
    assert weights[action["rank"]] == max(weights.values())


def test_easy_guesses_when_stuck_then_passes() -> None:
    """tadmur.md §3.10, §8.8: a seat with no placement can only win by guessing; after the guess it passes."""
    state = deal(D3)
    action = easy(seat_view(state, 0))
    assert action["type"] == "guess"
    state, _ = tadmur.apply(state, 0, action)
    if tadmur.result(state) is None:
        assert easy(seat_view(state, 0)) == {"type": "pass"}


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
