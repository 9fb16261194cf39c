"""Reading a Durak opponent that plays `easy`'s way, or `lowest`'s: which hidden hands its moves leave
(engine/games/durak/reading.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Suit
from engine.games import durak
from engine.games.durak import DurakState
from engine.games.durak import players as durak_ai
from engine.games.durak.reading import EASY, LOWEST, Reading, RuleBot, read_opponent
from engine.players import choose_action, history_entry, seat_view
from engine.protocol import capabilities
from tests.decks import cards, stacked_deck

# Hearts are trumps. Seat 0 holds spades and JC; seat 1, `easy`, holds 9C 10C JD QD JH AH; QS and KS are drawn first.
HANDS = ("6S 7S 8S 9S 10S JC", "9C 10C JD QD JH AH")
STOCK = "QS KS AS JS 6D 7D 8D 9D 10D KD AD 6C 7C 8C QC KC AC 7H 8H 9H 10H QH KH 6H"


def play(moves: list[tuple[int, dict[str, Any]]], hands: tuple[str, str] = HANDS,
         stock: str = STOCK) -> tuple[DurakState, list[dict[str, Any]]]:
    """The deal above (or `hands` and `stock`), seat 1 attacking, then `moves`; the state and seat 0's history."""
    state = durak.position(Suit.HEARTS, cards(stock), (cards(hands[0]), cards(hands[1])), 1)
    history: list[dict[str, Any]] = []
    for version, (seat, action) in enumerate(moves, start=2):
        state, events = durak.apply(state, seat, action)
        history.extend(history_entry(version, event, 0) for event in events)
    return state, history


EASY_BOUT = [
    (1, {"type": "attack", "card": "9C"}),   # its cheapest card: no 6, 7 or 8 of a plain suit
    (0, {"type": "defend", "card": "JC", "against": "9C"}),
    (1, {"type": "attack", "card": "JD"}),   # its cheapest plain 9 or J: no 9D
    (0, {"type": "take"}),
    (1, {"type": "done"}),                   # no plain 9 or J left: no 9D, no JS; then it draws QS and KS
]


def reading(moves: list[tuple[int, dict[str, Any]]]) -> tuple[DurakState, Reading | None]:
    state, history = play(moves)
    view = seat_view("durak", state, 0, history)
    return state, read_opponent(view, history, durak_ai._unseen(view, history)[2])


def test_a_move_that_rules_out_only_cards_the_seat_holds_tells_nothing() -> None:
    """Opening with 6D, `easy` held no 6S (first in hand order at the same cost), but seat 0 holds 6S: that move
    tells nothing. Ending the bout after the take, it held no plain 6, 6C among them, unseen: one telling move."""
    hands = ("6S 7S 8S 9S 10S JC", "6D 10C JD QD JH AH")
    stock = STOCK.replace("6D", "9C")
    moves = [(1, {"type": "attack", "card": "6D"}), (0, {"type": "take"}), (1, {"type": "done"})]
    state = durak.position(Suit.HEARTS, cards(stock), (cards(hands[0]), cards(hands[1])), 1)
    for seat, action in moves:  # `easy`'s own moves
        if seat == 1:
            assert choose_action(seat_view("durak", state, 1), "easy", random.Random(0)) == action
        state, _ = durak.apply(state, seat, action)
    state, history = play(moves, hands, stock)
    view = seat_view("durak", state, 0, history)
    read = read_opponent(view, history, durak_ai._unseen(view, history)[2])
    assert read is not None and read.moves == 1


def test_the_deal_is_easys_own_play() -> None:
    """Seat 1's moves above are the ones `easy` makes (engine/games/durak/players.py), so the reading below reads
    `easy`."""
    state = durak.position(Suit.HEARTS, cards(STOCK), (cards(HANDS[0]), cards(HANDS[1])), 1)
    for seat, action in EASY_BOUT:
        if seat == 1:
            assert choose_action(seat_view("durak", state, 1), "easy", random.Random(0)) == action
        state, _ = durak.apply(state, seat, action)


def test_a_bout_of_easy_rules_out_the_cards_it_did_not_play() -> None:
    """Opening with 9C, `easy` held no plain 6, 7 or 8; of those unseen (6D 7D 8D 6C 7C 8C) the opponent can now
    hold only as many as it drew after (2: QS and KS in truth). 9D and JS, ruled out when it ended the bout, came
    in that draw or not at all. A card never ruled out (QC) may have come in any of its 8 deals and draws."""
    state, read = reading(EASY_BOUT)
    assert read is not None
    assert read.moves == 3 and read.need == 6
    weights = dict(zip(read.candidates, read.weights, strict=True))
    assert [weights[code] for code in ("6D", "7D", "8D", "6C", "7C", "8C", "9D", "JS", "QC")] == [2] * 8 + [8]
    assert read.fits(card.code for card in state.hands[1])  # the truth: 10C QD JH AH QS KS
    assert read.fits(["6D", "7C", "10C", "QD", "JH", "AH"])
    assert not read.fits(["6D", "7C", "8C", "10C", "QD", "JH"])  # three cards in two draws
    assert read.fits(["9D", "JS", "10C", "QD", "JH", "AH"])
    assert not read.fits(["9D", "JS", "6D", "QD", "JH", "AH"])
    assert not read.fits(["10C", "QD", "JH", "AH", "QS"])  # five cards: it holds six


def test_the_search_expects_easys_move_of_a_read_opponent() -> None:
    """After three moves that ruled cards out, the search reads the opponent (`TRUSTED_AFTER`): every sample
    gives it a hand that fits, and its tree expects `easy`'s move, here opening bout 2 with its cheapest card."""
    state, history = play(EASY_BOUT)
    view = seat_view("durak", state, 0, history)
    trusted = durak_ai.trusted_reading(view, history, durak_ai._unseen(view, history)[2])
    assert trusted is not None and trusted[1] == EASY
    read = trusted[0]
    sampler = durak_ai.prepare_sampler(view, history)
    for seed in range(20):
        sample = sampler(random.Random(seed))
        assert read.fits(card.code for card in sample.hands[1])
    expected = durak_ai.prepare_opponent(view, history)
    assert expected is not None
    assert expected(state) == {"type": "attack", "card": "10C"}


def test_an_opponent_that_breaks_easys_rules_is_read_as_lowest() -> None:
    """`easy` throws in no trump while the stock holds cards (it threw in JD above): an opponent that throws in JH
    is not read as `easy`. `lowest` throws in trumps, so it is read as `lowest` (JD, cheaper, is unseen: it may have
    come later), and the search's tree expects `lowest`'s move: bout 2 opened with the cheapest card, trumps
    counted."""
    moves = [*EASY_BOUT[:2], (1, {"type": "attack", "card": "JH"}), (0, {"type": "take"}), (1, {"type": "done"})]
    state, read = reading(moves)
    assert read is None
    _, history = play(moves)
    view = seat_view("durak", state, 0, history)
    unseen = durak_ai._unseen(view, history)[2]
    as_lowest = read_opponent(view, history, unseen, LOWEST)
    assert as_lowest is not None and as_lowest.moves == 3
    # after the done it held no card of rank 9 or J at all: no 9D, no JS (the trump JH it threw in is on the table)
    weights = dict(zip(as_lowest.candidates, as_lowest.weights, strict=True))
    assert weights["JD"] == weights["9D"] == 2 and weights["QC"] == 8
    assert durak_ai.trusted_reading(view, history, unseen) == (as_lowest, LOWEST)
    expected = durak_ai.prepare_opponent(view, history)
    assert expected is not None
    hand = sorted(card.code for card in state.hands[1])
    assert expected(state) == durak_ai.lowest_rules_move(
        [{"type": "attack", "card": code} for code in hand], "H")


def test_a_take_of_lowest_rules_out_every_trump() -> None:
    """`lowest` takes only when nothing beats (bench/lowest.py): taking the plain 6S while the stock holds cards, it
    held no spade above 6 and no trump at all; `easy`, which keeps its trumps then, may hold a high one."""
    hands = (HANDS[0], "9C 10C JD QD 6D 7D")  # seat 1 holds no spade and no heart
    stock = STOCK.replace("6D 7D", "JH AH")
    state = durak.position(Suit.HEARTS, cards(stock), (cards(hands[0]), cards(hands[1])), 0)
    history: list[dict[str, Any]] = []
    for version, (seat, action) in enumerate([(0, {"type": "attack", "card": "6S"}), (1, {"type": "take"})], 2):
        if seat == 1:
            assert lowest(seat_view("durak", state, 1)) == action
        state, events = durak.apply(state, seat, action)
        history.extend(history_entry(version, event, 0) for event in events)
    view = seat_view("durak", state, 0, history)
    unseen = durak_ai._unseen(view, history)[2]
    weights = {rules: dict(zip(read.candidates, read.weights, strict=True))
               for rules in (EASY, LOWEST) if (read := read_opponent(view, history, unseen, rules)) is not None}
    assert [weights[LOWEST][code] for code in ("7H", "KH", "AH", "QS", "KS", "QC")] == [0, 0, 0, 0, 0, 6]
    assert [weights[EASY][code] for code in ("7H", "KH", "AH", "QS", "KS", "QC")] == [6, 6, 6, 0, 0, 6]  # trumps kept


def test_too_few_telling_moves_are_not_trusted() -> None:
    """Two moves that ruled cards out (the opening and the throw-in) are fewer than `TRUSTED_AFTER`."""
    state, history = play(EASY_BOUT[:3])
    view = seat_view("durak", state, 0, history)
    unseen = durak_ai._unseen(view, history)[2]
    read = read_opponent(view, history, unseen)
    assert read is not None and read.moves == 2
    assert durak_ai.trusted_reading(view, history, unseen) is None


def lowest(view: Any) -> dict[str, Any]:
    return durak_ai.lowest_rules_move([a for a in view["legal_actions"] if a["type"] != "resign"],
                                      view["state"]["trump_suit"])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), both=st.booleans(), rules=st.sampled_from([EASY, LOWEST]))
def test_a_rule_bot_is_always_read_and_its_hand_always_fits(seed: int, both: bool, rules: RuleBot) -> None:
    """Whatever the deal (`new_game`'s, with its first attacker), at every move, the reading of an `easy` (or
    `lowest`) seat by its opponent, a `random` seat or another of its kind, exists and allows the hand it really
    holds (the cards the reading seat has not seen)."""
    rng = random.Random(seed)
    state = capabilities(durak).with_ai_seats(durak.new_game(2, durak.parse_options({}), seed=seed), range(2))
    bot = rules.name
    levels = (bot, bot) if both else ((bot, "random") if seed % 2 else ("random", bot))
    histories: list[list[Any]] = [[], []]
    version = 1
    while durak.result(state) is None:
        for viewer in (0, 1):
            if levels[1 - viewer] == bot:
                view = seat_view("durak", state, viewer, histories[viewer])
                _, known, unseen = durak_ai._unseen(view, histories[viewer])
                read = read_opponent(view, histories[viewer], unseen, rules)
                assert read is not None
                assert read.fits(card.code for card in state.hands[1 - viewer] if card.code not in known)
        (seat,) = durak.to_act(state)
        view = seat_view("durak", state, seat, histories[seat])
        action = lowest(view) if levels[seat] == "lowest" else choose_action(view, levels[seat], rng)
        assert action is not None
        state, events = durak.apply(state, seat, action)
        version += 1
        for viewer in (0, 1):
            histories[viewer].extend(history_entry(version, event, viewer) for event in events)


@pytest.mark.parametrize("rules", [EASY, LOWEST])
def test_a_rule_broken_by_a_shown_card_it_later_played_is_seen(rules: RuleBot) -> None:
    """Seat 1 attacks first with its lowest trump 7D shown (durak.md §2.6) but opens with 9D, where `easy` and
    `lowest` open with 7D; it takes nothing back and plays 7D in bout 2. It held 7D all along, so the opening broke
    their rule even though 7D is no longer in its hand: it is read neither way."""
    # seat 0 is dealt 6S..JS, seat 1 the trumps 7D 9D 10D JD QD KD; the indicator is 6D
    deck = cards(" ".join(stacked_deck("durak", "6S 7D 7S 9D 8S 10D 9S JD 10S QD JS KD 6D")))
    state = durak.new_game(2, durak.parse_options({}), deck, seed=0)
    assert (state.first_attack_seat, state.first_attack_card) == (1, cards("7D")[0])
    history: list[dict[str, Any]] = []
    for version, (seat, action) in enumerate([
        (1, {"type": "attack", "card": "9D"}),
        (0, {"type": "take"}),
        (1, {"type": "done"}),
        (1, {"type": "attack", "card": "7D"}),
    ], start=2):
        state, events = durak.apply(state, seat, action)
        history.extend(history_entry(version, event, 0) for event in events)
    view = seat_view("durak", state, 0, history)
    assert read_opponent(view, history, durak_ai._unseen(view, history)[2], rules) is None


@pytest.mark.parametrize(("kind", "field", "value"), [
    ("defended", "against", None),  # dropped, as tests/engine/durak/test_endgame.py writes defences
    ("attacked", "card", "5H"),
    ("drew", "count", None),
    ("drew", "count", "2"),
    ("took", "seat", None),
    ("bout_ended", "seat", 1.0),
])
def test_a_crafted_history_is_not_read(kind: str, field: str, value: Any) -> None:
    """An event the rules do not write (a field dropped, or not a seat, a card code or a count) leaves no reading,
    where it raised KeyError, TypeError or IndexError; in a move of the seat's own too (its defence, its take)."""
    state, history = play(EASY_BOUT)
    view = seat_view("durak", state, 0, history)
    unseen = durak_ai._unseen(view, history)[2]
    assert read_opponent(view, history, unseen) is not None
    for index in [index for index, event in enumerate(history) if event["type"] == kind]:
        crafted = [dict(event) for event in history]
        if value is None:
            del crafted[index][field]
        else:
            crafted[index][field] = value
        assert read_opponent(view, crafted, unseen) is None


def test_a_tie_in_cost_rules_out_the_cards_first_in_hand_order() -> None:
    """Of equal-cost cards `easy` plays the first in hand order (S H D C, durak.md §2.2): opening with 7D it held
    no 7S (nor a 6), though it may hold 7C, which comes after 7D."""
    hands = ("6S 8S 9S 10S JS JC", "7D 9C 10C QD JH AH")
    stock = [card for card in cards(" ".join(stacked_deck("durak", " ".join(hands)))) if card.code != "6H"][12:]
    state = durak.position(Suit.HEARTS, [*stock, *cards("6H")], (cards(hands[0]), cards(hands[1])), 1)
    opening = {"type": "attack", "card": "7D"}
    assert choose_action(seat_view("durak", state, 1), "easy", random.Random(0)) == opening
    state, events = durak.apply(state, 1, opening)
    history = [history_entry(2, event, 0) for event in events]
    view = seat_view("durak", state, 0, history)
    read = read_opponent(view, history, durak_ai._unseen(view, history)[2])
    assert read is not None and read.moves == 1
    weights = dict(zip(read.candidates, read.weights, strict=True))
    assert [weights[code] for code in ("6D", "6C", "7S", "7C", "8H")] == [0, 0, 0, 6, 6]
    assert not read.fits(["7S", "9C", "10C", "QD", "JH"])
    assert read.fits(["7C", "9C", "10C", "QD", "JH"])


def test_an_opponent_easys_way_still_reads_is_never_trusted_as_lowest() -> None:
    """What `easy`'s way rules out holds of `lowest` too, and `lowest`'s rules out more: an `easy` opponent read as
    `lowest` is found to hold no trump after a take it made holding trumps it keeps. So `lowest`'s reading is
    tried only once the history refutes `easy`'s (`READ_AS`), and not where `easy`'s counts too few telling moves
    (`easy` against `random`, seed 12 among these: there `lowest`'s counted 3 and `easy`'s 2)."""
    tempting = 0
    for seed in range(10, 16):
        rng = random.Random(seed)
        state = capabilities(durak).with_ai_seats(durak.new_game(2, durak.parse_options({}), seed=seed), range(2))
        histories: list[list[Any]] = [[], []]
        version = 1
        while durak.result(state) is None:
            (seat,) = durak.to_act(state)
            view = seat_view("durak", state, seat, histories[seat])
            if seat == 1 and view["state"]["stock_size"] > 0:  # the `random` seat reads the `easy` one
                unseen = durak_ai._unseen(view, histories[1])[2]
                as_easy = read_opponent(view, histories[1], unseen, EASY)
                as_lowest = read_opponent(view, histories[1], unseen, LOWEST)
                trusted = durak_ai.trusted_reading(view, histories[1], unseen)
                if as_easy is not None:
                    assert trusted is None or trusted[1] == EASY
                    tempting += as_easy.moves < durak_ai.TRUSTED_AFTER <= (as_lowest.moves if as_lowest else 0)
            action = choose_action(view, ("easy", "random")[seat], rng)
            assert action is not None
            state, events = durak.apply(state, seat, action)
            version += 1
            for viewer in (0, 1):
                histories[viewer].extend(history_entry(version, event, viewer) for event in events)
    assert tempting > 0  # positions where `lowest`'s reading alone would have been trusted
