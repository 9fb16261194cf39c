"""The test scenarios of shared/rules/durak.md §8.1-§8.11, with the exact values the rules give."""

from __future__ import annotations

import pytest

from engine.cards import Suit, parse_deck
from engine.errors import GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.games import durak
from engine.games.durak import DurakState
from engine.protocol import Action, Event
from engine.redaction import event_for
from tests.decks import cards, stacked_deck
from tests.notation import action, parse_step

K1 = "6H 7H 7S 8S 8C 9C 9D 10D 10S JS JC QC 10H 9S 8D 7C JD QH AC 6S 6D 6C 7D JH AS KH AH QD KC AD 10C KS KD 8H 9H QS"
K2 = "10C 7D JS 8C 9D 10S QH 8H KC QS AS 6H 6D 6S 7S 8S 9S KS 7H 9H 10H JH KH AH 8D 10D JD QD KD AD 6C 7C 9C JC QC AC"
K3 = "6S 7S 7H 8H 8D 9D 9S 10S 10H JH JD QD AC 8S JS QS KS AS 6H 9H QH KH AH 6D 7D 10D KD AD 6C 7C 8C 9C 10C JC QC KC"
SEAT_1_IS_DURAK = {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0}, "reason": "durak"}


# --- helpers: the notation of durak.md §8 ------------------------------------------------------------------------


def deal(deck: str) -> DurakState:
    return durak.new_game(2, durak.parse_options({}), cards(deck), seed=0)


def position(trump: Suit, stock: str, seat0: str, seat1: str, attacker: int = 0) -> DurakState:
    return durak.position(trump, cards(stock), (cards(seat0), cards(seat1)), attacker)


def step(state: DurakState, move: str) -> tuple[DurakState, list[Event]]:
    """`s0 attack 6H` -> apply it."""
    return durak.apply(state, *parse_step(move))


def play(state: DurakState, moves: str) -> DurakState:
    """Comma-separated moves, e.g. `s0 attack 9C, s1 defend JC/9C`."""
    for move in moves.split(","):
        state, _ = step(state, move.strip())
    return state


def legal(text: str) -> list[Action]:
    """`L(s)` written as in durak.md §8, e.g. `defend 7H/6H, take, resign`."""
    return [action(item.strip()) for item in text.split(",") if item.strip()]


def hand(state: DurakState, seat: int) -> str:
    return " ".join(card.code for card in state.hands[seat])


def seen(state: DurakState, seat: int | None = None) -> dict:
    return durak.view(state, seat).state


def result(state: DurakState) -> dict | None:
    outcome = durak.result(state)
    return None if outcome is None else outcome.to_json()


def rejects(state: DurakState, move: str, error: type[Exception], message: str | None = None) -> None:
    """The move raises `error` and changes nothing (durak.md §4.3)."""
    before = durak.dump_state(state)
    with pytest.raises(error) as raised:
        step(state, move)
    if message is not None:
        assert str(raised.value) == message
    assert durak.dump_state(state) == before


# --- §8.1 -------------------------------------------------------------------------------------------------------


def test_whole_game_from_deal_to_durak() -> None:
    """durak.md §8.1 (deck K1): deal, one card at a time, 4th attack legal, end-of-stock refill, the durak."""
    state = deal(K1)
    assert hand(state, 0) == "7S 10S 6H 9D 8C JC"
    assert hand(state, 1) == "8S JS 7H 10D 9C QC"
    view = seen(state, 0)
    assert view["trump_card"] == "10H"
    assert view["stock_size"] == 24
    assert view["first_attack"] == {"seat": 0, "card": "6H"}
    assert durak.to_act(state) == {0}
    assert view["bout_limit"] == 6
    assert durak.legal_actions(state, 0) == legal(
        "attack 7S, attack 10S, attack 6H, attack 9D, attack 8C, attack JC, resign"
    )
    assert durak.legal_actions(state, 1) == []
    assert seen(state, None)["hand"] is None  # spectators see no hand (§6.4)
    assert durak.view(state, None).seats == [{"hand_size": 6}, {"hand_size": 6}]

    state = play(state, "s0 attack 6H")
    assert durak.legal_actions(state, 1) == legal("defend 7H/6H, take, resign")
    rejects(state, "s0 attack 7S", NotYourTurn)

    state = play(state, "s1 defend 7H/6H")
    assert durak.legal_actions(state, 0) == legal("attack 7S, done, resign")
    rejects(state, "s0 attack 6H", IllegalAction, "6H is not in your hand")
    rejects(state, "s0 attack 8C", IllegalAction, "no 8 on the table")

    state = play(
        state,
        "s0 attack 7S, s1 defend 8S/7S, s0 attack 8C, s1 defend 9C/8C, s0 attack 9D, s1 defend 10D/9D, "
        "s0 attack 10S, s1 defend JS/10S, s0 attack JC, s1 defend QC/JC",
    )
    assert state.hands == ((), ())
    assert durak.result(state) is None
    assert durak.legal_actions(state, 0) == legal("done, resign")

    state, events = step(state, "s0 done")
    view = seen(state, 0)
    assert view["discard_size"] == 12
    assert [event_for(event, 0) for event in events] == [
        {"type": "bout_ended", "seat": 0, "beaten_off": True},
        {"type": "drew", "seat": 0, "count": 6, "cards": "9S 8D 7C JD QH AC".split()},
        {"type": "drew", "seat": 1, "count": 6},
    ]
    assert event_for(events[2], 1)["cards"] == "6S 6D 6C 7D JH AS".split()
    assert view["stock_size"] == 12
    assert (view["bout"], view["attacker"], view["defender"], view["bout_limit"]) == (2, 1, 0, 6)

    state = play(state, "s1 attack 6S, s0 defend 9S/6S")
    assert seen(state, 0) == {
        "trump_suit": "H",
        "trump_card": "10H",
        "trump_card_drawn_by": None,
        "first_attack": {"seat": 0, "card": "6H"},
        "stock_size": 12,
        "discard_size": 12,
        "bout": 2,
        "attacker": 1,
        "defender": 0,
        "bout_limit": 6,
        "table": [{"attack": "6S", "defense": "9S"}],
        "defender_took": False,
        "hand": ["QH", "8D", "JD", "7C", "AC"],
        "hand_sizes": [5, 5],
        "revealed_hands": None,
    }
    state = play(state, "s1 attack 6D, s0 defend 8D/6D, s1 attack 6C, s0 defend 7C/6C")
    assert len(state.hands[0]) == 3
    assert durak.legal_actions(state, 1) == legal("attack 7D, done, resign")
    state = play(state, "s1 attack 7D, s0 defend JD/7D, s1 attack JH")
    assert durak.legal_actions(state, 0) == legal("defend QH/JH, take, resign")
    state = play(state, "s0 defend QH/JH")
    assert durak.legal_actions(state, 1) == legal("done, resign")

    state, events = step(state, "s1 done")
    view = seen(state)
    assert view["discard_size"] == 22
    assert [event_for(event, event.public.get("seat")) for event in events[1:]] == [
        {"type": "drew", "seat": 1, "count": 5, "cards": "KH AH QD KC AD".split()},
        {"type": "drew", "seat": 0, "count": 5, "cards": "10C KS KD 8H 9H".split()},
    ]
    assert state.stock == tuple(cards("QS 10H"))
    assert (view["stock_size"], view["trump_card"]) == (2, "10H")
    assert (view["bout"], view["attacker"]) == (3, 0)
    assert hand(state, 0) == "KS 8H 9H KD 10C AC"
    assert hand(state, 1) == "AS KH AH QD AD KC"

    state = play(state, "s0 attack 10C")
    assert durak.legal_actions(state, 1) == legal("defend KH/10C, defend AH/10C, defend KC/10C, take, resign")
    state = play(state, "s1 defend KH/10C, s0 attack KS, s1 defend AH/KS")
    assert durak.legal_actions(state, 0) == legal("attack KD, attack AC, done, resign")

    state, events = step(state, "s0 done")
    assert [event_for(event, None) for event in events] == [
        {"type": "bout_ended", "seat": 0, "beaten_off": True},
        {"type": "drew", "seat": 0, "count": 2},
        {"type": "trump_card_drawn", "seat": 0, "card": "10H"},
    ]
    assert event_for(events[1], 0)["cards"] == ["QS", "10H"]
    assert len(state.hands[1]) == 4
    view = seen(state)
    assert (view["stock_size"], view["trump_card"], view["trump_card_drawn_by"]) == (0, None, 0)
    assert (view["bout"], view["attacker"], view["defender"], view["bout_limit"]) == (4, 1, 0, 6)

    state = play(state, "s1 attack QD")
    assert durak.legal_actions(state, 0) == legal(
        "defend 8H/QD, defend 9H/QD, defend 10H/QD, defend KD/QD, take, resign"
    )
    state = play(state, "s0 defend KD/QD, s1 attack KC, s0 defend AC/KC, s1 attack AS, s0 defend 8H/AS")
    state = play(state, "s1 attack AD, s0 defend 9H/AD")
    assert state.hands[1] == ()
    assert durak.result(state) is None
    assert durak.legal_actions(state, 1) == legal("done, resign")

    state, events = step(state, "s1 done")
    expected = {"winners": [1], "losers": [0], "draw": False, "scores": {"0": 0, "1": 1}, "reason": "durak"}
    assert result(state) == expected
    assert seen(state)["revealed_hands"] == [["QS", "10H"], []]
    assert event_for(events[-1], None) == {"type": "game_ended", **expected, "revealed_hands": [["QS", "10H"], []]}
    assert durak.to_act(state) == frozenset()
    assert durak.legal_actions(state, 0) == durak.legal_actions(state, 1) == []
    rejects(state, "s0 attack QS", GameFinished)


# --- §8.2, §8.3 ---------------------------------------------------------------------------------------------------


def test_take_keeps_attacker_and_throw_in_follows_defence_ranks() -> None:
    """durak.md §8.2 (deck K2): seat 1 leads, take while able to beat, throw-in after a take, refill."""
    state = deal(K2)
    assert seen(state)["first_attack"] == {"seat": 1, "card": "7D"}
    assert durak.to_act(state) == {1}
    assert durak.legal_actions(state, 1) == legal(
        "attack 10S, attack QS, attack 6H, attack 8H, attack 7D, attack 8C, resign"
    )
    state = play(state, "s1 attack 8C, s0 defend 10C/8C, s1 attack 10S")
    assert durak.legal_actions(state, 0) == legal("defend JS/10S, defend AS/10S, defend 9D/10S, take, resign")

    state, events = step(state, "s0 take")
    assert [event_for(event, None) for event in events] == [{"type": "took", "seat": 0}]
    assert seen(state)["defender_took"] is True
    assert durak.to_act(state) == {1}
    assert durak.legal_actions(state, 1) == legal("attack 8H, done, resign")
    rejects(state, "s0 take", NotYourTurn)
    rejects(state, "s1 attack QS", IllegalAction, "no Q on the table")

    state = play(state, "s1 attack 8H")
    assert seen(state)["table"] == [
        {"attack": "8C", "defense": "10C"},
        {"attack": "10S", "defense": None},
        {"attack": "8H", "defense": None},
    ]
    assert durak.legal_actions(state, 1) == legal("done, resign")

    state, events = step(state, "s1 done")
    assert [event_for(event, None) for event in events] == [
        {"type": "bout_ended", "seat": 1, "beaten_off": False},
        {"type": "drew", "seat": 1, "count": 3},
    ]
    assert hand(state, 0) == "10S JS AS 8H QH 9D 8C 10C KC"
    assert hand(state, 1) == "6S 7S 8S QS 6H 7D"
    view = seen(state)
    assert (view["stock_size"], view["discard_size"]) == (21, 0)
    assert (view["bout"], view["attacker"], view["defender"], view["bout_limit"]) == (2, 1, 0, 6)
    rejects(state, "s1 done", IllegalAction, "the table is empty: a bout opens with an attack")


def test_no_trump_in_either_hand_seat_0_attacks_first() -> None:
    """durak.md §8.3 (deck K3), §2.6, §7.3."""
    state = deal(K3)
    view = seen(state)
    assert view["trump_suit"] == "C"
    assert view["first_attack"] == {"seat": 0, "card": None}
    assert durak.to_act(state) == {0}


# --- §8.4 -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "deck",
    [
        K1.split()[:-1],
        [code if code != "QS" else "10H" for code in K1.split()],
        [code if code != "6H" else "6h" for code in K1.split()],
        [code if code != "AC" else "5C" for code in K1.split()],
    ],
    ids=["35_cards", "duplicate_10H", "lower_case_6h", "unknown_5C"],
)
def test_invalid_deck_rejected(deck: list[str]) -> None:
    """durak.md §8.4, §2.4: a deck that is not a permutation of the 36 codes is `invalid_deck`."""
    with pytest.raises(InvalidDeck) as raised:
        parse_deck(deck, durak.full_deck(durak.parse_options({})))
    assert raised.value.error_code == "invalid_deck"


def test_new_game_refuses_a_deck_that_is_not_a_permutation() -> None:
    """durak.md §2.4: the engine checks the deck it is given too."""
    with pytest.raises(InvalidDeck):
        durak.new_game(2, durak.parse_options({}), cards(K1)[:-1] + cards("10H"), seed=0)


def test_any_option_rejected() -> None:
    """durak.md §8.4, §2.3: Durak has no options; any key is `invalid_request`."""
    with pytest.raises(InvalidOptions) as raised:
        durak.parse_options({"first_bout_limit": 5})
    assert raised.value.error_code == "invalid_request"
    assert durak.describe_options() == {}


# --- §8.5-§8.10: positions ---------------------------------------------------------------------------------------


def test_throw_in_limited_by_defender_hand_at_bout_start() -> None:
    """durak.md §8.5, §3.5; the bug in OpenFool #17/#24."""
    state = position(Suit.SPADES, "", "8C 8D 8H 8S JD", "7C 10D KH")
    assert seen(state)["bout_limit"] == 3
    rejects(state, "s0 done", IllegalAction)
    state = play(state, "s0 attack 8C")
    assert durak.legal_actions(state, 1) == legal("take, resign")
    rejects(state, "s0 attack 8D", NotYourTurn)
    state = play(state, "s1 take")
    assert durak.legal_actions(state, 0) == legal("attack 8S, attack 8H, attack 8D, done, resign")
    state = play(state, "s0 attack 8D, s0 attack 8H")
    assert durak.legal_actions(state, 0) == legal("done, resign")
    rejects(state, "s0 attack 8S", IllegalAction, "the bout already holds 3 attack cards, its limit")
    state = play(state, "s0 done")
    assert hand(state, 1) == "8H KH 8D 10D 7C 8C"
    view = seen(state)
    assert (view["bout"], view["attacker"], view["bout_limit"]) == (2, 0, 6)


def test_bout_holds_at_most_six_attack_cards() -> None:
    """durak.md §8.6, §3.5: the six-card cap, counting cards added after a take."""
    state = position(Suit.SPADES, "", "6C 6D 6H 7D 7H 8H 8S QC", "7C 8D 9C 10C JD QD KD AD 6S")
    state = play(state, "s0 attack 6C, s1 defend 7C/6C, s0 attack 6D, s1 defend 8D/6D, s0 attack 6H, s1 take")
    assert durak.legal_actions(state, 0) == legal("attack 8S, attack 7H, attack 8H, attack 7D, done, resign")
    state = play(state, "s0 attack 7D, s0 attack 7H, s0 attack 8H")
    assert len(state.table) == 6
    assert durak.legal_actions(state, 0) == legal("done, resign")
    rejects(state, "s0 attack 8S", IllegalAction)
    state = play(state, "s0 done")
    assert len(state.hands[1]) == 15
    assert hand(state, 0) == "8S QC"
    assert (state.bout, state.attacker) == (2, 0)


def test_both_hands_empty_at_end_check_is_a_draw() -> None:
    """durak.md §8.7, §5.1, §7.11."""
    state = play(position(Suit.SPADES, "", "9C", "JC"), "s0 attack 9C, s1 defend JC/9C")
    assert state.hands == ((), ())
    assert durak.result(state) is None
    assert durak.legal_actions(state, 0) == legal("done, resign")
    state = play(state, "s0 done")
    assert result(state) == {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0}, "reason": "draw"}


def test_defender_left_holding_cards_is_the_durak() -> None:
    """durak.md §8.7, §5.1: A empties her hand, D beats but keeps a card."""
    state = play(position(Suit.SPADES, "", "9C", "JC 7D"), "s0 attack 9C, s1 defend JC/9C, s0 done")
    assert result(state) == SEAT_1_IS_DURAK
    assert seen(state)["revealed_hands"] == [[], ["7D"]]


def test_defender_who_takes_the_last_bout_is_the_durak() -> None:
    """durak.md §8.7, §7.12."""
    state = play(position(Suit.SPADES, "", "9C", "JC"), "s0 attack 9C, s1 take, s0 done")
    assert result(state) == SEAT_1_IS_DURAK
    assert hand(state, 1) == "9C JC"


def test_defender_who_goes_out_first_wins() -> None:
    """durak.md §8.8, §3.11: D beats with his last card, the limit of 1 stops A, D wins."""
    state = position(Suit.SPADES, "", "9C 9D", "JC")
    assert seen(state)["bout_limit"] == 1
    state = play(state, "s0 attack 9C, s1 defend JC/9C")
    assert durak.legal_actions(state, 0) == legal("done, resign")
    rejects(state, "s0 attack 9D", IllegalAction)
    state = play(state, "s0 done")
    outcome = result(state)
    assert outcome is not None
    assert (outcome["winners"], outcome["losers"], outcome["reason"]) == ([1], [0], "durak")


def test_short_stock_serves_attacker_first_and_defender_gets_indicator() -> None:
    """durak.md §8.9, §3.8, §7.9 (cajax #24)."""
    state = position(Suit.HEARTS, "AC KD QH", "6C 7C 8C 9S 10S JS", "9C JC QS KS 8D 9D")
    state, _ = step(play(state, "s0 attack 7C, s1 defend 9C/7C, s0 attack 9S, s1 defend QS/9S"), "s0 done")
    assert hand(state, 0) == "10S JS KD 6C 8C AC"
    assert hand(state, 1) == "KS QH 8D 9D JC"
    view = seen(state)
    assert (view["stock_size"], view["trump_card"], view["trump_card_drawn_by"]) == (0, None, 1)
    assert durak.result(state) is None
    assert (view["bout"], view["attacker"]) == (2, 1)


def test_only_a_higher_trump_beats_a_trump() -> None:
    """durak.md §8.10, §3.1, §7.13, §7.14."""
    state = play(position(Suit.HEARTS, "", "10H 7C", "9H JH AS 9C"), "s0 attack 10H")
    assert durak.legal_actions(state, 1) == legal("defend JH/10H, take, resign")
    rejects(state, "s1 defend 9H/10H", IllegalAction, "9H does not beat 10H")
    rejects(state, "s1 defend AS/10H", IllegalAction, "AS does not beat 10H")
    rejects(state, "s1 defend JH/7C", IllegalAction, "7C is not an attack card on the table")


def test_defender_may_trump_while_holding_the_suit() -> None:
    """durak.md §8.10, §3.1: following suit is not required."""
    state = play(position(Suit.HEARTS, "", "10H 7C", "9H JH AS 9C"), "s0 attack 7C")
    assert durak.legal_actions(state, 1) == legal("defend 9H/7C, defend JH/7C, defend 9C/7C, take, resign")


# --- §8.11 ------------------------------------------------------------------------------------------------------


def test_resign_out_of_turn_ends_the_game() -> None:
    """durak.md §8.11, §3.12, §7.17 (deck K1)."""
    state, events = step(deal(K1), "s1 resign")
    expected = {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0}, "reason": "resign"}
    assert result(state) == expected
    revealed = [["7S", "10S", "6H", "9D", "8C", "JC"], ["8S", "JS", "7H", "10D", "9C", "QC"]]
    assert seen(state)["revealed_hands"] == revealed
    assert [event_for(event, None) for event in events] == [
        {"type": "resigned", "seat": 1},
        {"type": "game_ended", **expected, "revealed_hands": revealed},
    ]
    assert seen(state)["trump_card"] == "10H"  # the stock stays, the indicator still shows (§6.3, §6.4)


# --- §4.3: errors, malformed actions ------------------------------------------------------------------------------


def test_errors_checked_in_order() -> None:
    """durak.md §4.3: finished before malformed before not-your-turn before illegal."""
    state = deal(K1)
    rejects(state, "s1 attack 8S", NotYourTurn)
    rejects(state, "s0 take", IllegalAction, "only the defender takes")
    rejects(state, "s0 defend 7S/6H", IllegalAction, "only the defender defends")
    with pytest.raises(IllegalAction):
        durak.apply(state, 1, {"type": "attack"})  # malformed wins over not-your-turn
    finished, _ = step(state, "s0 resign")
    with pytest.raises(GameFinished):
        durak.apply(finished, 1, {"type": "nonsense"})
    with pytest.raises(GameFinished):
        durak.apply(finished, 1, {"type": "resign"})


@pytest.mark.parametrize(
    "body",
    [
        None,
        "attack",
        [],
        {},
        {"type": None},
        {"type": 3},
        {"type": "fly"},
        {"type": "attack"},
        {"type": "attack", "card": 6},
        {"type": "attack", "card": None},
        {"type": "attack", "card": ["6H"]},
        {"type": "attack", "card": "6h"},
        {"type": "attack", "card": "5H"},
        {"type": "attack", "card": "6H", "against": "7H"},
        {"type": "defend", "card": "7H"},
        {"type": "defend", "card": "7H", "against": {"code": "6H"}},
        {"type": "take", "card": "6H"},
        {"type": "done", "extra": True},
        {"type": "resign", "seat": 1},
    ],
)
def test_malformed_action_is_illegal_not_a_crash(body: object) -> None:
    """durak.md §4.3: the HTTP layer rejects these first; the engine still raises only IllegalAction."""
    state = play(deal(K1), "s0 attack 6H")
    for seat in (0, 1):
        with pytest.raises(IllegalAction):
            durak.apply(state, seat, body)  # type: ignore[arg-type]


def test_apply_does_not_mutate_its_input() -> None:
    """STYLE.md §2: apply is pure."""
    state = deal(K1)
    before = durak.dump_state(state)
    durak.apply(state, 0, {"type": "attack", "card": "6H"})
    assert durak.dump_state(state) == before


def test_stacked_deck_is_a_permutation_with_the_given_top() -> None:
    """STYLE.md §5: stacked_deck puts the named cards first, then the rest in canonical order."""
    deck = stacked_deck("durak", top="9H 7S")
    assert deck[:3] == ["9H", "7S", "6S"]
    assert sorted(deck) == sorted(card.code for card in durak.full_deck(durak.parse_options({})))
    assert stacked_deck("durak", top=K1) == K1.split()
