"""Finished-game export and replay through the HTTP API on the real Redis (docs/api-additions.md, issue 41 point 3)."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from typing import Any

from tests.decks import stacked_deck

# trump H; P0 holds 6S 8H 8D 6C 10C JC, P1 7S 9H 9D 10D JD 7C; the stock's top is QS (durak.md §2.5)
DECK = stacked_deck("durak", top="6S 7S 8H 9H 6C 7C 8D 9D 10C 10D JC JD QH")
MOVES = [
    (0, {"type": "attack", "card": "6S"}),
    (1, {"type": "defend", "card": "7S", "against": "6S"}),
    (0, {"type": "done"}),
    (1, {"type": "attack", "card": "9D"}),
    (0, {"type": "take"}),
    (1, {"type": "done"}),
    (0, {"type": "resign"}),
]


def finished_durak(api, **body: Any) -> tuple[str, list[str]]:
    """A two-human Durak game of `DECK` played by `MOVES` to P0's resignation: (game id, tokens)."""
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], deck=DECK, **body)
    assert created.status_code == 201, created.json
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    seat = {"name": "Bob", "invite": created.json["invite"]} if body.get("visibility") == "private" else {"name": "Bob"}
    joined = api.request("POST", f"/v1/games/{game_id}/seats", json=seat)
    assert joined.status_code == 201, joined.json
    tokens.append(joined.json["player_token"])
    api.play(game_id, tokens, MOVES)
    return game_id, tokens


def exported(api, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = api.request("GET", f"/v1/games/{game_id}/export", token)
    assert response.status_code == 200, response.json
    return response.json


def replayed(api, export: dict[str, Any], **body: Any):
    return api.request("POST", "/v1/games", json={"replay": export, **body})


def game_keys(api) -> list[bytes]:
    """Every game's keys and every game id in the indexes (not the rate limits' counts)."""
    prefix = api.services.store.prefix
    keys = sorted(api.connection.scan_iter(match=f"{prefix}:{{*", count=1000))
    indexes = sorted(api.connection.scan_iter(match=f"{prefix}:index:*", count=1000))
    return keys + [member for index in indexes for member in sorted(api.connection.zrange(index, 0, -1))]


def test_export_is_refused_before_the_end(api) -> None:
    game_id, tokens = api.create_humans(deck=DECK)
    api.play(game_id, tokens, MOVES[:2])
    response = api.request("GET", f"/v1/games/{game_id}/export")
    assert (response.status_code, response.json["error"]) == (409, "not_finished")


def test_export_holds_the_whole_game_and_no_token(api) -> None:
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    assert export == {
        "format": "cardroom-export/1",
        "game_id": game_id,
        "game": "durak",
        "options": {},
        "seats": [{"seat": 0, "kind": "human", "name": "Ann"}, {"seat": 1, "kind": "human", "name": "Bob"}],
        "seed": export["seed"],
        "deck": DECK,
        "shuffled": False,
        "actions": [{"seat": seat, "action": action} for seat, action in MOVES],
        "result": {"winners": [1], "losers": [0], "draw": False, "scores": {"0": 0, "1": 1}, "reason": "resign"},
    }
    assert export["result"] == api.view(game_id).json["result"]
    # nothing of the events' own shape changed: the recorded deal and moves are never shown
    events = api.request("GET", f"/v1/games/{game_id}/events").json["events"]
    assert all("move" not in event and "deal" not in event for event in events)


def test_a_replay_is_the_same_finished_game_under_a_new_id(api) -> None:
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    response = replayed(api, export)
    assert response.status_code == 201, response.json
    view = response.json
    assert (view["status"], view["you"], view["player_token"]) == ("finished", None, None)
    assert view["game_id"] != game_id and response.headers["Location"] == f"/v1/games/{view['game_id']}"
    assert view["result"] == export["result"]
    assert [seat["open"] for seat in view["seats"]] == [False, False]
    again = exported(api, view["game_id"])
    assert {**again, "game_id": game_id} == export
    assert api.view(view["game_id"]).json["state"] == api.view(game_id).json["state"]


def test_a_seeded_game_against_the_ai_replays(api) -> None:
    """Talmut dealt from a seed (its later rounds shuffled by it) against two AI seats played by the worker."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}]
    created = api.create(seats, game="talmut", seed=11, options={"target": 30})
    assert created.status_code == 201, created.json
    game_id, token, rng = created.json["game_id"], created.json["player_token"], random.Random(3)
    for _ in range(3000):
        api.run_ai()
        view = api.view(game_id, token).json
        if view["status"] == "finished":
            break
        moves = [action for action in view["legal_actions"] if action["type"] != "resign"]
        if moves:
            api.act(game_id, token, rng.choice(moves))
    export = exported(api, game_id)
    assert export["shuffled"] is True and export["seed"] == 11
    assert {seat["kind"] for seat in export["seats"][1:]} == {"ai"}
    assert {entry["seat"] for entry in export["actions"]} == {0, 1, 2}
    response = replayed(api, export)
    assert response.status_code == 201, response.json
    assert {**exported(api, response.json["game_id"]), "game_id": game_id} == export


def test_a_tampered_action_is_refused_naming_it_and_nothing_is_written(api) -> None:
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    before = game_keys(api)
    tampered = copy.deepcopy(export)
    tampered["actions"][1]["action"] = {"type": "defend", "card": "9H", "against": "6S"}  # a trump, legal...
    tampered["actions"][2]["action"] = {"type": "take"}  # ...but P0 cannot take
    response = replayed(api, tampered)
    assert (response.status_code, response.json["error"], response.json["action_index"]) == (422, "replay_mismatch", 2)
    assert "action 2 does not apply" in response.json["message"]
    assert game_keys(api) == before


def test_a_replay_whose_result_differs_is_refused(api) -> None:
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    for change in (
        {"result": {**export["result"], "winners": [0], "losers": [1]}},
        {"actions": export["actions"][:-1]},
    ):
        before = game_keys(api)
        response = replayed(api, {**export, **change})
        assert (response.status_code, response.json["error"], response.json["action_index"]) == (
            422,
            "replay_mismatch",
            len(export["actions"]) - ("actions" in change),
        )
        assert game_keys(api) == before


def test_a_differing_result_is_named_as_json_in_the_refusal(api) -> None:
    # found attacking replays: the message showed the result as Python writes it, `'reason': <Reason.RESIGN: ...>`
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    response = replayed(api, {**export, "result": {**export["result"], "winners": [0], "losers": [1]}})
    assert response.json["error"] == "replay_mismatch"
    expected = f"finished with {json.dumps(export['result'], sort_keys=True)}, not the export's result"
    assert expected in response.json["message"]


def test_a_replay_is_checked_like_a_create(api) -> None:
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    cases = [
        ({"replay": {**export, "deck": DECK[1:]}}, 422, "invalid_deck"),
        ({"replay": {**export, "shuffled": True}}, 422, "invalid_deck"),  # not the seed's shuffle
        ({"replay": {**export, "game": "chess"}}, 404, "unknown_game"),
        ({"replay": {**export, "seats": export["seats"][:1]}}, 422, "invalid_request"),
        ({"replay": {**export, "format": "cardroom-export/0"}}, 422, "invalid_request"),
        ({"replay": {**export, "actions": [{"seat": 0, "action": {"type": "fly"}}]}}, 422, "invalid_request"),
        ({"replay": export, "game": "durak"}, 422, "invalid_request"),
        ({"seats": [{"kind": "ai", "level": "easy"}] * 2}, 422, "invalid_request"),  # neither game nor replay
    ]
    before = game_keys(api)
    for body, status, error in cases:
        response = api.request("POST", "/v1/games", json=body)
        assert (response.status_code, response.json["error"]) == (status, error), (body.keys(), response.json)
    assert game_keys(api) == before


def test_a_private_game_is_exported_to_whoever_may_read_it(api) -> None:
    game_id, tokens = finished_durak(api, visibility="private")
    assert exported(api, game_id, tokens[1]) == exported(api, game_id)  # like its view: the id is the secret
    response = api.request("GET", f"/v1/games/{game_id}/export", "not-a-token-of-this-game")
    assert (response.status_code, response.json["error"]) == (401, "unauthorized")
    replay = replayed(api, exported(api, game_id), visibility="private")
    assert replay.status_code == 201 and replay.json["visibility"] == "private"
    listed = api.request("GET", "/v1/games?status=finished").json["games"]
    assert replay.json["game_id"] not in [game["game_id"] for game in listed]


def test_a_game_stored_before_moves_were_recorded_has_no_export(api) -> None:
    game_id, _ = finished_durak(api)
    key = f"{api.services.store.prefix}:{{{game_id}}}:events"
    api.connection.lset(key, 0, api.connection.lindex(key, 0).replace(b'"deal"', b'"dealt"'))
    response = api.request("GET", f"/v1/games/{game_id}/export")
    assert (response.status_code, response.json["error"]) == (409, "not_exportable")


DURAK_TEXT = """\
Durak, Cardroom game GAME_ID
P0: Ann, dealt 6S 8H 8D 6C 10C JC
P1: Bob, dealt 7S 9H 9D 10D JD 7C
Trump: H (the bottom card QH)
Deck, top first: 6S 7S 8H 9H 6C 7C 8D 9D 10C 10D JC JD QH 8S 9S 10S JS QS KS AS 6H 7H 10H JH KH AH 6D 7D QD KD AD \
8C 9C QC KC AC

1. P0 attacks 6S, P1 beats 6S with 7S, P0 is done: beaten off; P0 draws 1, P1 draws 1
2. P1 attacks 9D, P0 takes, P1 is done: taken; P1 draws 1
3. P0 resigns

Result: P0 resigned, P1 wins
"""


def test_a_durak_game_as_a_plain_text_move_list(api) -> None:
    game_id, _ = finished_durak(api)
    response = api.request("GET", f"/v1/games/{game_id}/export?format=text")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    assert response.get_data(as_text=True) == DURAK_TEXT.replace("GAME_ID", game_id)


def test_text_is_offered_for_durak_only(api) -> None:
    created = api.create([{"kind": "ai", "level": "random"}] * 2, game="tadmur", seed=1)
    api.run_ai()
    game_id = created.json["game_id"]
    assert api.view(game_id).json["status"] == "finished"
    response = api.request("GET", f"/v1/games/{game_id}/export?format=text")
    assert (response.status_code, response.json["error"]) == (406, "not_acceptable")
    assert exported(api, game_id)["game"] == "tadmur"


def test_a_replay_checks_its_options_as_a_create_does(api) -> None:
    # "x" was stored, then every view of the game (and the 201 itself) raised in claim_after's int("x"): a 500
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    before = game_keys(api)
    for options in (
        {"claim_after_seconds": "x"},
        {"claim_after_seconds": 1},
        {"claim_after_seconds": 60, "clock": {"turn_seconds": 30}},
        {"clock": {"turn_seconds": "x"}},
    ):
        response = replayed(api, {**export, "options": options})
        assert (response.status_code, response.json["error"]) == (422, "invalid_request"), (options, response.json)
        assert "options" in response.json["errors"]["json"]["replay"], response.json
    assert game_keys(api) == before


def test_a_replay_names_its_seats_by_the_names_rule(api) -> None:
    # only Length(max=40) before: a blank name and a bidi override reached a public finished game in the lobby
    game_id, _ = finished_durak(api)
    export = exported(api, game_id)
    before = game_keys(api)
    for name in ("", "   ", "Ann\u202e", "A\x00", "x" * 41):
        seats = [{**export["seats"][0], "name": name}, export["seats"][1]]
        response = replayed(api, {**export, "seats": seats})
        assert (response.status_code, response.json["error"]) == (422, "invalid_request"), (name, response.json)
        assert response.json["errors"]["json"]["replay"]["seats"]["0"]["name"], response.json
    assert game_keys(api) == before
    seats = [{**export["seats"][0], "name": None}, export["seats"][1]]  # a human seat never named: as exported
    assert replayed(api, {**export, "seats": seats}).status_code == 201


def test_a_long_replay_lets_the_event_loop_run_between_its_moves() -> None:
    # a replay plays up to ~1,200 actions (64 KiB) in its request: 95 ms of CPU in one greenlet before this
    script = """
from gevent import monkey; monkey.patch_all()
import gevent
from service.export import TURN_EVERY, taking_turns
seen = []
ticker = gevent.spawn(lambda: [seen.append(n) or gevent.sleep(0) for n in range(1000)])
gevent.sleep(0)
steps = [len(seen) for _ in taking_turns(range(3 * TURN_EVERY))]
print(steps[0], steps[TURN_EVERY], steps[2 * TURN_EVERY])
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    first, second, third = map(int, out.stdout.split())
    assert first < second < third  # the other greenlet ran between each TURN_EVERY actions
