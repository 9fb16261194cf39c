"""shared/rules/talmut.md §8 scenarios through the HTTP API with an exact `deck`, plus the service hooks Talmut
needs: AI seats that pass, the scheduled match pause (§3.18) and the resign handover (§3.17)."""

from __future__ import annotations

import time

from rq.registry import ScheduledJobRegistry

from tests.engine.talmut.notation import E1, E2, E3, action

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


def state(api, game_id, token=None):
    return api.view(game_id, token).json["state"]


def test_sota_caballo_rey_knowledge_per_token(api):
    """talmut.md §8.2, §8.4: powers, and each token sees only what its seat knows (§6.1, §6.2)."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    view = api.view(game_id, tokens[0]).json
    assert view["status"] == "active" and view["to_act"] == [0]
    assert [seat["hand_size"] for seat in view["seats"]] == [4, 4, 4]
    play(api, game_id, tokens, "s0 draw stock")
    assert state(api, game_id, tokens[0])["drawn"] == {"source": "stock", "card": "10O"}
    assert state(api, game_id, tokens[1])["drawn"] == {"source": "stock", "card": None}
    assert state(api, game_id)["drawn"] == {"source": "stock", "card": None}
    view = play(api, game_id, tokens, "s0 discard, s0 peek 2.3")
    assert view["state"]["layouts"][2]["slots"][3] == {"position": 3, "empty": False, "card": "12O", "seen_by": [0]}
    assert state(api, game_id, tokens[2])["layouts"][2]["slots"][3]["card"] is None
    events = api.request("GET", f"/v1/games/{game_id}/events?after=0", tokens[1]).json["events"]
    assert "12O" not in str(events) and "10O" in str(events)  # the discarded sota is public, the peek is not
    view = play(api, game_id, tokens, "s1 draw stock, s1 discard")
    assert len(view["legal_actions"]) == 50 and view["legal_actions"][0] == action("blind_swap 0.0 1.0")
    refused(api, game_id, tokens[1], "blind_swap 1.0 1.1", 422, "illegal_action")
    play(api, game_id, tokens, "s1 blind_swap 1.0 2.3")
    assert state(api, game_id, tokens[0])["layouts"][1]["slots"][0]["card"] == "12O"
    assert state(api, game_id, tokens[1])["layouts"][1]["slots"][0]["card"] is None
    view = play(api, game_id, tokens, "s2 draw stock, s2 discard, s2 peek 1.0, s2 exchange 0.1")
    assert view["state"]["layouts"][0]["slots"][1] == {"position": 1, "empty": False, "card": "12O", "seen_by": [0, 2]}
    assert view["state"]["window"] == {"rank": "12", "last_thrower": 2} and view["state"]["turn"] == 0
    assert state(api, game_id, tokens[1])["layouts"][0]["slots"][1]["card"] is None


def test_wrong_match_penalty_and_closed_window(api):
    """talmut.md §8.3, §4.3: penalty card, several seats in to_act, a late match gets 403."""
    game_id, tokens = api.create_humans(deck(E1), game=TALMUT, seats=3)
    refused(api, game_id, tokens[1], "match 0", 403, "not_your_turn")  # §8.1: no window at the deal
    view = play(api, game_id, tokens, "s0 draw stock, s0 swap 0")
    assert view["to_act"] == [1, 2]
    view = play(api, game_id, tokens, "s1 match 1")
    shown = view["state"]["layouts"][1]["slots"][1]
    assert shown == {"position": 1, "empty": False, "card": "5B", "seen_by": [0, 1, 2]}
    assert view["state"]["layouts"][1]["slots"][4] == {"position": 4, "empty": False, "card": None, "seen_by": []}
    assert view["state"]["stock_size"] == 25 and view["seats"][1]["hand_size"] == 5
    assert state(api, game_id)["layouts"][1]["slots"][1]["card"] is None  # spectators see no layout card
    view = play(api, game_id, tokens, "s2 match 1")
    assert view["to_act"] == [0, 1] and view["state"]["window"] == {"rank": "7", "last_thrower": 2}
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")  # the last thrower is not in to_act
    assert api.view(game_id, tokens[0]).json["legal_actions"] == [action(f"match {p}") for p in range(4)] + [
        {"type": "resign"}
    ]
    play(api, game_id, tokens, "s0 match 3, s2 match 2, s1 draw stock")
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")
    view = api.view(game_id, tokens[1]).json
    assert view["state"]["drawn"] == {"source": "stock", "card": "4O"} and view["to_act"] == [1]
    assert [seat["hand_size"] for seat in view["seats"]] == [3, 5, 4]


def test_call_and_withdrawal(api):
    """talmut.md §8.8, §3.15: withdraw, call_barred, another seat's call, the scored round."""
    game_id, tokens = api.create_humans(deck(E2), game=TALMUT, seats=3)
    view = play(api, game_id, tokens, "s0 call")
    assert view["state"]["talmut"] == {"caller": 0, "last_turns": [1, 2]} and "call_total" not in str(view)
    assert view["legal_actions"] == [{"type": "withdraw"}, {"type": "resign"}]
    view = play(api, game_id, tokens, "s1 draw stock, s1 discard, s1 blind_swap 0.0 1.1, s0 withdraw")
    assert view["state"]["talmut"] is None and view["state"]["call_barred"] == 0 and view["to_act"] == [0, 2]
    play(api, game_id, tokens, "s2 draw stock, s2 discard")
    refused(api, game_id, tokens[0], "call", 422, "illegal_action")
    view = play(api, game_id, tokens, "s0 draw stock, s0 swap 0, s1 call")
    assert view["state"]["call_barred"] is None and view["state"]["talmut"] == {"caller": 1, "last_turns": [2, 0]}
    view = play(api, game_id, tokens, "s2 draw stock, s2 discard, s0 draw stock, s0 discard")
    record = view["state"]["history"][0]
    assert (record["caller"], record["call_total"], record["false_call"]) == (1, 16, True)
    assert record["points"] == {"0": 6, "1": 21, "2": 22} and view["state"]["totals"] == {"0": 6, "1": 21, "2": 22}
    assert view["state"]["round"] == 2 and view["status"] == "active"


def test_stock_rebuild_eight_seats(api):
    """talmut.md §8.9, §3.12: 8 humans join; the stock is rebuilt from the pile, turned over."""
    game_id, tokens = api.create_humans(deck(E3), game=TALMUT, seats=8)
    for seat in range(7):
        play(api, game_id, tokens, f"s{seat} draw stock, s{seat} discard")
    assert state(api, game_id)["discard"] == "1B 2B 3B 4B 5B 6B 7B 7E".split()
    view = play(api, game_id, tokens, "s7 draw stock")
    assert view["state"]["drawn"] == {"source": "stock", "card": "1B"}
    assert view["state"]["discard"] == ["7E"] and view["state"]["stock_size"] == 6
    view = play(api, game_id, tokens, "s7 discard")
    assert view["state"]["discard"] == ["7E", "1B"]


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
    assert view["status"] == "active"
    assert view["seats"][2] == {
        "seat": 2, "kind": "ai", "name": "P2", "level": "easy", "hand_size": 4, "resigned": True,
    }
    refused(api, game_id, tokens[2], "resign", 422, "illegal_action")
    refused(api, game_id, tokens[2], "match 0", 403, "not_your_turn")
    play(api, game_id, tokens, "s0 draw stock, s0 discard, s0 skip_power, s1 draw stock, s1 discard, s1 skip_power")
    api.run_ai(with_scheduler=False)  # seat 2 may match at once (easy knows nothing: it passes)
    assert api.view(game_id).json["state"]["turn"] == 2
    scheduled = ScheduledJobRegistry(queue=api.services.queue)
    assert len(scheduled.get_job_ids()) == 1  # the easy AI waits match_pause_ms before it draws (§3.18)
    api.run_ai()
    view = api.view(game_id, tokens[0]).json
    assert view["state"]["turn"] == 0 and view["status"] == "active"
    finished = play(api, game_id, tokens, "s1 resign")
    assert finished["status"] == "finished"
    assert finished["result"] == {
        "winners": [0], "losers": [1, 2], "draw": False, "reason": "resign",
        "scores": {"totals": {"0": 0, "1": 0, "2": 0}, "rounds": []},
    }
    refused(api, game_id, tokens[2], "resign", 409, "game_finished")


def test_ai_pause_is_scheduled_and_matchers_decide_at_once(api):
    """talmut.md §3.18: 1 human + 2 AI; after the human's discard the AI turn seat is scheduled, not queued."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}]
    created = api.create(seats, game=TALMUT, deck=deck(E1), options={"match_pause_ms": 200})
    assert created.status_code == 201 and created.json["status"] == "active"
    game_id, token = created.json["game_id"], created.json["player_token"]
    play(api, game_id, [token], "s0 draw stock, s0 swap 0")
    version = api.view(game_id).json["version"]
    scheduled = ScheduledJobRegistry(queue=api.services.queue)
    assert scheduled.get_job_ids() == [f"ai-{game_id}-{version}-1"]
    assert api.view(game_id).json["pending_ai"] == [1, 2]
    due = scheduled.get_scheduled_time(scheduled.get_job_ids()[0]).timestamp()
    assert 0.1 < due - time.time() <= 1.2  # at least the pause, rounded up to RQ's whole seconds
    api.run_ai()  # seat 2 (random) decides at once whether to match, seat 1 draws when due
    view = api.view(game_id, token).json
    assert view["version"] > version and view["state"]["round"] == 1
