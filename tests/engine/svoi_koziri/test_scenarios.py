"""The test scenarios of shared/rules/svoi_koziri.md §8.1-§8.12, with the exact values the rules give, and the AI."""

from __future__ import annotations

import random

import pytest

from engine.cards import FRENCH_36, Suit, parse_deck
from engine.errors import GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.games import svoi_koziri
from engine.games.svoi_koziri import SvoiKoziriState
from engine.games.svoi_koziri.players import easy
from engine.players import choose_action, seat_view
from engine.protocol import Action
from engine.redaction import event_for
from tests.decks import cards
from tests.notation import action, parse_step

V1 = "6S 9S 7S JS 8S KS 10S 7H QS 9H AS JH 6H QH 8H KH 10H AH 7D 6D 9D 8D JD 10D KD QD 7C AD 9C 6C 10C 8C JC QC KC AC"
SPADES_HEARTS = (Suit.SPADES, Suit.HEARTS)


# --- helpers: the notation of svoi_koziri.md §8 -------------------------------------------------------------------


def deal(deck: str = V1) -> SvoiKoziriState:
    return svoi_koziri.new_game(2, svoi_koziri.parse_options({}), cards(deck, "svoi_koziri"), seed=0)


def rest(*listed: str) -> str:
    """`…`: every card not listed elsewhere, in canonical order."""
    taken = set(" ".join(listed).split())
    return " ".join(card.code for card in FRENCH_36 if card.code not in taken)


def position(seat0: str, seat1: str, pile: str, to_act: int, trumps: tuple[Suit, Suit] = SPADES_HEARTS):
    """A §8 position; `…` as a hand, or at the start of the pile, stands for every card not listed elsewhere."""
    parts = {"seat0": seat0, "seat1": seat1, "pile": pile}
    listed = [text.replace("…", "") for text in parts.values()]
    filled = {name: text.replace("…", rest(*listed)) for name, text in parts.items()}
    return svoi_koziri.position(
        trumps,
        (cards(filled["seat0"], "svoi_koziri"), cards(filled["seat1"], "svoi_koziri")),
        cards(filled["pile"], "svoi_koziri"),
        to_act,
    )


def step(state: SvoiKoziriState, move: str):
    return svoi_koziri.apply(state, *parse_step(move))


def play(state: SvoiKoziriState, moves: str) -> SvoiKoziriState:
    for move in moves.split(","):
        state, _ = step(state, move.strip())
    return state


def legal(text: str) -> list[Action]:
    return [action(item.strip()) for item in text.split(",") if item.strip()]


def each(kind: str, codes: str) -> list[Action]:
    return [action(f"{kind} {code}") for code in codes.split()]


def hand(state: SvoiKoziriState, seat: int) -> str:
    return " ".join(card.code for card in state.hands[seat])


def pile(state: SvoiKoziriState) -> str:
    return " ".join(card.code for card in state.pile)


def result(state: SvoiKoziriState) -> dict | None:
    outcome = svoi_koziri.result(state)
    return None if outcome is None else outcome.to_json()


def rejects(state: SvoiKoziriState, move: str, error: type[Exception]) -> None:
    """The move raises `error` and changes nothing (svoi_koziri.md §4.3)."""
    before = svoi_koziri.dump_state(state)
    with pytest.raises(error):
        step(state, move)
    assert svoi_koziri.dump_state(state) == before


SEAT_0_WINS = {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0}, "reason": "out_of_cards"}
DRAW = {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0}, "reason": "draw"}
SEAT0_V1 = "6S 7S 8S 10S QS AS 8H 10H 7D 9D JD KD 7C 9C 10C JC KC"
SEAT1_V1 = "9S JS KS 6H 7H 9H JH QH KH AH 6D 8D 10D QD AD 6C 8C QC AC"


# --- §8.1-§8.3: trump choice, deal, sixes, beating ---------------------------------------------------------------


def test_trump_choice_and_deal_v1():
    """svoi_koziri.md §8.1 (§2.5-§2.8)."""
    state = deal()
    assert state.step == "choose_trump" and svoi_koziri.to_act(state) == {0}
    assert svoi_koziri.legal_actions(state, 0) == legal("choose_trump S, choose_trump H, choose_trump D, "
                                                        "choose_trump C, resign")
    assert svoi_koziri.legal_actions(state, 1) == []
    assert svoi_koziri.view(state, 0).state["hand"] == [] and svoi_koziri.view(state, 1).state["hand"] == []
    rejects(state, "s1 choose_trump D", NotYourTurn)

    state = play(state, "s0 choose_trump S")
    assert svoi_koziri.legal_actions(state, 1) == legal("choose_trump H, choose_trump D, choose_trump C, resign")
    assert svoi_koziri.view(state, None).state["trumps"] == ["S", None]  # seat 0's choice is public (§6.1)
    rejects(state, "s1 choose_trump S", IllegalAction)

    state, events = step(state, "s1 choose_trump H")
    assert svoi_koziri.view(state, 1).state["sixes_passed"] == ["6H", None]
    assert (hand(state, 0), len(state.hands[0])) == (SEAT0_V1, 17)
    assert (hand(state, 1), len(state.hands[1])) == (SEAT1_V1, 19)
    assert state.step == "lead" and svoi_koziri.to_act(state) == {0}
    assert svoi_koziri.legal_actions(state, 0) == [*each("lead", SEAT0_V1), {"type": "resign"}]
    # The deal event shows each seat only its own 18 cards (§6.2); the sixes are public (§6.1).
    dealt = next(event for event in events if event.type == "dealt")
    assert event_for(dealt, 0)["cards"] == "6S 7S 8S 10S QS AS 6H 8H 10H 7D 9D JD KD 7C 9C 10C JC KC".split()
    assert "cards" not in event_for(dealt, None)
    assert [event_for(event, None) for event in events if event.type != "dealt"] == [
        {"type": "trump_chosen", "seat": 1, "suit": "H"}, {"type": "sixes_passed", "cards": ["6H", None]}]


def test_sixes_both_ways_v1():
    """svoi_koziri.md §8.2 (§2.7)."""
    state = play(deal(), "s0 choose_trump D, s1 choose_trump S")
    assert svoi_koziri.view(state, 0).state["sixes_passed"] == ["6S", "6D"]
    assert hand(state, 0) == "7S 8S 10S QS AS 6H 8H 10H 6D 7D 9D JD KD 7C 9C 10C JC KC"
    assert hand(state, 1) == "6S 9S JS KS 7H 9H JH QH KH AH 8D 10D QD AD 6C 8C QC AC"


def test_beating_from_each_side_compulsory_beat_and_the_second_card():
    """svoi_koziri.md §8.3 and the §6.4 view (§3.1, §3.4, §3.5)."""
    state = play(deal(), "s0 choose_trump S, s1 choose_trump H, s0 lead 10C")
    assert svoi_koziri.view(state, 1).state == {
        "step": "respond", "trumps": ["S", "H"], "sixes_passed": ["6H", None], "pile": ["10C"],
        "hand": SEAT1_V1.split(), "hand_sizes": [16, 19], "revealed_hands": None,
    }
    assert svoi_koziri.legal_actions(state, 1) == [*each("beat", "6H 7H 9H JH QH KH AH QC AC"), {"type": "resign"}]
    for move in ("s1 take", "s1 beat 8C", "s1 beat KS"):
        rejects(state, move, IllegalAction)

    state = play(state, "s1 beat 6H")
    assert state.step == "play" and svoi_koziri.to_act(state) == {1}
    assert svoi_koziri.legal_actions(state, 1) == [*each("play", hand(state, 1)), {"type": "resign"}]
    assert len(state.hands[1]) == 18
    rejects(state, "s1 take", IllegalAction)
    rejects(state, "s1 beat AH", IllegalAction)
    rejects(state, "s0 lead 7S", NotYourTurn)

    state = play(state, "s1 play 9S")
    assert svoi_koziri.legal_actions(state, 0) == legal("beat 10S, beat QS, beat AS, resign")
    state = play(state, "s0 beat 10S, s0 play KD")
    assert pile(state) == "10C 6H 9S 10S KD"
    assert svoi_koziri.legal_actions(state, 1) == [*each("beat", "7H 9H JH QH KH AH AD"), {"type": "resign"}]


# --- §8.4-§8.8: takes ---------------------------------------------------------------------------------------------


def test_take_three():
    """svoi_koziri.md §8.4 (§3.6, §3.7)."""
    state = position("QS JD AC", "7S 8D", "… 7D 9D 6S 8S 10C", to_act=1)
    assert svoi_koziri.legal_actions(state, 1) == legal("take, resign")
    state, events = step(state, "s1 take")
    assert event_for(events[0], 0) == {"type": "took", "seat": 1, "cards": ["6S", "8S", "10C"]}
    assert hand(state, 1) == "6S 7S 8S 8D 10C"
    assert (len(state.pile), state.pile[-1].code) == (28, "9D")
    assert (svoi_koziri.to_act(state), state.step) == ({0}, "respond")
    assert svoi_koziri.legal_actions(state, 0) == legal("beat QS, beat JD, resign")


def test_take_five_when_the_own_trump_is_on_top():
    """svoi_koziri.md §8.5 (§3.6)."""
    state = position("QS JD AC", "7S 6H 8D", "… 7D 9D KS 6S 8S 10C 8H", to_act=1)
    assert svoi_koziri.legal_actions(state, 1) == legal("take, resign")
    state, events = step(state, "s1 take")
    assert event_for(events[0], 1)["cards"] == ["KS", "6S", "8S", "10C", "8H"]
    assert (len(state.pile), state.pile[-1].code) == (25, "9D")


def test_own_trump_ace_takes_the_whole_pile():
    """svoi_koziri.md §8.6 (§3.6, §3.7: an emptied pile means the other seat leads)."""
    state = position("QS JD AC", "7S 6H 8D", "… 7D 9D AH", to_act=1)
    assert len(state.pile) == 30
    assert svoi_koziri.legal_actions(state, 1) == legal("take, resign")
    state = play(state, "s1 take")
    assert (len(state.hands[1]), state.pile) == (33, ())
    assert (state.step, svoi_koziri.to_act(state)) == ("lead", {0})
    assert svoi_koziri.legal_actions(state, 0) == legal("lead QS, lead JD, lead AC, resign")


def test_the_opponents_trump_ace_is_plain():
    """svoi_koziri.md §8.7 (§3.6, §7.8)."""
    state = position("QS 6H 7H 8H 9H 10H JH QH KH AH JD AC", "…", "7D 9D 6S 8S AS", to_act=1)
    assert len(state.hands[1]) == 19 and not any(card.suit == Suit.HEARTS for card in state.hands[1])
    assert svoi_koziri.legal_actions(state, 1) == legal("take, resign")
    state, events = step(state, "s1 take")
    assert event_for(events[0], None)["cards"] == ["6S", "8S", "AS"]
    assert pile(state) == "7D 9D"
    assert svoi_koziri.legal_actions(state, 0) == legal("beat QS, beat JD, resign")


def test_fewer_cards_than_the_count():
    """svoi_koziri.md §8.8 (§3.6: the whole pile when it is smaller)."""
    seat0 = "6H 7H 8H 9H 10H JH QH KH AH JC QC KC AC"
    state = position(seat0, "…", "9D 10C", to_act=1)
    assert len(state.hands[1]) == 21
    assert svoi_koziri.legal_actions(state, 1) == legal("take, resign")
    state, events = step(state, "s1 take")
    assert event_for(events[0], 1)["cards"] == ["9D", "10C"]
    assert (state.pile, state.step, svoi_koziri.to_act(state)) == ((), "lead", {0})
    assert svoi_koziri.legal_actions(state, 0) == [*each("lead", seat0), {"type": "resign"}]


# --- §8.9-§8.11: the end ------------------------------------------------------------------------------------------


def test_going_out_by_a_beat_or_a_lead():
    """svoi_koziri.md §8.9 (§3.5: no `play` after the last card, §3.8, §7.11)."""
    state = position("9D", "7S KC", "… 8D", to_act=0)
    assert svoi_koziri.legal_actions(state, 0) == legal("beat 9D, resign")
    state, events = step(state, "s0 beat 9D")
    assert result(state) == SEAT_0_WINS
    assert svoi_koziri.view(state, None).state["revealed_hands"] == [[], ["7S", "KC"]]
    assert event_for(events[-1], None) == {"type": "game_ended", **SEAT_0_WINS, "revealed_hands": [[], ["7S", "KC"]]}
    assert svoi_koziri.to_act(state) == frozenset() and svoi_koziri.legal_actions(state, 0) == []

    state = position("9D", "…", "", to_act=0)
    assert len(state.hands[1]) == 35
    assert svoi_koziri.legal_actions(state, 0) == legal("lead 9D, resign")
    state = play(state, "s0 lead 9D")
    assert result(state) == SEAT_0_WINS


def test_the_single_last_card_draws():
    """svoi_koziri.md §8.10 (§3.8, §7.10): the answer is asked for, then the game is drawn."""
    for last in ("9D", "AH"):
        state = position("KC 7D", last, "… 10C", to_act=0)
        assert svoi_koziri.legal_actions(state, 0) == legal("beat KC, resign")
        state = play(state, "s0 beat KC")
        assert state.step == "play" and svoi_koziri.legal_actions(state, 0) == legal("play 7D, resign")
        state = play(state, "s0 play 7D")
        assert result(state) is None and state.step == "respond" and svoi_koziri.to_act(state) == {1}
        assert svoi_koziri.legal_actions(state, 1) == legal(f"beat {last}, resign")
        state = play(state, f"s1 beat {last}")
        assert result(state) == DRAW


@pytest.mark.parametrize("seat1", ["6D", "7S", "9D 6C"])
def test_the_last_card_that_cannot_answer_loses(seat1):
    """svoi_koziri.md §8.10: a lower card, a plain spade, or two cards: seat 0 wins at once."""
    state = play(position("KC 7D", seat1, "… 10C", to_act=0), "s0 beat KC, s0 play 7D")
    assert result(state) == SEAT_0_WINS


def test_repetition():
    """svoi_koziri.md §8.11 (§3.9): the third recording of a post-take position draws, at the 20th action."""
    state = position("6H 7H 8H 9H 10H JH QH KH AH 7C 9C 10C JC 6D 7D 8D 9D",
                     "6S 7S 8S 9S 10S JS QS KS AS 6C 8C QC KC AC 10D JD QD KD AD", "", to_act=0)
    start = state
    state = play(state, "s0 lead 7C")
    assert svoi_koziri.legal_actions(state, 1) == legal("beat 8C, beat QC, beat KC, beat AC, resign")
    state = play(state, "s1 beat 8C, s1 play AD")
    assert svoi_koziri.legal_actions(state, 0) == legal("take, resign")
    state = play(state, "s0 take, s1 lead 6C")
    assert svoi_koziri.legal_actions(state, 0) == legal("beat 7C, beat 8C, beat 9C, beat 10C, beat JC, resign")
    state = play(state, "s0 beat 8C, s0 play AD, s1 take")
    assert (state.hands, state.pile, state.step) == (start.hands, (), "lead")
    cycle = "s0 lead 7C, s1 beat 8C, s1 play AD, s0 take, s1 lead 6C, s0 beat 8C, s0 play AD, s1 take"
    state = play(state, cycle)
    assert result(state) is None
    state = play(state, "s0 lead 7C, s1 beat 8C, s1 play AD")
    assert result(state) is None
    state = play(state, "s0 take")
    assert result(state) == {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0},
                             "reason": "repetition"}


# --- §8.12: invalid input, resign ---------------------------------------------------------------------------------


def test_invalid_decks_options_and_resign():
    """svoi_koziri.md §8.12 (§2.3, §2.4, §3.10, §4.3, §5.3)."""
    codes = V1.split()
    for deck in (codes[:-1], [*codes[:-1], "KC"], ["6s", *codes[1:]]):
        with pytest.raises(InvalidDeck):
            parse_deck(deck, svoi_koziri.full_deck(svoi_koziri.parse_options({})))
    with pytest.raises(InvalidOptions):
        svoi_koziri.parse_options({"trumps": ["S", "H"]})
    rejects(deal(), "s0 choose_trump X", IllegalAction)

    state, events = step(deal(), "s1 resign")
    assert result(state) == {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
                             "reason": "resign"}
    assert [event.type for event in events] == ["resigned", "game_ended"]
    for move in ("s0 choose_trump S", "s1 resign", "s0 resign"):
        rejects(state, move, GameFinished)


def test_error_messages_name_only_what_the_actor_may_see():
    """svoi_koziri.md §4.3: a rejected card of the other seat's hand is never named as being there."""
    state = play(deal(), "s0 choose_trump S, s1 choose_trump H, s0 lead 10C")
    with pytest.raises(IllegalAction) as raised:
        step(state, "s1 beat 10S")  # 10S is in seat 0's hand
    assert str(raised.value) == "10S is not in your hand"
    with pytest.raises(IllegalAction) as raised:
        step(state, "s1 take")
    assert str(raised.value) == "you can beat 10C: a player who can beat must beat"


# --- AI -----------------------------------------------------------------------------------------------------------




def test_easy_beats_with_the_cheapest_card_keeping_its_trumps():
    """Seat 1 (trump H) facing 10C beats with QC, not a heart (§8.3's position)."""
    state = play(deal(), "s0 choose_trump S, s1 choose_trump H, s0 lead 10C")
    assert easy(seat_view("svoi_koziri", state, 1), random.Random(0)) == {"type": "beat", "card": "QC"}


def test_easy_lays_the_opponents_trump_ace_first():
    """After beating, seat 1 lays AS, not KC: seat 0 (trump S) can never beat it and must take (§3.1, §3.6)."""
    state = play(position("7S 8S", "AS 6H 7D KC", "… 10C", to_act=1), "s1 beat 6H")
    assert svoi_koziri.legal_actions(state, 1) == legal("play AS, play 7D, play KC, resign")
    assert easy(seat_view("svoi_koziri", state, 1), random.Random(0)) == {"type": "play", "card": "AS"}


def test_ai_levels_choose_a_free_trump_and_take_when_forced():
    """Every level picks one of the listed moves at the blind trump choice and when only `take` is listed."""
    chosen = play(deal(), "s0 choose_trump S")
    forced = position("QS JD AC", "7S 8D", "… 7D 9D 6S 8S 10C", to_act=1)
    for level in ("random", "easy"):
        for seed in range(5):
            assert choose_action(seat_view("svoi_koziri", chosen, 1), level, random.Random(seed)) in legal(
                "choose_trump H, choose_trump D, choose_trump C")
        assert choose_action(seat_view("svoi_koziri", forced, 1), level, random.Random(0)) == {"type": "take"}
