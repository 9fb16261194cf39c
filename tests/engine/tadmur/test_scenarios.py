"""The test scenarios of shared/rules/tadmur.md §8.1-§8.11, with the exact values the rules give."""

from __future__ import annotations

import pytest

from engine.cards import parse_deck
from engine.errors import GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.games import tadmur
from engine.games.tadmur import TadmurState
from engine.protocol import Action
from engine.redaction import codes_in, event_for
from tests.decks import cards
from tests.notation import parse_step, steps

D1 = ("5H KC 9S 8D 6H AS 7H 2S 8H 3S 9H 4S 10H 5S JH 6S 10S QS QD 10D 2H 10C 2D JD 2C 7S 3H 3D 3C 4H 4D 4C "
      "5D 5C 6D 6C 7D 7C 8S 8C 9D 9C JS JC QH QC KS KH KD AH AD AC")
D2 = ("5D 9H 6S 10C 6C 10H 7C JH 8C QH 9C KH 8D QD 7D JD 6D 2S 7H 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D 4C 5S 5H 5C "
      "6H 7S 8S 8H 9S 9D 10S 10D JS JC QS QC KS KD KC AS AH AD AC")
D3 = ("2S 7C KD 4H 6S AS 6H AH 6D AD 6C AC 8S 3S 8H 3H 8D 3D 8C 3C 2H 2D 2C 4S 4D 4C 5S 5H 5D 5C 7S 7H 7D "
      "9S 9H 9D 9C 10S 10H 10D 10C JS JH JD JC QS QH QD QC KS KH KC")
RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()
RESIGN: Action = {"type": "resign"}
PASS: Action = {"type": "pass"}


# --- helpers: the notation of tadmur.md §8 -----------------------------------------------------------------------


def deal(deck: str) -> TadmurState:
    return tadmur.new_game(2, tadmur.parse_options({}), cards(deck, "tadmur"), seed=0)


def play(state: TadmurState, moves: str) -> TadmurState:
    """Comma-separated moves, e.g. `s0 place 6H, s1 guess 9`."""
    for seat, action in steps(moves):
        state, _ = tadmur.apply(state, seat, action)
    return state


def places(text: str) -> list[Action]:
    return [{"type": "place", "card": code} for code in text.split()]


def guesses(ranks: list[str] = RANKS) -> list[Action]:
    return [{"type": "guess", "rank": rank} for rank in ranks]


def seen(state: TadmurState, seat: int | None = None) -> dict:
    return tadmur.view(state, seat).state


def row(state: TadmurState, seat: int, viewer: int | None = None) -> dict:
    return seen(state, viewer)["rows"][seat]


def result(state: TadmurState) -> dict | None:
    outcome = tadmur.result(state)
    return None if outcome is None else outcome.to_json()


def rejects(state: TadmurState, move: str, error: type[Exception]) -> str:
    """The move raises `error` and changes nothing (tadmur.md §4.3); returns the message."""
    before = tadmur.dump_state(state)
    seat, action = parse_step(move)
    with pytest.raises(error) as raised:
        tadmur.apply(state, seat, action)
    assert tadmur.dump_state(state) == before
    return str(raised.value)


def targets_shown(state: TadmurState, viewer: int | None) -> list[str | None]:
    return [shown["target"] for shown in seen(state, viewer)["rows"]]


# --- §8.1 ---------------------------------------------------------------------------------------------------------


def test_deal_and_views_d1() -> None:
    """tadmur.md §8.1, §2.5, §6.4: the deal, the exact state of seat 0, redaction for seat 1 and spectators."""
    state = deal(D1)
    assert seen(state, 0) == {
        "dealer": 1,
        "turn": 0,
        "guessed_this_turn": False,
        "guessing_locked": False,
        "idle_turns": 0,
        "rows": [
            {"seat": 0, "starter": "5H", "chain": [], "spaces": 7, "empty": 7, "target": "9S", "wrong_guesses": []},
            {"seat": 1, "starter": "KC", "chain": [], "spaces": 7, "empty": 7, "target": None, "wrong_guesses": []},
        ],
        "hand": ["2H", "2D", "2C", "3H", "3C", "4D", "5D", "6H", "6D", "7H", "7D", "8S", "8H", "9H", "9D", "10S",
                 "10H", "JS", "JH", "QH", "QD", "KS", "KD", "AD"],
    }
    seat1 = seen(state, 1)
    assert targets_shown(state, 1) == [None, "8D"]
    assert seat1["hand"] == ("2S 3S 3D 4S 4H 4C 5S 5C 6S 6C 7S 7C 8C 9C 10D 10C JD JC QS QC KH AS AH AC").split()
    assert targets_shown(state, None) == [None, None]
    assert seen(state, None)["hand"] is None
    assert [dict(seat) for seat in tadmur.view(state, None).seats] == [{"hand_size": 24}, {"hand_size": 24}]
    assert tadmur.to_act(state) == frozenset({0})
    legal = tadmur.legal_actions(state, 0)
    assert legal == places("4D 6H 6D") + guesses() + [RESIGN]
    assert len(legal) == 17
    assert tadmur.legal_actions(state, 1) == []


# --- §8.2 ---------------------------------------------------------------------------------------------------------


def test_ace_is_adjacent_to_king_d1() -> None:
    """tadmur.md §8.2, §3.1: the ace wraps around next to the king; J is not adjacent to K."""
    state = play(deal(D1), "s0 place 6H")
    assert tadmur.legal_actions(state, 1) == places("QS QC AS AH AC") + guesses() + [RESIGN]
    assert rejects(state, "s1 place JD", IllegalAction) == "JD is not adjacent to the chain end KC"


# --- §8.3 ---------------------------------------------------------------------------------------------------------


def test_chain_win_and_the_last_space_rule_d1() -> None:
    """tadmur.md §8.3, §3.4, §3.5, §3.8: the last card must link to the target; the lock; the chain win."""
    state = play(deal(D1), "s0 place 6H, s1 place AS, s0 place 7H, s1 place 2S, s0 place 8H, s1 place 3S, "
                 "s0 place 9H, s1 place 4S, s0 place 10H, s1 place 5S")
    assert tadmur.legal_actions(state, 0) == places("9D JS JH") + guesses() + [RESIGN]
    assert seen(state, 0)["guessing_locked"] is False
    state = play(state, "s0 place JH")
    assert row(state, 0)["empty"] == 1
    assert seen(state, 1)["guessing_locked"] is True
    assert row(state, 1)["empty"] == 2
    assert tadmur.legal_actions(state, 1) == places("4H 4C 6S 6C") + [RESIGN]
    rejects(state, "s1 guess 9", IllegalAction)
    state = play(state, "s1 place 6S")
    assert tadmur.legal_actions(state, 0) == places("10S") + [RESIGN]
    message = rejects(state, "s0 place QD", IllegalAction)
    assert "9" not in message  # the target's rank stays out of messages
    state, events = tadmur.apply(state, 0, {"type": "place", "card": "10S"})
    assert result(state) == {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
                             "reason": "chain_complete"}
    for viewer in (0, 1, None):
        assert targets_shown(state, viewer) == ["9S", "8D"]
    assert [event_for(event, None) for event in events] == [
        {"type": "placed", "seat": 0, "card": "10S", "empty": 0},
        {"type": "game_ended", "winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
         "reason": "chain_complete", "targets": ["9S", "8D"]},
    ]
    assert tadmur.to_act(state) == frozenset()
    assert seen(state, 0)["turn"] is None


# --- §8.4 ---------------------------------------------------------------------------------------------------------


def test_wrong_guess_adds_a_space_and_the_turn_goes_on_d1() -> None:
    """tadmur.md §8.4, §3.6, §3.7, §3.9: a wrong guess lengthens the guesser's row; no pass with a legal card."""
    state, events = tadmur.apply(deal(D1), 0, {"type": "guess", "rank": "Q"})
    assert [event_for(event, 1) for event in events] == [
        {"type": "guessed", "seat": 0, "rank": "Q", "correct": False, "spaces": 8}]
    assert row(state, 0, viewer=0) == {"seat": 0, "starter": "5H", "chain": [], "spaces": 8, "empty": 8, "target": "9S",
                             "wrong_guesses": ["Q"]}
    assert tadmur.to_act(state) == frozenset({0})
    assert seen(state, 0)["guessed_this_turn"] is True
    assert tadmur.legal_actions(state, 0) == places("4D 6H 6D") + [RESIGN]
    rejects(state, "s0 pass", IllegalAction)
    state = play(state, "s0 place 6H, s1 place AS")
    assert tadmur.legal_actions(state, 0) == places("5D 7H 7D") + guesses([r for r in RANKS if r != "Q"]) + [RESIGN]
    assert rejects(state, "s0 guess Q", IllegalAction) == "you already guessed Q"


# --- §8.5 ---------------------------------------------------------------------------------------------------------


def test_correct_guess_wins_d1() -> None:
    """tadmur.md §8.5, §3.6, §6.3: naming the rank of the opponent's target wins; both targets are revealed."""
    state = play(deal(D1), "s0 place 6H")
    state, events = tadmur.apply(state, 1, {"type": "guess", "rank": "9"})
    assert result(state) == {"winners": [1], "losers": [0], "draw": False, "scores": {"0": 0, "1": 1},
                             "reason": "correct_guess"}
    assert targets_shown(state, None) == ["9S", "8D"]
    assert seen(state, None)["hand"] is None
    assert event_for(events[0], None) == {"type": "guessed", "seat": 1, "rank": "9", "correct": True, "spaces": 7}


# --- §8.6 ---------------------------------------------------------------------------------------------------------


def test_parity_blocks_completion_then_stalemate_d2() -> None:
    """tadmur.md §8.6, §3.12, §3.11: both targets are unreachable with 7 spaces; two idle turns draw."""
    state = play(deal(D2), "s0 place 6C, s1 place 10H, s0 place 7C, s1 place JH, s0 place 8C, s1 place QH, "
                 "s0 place 9C, s1 place KH, s0 place 8D, s1 place QD, s0 place 7D")
    assert tadmur.legal_actions(state, 1) == places("JS JD KS KC") + [RESIGN]
    state = play(state, "s1 place JD")
    assert [row(state, seat)["empty"] for seat in (0, 1)] == [1, 1]
    assert tadmur.legal_actions(state, 0) == [PASS, RESIGN]
    state = play(state, "s0 pass")
    assert seen(state, 1)["idle_turns"] == 1
    assert tadmur.legal_actions(state, 1) == [PASS, RESIGN]
    state = play(state, "s1 pass")
    assert result(state) == {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0},
                             "reason": "stalemate"}


# --- §8.7 ---------------------------------------------------------------------------------------------------------


def test_a_wrong_guess_fixes_parity_d2() -> None:
    """tadmur.md §8.7, §3.12: one wrong guess makes seat 0's unreachable target reachable."""
    state = play(deal(D2), "s0 guess Q")
    assert row(state, 0)["spaces"] == 8
    state = play(state, "s0 place 6C, s1 place 10H, s0 place 7C, s1 place JH, s0 place 8C, s1 place QH, "
                 "s0 place 9C, s1 place KH, s0 place 8D, s1 place QD, s0 place 7D, s1 place JD, s0 place 6D")
    assert tadmur.legal_actions(state, 1) == [PASS, RESIGN]
    state = play(state, "s1 pass")
    assert tadmur.legal_actions(state, 0) == places("5S 5C 7S 7H") + [RESIGN]
    state = play(state, "s0 place 7H")
    outcome = result(state)
    assert outcome is not None
    assert (outcome["winners"], outcome["reason"]) == ([0], "chain_complete")
    assert row(state, 0)["chain"] == "6C 7C 8C 9C 8D 7D 6D 7H".split()


# --- §8.8 ---------------------------------------------------------------------------------------------------------


def test_idle_turns_and_a_guess_in_a_passing_turn_d3() -> None:
    """tadmur.md §8.8, §3.9-§3.11, §7.11: stuck seats may guess; a turn with a wrong guess is not idle."""
    state = deal(D3)
    assert tadmur.legal_actions(state, 0) == guesses() + [PASS, RESIGN]
    state = play(state, "s0 pass")
    assert seen(state, 1)["idle_turns"] == 1
    assert tadmur.legal_actions(state, 1) == guesses() + [PASS, RESIGN]
    state = play(state, "s1 guess 5")
    assert row(state, 1)["spaces"] == 8
    assert tadmur.legal_actions(state, 1) == [PASS, RESIGN]
    state = play(state, "s1 pass")
    assert seen(state, 0)["idle_turns"] == 0
    state = play(state, "s0 pass")
    assert seen(state, 1)["idle_turns"] == 1
    state = play(state, "s1 pass")
    outcome = result(state)
    assert outcome is not None
    assert (outcome["draw"], outcome["reason"]) == (True, "stalemate")


# --- §8.9 ---------------------------------------------------------------------------------------------------------


def test_guessing_with_no_placement_wins_d3() -> None:
    """tadmur.md §8.9, §3.10: a stuck seat can still win by a correct guess."""
    state = play(deal(D3), "s0 guess 4")
    outcome = result(state)
    assert outcome is not None
    assert (outcome["winners"], outcome["reason"]) == ([0], "correct_guess")


# --- §8.10 --------------------------------------------------------------------------------------------------------


def test_turn_order_and_resign_d1() -> None:
    """tadmur.md §8.10, §3.14, §4.3, §5.3: out of turn is 403; resign works out of turn; then 409."""
    state = deal(D1)
    rejects(state, "s1 place AS", NotYourTurn)
    state, events = tadmur.apply(state, 1, RESIGN)
    assert result(state) == {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
                             "reason": "resign"}
    assert [event.type for event in events] == ["resigned", "game_ended"]
    for move in ("s0 place 6H", "s1 place AS", "s0 guess 8", "s0 pass", "s0 resign", "s1 resign"):
        rejects(state, move, GameFinished)
    assert tadmur.legal_actions(state, 0) == tadmur.legal_actions(state, 1) == []


# --- §8.11 --------------------------------------------------------------------------------------------------------


def test_invalid_decks_and_options() -> None:
    """tadmur.md §8.11, §2.3, §2.4: 51 cards, a duplicate, a lower-case code; any option."""
    full = tadmur.full_deck(tadmur.parse_options({}))
    codes = D1.split()
    for bad in (codes[:-1], codes[:-1] + ["AD"], [code if code != "10H" else "10h" for code in codes]):
        with pytest.raises(InvalidDeck):
            parse_deck(bad, full)
    with pytest.raises(InvalidDeck):
        tadmur.new_game(2, tadmur.parse_options({}), full[:-1] + full[:1], seed=0)
    with pytest.raises(InvalidOptions) as raised:
        tadmur.parse_options({"spaces": 5})
    assert raised.value.error_code == "invalid_request"


# --- further rules ------------------------------------------------------------------------------------------------


def test_error_order_and_malformed_actions() -> None:
    """tadmur.md §4.3: finished before malformed before out of turn before illegal; malformed is IllegalAction."""
    state = deal(D1)
    rejects(state, "s1 guess 9", NotYourTurn)
    for bad in ({"type": "guess", "rank": "1"}, {"type": "place", "card": "6h"}, {"type": "pass", "card": "6H"},
                {"type": "guess"}, {"type": "draw"}):
        with pytest.raises(IllegalAction):
            tadmur.apply(state, 1, bad)
    assert rejects(state, "s0 place 9D", IllegalAction) == "9D is not adjacent to the chain end 5H"
    assert rejects(state, "s0 place AS", IllegalAction) == "AS is not in your hand"
    assert rejects(play(state, "s0 guess Q"), "s0 guess K", IllegalAction) == "you have already guessed in this turn"


def test_targets_never_leak_before_the_end() -> None:
    """tadmur.md §6.2: no view, event or error for the other seat names a target while the game is active."""
    state = deal(D1)
    moves = "s0 guess Q, s0 place 6H, s1 guess 2, s1 place AS, s0 place 7H, s1 place 2S"
    for seat, action in steps(moves):
        state, events = tadmur.apply(state, seat, action)
        for viewer, hidden in ((0, "8D"), (1, "9S"), (None, "8D")):
            assert hidden not in set(codes_in(seen(state, viewer)))
            assert not {"9S", "8D"} & set(codes_in([event_for(event, viewer) for event in events]))
        assert "9S" not in set(codes_in(seen(state, None)))
