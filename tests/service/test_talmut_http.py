"""shared/rules/talmut.md §8 scenarios through the HTTP API with an exact `deck`, plus the service hooks Talmut
needs: AI seats that pass, the scheduled match pause (§3.18) and the resign handover (§3.17).

Every value a scenario states is read from the views as a client would: each seat's view with its own token, and
a spectator's view without one. Cards nobody may see during a round (the server layouts, a penalty card, the stock
order) are read once they become public: `reveal` ends the round without changing a layout (a call, then every
other seat takes the discard and throws it back, §3.3, §7.7) and reads the history entry (§5.2, §5.7), and the
rebuilt stock is drawn card by card.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

from rq.job import Job
from rq.registry import ScheduledJobRegistry

from service import turns
from service.clocks import utc_iso
from service.records import GameRecord
from tests.engine.talmut.notation import E1, E2, E3, E4, action, legal

TALMUT = "talmut"


def deck(text: str) -> list[str]:
    return text.split()


def moves(text):
    for move in text.split(","):
        seat, _, rest = move.strip().partition(" ")
        yield int(seat[1:]), action(rest)


def play(api, game_id, tokens, text):
    return api.play(game_id, tokens, moves(text))


def refused(api, game_id, token, text, status, error):
    api.refused(game_id, token, action(text), status, error)


def window(rank, last_thrower, *wrong_matchers):
    """The view's `window` (talmut.md §6.7): rank, last thrower, the seats that matched wrong in it (§3.11)."""
    return {"rank": rank, "last_thrower": last_thrower, "wrong_matchers": list(wrong_matchers)}


def state(api, game_id, token=None):
    return api.view(game_id, token).json["state"]


def every_view(api, game_id, tokens):
    """Each seat's view (with its token), then a spectator's (no token)."""
    return [api.view(game_id, token).json for token in [*tokens, None]]


def game_as_seen(api, game_id, tokens):
    """What each seat and a spectator see of the game (`every_view` without `last_seen`, which each request moves)."""
    return [
        {key: view[key] for key in ("version", "to_act", "legal_actions", "state", "result")}
        for view in every_view(api, game_id, tokens)
    ]


def slot(shown, where):
    """`2.3` -> seat 2's position 3 in a view's `state`."""
    seat, position = where.split(".")
    return shown["layouts"][int(seat)]["slots"][int(position)]


def hidden(position, seen_by=(), empty=False):
    return {"position": position, "empty": empty, "card": None, "seen_by": list(seen_by)}


def unseen_deal(seats=3):
    """The layouts of a fresh deal in any view: four cards a seat, nobody has seen any (§2.8)."""
    return [{"seat": seat, "slots": [hidden(position) for position in range(4)]} for seat in range(seats)]


def cards(text):
    """`"7C 3O 12B 7O / 2C 5B 6O 1B / ..."` -> a history entry's `cards` by seat; `-` is an empty position."""
    layouts = text.split("/")
    return {
        str(seat): [None if code == "-" else code for code in layout.split()] for seat, layout in enumerate(layouts)
    }


def by_seat(*values):
    return {str(seat): value for seat, value in enumerate(values)}


def check_legal(api, game_id, tokens, *texts):
    """`L(0)`, `L(1)`, ... in talmut.md §8 notation (`match 0-3`, `""` for []); `None` leaves a seat unchecked."""
    for seat, text in enumerate(texts):
        if text is not None:
            assert api.legal(game_id, tokens[seat]) == legal(text), (seat, text)


def reveal(api, game_id, tokens, caller):
    """End the round with the layouts unchanged and return the revealed `cards` (§5.2), read from the history."""
    others = [(caller + step) % len(tokens) for step in range(1, len(tokens))]
    turns = [f"s{seat} draw discard, s{seat} discard" for seat in others]
    view = play(api, game_id, tokens, ", ".join([f"s{caller} call", *turns]))
    return view["state"]["history"][-1]["cards"]


def test_deal(api):
    """talmut.md §8.1: the deal of E1, nothing seen, no window at the deal."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    for view in every_view(api, game_id, tokens):
        shown = view["state"]
        assert shown["layouts"] == unseen_deal() and view["to_act"] == [0]
        assert (shown["discard"], shown["stock_size"], shown["window"]) == (["3C"], 27, None)
        assert [seat["hand_size"] for seat in view["seats"]] == [4, 4, 4]
    check_legal(api, game_id, tokens, "draw stock, draw discard, call, resign", "", "")
    refused(api, game_id, tokens[1], "match 0", 403, "not_your_turn")
    assert reveal(api, game_id, tokens, caller=0) == cards("7C 3O 12B 7O / 2C 5B 6O 1B / 11C 7E 4E 12O")


def test_sota_and_powers_only_from_the_stock(api):
    """talmut.md §8.2: the sota's peek; a card from the pile or swapped out of a layout gives no power."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    play(api, game_id, tokens, "s0 draw stock")
    drawn = [shown["drawn"] for shown in (state(api, game_id, tokens[0]), state(api, game_id, tokens[1]))]
    assert drawn == [{"source": "stock", "card": "10O"}, {"source": "stock", "card": None}]
    check_legal(api, game_id, tokens, "swap 0-3, discard, resign")
    shown = play(api, game_id, tokens, "s0 discard")["state"]
    assert (shown["phase"], shown["power"]["kind"]) == ("power", "sota")
    check_legal(api, game_id, tokens, "peek 0.0-0.3, peek 1.0-1.3, peek 2.0-2.3, skip_power, resign")
    view = play(api, game_id, tokens, "s0 peek 2.2")
    assert slot(view["state"], "2.2") == {"position": 2, "empty": False, "card": "4E", "seen_by": [0]}
    assert slot(state(api, game_id, tokens[1]), "2.2") == hidden(2, [0])
    assert view["state"]["window"] == window("10", 0) and view["to_act"] == [1, 2]
    check_legal(api, game_id, tokens, "", "draw stock, draw discard, call, match 0-3, resign", "match 0-3, resign")
    play(api, game_id, tokens, "s1 draw discard")
    for view in every_view(api, game_id, tokens):
        assert view["state"]["drawn"] == {"source": "discard", "card": "10O"} and view["to_act"] == [1]
    shown = play(api, game_id, tokens, "s1 discard")["state"]
    assert (shown["phase"], shown["power"], shown["turn"]) == ("draw", None, 2)
    assert shown["window"] == window("10", 1)
    assert play(api, game_id, tokens, "s2 draw stock")["state"]["drawn"] == {"source": "stock", "card": "11O"}
    shown = play(api, game_id, tokens, "s2 swap 0")["state"]
    assert (shown["phase"], shown["power"], shown["turn"]) == ("draw", None, 0)
    assert shown["discard"] == ["3C", "10O", "11C"] and shown["window"] == window("11", 2)
    assert slot(shown, "2.0") == {"position": 0, "empty": False, "card": "11O", "seen_by": [2]}


def test_wrong_match_penalty_and_closed_window(api):
    """talmut.md §8.3, §4.3: penalty cards, several seats in to_act, a late match gets 403."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    assert play(api, game_id, tokens, "s0 draw stock")["state"]["drawn"] == {"source": "stock", "card": "10O"}
    view = play(api, game_id, tokens, "s0 swap 0")
    assert view["to_act"] == [1, 2] and view["state"]["discard"] == ["3C", "7C"]
    assert view["state"]["window"] == window("7", 0)
    assert slot(view["state"], "0.0") == {"position": 0, "empty": False, "card": "10O", "seen_by": [0]}
    view = play(api, game_id, tokens, "s1 match 1")
    assert slot(view["state"], "1.1") == {"position": 1, "empty": False, "card": "5B", "seen_by": [0, 1, 2]}
    assert slot(view["state"], "1.4") == hidden(4)
    assert view["state"]["stock_size"] == 25 and view["seats"][1]["hand_size"] == 5 and view["to_act"] == [1, 2]
    assert view["state"]["window"] == window("7", 0, 1)
    assert slot(state(api, game_id), "1.1")["card"] is None  # spectators see no layout card
    view = play(api, game_id, tokens, "s2 match 1")
    assert view["to_act"] == [0, 1] and view["state"]["window"] == window("7", 2, 1)
    assert view["state"]["discard"][-1] == "7E" and slot(view["state"], "2.1") == hidden(1, empty=True)
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")  # the last thrower is not in to_act
    check_legal(api, game_id, tokens, "match 0-3, resign")
    view = play(api, game_id, tokens, "s0 match 3")
    assert view["state"]["discard"] == ["3C", "7C", "7E", "7O"]
    assert view["state"]["window"] == window("7", 0, 1)
    view = play(api, game_id, tokens, "s2 match 2")
    assert view["state"]["window"] == window("7", 0, 1, 2) and view["to_act"] == [1]
    assert slot(view["state"], "2.1") == hidden(1) and view["state"]["stock_size"] == 24  # the penalty card
    assert slot(view["state"], "2.2") == {"position": 2, "empty": False, "card": "4E", "seen_by": [0, 1, 2]}
    view = play(api, game_id, tokens, "s1 draw stock")
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")
    assert view["state"]["drawn"] == {"source": "stock", "card": "4O"} and view["state"]["window"] is None
    assert view["to_act"] == [1] and [seat["hand_size"] for seat in view["seats"]] == [3, 5, 4]
    play(api, game_id, tokens, "s1 discard")  # penalty cards: 11O at 1.4, 12C at 2.1
    expected = cards("10O 3O 12B - / 2C 5B 6O 1B 11O / 11C 12C 4E 12O")
    assert reveal(api, game_id, tokens, caller=2) == expected


def test_a_bot_gets_one_wrong_match_per_window(api):
    """talmut.md §3.11, §7.23, §4.3: a bot posting the first match listed for it, twice in one window (E1, window
    rank 7). Seat 2's first try (11C) is a wrong match; its second is refused with 403 (no longer in `to_act`),
    the turn seat 1's second with 422, each changing nothing: the same version and the same views."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    play(api, game_id, tokens, "s0 draw stock, s0 swap 0")
    for seat, error in ((2, (403, "not_your_turn")), (1, (422, "illegal_action"))):
        first = api.legal(game_id, tokens[seat])
        first_match = next(action for action in first if action["type"] == "match")
        assert first_match == {"type": "match", "position": 0}
        view = api.play(game_id, tokens, [(seat, first_match)])
        assert seat in view["state"]["window"]["wrong_matchers"]
        assert not [action for action in api.legal(game_id, tokens[seat]) if action["type"] == "match"]
        before = game_as_seen(api, game_id, tokens)
        body = api.refused(game_id, tokens[seat], {"type": "match", "position": 1}, *error)
        assert game_as_seen(api, game_id, tokens) == before
    assert body["message"] == "you matched wrong in this window already: one wrong match per window"
    shown = state(api, game_id, tokens[0])
    assert shown["window"] == window("7", 0, 1, 2) and shown["stock_size"] == 24  # a draw and two penalty cards
    assert [seat["hand_size"] for seat in api.view(game_id).json["seats"]] == [4, 5, 5]


def test_caballo_rey_knowledge_moves(api):
    """talmut.md §8.4: each token sees only what its seat knows, and knowledge moves with the card (§6.1, §6.2)."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    view = play(api, game_id, tokens, "s0 draw stock, s0 discard, s0 peek 2.3")
    assert slot(view["state"], "2.3") == {"position": 3, "empty": False, "card": "12O", "seen_by": [0]}
    assert slot(state(api, game_id, tokens[2]), "2.3")["card"] is None
    events = api.request("GET", f"/v1/games/{game_id}/events?after=0", tokens[1]).json["events"]
    assert "12O" not in str(events) and "10O" in str(events)  # the discarded sota is public, the peek is not
    assert play(api, game_id, tokens, "s1 draw stock")["state"]["drawn"] == {"source": "stock", "card": "11O"}
    places = [f"{seat}.{position}" for seat in range(3) for position in range(4)]
    pairs = [f"blind_swap {a} {b}" for a in places for b in places if a[0] < b[0]]
    listed = play(api, game_id, tokens, "s1 discard")["legal_actions"]
    assert listed == legal(", ".join([*pairs, "skip_power", "resign"])) and len(listed) == 50
    assert listed[0] == action("blind_swap 0.0 1.0")
    for text in ("blind_swap 1.0 1.1", "blind_swap 2.3 1.0"):
        refused(api, game_id, tokens[1], text, 422, "illegal_action")
    play(api, game_id, tokens, "s1 blind_swap 1.0 2.3")
    seat0 = state(api, game_id, tokens[0])
    assert slot(seat0, "1.0") == {"position": 0, "empty": False, "card": "12O", "seen_by": [0]}
    assert slot(seat0, "2.3") == hidden(3)
    seat1 = state(api, game_id, tokens[1])
    assert all(entry["card"] is None for layout in seat1["layouts"] for entry in layout["slots"])
    assert play(api, game_id, tokens, "s2 draw stock")["state"]["drawn"] == {"source": "stock", "card": "12C"}
    shown = play(api, game_id, tokens, "s2 discard, s2 peek 1.0")["state"]
    assert shown["phase"] == "exchange" and slot(shown, "1.0")["card"] == "12O"
    check_legal(api, game_id, tokens, None, None, "exchange 0.0-0.3, exchange 2.0-2.3, skip_power, resign")
    view = play(api, game_id, tokens, "s2 exchange 0.1")
    assert view["state"]["window"] == window("12", 2) and view["state"]["turn"] == 0
    for seat, card in ((0, "12O"), (1, None), (2, "12O"), (None, None)):
        shown = state(api, game_id, None if seat is None else tokens[seat])
        assert slot(shown, "0.1") == {"position": 1, "empty": False, "card": card, "seen_by": [0, 2]}, seat
        assert slot(shown, "1.0") == hidden(0), seat
    expected = cards("7C 12O 12B 7O / 3O 5B 6O 1B / 11C 7E 4E 2C")
    assert reveal(api, game_id, tokens, caller=0) == expected


def test_take_the_discard_and_throw_it_back(api):
    """talmut.md §8.5, §7.7: the pile's card may be discarded back; it gives no power."""
    game_id, tokens = api.create_humans(deck(E2), game=TALMUT, seats=3)
    play(api, game_id, tokens, "s0 draw discard")
    for view in every_view(api, game_id, tokens):
        assert view["state"]["drawn"] == {"source": "discard", "card": "6B"} and view["state"]["discard"] == []
    shown = play(api, game_id, tokens, "s0 discard")["state"]
    assert (shown["discard"], shown["phase"], shown["power"], shown["turn"]) == (["6B"], "draw", None, 1)
    assert shown["window"] == window("6", 0)


def test_call_last_turns_and_next_round(api):
    """talmut.md §8.6: a call, the last turns, the caller hit by a caballo, the scored round and the next deal."""
    game_id, tokens = api.create_humans(deck(E2), game=TALMUT, seats=3)
    view = play(api, game_id, tokens, "s0 call")
    assert view["state"]["talmut"] == {"caller": 0, "last_turns": [1, 2]} and view["state"]["window"] is None
    assert view["state"]["turn"] == 1 and view["to_act"] == [0, 1]
    check_legal(api, game_id, tokens, "withdraw, resign", "draw stock, draw discard, resign")
    assert play(api, game_id, tokens, "s1 draw stock")["state"]["drawn"] == {"source": "stock", "card": "11O"}
    view = play(api, game_id, tokens, "s1 discard, s1 blind_swap 0.0 1.1")
    assert view["to_act"] == [0, 2]
    check_legal(api, game_id, tokens, "match 0-3, withdraw, resign")
    assert play(api, game_id, tokens, "s2 draw stock")["state"]["drawn"] == {"source": "stock", "card": "4O"}
    play(api, game_id, tokens, "s2 discard")
    round_1 = {
        "round": 1, "caller": 0, "call_total": 5, "false_call": False,
        "cards": cards("12E 2O 1C 1E / 4C 1O 6C 5C / 7B 10B 3E 2B"), "points": by_seat(16, 16, 22),
    }  # fmt: skip
    for view in every_view(api, game_id, tokens):
        shown = view["state"]
        assert view["status"] == "active" and view["to_act"] == [1]
        assert (shown["history"], shown["totals"]) == ([round_1], by_seat(16, 16, 22))
        assert (shown["round"], shown["dealer"], shown["turn"], shown["phase"]) == (2, 0, 1, "draw")
        assert (shown["discard"], shown["stock_size"], shown["layouts"]) == (["6B"], 27, unseen_deal())
        assert (shown["window"], shown["talmut"], shown["call_barred"]) == (None, None, None)
    assert reveal(api, game_id, tokens, caller=1) == cards("7B 10B 3E 2B / 1O 2O 1C 1E / 4C 12E 6C 5C")


def test_false_call(api):
    """talmut.md §8.7, §5.3: a caller whose layout was above 5 when calling scores call_penalty more."""
    game_id, tokens = api.create_humans(deck(E2), game=TALMUT, seats=3)
    assert play(api, game_id, tokens, "s0 draw stock")["state"]["drawn"] == {"source": "stock", "card": "11O"}
    play(api, game_id, tokens, "s0 swap 0, s1 draw stock, s1 discard, s2 draw stock, s2 discard")
    assert action("call") in api.legal(game_id, tokens[0])
    view = play(api, game_id, tokens, "s0 call, s1 draw stock, s1 discard, s2 draw stock, s2 discard")
    record = view["state"]["history"][0]
    assert (record["round"], record["caller"], record["call_total"], record["false_call"]) == (1, 0, 15, True)
    assert record["points"] == by_seat(20, 27, 22)


def test_call_and_withdrawal(api):
    """talmut.md §8.8, §3.15: withdraw, call_barred, another seat's call, the scored round."""
    game_id, tokens = api.create_humans(deck(E2), game=TALMUT, seats=3)
    view = play(api, game_id, tokens, "s0 call")
    assert view["state"]["talmut"] == {"caller": 0, "last_turns": [1, 2]} and "call_total" not in str(view)
    assert view["legal_actions"] == [{"type": "withdraw"}, {"type": "resign"}]
    view = play(api, game_id, tokens, "s1 draw stock, s1 discard, s1 blind_swap 0.0 1.1, s0 withdraw")
    assert view["state"]["talmut"] is None and view["state"]["call_barred"] == 0 and view["to_act"] == [0, 2]
    view = play(api, game_id, tokens, "s2 draw stock, s2 discard")
    assert (view["state"]["round"], view["state"]["turn"]) == (1, 0)
    check_legal(api, game_id, tokens, "draw stock, draw discard, match 0-3, resign")
    refused(api, game_id, tokens[0], "call", 422, "illegal_action")
    assert play(api, game_id, tokens, "s0 draw stock")["state"]["drawn"] == {"source": "stock", "card": "2E"}
    assert play(api, game_id, tokens, "s0 swap 0")["state"]["discard"][-1] == "12E"
    assert action("call") in api.legal(game_id, tokens[1])
    view = play(api, game_id, tokens, "s1 call")
    assert view["state"]["call_barred"] is None and view["state"]["talmut"] == {"caller": 1, "last_turns": [2, 0]}
    view = play(api, game_id, tokens, "s2 draw stock, s2 discard, s0 draw stock, s0 discard")
    record = view["state"]["history"][0]
    assert (record["round"], record["caller"], record["call_total"], record["false_call"]) == (1, 1, 16, True)
    assert record["points"] == by_seat(6, 21, 22) and view["state"]["totals"] == by_seat(6, 21, 22)
    assert view["state"]["round"] == 2 and view["status"] == "active"


def draw_and_discard(api, game_id, tokens, first, codes):
    """Seats `first`, `first + 1`, ... each draw the next of `codes` from the stock and discard it with no power."""
    for seat, code in enumerate(codes.split(), start=first):
        assert play(api, game_id, tokens, f"s{seat} draw stock")["state"]["drawn"] == {"source": "stock", "card": code}
        shown = play(api, game_id, tokens, f"s{seat} discard")["state"]
        assert (shown["phase"], shown["power"], shown["turn"]) == ("draw", None, (seat + 1) % len(tokens))


def test_stock_rebuild_eight_seats(api):
    """talmut.md §8.9, §3.12: 8 humans join; the stock is rebuilt from the pile, turned over."""
    game_id, tokens = api.create_humans(deck(E3), game=TALMUT, seats=8)
    draw_and_discard(api, game_id, tokens, 0, "2B 3B 4B 5B 6B 7B 7E")
    shown = state(api, game_id)
    assert shown["discard"] == "1B 2B 3B 4B 5B 6B 7B 7E".split() and shown["stock_size"] == 0
    assert action("draw stock") in api.legal(game_id, tokens[7])
    view = play(api, game_id, tokens, "s7 draw stock")
    assert view["state"]["drawn"] == {"source": "stock", "card": "1B"}
    assert view["state"]["discard"] == ["7E"] and view["state"]["stock_size"] == 6
    view = play(api, game_id, tokens, "s7 discard")
    assert view["state"]["discard"] == ["7E", "1B"]
    draw_and_discard(api, game_id, tokens, 0, "2B 3B 4B 5B 6B 7B")  # the rest of the rebuilt stock, top first
    assert state(api, game_id)["stock_size"] == 0


def test_game_end_over_two_rounds(api):
    """talmut.md §8.10, §5.4-§5.7: the same list deals round 2; a total reaches 50 and the lowest total wins."""
    game_id, tokens = api.create_humans(deck(E4), game=TALMUT, seats=3)
    assert play(api, game_id, tokens, "s0 draw stock")["state"]["drawn"] == {"source": "stock", "card": "3O"}
    assert play(api, game_id, tokens, "s0 discard")["state"]["window"] == window("3", 0)
    assert play(api, game_id, tokens, "s1 call")["state"]["window"] is None
    view = play(api, game_id, tokens, "s2 draw stock, s2 discard, s0 draw stock, s0 discard")
    round_1 = {
        "round": 1, "caller": 1, "call_total": 4, "false_call": False,
        "cards": cards("12O 12C 12E 12B / 1O 1C 1E 1B / 11O 11C 11E 11B"), "points": by_seat(48, 4, 44),
    }  # fmt: skip
    assert view["state"]["history"] == [round_1] and view["state"]["totals"] == by_seat(48, 4, 44)
    assert view["status"] == "active" and (view["state"]["round"], view["state"]["turn"]) == (2, 1)
    play(api, game_id, tokens, "s1 draw stock, s1 discard, s2 call, s0 draw stock, s0 discard")
    play(api, game_id, tokens, "s1 draw stock, s1 discard")
    round_2 = {
        "round": 2, "caller": 2, "call_total": 4, "false_call": False,
        "cards": cards("11O 11C 11E 11B / 12O 12C 12E 12B / 1O 1C 1E 1B"), "points": by_seat(44, 48, 4),
    }  # fmt: skip
    scores = {"totals": by_seat(92, 52, 48), "rounds": [round_1, round_2]}
    result = {"winners": [2], "losers": [0, 1], "draw": False, "reason": "target_reached", "scores": scores}
    for view in every_view(api, game_id, tokens):
        assert (view["status"], view["to_act"], view["result"]) == ("finished", [], result)
        revealed = [[entry["card"] for entry in layout["slots"]] for layout in view["state"]["layouts"]]
        assert revealed == list(round_2["cards"].values())  # §6.5: the last round's cards stay shown


def test_creation_errors(api):
    """talmut.md §8.11."""
    humans = [{"kind": "human", "name": f"P{n}"} for n in range(3)]
    e1 = deck(E1)
    cases = [
        ({"seats": humans[:2]}, "invalid_request"),
        ({"seats": humans, "deck": e1[:-1]}, "invalid_deck"),
        ({"seats": humans, "deck": [*e1[:-1], "8O"]}, "invalid_deck"),
        ({"seats": humans, "deck": e1, "options": {"deck_size": 48}}, "invalid_deck"),
        ({"seats": humans, "options": {"deck_size": 36}}, "invalid_request"),
        ({"seats": humans, "options": {"target": 0}}, "invalid_request"),
    ]
    for body, error in cases:
        response = api.create(game=TALMUT, **body)
        assert (response.status_code, response.json["error"]) == (422, error), body


def test_resign_hands_the_seat_to_the_easy_ai(api):
    """talmut.md §8.12, §3.17: the resigned seat becomes an `easy` AI and plays on; the game ends with one left."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    view = play(api, game_id, tokens, "s2 resign")
    # the seat is the AI's now: the resignation's answer and the token's reads are the spectator view (issue 43)
    assert (view["status"], view["you"], api.view(game_id, tokens[2]).json["you"]) == ("active", None, None)
    assert view["seats"][2].pop("last_seen") is not None  # the resigning request: the player is still watching
    assert view["seats"][2] == {
        "seat": 2,
        "kind": "ai",
        "name": "P2",
        "level": "easy",
        "hand_size": 4,
        "resigned": True,
    }
    refused(api, game_id, tokens[2], "resign", 422, "illegal_action")
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")
    play(api, game_id, tokens, "s0 draw stock, s0 discard, s0 skip_power, s1 draw stock, s1 discard, s1 skip_power")
    api.run_ai(with_scheduler=False)  # seat 2 may match at once (easy knows nothing: it passes)
    assert api.view(game_id).json["state"]["turn"] == 2
    scheduled = ScheduledJobRegistry(queue=api.services.queues[0])
    assert len(scheduled.get_job_ids()) == 1  # the easy AI waits match_pause_ms before it draws (§3.18)
    api.run_ai()
    view = api.view(game_id, tokens[0]).json
    assert view["state"]["turn"] == 0 and view["status"] == "active"
    finished = play(api, game_id, tokens, "s1 resign")
    assert finished["status"] == "finished"
    assert finished["result"] == {
        "winners": [0],
        "losers": [1, 2],
        "draw": False,
        "reason": "resign",
        "scores": {"totals": {"0": 0, "1": 0, "2": 0}, "rounds": []},
    }
    refused(api, game_id, tokens[2], "resign", 409, "game_finished")


def test_the_pause_is_skipped_when_only_ai_seats_may_match_and_shown_when_a_human_may(api):
    """talmut.md §3.18: 1 human + 2 `easy` seats. After the human's discard only the AI seat 2 may match: nobody can
    use a pause (an AI decides at once), so the AI turn seat 1 is queued at once, after seat 2, and the view shows
    no pause. After seat 1's turn the human may match: the AI turn seat 2 is scheduled, and the view's `ai_pauses`
    says why and until when: when its job is due, match_pause_ms after the discard rounded up to a whole second."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]
    created = api.create(seats, game=TALMUT, deck=deck(E1), options={"match_pause_ms": 200})
    assert created.status_code == 201 and created.json["status"] == "active"
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = play(api, game_id, [token], "s0 draw stock, s0 swap 0")
    scheduled = ScheduledJobRegistry(queue=api.services.queues[0])
    assert view["ai_pauses"] == [] and scheduled.get_job_ids() == []
    version = view["version"]
    assert api.services.queues[0].get_job_ids() == [f"ai-{game_id}-{version}-2", f"ai-{game_id}-{version}-1"]
    assert api.view(game_id).json["pending_ai"] == [1, 2]
    api.run_ai(with_scheduler=False)  # seat 2 passes (it knows none of its cards), seat 1 plays its turn
    view = api.view(game_id, token).json
    shown = view["state"]
    assert (shown["turn"], shown["phase"], shown["window"]["last_thrower"]) == (2, "draw", 1)
    due = math.ceil(api.services.store.load(game_id).ai_delays_since["2"] + 0.2)
    assert view["ai_pauses"] == [{"seat": 2, "reason": "match_window", "until": utc_iso(due)}]
    assert view["pending_ai"] == [2]
    job_id = f"ai-{game_id}-{view['version']}-2"
    assert scheduled.get_job_ids() == [job_id] and scheduled.get_scheduled_time(job_id).timestamp() == due
    assert api.view(game_id).json["ai_pauses"] == view["ai_pauses"]  # the same for every viewer
    api.run_ai()  # seat 2 draws when due
    view = api.view(game_id, token).json
    assert view["state"]["turn"] == 0 and view["ai_pauses"] == [] and view["pending_ai"] == []


START = 2_000_000_000
"""A whole second of the tests' clock, so every due time is exact."""


def clocked_game(api, monkeypatch, seats):
    """A Talmut game on E1 with `match_pause_ms` 1500 and `service.turns` on a clock set by `clock[0]`.

    Returns (game_id, token per seat or None for an AI seat, clock, `due(seat)`): when the scheduled AI job of
    `seat` at the current version is due, in Unix seconds.
    """
    clock = [START + 0.25]
    monkeypatch.setattr(turns, "time", SimpleNamespace(time=lambda: clock[0]))
    created = api.create(seats, game=TALMUT, deck=deck(E1), options={"match_pause_ms": 1500})
    game_id = created.json["game_id"]
    tokens = [created.json["player_token"]]
    for number, seat in enumerate(seats[1:], start=1):
        if seat["kind"] == "ai":
            tokens.append(None)
            continue
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": f"P{number}"})
        tokens.append(joined.json["player_token"])
    scheduled = ScheduledJobRegistry(queue=api.services.queues[0])

    def due(seat):
        job_id = turns.ai_job_id(game_id, api.view(game_id).json["version"], seat)
        return scheduled.get_scheduled_time(job_id).timestamp()

    return game_id, tokens, clock, due


def test_ai_pause_counts_from_the_discard_that_opened_the_window(api, monkeypatch):
    """talmut.md §3.18: the AI turn seat waits match_pause_ms from the discard that opened the window. Matches
    (§3.10) make new versions while the window stays open but do not restart the pause; a match after the pause
    finds the AI due at once; the next window starts a pause of its own. Times are RQ's whole seconds."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "human"}]
    game_id, tokens, clock, due = clocked_game(api, monkeypatch, seats)
    view = play(api, game_id, tokens, "s0 draw stock, s0 swap 0")  # at 0.25: window {"7", 0}; seat 1 (AI) to draw
    assert due(1) == START + 2  # ceil(0.25 + 1.5)
    assert view["ai_pauses"] == [{"seat": 1, "reason": "match_window", "until": utc_iso(START + 2)}]
    clock[0] = START + 1.0
    view = play(api, game_id, tokens, "s2 match 1")  # 7E: correct, seat 2 is the last thrower, seat 0 may match
    assert due(1) == START + 2  # not ceil(1.0 + 1.5) = 3
    assert view["ai_pauses"] == [{"seat": 1, "reason": "match_window", "until": utc_iso(START + 2)}]
    clock[0] = START + 2.5
    play(api, game_id, tokens, "s0 match 3")  # 7O: correct, after the pause; seat 2 may match again
    job_id = turns.ai_job_id(game_id, api.view(game_id).json["version"], 1)
    assert job_id in api.services.queues[0].get_job_ids()
    assert job_id not in ScheduledJobRegistry(queue=api.services.queues[0]).get_job_ids()
    api.run_ai()  # seat 1 draws and ends its turn
    clock[0] = START + 10.25
    view = play(api, game_id, tokens, "s2 draw stock, s2 swap 2, s0 draw stock, s0 swap 2")
    assert view["state"]["turn"] == 1 and view["state"]["window"]["last_thrower"] == 0
    assert due(1) == START + 12  # ceil(10.25 + 1.5)


def test_a_wrong_match_of_the_last_human_who_may_match_ends_the_pause(api, monkeypatch):
    """talmut.md §3.18, §3.11: the pause is for the humans who may match. Seat 2, the only one, matches wrong at
    1.0 (it may not match again in this window): nobody can use the rest of the pause, so the AI turn seat 1 is
    due at once, not at 2, and the view shows no pause."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "human"}]
    game_id, tokens, clock, due = clocked_game(api, monkeypatch, seats)
    play(api, game_id, tokens, "s0 draw stock, s0 swap 0")  # at 0.25: seat 0 threw last, seat 2 may match
    assert due(1) == START + 2
    clock[0] = START + 1.0
    view = play(api, game_id, tokens, "s2 match 0")  # 11C: wrong
    assert view["state"]["window"] == window("7", 0, 2) and view["ai_pauses"] == []
    job_id = turns.ai_job_id(game_id, view["version"], 1)
    assert job_id in api.services.queues[0].get_job_ids()
    assert job_id not in ScheduledJobRegistry(queue=api.services.queues[0]).get_job_ids()


def test_a_turn_seat_that_resigns_hands_its_ai_the_running_pause(api, monkeypatch):
    """talmut.md §3.17, §3.18: the pause counts from the discard even when the turn seat was human until then."""
    game_id, tokens, clock, due = clocked_game(api, monkeypatch, [{"kind": "human", "name": "Ann"}] * 3)
    play(api, game_id, tokens, "s0 draw stock, s0 swap 0")  # at 0.25: seat 1 (human) is to draw
    clock[0] = START + 1.0
    play(api, game_id, tokens, "s1 resign")
    assert due(1) == START + 2  # not ceil(1.0 + 1.5) = 3


def test_a_record_stored_without_pause_starts_loads_and_pauses_from_now(api, monkeypatch):
    """A record stored before `ai_delays_since` existed loads with none, and its AI pause counts from now."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "human"}]
    game_id, tokens, clock, due = clocked_game(api, monkeypatch, seats)
    play(api, game_id, tokens, "s0 draw stock, s0 swap 0")
    store = api.services.store
    stored = json.loads(store.load(game_id).to_json())
    assert stored.pop("ai_delays_since") == {"1": START + 0.25}
    old = GameRecord.from_json(json.dumps(stored))
    assert old.ai_delays_since == {}
    Job.fetch(turns.ai_job_id(game_id, old.version, 1), api.connection, serializer="json").delete()
    clock[0] = START + 1.0
    turns.enqueue_ai_turns(store, api.services.queues, old)
    assert due(1) == START + 3  # ceil(1.0 + 1.5)


def test_a_match_that_loses_a_race_is_judged_on_the_state_it_arrives_to(api, monkeypatch):
    """talmut.md §3.9: actions are applied in arrival order, each judged on the state at that moment. Seat 1's match
    was read against the state before seat 2's match landed; it is judged again (a wrong match: a penalty card),
    not refused with 409. With If-Match naming the old version it is refused (409), nothing changed."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    play(api, game_id, tokens, "s0 draw stock, s0 swap 0")  # window {"7", 0}
    store = api.app.extensions["cardroom"].store
    stale = store.load(game_id)
    play(api, game_id, tokens, "s2 match 1")  # 7E: correct, window {"7", 2}
    real_load = type(store).load
    stale_once = iter([stale])
    monkeypatch.setattr(
        type(store), "load", lambda self, gid, known=None: next(stale_once, None) or real_load(self, gid)
    )
    pinned = api.act(game_id, tokens[1], action("match 1"), **{"If-Match": f'"{stale.version}"'})
    assert (pinned.status_code, pinned.json["error"]) == (409, "version_conflict")
    assert api.view(game_id).json["version"] == stale.version + 1
    stale_once = iter([stale])
    response = api.act(game_id, tokens[1], action("match 1"))
    assert response.status_code == 200, response.json
    assert response.json["version"] == stale.version + 2
    assert slot(response.json["state"], "1.1")["card"] == "5B" and response.json["state"]["stock_size"] == 25
