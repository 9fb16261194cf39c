"""The test scenarios of shared/rules/talmut.md §8.1-§8.12, with the exact values the rules give."""

from __future__ import annotations

import pytest

from engine.cards import shuffled
from engine.errors import GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.games import talmut
from engine.redaction import codes_in, event_for
from tests.decks import cards
from tests.engine.talmut.notation import E1, E2, E3, E4, action, deal, layout_codes, legal, play, slot, slots, step

RESIGN = ", resign"
TURN_START = "draw stock, draw discard, call"


def to_act(state: talmut.TalmutState) -> list[int]:
    return sorted(talmut.to_act(state))


def state_of(state: talmut.TalmutState, viewer: int | None = None) -> dict:
    return talmut.view(state, viewer).state


def window(rank: str, last_thrower: int, *wrong_matchers: int) -> dict:
    """The view's `window` (talmut.md §6.7): rank, last thrower, the seats that matched wrong in it (§3.11)."""
    return {"rank": rank, "last_thrower": last_thrower, "wrong_matchers": list(wrong_matchers)}


def test_deal_e1() -> None:
    """talmut.md §8.1, §2.6, §2.8: the deal, nothing seen, the turned-up card opens no window."""
    state = deal(E1)
    assert [layout_codes(state, seat) for seat in range(3)] == [
        ["7C", "3O", "12B", "7O"],
        ["2C", "5B", "6O", "1B"],
        ["11C", "7E", "4E", "12O"],
    ]
    assert [card.code for card in state.stock[:6]] == "10O 11O 12C 4O 2B 6E".split()
    for viewer in (0, 1, 2, None):
        shown = state_of(state, viewer)
        assert shown["discard"] == ["3C"] and shown["stock_size"] == 27 and shown["window"] is None
        assert all(s["card"] is None and s["seen_by"] == [] for seat in range(3) for s in slots(state, viewer, seat))
    assert to_act(state) == [0]
    assert talmut.legal_actions(state, 0) == legal(TURN_START + RESIGN)
    assert talmut.legal_actions(state, 1) == talmut.legal_actions(state, 2) == []
    with pytest.raises(NotYourTurn):
        step(state, "s1 match 0")


def test_sota_and_powers_only_from_the_stock() -> None:
    """talmut.md §8.2, §3.4, §3.5, §6.3."""
    state = play(deal(E1), "s0 draw stock")
    assert state_of(state, 0)["drawn"] == {"source": "stock", "card": "10O"}
    assert state_of(state, 1)["drawn"] == {"source": "stock", "card": None}
    assert talmut.legal_actions(state, 0) == legal("swap 0-3, discard" + RESIGN)
    state = play(state, "s0 discard")
    assert state_of(state)["phase"] == "power" and state_of(state)["power"]["kind"] == "sota"
    peeks = [f"peek {seat}.{position}" for seat in range(3) for position in range(4)]
    assert talmut.legal_actions(state, 0) == legal(", ".join(peeks) + ", skip_power" + RESIGN)
    assert len(peeks) == 12
    state = play(state, "s0 peek 2.2")
    assert slot(state, 0, "2.2") == {"position": 2, "empty": False, "card": "4E", "seen_by": [0]}
    assert slot(state, 1, "2.2")["card"] is None
    assert state_of(state)["window"] == window("10", 0)
    assert to_act(state) == [1, 2]
    assert talmut.legal_actions(state, 1) == legal(TURN_START + ", match 0-3" + RESIGN)
    assert talmut.legal_actions(state, 2) == legal("match 0-3" + RESIGN)
    assert talmut.legal_actions(state, 0) == []
    state = play(state, "s1 draw discard")
    for viewer in (0, 1, 2, None):
        assert state_of(state, viewer)["drawn"] == {"source": "discard", "card": "10O"}
    assert to_act(state) == [1]
    state = play(state, "s1 discard")
    assert state_of(state)["phase"] == "draw" and state_of(state)["power"] is None
    assert state_of(state)["turn"] == 2 and state_of(state)["window"] == window("10", 1)
    state, events = step(state, "s2 draw stock")
    assert event_for(events[-1], 2)["card"] == "11O" and "card" not in event_for(events[-1], 0)
    state = play(state, "s2 swap 0")
    shown = state_of(state)
    assert shown["discard"] == ["3C", "10O", "11C"] and shown["window"] == window("11", 2)
    assert shown["phase"] == "draw" and shown["turn"] == 0
    assert slot(state, 2, "2.0") == {"position": 0, "empty": False, "card": "11O", "seen_by": [2]}
    assert slot(state, 0, "2.0")["card"] is None


def test_matching_penalty_cards_and_window_closing() -> None:
    """talmut.md §8.3, §3.9-§3.11, and the §6.7 view of seat 1."""
    state = play(deal(E1), "s0 draw stock, s0 swap 0")
    assert state_of(state)["discard"] == ["3C", "7C"] and state_of(state)["window"] == window("7", 0)
    assert slot(state, 0, "0.0") == {"position": 0, "empty": False, "card": "10O", "seen_by": [0]}
    assert to_act(state) == [1, 2]
    state, events = step(state, "s1 match 1")
    assert event_for(events[-1], 0) == {
        "type": "matched", "seat": 1, "position": 1, "card": "5B", "correct": False, "penalty_position": 4,
    }
    assert "card" not in event_for(events[-1], None)  # spectators see no layout card (§6.2)
    assert slot(state, 2, "1.1") == {"position": 1, "empty": False, "card": "5B", "seen_by": [0, 1, 2]}
    assert layout_codes(state, 1)[4] == "11O"
    assert slot(state, 1, "1.4") == {"position": 4, "empty": False, "card": None, "seen_by": []}
    assert state_of(state)["stock_size"] == 25
    assert state_of(state)["window"] == window("7", 0, 1)  # seat 1 has made its one wrong match (§3.11)
    assert to_act(state) == [1, 2]
    assert talmut.legal_actions(state, 1) == legal(TURN_START + RESIGN)
    state = play(state, "s2 match 1")
    assert state_of(state)["discard"][-1] == "7E" and slot(state, 2, "2.1")["empty"] is True
    assert state_of(state)["window"] == window("7", 2, 1)
    assert to_act(state) == [0, 1]
    assert talmut.legal_actions(state, 0) == legal("match 0-3" + RESIGN)
    expected = {
        "round": 1, "dealer": 2, "turn": 1, "phase": "draw", "drawn": None, "power": None,
        "layouts": [
            {"seat": 0, "slots": [
                {"position": 0, "empty": False, "card": None, "seen_by": [0]},
                {"position": 1, "empty": False, "card": None, "seen_by": []},
                {"position": 2, "empty": False, "card": None, "seen_by": []},
                {"position": 3, "empty": False, "card": None, "seen_by": []}]},
            {"seat": 1, "slots": [
                {"position": 0, "empty": False, "card": None, "seen_by": []},
                {"position": 1, "empty": False, "card": "5B", "seen_by": [0, 1, 2]},
                {"position": 2, "empty": False, "card": None, "seen_by": []},
                {"position": 3, "empty": False, "card": None, "seen_by": []},
                {"position": 4, "empty": False, "card": None, "seen_by": []}]},
            {"seat": 2, "slots": [
                {"position": 0, "empty": False, "card": None, "seen_by": []},
                {"position": 1, "empty": True, "card": None, "seen_by": []},
                {"position": 2, "empty": False, "card": None, "seen_by": []},
                {"position": 3, "empty": False, "card": None, "seen_by": []}]},
        ],
        "stock_size": 25, "discard": ["3C", "7C", "7E"],
        "window": {"rank": "7", "last_thrower": 2, "wrong_matchers": [1]},
        "talmut": None, "call_barred": None, "totals": {"0": 0, "1": 0, "2": 0}, "history": [],
        "options": {"deck_size": 40, "target": 50, "call_penalty": 5, "match_pause_ms": 1500},
    }
    # talmut.md §6.7, and the options of §2.3 every player knows; seat 1 is in `wrong_matchers` since its wrong
    # match above, so it has no match left in this window (§3.11), though a correct match moved `last_thrower`
    assert state_of(state, 1) == expected
    assert talmut.legal_actions(state, 1) == legal(TURN_START + RESIGN)
    state = play(state, "s0 match 3")
    assert state_of(state)["discard"] == ["3C", "7C", "7E", "7O"]
    assert state_of(state)["window"] == window("7", 0, 1)
    state = play(state, "s2 match 2")
    assert layout_codes(state, 2)[1] == "12C" and state_of(state)["stock_size"] == 24
    assert state_of(state)["window"] == window("7", 0, 1, 2)
    assert to_act(state) == [1]  # seat 0 threw last, seats 1 and 2 matched wrong: only the turn seat may act
    assert slot(state, 2, "2.1") == {"position": 1, "empty": False, "card": None, "seen_by": []}
    state, events = step(state, "s1 draw stock")
    assert event_for(events[-1], 1)["card"] == "4O"
    assert state_of(state)["window"] is None and to_act(state) == [1]
    with pytest.raises(NotYourTurn):
        step(state, "s2 match 0")
    assert [entry["hand_size"] for entry in talmut.view(state, None).seats] == [3, 5, 4]


def test_one_wrong_match_per_seat_per_window() -> None:
    """talmut.md §3.9, §3.11, §7.23, §4.3: a bot trying every position of its layout gets one wrong match per window.

    E1 after `s0 draw stock, s0 swap 0` (window rank 7): seat 2 throws `4E` (wrong, penalty `11O` at 2.4) and its
    second try is refused with 403, as it is no longer in `to_act`; the turn seat 1 throws `5B` (wrong, penalty
    `12C` at 1.4) and its second try is refused with 422. The next window lets both try again.
    """
    state = play(deal(E1), "s0 draw stock, s0 swap 0, s2 match 2")
    assert layout_codes(state, 2) == ["11C", "7E", "4E", "12O", "11O"]
    assert state_of(state)["window"] == window("7", 0, 2) and to_act(state) == [1]
    assert talmut.legal_actions(state, 2) == []
    with pytest.raises(NotYourTurn):
        step(state, "s2 match 0")
    state = play(state, "s1 match 1")
    assert layout_codes(state, 1) == ["2C", "5B", "6O", "1B", "12C"] and state_of(state)["stock_size"] == 24
    assert state_of(state)["window"] == window("7", 0, 1, 2) and to_act(state) == [1]
    assert talmut.legal_actions(state, 1) == legal(TURN_START + RESIGN)
    with pytest.raises(IllegalAction, match="^you matched wrong in this window already: one wrong match per window$"):
        step(state, "s1 match 0")
    with pytest.raises(IllegalAction):
        step(state, "s1 match 2")
    state = play(state, "s1 draw stock, s1 discard")  # 4O: a new window, nobody has tried it yet
    assert state_of(state)["window"] == window("4", 1) and to_act(state) == [0, 2]
    assert talmut.legal_actions(state, 2) == legal(TURN_START + ", match 0-4" + RESIGN)
    state = play(state, "s2 match 0")
    assert state_of(state)["window"] == window("4", 1, 2)


def test_caballo_rey_and_knowledge_that_moves() -> None:
    """talmut.md §8.4, §3.6, §3.7, §6.1."""
    state = play(deal(E1), "s0 draw stock, s0 discard, s0 peek 2.3")
    assert slot(state, 0, "2.3")["card"] == "12O"
    state = play(state, "s1 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "11O"
    state = play(state, "s1 discard")
    listed = talmut.legal_actions(state, 1)
    assert len(listed) == 50 and listed[-2:] == legal("skip_power, resign")
    assert listed[0] == action("blind_swap 0.0 1.0")
    for bad in ("blind_swap 1.0 1.1", "blind_swap 2.3 1.0"):
        assert action(bad) not in listed
        with pytest.raises(IllegalAction):
            step(state, "s1 " + bad)
    state = play(state, "s1 blind_swap 1.0 2.3")
    assert slot(state, 0, "1.0") == {"position": 0, "empty": False, "card": "12O", "seen_by": [0]}
    assert slot(state, 0, "2.3")["card"] is None
    assert all(entry["card"] is None for seat in range(3) for entry in slots(state, 1, seat))
    state = play(state, "s2 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "12C"
    state = play(state, "s2 discard, s2 peek 1.0")
    assert state_of(state)["phase"] == "exchange" and slot(state, 2, "1.0")["card"] == "12O"
    assert talmut.legal_actions(state, 2) == legal("exchange 0.0-0.3, exchange 2.0-2.3, skip_power" + RESIGN)
    state = play(state, "s2 exchange 0.1")
    assert [layout_codes(state, seat) for seat in range(3)] == [
        ["7C", "12O", "12B", "7O"],
        ["3O", "5B", "6O", "1B"],
        ["11C", "7E", "4E", "2C"],
    ]
    assert slot(state, 0, "0.1") == {"position": 1, "empty": False, "card": "12O", "seen_by": [0, 2]}
    assert slot(state, 2, "0.1")["card"] == "12O"
    assert slot(state, 0, "1.0")["seen_by"] == []
    assert state_of(state)["window"] == window("12", 2) and state_of(state)["turn"] == 0


def test_taking_the_discard_and_throwing_it_back() -> None:
    """talmut.md §8.5, §3.3, §7.7."""
    state = play(deal(E2), "s0 draw discard")
    for viewer in (0, 1, 2, None):
        assert state_of(state, viewer)["drawn"] == {"source": "discard", "card": "6B"}
        assert state_of(state, viewer)["discard"] == []
    state = play(state, "s0 discard")
    shown = state_of(state)
    assert shown["discard"] == ["6B"] and shown["power"] is None and shown["phase"] == "draw"
    assert shown["window"] == window("6", 0) and shown["turn"] == 1


def test_call_last_turns_caller_hit_by_a_caballo_next_round() -> None:
    """talmut.md §8.6, §3.13, §3.14, §5.1-§5.4."""
    state = play(deal(E2), "s0 call")
    shown = state_of(state)
    assert shown["talmut"] == {"caller": 0, "last_turns": [1, 2]} and shown["window"] is None and shown["turn"] == 1
    assert to_act(state) == [0, 1]
    assert talmut.legal_actions(state, 0) == legal("withdraw" + RESIGN)
    assert talmut.legal_actions(state, 1) == legal("draw stock, draw discard" + RESIGN)
    assert "call_total" not in str(talmut.view(state, 0).state)
    state = play(state, "s1 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "11O"
    state = play(state, "s1 discard, s1 blind_swap 0.0 1.1")
    assert layout_codes(state, 0)[0] == "12E"
    assert to_act(state) == [0, 2]
    assert talmut.legal_actions(state, 0) == legal("match 0-3, withdraw" + RESIGN)
    state = play(state, "s2 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "4O"
    state, events = step(state, "s2 discard")
    first_round = {
        "round": 1, "caller": 0, "call_total": 5, "false_call": False,
        "cards": {"0": "12E 2O 1C 1E".split(), "1": "4C 1O 6C 5C".split(), "2": "7B 10B 3E 2B".split()},
        "points": {"0": 16, "1": 16, "2": 22},
    }
    shown = state_of(state, 1)
    assert shown["history"] == [first_round] and shown["totals"] == {"0": 16, "1": 16, "2": 22}
    assert [event.type for event in events] == ["discarded", "round_ended", "round_started"]
    assert shown["round"] == 2 and shown["dealer"] == 0 and shown["turn"] == 1 and shown["talmut"] is None
    assert [layout_codes(state, seat) for seat in (1, 2, 0)] == [
        "1O 2O 1C 1E".split(), "4C 12E 6C 5C".split(), "7B 10B 3E 2B".split(),
    ]
    assert shown["discard"] == ["6B"] and shown["stock_size"] == 27 and shown["window"] is None
    assert all(entry["seen_by"] == [] for seat in range(3) for entry in slots(state, None, seat))
    assert talmut.result(state) is None and to_act(state) == [1]


def test_false_call() -> None:
    """talmut.md §8.7, §5.3, §7.16."""
    state = play(deal(E2), "s0 draw stock, s0 swap 0, s1 draw stock, s1 discard, s2 draw stock, s2 discard")
    assert talmut.layout_total(state.layouts[0]) == 15
    assert {"type": "call"} in talmut.legal_actions(state, 0)
    state = play(state, "s0 call, s1 draw stock, s1 discard, s2 draw stock, s2 discard")
    record = state_of(state)["history"][0]
    assert record["call_total"] == 15 and record["false_call"] is True
    assert record["points"] == {"0": 20, "1": 27, "2": 22}


def test_withdrawal() -> None:
    """talmut.md §8.8, §3.15."""
    state = play(deal(E2), "s0 call, s1 draw stock, s1 discard, s1 blind_swap 0.0 1.1, s0 withdraw")
    shown = state_of(state)
    assert shown["talmut"] is None and shown["call_barred"] == 0 and to_act(state) == [0, 2]
    state = play(state, "s2 draw stock, s2 discard")
    assert state_of(state)["round"] == 1 and state_of(state)["turn"] == 0
    assert talmut.legal_actions(state, 0) == legal("draw stock, draw discard, match 0-3" + RESIGN)
    with pytest.raises(IllegalAction, match="withdrew"):
        step(state, "s0 call")
    state = play(state, "s0 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "2E"
    state = play(state, "s0 swap 0")
    assert state_of(state)["discard"][-1] == "12E"
    assert {"type": "call"} in talmut.legal_actions(state, 1)
    state = play(state, "s1 call")
    assert state_of(state)["call_barred"] is None
    assert state_of(state)["talmut"] == {"caller": 1, "last_turns": [2, 0]}
    state = play(state, "s2 draw stock, s2 discard, s0 draw stock, s0 discard")
    record = state_of(state)["history"][0]
    assert (record["round"], record["caller"], record["call_total"], record["false_call"]) == (1, 1, 16, True)
    assert record["points"] == {"0": 6, "1": 21, "2": 22}


def test_stock_rebuild_eight_seats() -> None:
    """talmut.md §8.9, §3.12 (a `deck` game: turned over, not shuffled)."""
    state = deal(E3, seats=8)
    assert [layout_codes(state, seat) for seat in (0, 6, 7)] == [
        "10O 1O 1C 1E".split(), "10E 11E 12E 7O".split(), "10B 11B 12B 7C".split(),
    ]
    for seat in range(7):
        state = play(state, f"s{seat} draw stock, s{seat} discard")
        assert state_of(state)["phase"] == "draw"
    shown = state_of(state)
    assert shown["stock_size"] == 0 and shown["discard"] == "1B 2B 3B 4B 5B 6B 7B 7E".split()
    assert {"type": "draw", "source": "stock"} in talmut.legal_actions(state, 7)
    state, events = step(state, "s7 draw stock")
    assert [card.code for card in state.stock] == "2B 3B 4B 5B 6B 7B".split()
    assert state_of(state)["discard"] == ["7E"] and state_of(state)["stock_size"] == 6
    assert state.drawn is not None and state.drawn.card.code == "1B"
    assert event_for(events[0], None) == {"type": "stock_rebuilt", "stock_size": 7, "shuffled": False}
    state = play(state, "s7 discard")
    assert state_of(state)["discard"] == ["7E", "1B"]


def test_game_end_over_two_rounds() -> None:
    """talmut.md §8.10, §5.4, §5.5, §5.7."""
    state = play(deal(E4), "s0 draw stock")
    assert state.drawn is not None and state.drawn.card.code == "3O"
    state = play(state, "s0 discard")
    assert state_of(state)["window"] == window("3", 0)
    state = play(state, "s1 call")
    assert state_of(state)["window"] is None and state.call is not None and state.call.call_total == 4
    state = play(state, "s2 draw stock, s2 discard, s0 draw stock, s0 discard")
    round_one = state_of(state)["history"][0]
    assert round_one["points"] == {"0": 48, "1": 4, "2": 44}
    assert state_of(state)["totals"] == {"0": 48, "1": 4, "2": 44} and talmut.result(state) is None
    assert [layout_codes(state, seat) for seat in (1, 2, 0)] == [
        "12O 12C 12E 12B".split(), "1O 1C 1E 1B".split(), "11O 11C 11E 11B".split(),
    ]
    state = play(state, "s1 draw stock, s1 discard, s2 call, s0 draw stock, s0 discard, s1 draw stock, s1 discard")
    outcome = talmut.result(state)
    assert outcome is not None
    assert state_of(state)["history"][1]["points"] == {"0": 44, "1": 48, "2": 4}
    assert (outcome.winners, outcome.losers, outcome.draw, outcome.reason) == ((2,), (0, 1), False, "target_reached")
    assert outcome.scores == {
        "totals": {"0": 92, "1": 52, "2": 48},
        "rounds": [
            {"round": 1, "caller": 1, "call_total": 4, "false_call": False,
             "cards": {"0": "12O 12C 12E 12B".split(), "1": "1O 1C 1E 1B".split(), "2": "11O 11C 11E 11B".split()},
             "points": {"0": 48, "1": 4, "2": 44}},
            {"round": 2, "caller": 2, "call_total": 4, "false_call": False,
             "cards": {"0": "11O 11C 11E 11B".split(), "1": "12O 12C 12E 12B".split(), "2": "1O 1C 1E 1B".split()},
             "points": {"0": 44, "1": 48, "2": 4}},
        ],
    }
    assert to_act(state) == []
    shown = state_of(state, None)
    assert shown["turn"] is None and shown["phase"] is None
    assert [entry["card"] for entry in slots(state, None, 1)] == "12O 12C 12E 12B".split()  # revealed, §6.5
    with pytest.raises(GameFinished):
        step(state, "s0 draw stock")


def test_a_clients_deck_is_reused_every_round_even_when_it_is_the_seeds_shuffle() -> None:
    """talmut.md §2.7, §7.20: a game created with `deck` deals every round from that list, never shuffled.

    The engine used to guess whether a deck was sent by comparing it with the seed's shuffle, so a client's deck
    equal to that shuffle made a seeded game; `new_game` now knows (deck None: seeded).
    """
    options = talmut.parse_options({})
    sent = shuffled(talmut.full_deck(options), 7)
    assert talmut.new_game(3, options, sent, seed=7).fixed_deck
    seeded = talmut.new_game(3, options, seed=7)
    assert not seeded.fixed_deck and seeded.deck == sent


def test_creation_errors() -> None:
    """talmut.md §8.11, §2.1, §2.3, §2.4."""
    options = talmut.parse_options({})
    with pytest.raises(InvalidOptions):
        talmut.new_game(2, options, cards(E1, "talmut"), seed=0)
    short = cards(E1, "talmut")[:-1]
    with pytest.raises(InvalidDeck):
        talmut.new_game(3, options, short, seed=0)
    with pytest.raises(InvalidDeck):
        talmut.new_game(3, options, [*short, talmut.parse_card("8O")], seed=0)
    with pytest.raises(InvalidDeck):
        talmut.new_game(3, talmut.parse_options({"deck_size": 48}), cards(E1, "talmut"), seed=0)
    for bad in ({"deck_size": 36}, {"target": 0}, {"target": True}, {"colour": 1}, {"match_pause_ms": 10001}):
        with pytest.raises(InvalidOptions):
            talmut.parse_options(bad)
    assert talmut.parse_options({"deck_size": 48, "target": 1, "call_penalty": 0, "match_pause_ms": 0}) == (
        talmut.Options(48, 1, 0, 0)
    )


def test_resignation_three_humans() -> None:
    """talmut.md §8.12, §3.17, §5.6."""
    state, events = step(deal(E1), "s2 resign")
    assert talmut.result(state) is None and [event.type for event in events] == ["resigned"]
    assert talmut.view(state, 0).seats[2] == {"hand_size": 4, "resigned": True}
    assert talmut.seats_handed_to_ai(state) == {2: "easy"}
    with pytest.raises(IllegalAction):
        step(state, "s2 resign")
    finished, events = step(state, "s1 resign")
    outcome = talmut.result(finished)
    assert outcome is not None and [event.type for event in events] == ["resigned", "game_ended"]
    assert outcome.to_json() == {
        "winners": [0], "losers": [1, 2], "draw": False, "reason": "resign",
        "scores": {"totals": {"0": 0, "1": 0, "2": 0}, "rounds": []},
    }
    assert to_act(finished) == []
    assert not set(codes_in(talmut.view(finished, None).state["layouts"])) - {"position", "empty", "card", "seen_by"}
    with pytest.raises(GameFinished):
        step(finished, "s2 resign")


def test_resigned_seat_keeps_playing_and_ranks_last() -> None:
    """talmut.md §3.17, §5.6: the game goes on; an AI seat from the start cannot resign; humans gone ends it."""
    state = talmut.with_ai_seats(deal(E1), [1])
    assert {"type": "resign"} not in talmut.legal_actions(play(state, "s0 draw stock, s0 discard, s0 skip_power"), 1)
    with pytest.raises(IllegalAction):
        step(state, "s1 resign")
    state = play(state, "s2 resign")
    assert talmut.result(state) is None and sorted(talmut.to_act(state)) == [0]
    finished = play(state, "s0 resign")  # left: seat 1, an AI from the start
    outcome = talmut.result(finished)
    assert outcome is not None and (outcome.winners, outcome.losers, outcome.reason) == ((1,), (0, 2), "resign")


def test_the_ai_pause_is_only_for_a_human_who_may_match() -> None:
    """talmut.md §3.18, §3.11, §3.17: the AI turn seat waits `match_pause_ms` before it closes a window only while a
    seat played by a human may match; AI seats decide at once, so a pause for them alone is skipped.

    E1 after `s0 draw stock, s0 swap 0` (seat 0 threw last, seat 1 is to draw, seat 2 may match)."""
    opened = play(deal(E1), "s0 draw stock, s0 swap 0")
    assert talmut.ai_delay_ms(opened, 1) == 1500  # seat 2 is human
    assert talmut.ai_delay_ms(opened, 2) == 0  # not the turn seat
    assert talmut.ai_delay_ms(talmut.with_ai_seats(opened, [1, 2]), 1) == 0  # only an AI may match
    assert talmut.ai_delay_ms(talmut.with_ai_seats(opened, [1]), 1) == 1500
    assert talmut.ai_delay_ms(play(opened, "s2 resign"), 1) == 0  # seat 2 is played by the AI now
    assert talmut.ai_delay_ms(play(opened, "s2 match 0"), 1) == 0  # seat 2 made its wrong match
    assert talmut.ai_delay_ms(play(opened, "s2 match 1"), 1) == 1500  # 7E: seat 0 may match now
    assert talmut.ai_delay_ms(play(opened, "s1 draw stock"), 1) == 0  # the window is closed
