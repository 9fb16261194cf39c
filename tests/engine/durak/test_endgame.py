"""Exact Durak endgames (issue 17): once the stock is empty the seat knows every card, and the search levels solve
the rest (engine/ai/solver.py over durak.py's own rules, from `engine.games.durak.players.exact_state`).

Each crafted position has exactly one winning move, found by the solver and checked by hand in its docstring
(durak.md §3: L is the bout limit, A the attacker, D the defender; trumps beat every plain card).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.ai.solver import solve
from engine.cards import Suit
from engine.games import durak
from engine.games.durak import DurakState
from engine.games.durak.players import SOLVABLE_CARDS, exact_state, solve_key
from engine.players import LEVELS, history_entry, seat_view
from tests.decks import cards
from tests.engine.endgames import solved_wins_lost


def remembered(state: DurakState) -> list[dict[str, Any]]:
    """A history in which every card of the discard pile was seen going there (one bout beaten off)."""
    events: list[dict[str, Any]] = []
    for number, card in enumerate(state.discard):
        kind, seat = ("attacked", 0) if number % 2 == 0 else ("defended", 1)
        events.append({"version": 2, "type": kind, "seat": seat, "card": card.code})
    events.append({"version": 2, "type": "bout_ended", "seat": 0, "beaten_off": True})
    return events


def endgame(trump: Suit, hands: tuple[str, str], attacker: int, *moves: dict[str, Any]) -> DurakState:
    """An empty stock, these hands, the rest in the discard pile; then `moves` (seat to act each time)."""
    state = durak.position(trump, [], (cards(hands[0]), cards(hands[1])), attacker)
    for move in moves:
        (seat,) = durak.to_act(state)
        state, _ = durak.apply(state, seat, move)
    return state


def values(state: DurakState) -> dict[str, float | None]:
    """The solved value of each move of the seat to act ("attack 9S", "take", ...), for that seat."""
    (seat,) = durak.to_act(state)
    moves = [action for action in durak.legal_actions(state, seat) if action["type"] != "resign"]
    return {" ".join([action["type"], *([action["card"]] if "card" in action else [])]):
            solve(durak, state, seat, [action], 100_000, solve_key).value for action in moves}


def play(level: str, state: DurakState, history: list[dict[str, Any]]) -> dict[str, Any]:
    (seat,) = durak.to_act(state)
    view = {**seat_view("durak", state, seat), "history": history}
    return dict(LEVELS["durak"][level](view, random.Random(0)))  # type: ignore[arg-type]


def hard(state: DurakState, history: list[dict[str, Any]]) -> dict[str, Any]:
    return play("hard", state, history)


def test_lead_the_card_the_defender_cannot_beat() -> None:
    """Trumps ♥. A: 6♠ 6♦; D: 7♠ (L = 1).
    - 6♠: D beats with 7♠ and is out; A, left with 6♦, is the durak.
    - 6♦: D cannot beat it and takes; A attacks again with 6♠, her last card, and is out whatever D does. Win.
    """
    state = endgame(Suit.HEARTS, ("6S 6D", "7S"), 0)
    assert values(state) == {"attack 6S": 0.0, "attack 6D": 1.0}
    assert hard(state, remembered(state)) == {"type": "attack", "card": "6D"}


def test_easy_solves_a_small_endgame_and_plays_by_its_rules_without_the_history() -> None:
    """`easy` solves endgames within its few moves (engine/games/durak/players.py `EASY_SOLVE_MOVES`): it leads 6♦
    (above). Without the history the discard pile is unknown, so there is nothing to solve and its rule leads the first
    of the cheapest cards, the losing 6♠."""
    state = endgame(Suit.HEARTS, ("6S 6D", "7S"), 0)
    assert play("easy", state, remembered(state)) == {"type": "attack", "card": "6D"}
    assert play("easy", state, []) == {"type": "attack", "card": "6S"}


def test_defend_with_the_trump_not_the_natural_card() -> None:
    """Trumps ♥. A: 8♠ 9♦, attacks 8♠; D: 9♠ 7♥ (L = 2).
    - 9♠: a 9 is on the table, so A adds 9♦ and D beats it with 7♥: both hands empty, a draw.
    - 7♥: ranks 8 and 7 on the table, A cannot add 9♦ and ends the bout; D attacks with 9♠, which A's 9♦ cannot
      beat: A takes and D is out. Win.
    - take: no 9 is on the table, so A ends the bout, attacks again with 9♦, her last card, and is out. Loss.
    """
    state = endgame(Suit.HEARTS, ("8S 9D", "9S 7H"), 0, {"type": "attack", "card": "8S"})
    history = [*remembered(state), {"version": 3, "type": "attacked", "seat": 0, "card": "8S"}]
    assert values(state) == {"defend 9S": 0.5, "defend 7H": 1.0, "take": 0.0}
    assert hard(state, history) == {"type": "defend", "card": "7H", "against": "8S"}
    assert play("easy", state, history) == {"type": "defend", "card": "7H", "against": "8S"}
    assert play("easy", state, []) == {"type": "defend", "card": "9S", "against": "8S"}  # its rule: the cheapest


def test_lead_the_odd_card_and_keep_the_pair() -> None:
    """Trumps ♦ (none in play). A: 9♠ 8♥ 8♣; D: 7♥ K♥ K♣ (L = 3). Found by the solver in random play.
    - 9♠: D has no spade and no trump, so takes; A attacks again with the pair of 8s: if D beats 8♥ with K♥, A adds
      8♣ and D beats it with K♣ or takes; either way A is out and D holds cards. Win.
    - 8♥: D beats it with K♥; A adds 8♣, D beats it with K♣; A cannot add 9♠ (ranks 8 and K) and ends the bout.
      D attacks with 7♥, which 9♠ cannot beat: A takes and D is out. Loss; 8♣ is the same by symmetry.
    """
    state = endgame(Suit.DIAMONDS, ("7H KH KC", "9S 8H 8C"), 1)
    assert values(state) == {"attack 9S": 1.0, "attack 8H": 0.0, "attack 8C": 0.0}
    assert hard(state, remembered(state)) == {"type": "attack", "card": "9S"}


def test_the_exact_state_is_what_the_seat_knows_and_only_once_the_stock_is_empty() -> None:
    """`exact_state` is built from the view and the redacted history, and matches the real position (every card
    where it is) once the stock is empty and at most `SOLVABLE_CARDS` cards are in play; before that it is None."""
    checked = too_big = 0
    for seed in range(20):
        state = durak.new_game(2, durak.parse_options({}), seed=seed)
        rng = random.Random(seed)
        histories: list[list[dict[str, Any]]] = [[], []]
        version = 1
        while durak.result(state) is None:
            (seat,) = durak.to_act(state)
            view = {**seat_view("durak", state, seat), "history": histories[seat]}
            exact = exact_state(view, histories[seat])  # type: ignore[arg-type]
            in_play = sum(map(len, state.hands)) + sum(1 + (row.defense is not None) for row in state.table)
            if state.stock or in_play > SOLVABLE_CARDS:
                assert exact is None
                too_big += not state.stock
            else:
                assert exact is not None and solve_key(exact) == solve_key(state)
                checked += 1
            moves = [action for action in durak.legal_actions(state, seat) if action["type"] != "resign"]
            state, events = durak.apply(state, seat, rng.choice(moves))
            version += 1
            for viewer in (0, 1):
                histories[viewer].extend(history_entry(version, event, viewer) for event in events)
    assert checked > 100 and too_big > 10


def test_a_solved_endgame_is_never_lost_in_self_play() -> None:
    """200 endgames of random games, from the first small position (8 cards at most) the seat to act has solved as
    a win: `hard` against `hard` from there, and the solved winner wins every one."""

    def small(state: DurakState) -> bool:  # quick to solve: a fast test
        return not state.stock and sum(map(len, state.hands)) + 2 * len(state.table) <= 8

    assert solved_wins_lost("durak", 200, small, lambda state, moves, rng: rng.choice(moves), solve_key) == []


@pytest.mark.parametrize("moves", [10, 100])
def test_a_position_too_big_for_the_budget_gives_no_value(moves: int) -> None:
    """Past its moves the solver answers nothing (the search plays instead), having spent exactly its budget."""
    state = endgame(Suit.HEARTS, ("6S 9H JD QC 7C 10S", "7S 8H QD KC AS 6H"), 0)
    solved = solve(durak, state, 0, durak.legal_actions(state, 0)[:-1], moves, solve_key)
    assert (solved.value, solved.action, solved.moves) == (None, None, moves)
