"""Exact Svoi Koziri endgames (issue 17): after the deal every card is known to a player that remembers, so once
the hands are small the search levels solve the rest (engine/ai/solver.py, from
`engine.games.svoi_koziri.players.exact_state`).

Trumps: seat 0 ♠, seat 1 ♥ (svoi_koziri.md §3.1: a player's own trump beats any card of another suit, and its own
trump suit is beaten only by a higher card of that suit).
"""

from __future__ import annotations

import random

from engine.ai.search import default_budget, solve_exactly
from engine.ai.solver import solve
from engine.cards import FRENCH_36, Suit
from engine.games import svoi_koziri as sk
from engine.games.svoi_koziri import SvoiKoziriState
from engine.games.svoi_koziri.players import SEARCH, SOLVE_SHARE
from engine.players import LEVELS, seat_view
from tests.decks import cards
from tests.engine.endgames import solved_wins_lost


def facing(hands: tuple[str, str], top: str) -> SvoiKoziriState:
    """Seat 0 to respond to the last card of `top` (bottom first); every other card lies below it in the pile."""
    held = [cards(hands[0]), cards(hands[1])]
    upper = cards(top)
    below = [card for card in FRENCH_36 if card not in {*held[0], *held[1], *upper}]
    return sk.position((Suit.SPADES, Suit.HEARTS), held, [*below, *upper], 0)


def test_beat_with_the_small_trump_and_leave_the_opponent_a_card_of_its_own_trump() -> None:
    """Seat 0: 7♠ 8♥ K♥; seat 1: J♠ 9♥; seat 0 faces 10♥, with K♠ 7♣ 7♥ below it.
    - beat 7♠, play K♥: seat 1 cannot beat its own trump king (no A♥) and takes five (§3.6: K♥ 7♠ 10♥ K♠ 7♣);
      seat 0 beats the 7♥ left on top with 8♥, its last card, and is out. Win. (Playing 8♥ instead loses: seat 1
      beats with 9♥ and goes out on J♠, which K♥ cannot beat.)
    - beat K♥: seat 0 must play 7♠ or 8♥; seat 1 beats it (J♠ or 9♥ on 7♠, 9♥ on 8♥) and goes out with its other
      card, which seat 0's last card cannot beat (8♥ beats neither J♠ nor 9♥; 7♠ is below J♠ in seat 0's own
      trump suit). Loss.
    `easy` beats with the king (it keeps its own trump); the solver finds the seven.
    """
    state = facing(("7S 8H KH", "JS 9H"), "7H 7C KS 10H")
    moves = [action for action in sk.legal_actions(state, 0) if action["type"] != "resign"]
    assert {action["card"]: solve(sk, state, 0, [action], 100_000).value for action in moves} == {"7S": 1.0, "KH": 0.0}
    view = seat_view("svoi_koziri", state, 0)
    assert LEVELS["svoi_koziri"]["easy"](view, random.Random(0)) == {"type": "beat", "card": "KH"}
    assert LEVELS["svoi_koziri"]["hard"](view, random.Random(0)) == {"type": "beat", "card": "7S"}
    after, _ = sk.apply(state, 0, {"type": "beat", "card": "7S"})
    assert LEVELS["svoi_koziri"]["hard"](seat_view("svoi_koziri", after, 0), random.Random(0)) == {
        "type": "play", "card": "KH"}


def test_the_solve_fits_in_hards_share_of_its_default_moves() -> None:
    """`hard` spends `SOLVE_SHARE` of its default moves solving (the suite's own budget is smaller)."""
    view = seat_view("svoi_koziri", facing(("7S 8H KH", "JS 9H"), "7H 7C KS 10H"), 0)
    moves = int(default_budget(SEARCH, "hard").moves * SOLVE_SHARE)
    solved = solve_exactly(SEARCH, view, moves)
    assert solved is not None and (solved.value, solved.action) == (1.0, {"type": "beat", "card": "7S"})


def test_a_solved_endgame_is_never_lost_in_self_play() -> None:
    """50 games played by `easy` up to the first position with 6 cards in the hands or fewer that the seat to act
    has solved as a win; `hard` against `hard` from there, and the solved winner wins every one."""

    def small(state: SvoiKoziriState) -> bool:
        return state.step != sk.Step.CHOOSE_TRUMP and sum(map(len, state.hands)) <= 6

    def easy(state: SvoiKoziriState, moves: list[dict], rng: random.Random) -> dict:
        (seat,) = sk.to_act(state)
        return dict(LEVELS["svoi_koziri"]["easy"](seat_view("svoi_koziri", state, seat), rng))  # type: ignore[arg-type]

    assert solved_wins_lost("svoi_koziri", 50, small, easy) == []
