"""Whole Talmut games over HTTP against gunicorn + the RQ worker (with its scheduler): a human with AI seats, an
all-AI table of 8, and two seats matching at the same moment through the two gunicorn workers."""

from __future__ import annotations

import math
import random
import threading
import time
from typing import Any

import pytest
import requests

from service.clocks import utc_iso
from service.redis_clients import redis_client
from service.store import GameStore
from tests.e2e.stack import Stack, StallGuard, call
from tests.engine.talmut.notation import E1

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 5


def check_finished(view: dict[str, Any], seats: int) -> None:
    """talmut.md §5.4-§5.7: the totals add up from the round history; winners hold the lowest total."""
    assert view["status"] == "finished" and view["to_act"] == [] and view["legal_actions"] == []
    result = view["result"]
    assert result["reason"] == "target_reached"
    totals, rounds = result["scores"]["totals"], result["scores"]["rounds"]
    assert rounds and totals == view["state"]["totals"]
    for seat in map(str, range(seats)):
        assert totals[seat] == sum(entry["points"][seat] for entry in rounds)
    assert max(totals.values()) >= 10  # the target
    lowest = min(totals.values())
    assert result["winners"] == [seat for seat in range(seats) if totals[str(seat)] == lowest]


def wait_finished(session: requests.Session, game_url: str, view: dict[str, Any]) -> dict[str, Any]:
    """Long-poll the game until it is finished (the AI seats play it on their own); no view shows an AI pause."""
    guard = StallGuard(f"game {view['game_id']}")
    while view["status"] != "finished":
        guard.check(view["version"])
        assert view["ai_pauses"] == [], view["ai_pauses"]  # no human may match: nobody can use a pause
        polled = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}")
        if polled.status_code == 200:
            view = polled.json()
    return view


def wait_until(session: requests.Session, game_url: str, view: dict[str, Any], done) -> dict[str, Any]:
    """Long-poll the game until `done(view)`; the hang guard judges progress (new versions), not time."""
    guard = StallGuard(f"game {view['game_id']}")
    while not done(view):
        guard.check(view["version"])
        polled = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}")
        if polled.status_code == 200:
            view = polled.json()
    return view


def test_one_human_and_two_ai_seats_play_to_the_target(stack: Stack) -> None:
    """talmut.md §3.18 with a 50 ms pause: the human plays random legal moves (matching now and then, never
    resigning) against `easy` and `random`; the worker's scheduler runs the AI's paused draws."""
    rng = random.Random(6)
    session = requests.Session()
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={
        "game": "talmut", "seed": 6, "options": {"target": 10, "match_pause_ms": 50},
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}],
    })
    assert created.status_code == 201, created.text
    view = created.json()
    game_url = f"{stack.base_url}/v1/games/{view['game_id']}"
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    guard = StallGuard(f"game {view['game_id']}")
    while view["status"] != "finished":
        guard.check(view["version"])
        turn = [a for a in view["legal_actions"] if a["type"] not in ("match", "withdraw", "resign")]
        optional = [a for a in view["legal_actions"] if a["type"] == "match"]
        choice = rng.choice(turn) if turn else (rng.choice(optional) if optional and rng.random() < 0.1 else None)
        if choice is None:  # not our turn: wait for the next version
            polled = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}")
            if polled.status_code == 200:
                view = polled.json()
            continue
        response = call(session, "POST", f"{game_url}/actions", json=choice)
        if response.status_code == 409:  # an AI seat's move landed first (and may have ended the game): look again
            assert response.json()["error"] in ("version_conflict", "game_finished"), response.text
            view = call(session, "GET", game_url).json()
            continue
        if response.status_code in (403, 422):  # our match raced an AI draw that closed the window (§4.3)
            assert choice["type"] == "match", response.text
            view = call(session, "GET", game_url).json()
            continue
        assert response.status_code == 200, response.text
        view = response.json()
    check_finished(view, 3)


def test_eight_ai_seats_play_themselves_to_the_target(stack: Stack) -> None:
    """talmut.md §2.1, §3.18: 8 AI seats start at once and finish a game; a spectator watches. With the default
    pause (1.5 s) no AI ever waits: no seat played by a human may match, so every view shows no pause."""
    session = requests.Session()
    levels = ["easy", "random"] * 4
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={
        "game": "talmut", "seed": 8, "options": {"target": 10},
        "seats": [{"kind": "ai", "level": level} for level in levels],
    })
    assert created.status_code == 201, created.text
    view = created.json()
    assert view["status"] == "active" and view["player_token"] is None
    view = wait_finished(session, f"{stack.base_url}/v1/games/{view['game_id']}", view)
    check_finished(view, 8)


def test_the_view_shows_an_ai_pause_and_a_match_that_leaves_it_no_use_ends_it(stack: Stack) -> None:
    """talmut.md §3.18 with the longest pause (10 s), a human and two `easy` seats, E1. After the human's discard
    only AI seat 2 may match: seat 1 plays at once and the view shows no pause. After seat 1's turn the human may
    match: the view shows seat 2's pause, `until` the time its job is due (from the stored start of the wait).
    The human matches (right or wrong, it may not match again): nobody can use the rest of the pause, the view
    shows none and seat 2 moves before the old `until`."""
    session = requests.Session()
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={
        "game": "talmut", "deck": E1.split(), "options": {"match_pause_ms": 10000},
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}],
    })
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    game_url = f"{stack.base_url}/v1/games/{game_id}"
    session.headers["Authorization"] = f"Bearer {created.json()['player_token']}"
    for body in ({"type": "draw", "source": "stock"}, {"type": "swap", "position": 0}):
        response = call(session, "POST", f"{game_url}/actions", json=body)
        assert response.status_code == 200, response.text
    view = response.json()
    assert view["state"]["turn"] == 1 and view["ai_pauses"] == []
    view = wait_until(session, game_url, view, lambda seen: seen["state"]["turn"] == 2)
    assert (view["state"]["phase"], view["state"]["window"]["last_thrower"]) == ("draw", 1)
    record = GameStore(redis_client(stack.redis_url), stack.prefix).load(game_id)
    until = math.ceil(record.ai_delays_since["2"] + 10)
    assert view["ai_pauses"] == [{"seat": 2, "reason": "match_window", "until": utc_iso(until)}]
    assert view["pending_ai"] == [2]
    mine = view["state"]["layouts"][0]["slots"]
    position = next(slot["position"] for slot in mine if not slot["empty"])
    response = call(session, "POST", f"{game_url}/actions", json={"type": "match", "position": position})
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["ai_pauses"] == [] and 0 not in view["to_act"]
    wait_until(session, game_url, view, lambda seen: (seen["state"]["turn"], seen["state"]["phase"]) != (2, "draw"))
    assert time.time() < until  # seat 2 did not wait out the pause nobody could use


def test_two_seats_matching_at_once(stack: Stack) -> None:
    """talmut.md §3.9, shared/API.md: two matches sent at the same moment to the two gunicorn workers; each is
    applied (judged in arrival order) or refused with 409 `version_conflict` leaving nothing changed, and a
    refused seat can re-read and match again."""
    session = requests.Session()
    humans = [{"kind": "human", "name": f"P{n}"} for n in range(3)]
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={"game": "talmut", "seats": humans,
                                                                           "deck": E1.split()})
    game_url = f"{stack.base_url}/v1/games/{created.json()['game_id']}"
    tokens = [created.json()["player_token"]]
    tokens += [call(session, "POST", f"{game_url}/seats", json={"name": f"P{n}"}).json()["player_token"]
               for n in (1, 2)]

    def act(seat: int, body: dict[str, Any], **headers: str) -> requests.Response:
        headers["Authorization"] = f"Bearer {tokens[seat]}"
        return call(requests.Session(), "POST", f"{game_url}/actions", json=body, headers=headers)

    for body in ({"type": "draw", "source": "stock"}, {"type": "swap", "position": 0}):
        assert act(0, body).status_code == 200  # window {"7", 0}: seat 1 holds 5B at 1.1, seat 2 7E at 2.1
    start = call(session, "GET", game_url).json()["version"]
    barrier = threading.Barrier(2)
    responses: dict[int, requests.Response] = {}

    def race(seat: int) -> None:
        barrier.wait()
        responses[seat] = act(seat, {"type": "match", "position": 1})

    threads = [threading.Thread(target=race, args=(seat,)) for seat in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = {seat: response.status_code for seat, response in responses.items()}
    assert set(statuses.values()) <= {200, 409} and 200 in statuses.values(), statuses
    for seat, response in responses.items():
        if response.status_code == 409:
            assert response.json()["error"] == "version_conflict"
            retried = act(seat, {"type": "match", "position": 1})  # re-read (the body is still legal) and retry
            assert retried.status_code == 200, retried.text
    view = call(session, "GET", game_url, headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert view["version"] == start + 2  # both matches applied once each, nothing else
    layouts = view["state"]["layouts"]
    assert layouts[2]["slots"][1]["empty"] is True and layouts[1]["slots"][1]["card"] == "5B"
    assert view["state"]["window"] == {"rank": "7", "last_thrower": 2, "wrong_matchers": [1]}
    assert view["state"]["stock_size"] == 25


ROUND_VERSIONS = 2000
"""Issue 45's hang guard for round 1 against `hard` seats, counted in progress: it ends within this many versions
(it took 54, 93 and 169 at 3, 5 and 8 seats; one wrong match after another once held a window open for ever, and
the search seats never called)."""


def wrong_matches_per_window(events: list[dict[str, Any]]) -> list[int]:
    """Per seat, the most wrong matches it made in any one matching window (talmut.md §3.9, §3.11): a window
    closes at a draw, a call and a round's end."""
    most: dict[int, int] = {}
    window: dict[int, int] = {}
    for event in events:
        if event["type"] in ("drew", "called", "round_ended"):
            window = {}
        elif event["type"] == "matched" and not event["correct"]:
            window[event["seat"]] = window.get(event["seat"], 0) + 1
            most[event["seat"]] = max(most.get(event["seat"], 0), window[event["seat"]])
    return [most.get(seat, 0) for seat in range(max(most, default=-1) + 1)]


@pytest.mark.parametrize(("seats", "options"), [
    (3, {}), (5, {"target": 1, "match_pause_ms": 300}), (8, {"target": 1, "match_pause_ms": 300})])
def test_a_first_legal_action_bot_against_hard_seats_sees_round_one_end(
    stack: Stack, seats: int, options: dict[str, Any]
) -> None:
    """Issue 45: the bot at seat 0 posts the first action it is offered (but `resign`) whenever it has one, against
    `hard` seats. With 3 seats and default options it once made 7,183 wrong matches in one window, and with matches
    skipped the `hard` seats never called: round 1 did not end in 6 minutes. Now each seat gets one wrong match per
    window (talmut.md §3.11, §7.23) and the search seats call (engine/games/talmut/players.py `search_first`): round 1
    ends, and no seat ever made two wrong matches in one window. At 8 seats the bot's penalty cards spent the 7-card
    stock, and the `hard` seats, each under 1 in 7 to be lowest, took the pile's one card and put it back for 2,000
    versions (CI): now they call once the stock is spent (`stock_spent`). The tables of 5 and 8 play one round (target
    1) with a shorter pause, to keep the test short."""
    session = requests.Session()
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={
        "game": "talmut", "seed": 45, "options": options,
        "seats": [{"kind": "human", "name": "Bot"}] + [{"kind": "ai", "level": "hard"}] * (seats - 1),
    })
    assert created.status_code == 201, created.text
    view = created.json()
    game_url = f"{stack.base_url}/v1/games/{view['game_id']}"
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    guard = StallGuard(f"game {view['game_id']}")
    while view["status"] != "finished" and not view["state"]["history"]:
        guard.check(view["version"])
        assert view["version"] < ROUND_VERSIONS, f"round 1 still going: {view['state']}"
        offered = [action for action in view["legal_actions"] if action["type"] != "resign"]
        if not offered:
            polled = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}")
            if polled.status_code == 200:
                view = polled.json()
            continue
        response = call(session, "POST", f"{game_url}/actions", json=offered[0])
        if response.status_code in (403, 409, 422):  # an AI seat's draw closed the window first (§4.3): look again
            assert offered[0]["type"] == "match" or response.json()["error"] == "version_conflict", response.text
            view = call(session, "GET", game_url).json()
            continue
        assert response.status_code == 200, response.text
        view = response.json()
    assert view["state"]["history"][0]["round"] == 1
    events = call(session, "GET", f"{game_url}/events").json()["events"]
    assert max(wrong_matches_per_window(events), default=0) <= 1
    if options.get("target") == 1:
        check_finished(view, seats)
