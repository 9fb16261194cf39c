"""A seat's access is the token that holds it now (issue 43, points 1 and 2), on the real stack.

gunicorn (2 gevent workers) and the RQ worker on the real Redis. A stream or a long-poll held by a token when its
player leaves, or when the seat changes hands, ends there (`event: revoked`, 401); a token whose Talmut seat the
`easy` AI plays reads the spectator view. Every deadline is a hang guard (`HANG_GUARD_SECONDS`, StallGuard).
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from tests.e2e.stack import Stack, StallGuard
from tests.e2e.test_waiting import HANG_GUARD_SECONDS, answered, bearer, sse_events
from tests.engine.talmut.notation import E1

pytestmark = pytest.mark.e2e

HUMAN = {"kind": "human"}
DRAW_STOCK = {"type": "draw", "source": "stock"}
E1_STOCK_TOP = "10O"
"""E1's `deck[13]` (talmut.md §2.6 with 3 seats): the card seat 0 draws from the stock first."""


def post(base_url: str, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    """POST `body` to `path` with `token`; must answer 200 or 201. Returns the JSON body."""
    response = requests.post(f"{base_url}{path}", json=body, headers=bearer(token) if token else {},
                             timeout=HANG_GUARD_SECONDS)
    assert response.status_code in (200, 201), response.text
    return response.json()


def get(base_url: str, path: str, token: str | None = None) -> requests.Response:
    return requests.get(f"{base_url}{path}", headers=bearer(token) if token else {}, timeout=HANG_GUARD_SECONDS)


def hold_long_poll(base_url: str, path: str, token: str) -> http.client.HTTPConnection:
    """Send a long-poll GET of `path` with `token` on its own connection; the answer is read later."""
    address = urlsplit(base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=HANG_GUARD_SECONDS)
    connection.request("GET", path, headers=bearer(token))
    return connection


def waiting_talmut(base_url: str) -> tuple[str, str]:
    """A 3-seat Talmut game dealt from E1, waiting: Ann (seat 0, the creator) and Bob (seat 1) seated, seat 2 open.

    Returns (game_id, Ann's token); the game is at version 2.
    """
    created = post(base_url, "/v1/games", body={"game": "talmut", "seats": [HUMAN] * 3, "deck": E1.split()})
    joined = post(base_url, f"/v1/games/{created['game_id']}/seats", body={"name": "Bob"})
    assert (joined["you"], joined["status"], joined["version"]) == (1, "waiting", 2)
    return created["game_id"], created["player_token"]


def without_presence(view: dict[str, Any]) -> dict[str, Any]:
    """`view` less each seat's `last_seen`, which the token's own requests write (shared/API.md presence)."""
    return {**view, "seats": [{key: value for key, value in seat.items() if key != "last_seen"}
                              for seat in view["seats"]]}


def test_a_stream_ends_when_its_player_leaves_and_never_shows_the_next_players_cards(stack: Stack) -> None:
    """Issue 43's reproduction: Ann streams, leaves; Cid takes seat 0 and draws 10O from the stock."""
    base = stack.base_url
    game_id, ann = waiting_talmut(base)
    with requests.get(f"{base}/v1/games/{game_id}/stream", headers=bearer(ann), stream=True,
                      timeout=HANG_GUARD_SECONDS) as stream:
        events = sse_events(stream)
        first = next(events)
        assert (first["event"], first["id"], first["data"]["you"]) == ("view", 2, 0)
        left = post(base, f"/v1/games/{game_id}/leave", ann)
        assert (left["outcome"], left["version"]) == ("seat_freed", 3)
        assert get(base, f"/v1/games/{game_id}", ann).status_code == 401
        cid = post(base, f"/v1/games/{game_id}/seats", body={"name": "Cid", "seat": 0})
        dee = post(base, f"/v1/games/{game_id}/seats", body={"name": "Dee"})
        assert (cid["you"], dee["you"], dee["status"]) == (0, 2, "active")
        drew = post(base, f"/v1/games/{game_id}/actions", cid["player_token"], DRAW_STOCK)
        assert (drew["version"], drew["state"]["drawn"]["card"]) == (6, E1_STOCK_TOP)
        assert get(base, f"/v1/games/{game_id}").json()["state"]["drawn"]["card"] is None  # a spectator's
        received = []
        for event in events:  # until the stream ends, or (before issue 43) shows the version of the draw
            received.append(event)
            if event["event"] != "view" or event["id"] >= drew["version"]:
                break
        assert received == [{"id": None, "event": "revoked", "data": {
            "code": 401, "status": "Unauthorized", "error": "unauthorized", "version": 3,
            "message": "this token no longer holds seat 0 of this game",
        }}]
        assert list(events) == []  # and the stream is over


def test_a_long_poll_in_flight_answers_401_when_its_player_leaves(stack: Stack) -> None:
    base = stack.base_url
    game_id, ann = waiting_talmut(base)
    held = hold_long_poll(base, f"/v1/games/{game_id}?after_version=2&wait=30", ann)
    try:
        assert answered([held], within=1.0) == 0  # held: nothing new yet
        assert post(base, f"/v1/games/{game_id}/leave", ann)["version"] == 3
        response = held.getresponse()
        body = json.loads(response.read())
        assert (response.status, response.getheader("WWW-Authenticate"), body["error"], body["message"]) == (
            401, "Bearer", "unauthorized", "this token no longer holds seat 0 of this game")
    finally:
        held.close()


def test_a_leavers_stream_long_poll_and_token_lose_the_seat_the_ai_plays_on(stack: Stack) -> None:
    """Issue 43 point 2: Ann draws 10O, then leaves the active Talmut game (talmut.md §3.17: `easy` plays seat 0
    on); her held stream and long-poll end, and her token reads the spectator view, never what the AI learns next:
    the worker discards 10O and uses the sota (§3.5) to peek at seat 0's position 0, E1's 7C."""
    base = stack.base_url
    created = post(base, "/v1/games", body={"game": "talmut", "deck": E1.split(),
                                            "seats": [HUMAN, HUMAN, {"kind": "ai", "level": "easy"}]})
    game_id, ann = created["game_id"], created["player_token"]
    bob = post(base, f"/v1/games/{game_id}/seats", body={"name": "Bob"})["player_token"]
    drew = post(base, f"/v1/games/{game_id}/actions", ann, DRAW_STOCK)
    assert (drew["version"], drew["state"]["drawn"]["card"]) == (3, E1_STOCK_TOP)
    held = hold_long_poll(base, f"/v1/games/{game_id}?after_version=3&wait=30", ann)
    try:
        with requests.get(f"{base}/v1/games/{game_id}/stream", headers=bearer(ann), stream=True,
                          timeout=HANG_GUARD_SECONDS) as stream:
            events = sse_events(stream)
            first = next(events)
            assert (first["id"], first["data"]["you"], first["data"]["state"]["drawn"]["card"]) == (3, 0, "10O")
            assert answered([held], within=1.0) == 0
            left = post(base, f"/v1/games/{game_id}/leave", ann)
            assert (left["outcome"], left["version"]) == ("resigned", 4)
            revoked = next(events)
            assert (revoked["event"], revoked["data"]["version"], revoked["data"]["error"]) == (
                "revoked", 4, "unauthorized")
            assert list(events) == []
        response = held.getresponse()
        assert (response.status, json.loads(response.read())["error"]) == (401, "unauthorized")
    finally:
        held.close()
    # the worker plays the rest of seat 0's turn; then Bob (seat 1) is to play
    spectator = get(base, f"/v1/games/{game_id}").json()
    guard = StallGuard(f"game {game_id}")
    while spectator["state"]["turn"] != 1 or spectator["pending_ai"]:
        guard.check(spectator["version"])
        polled = get(base, f"/v1/games/{game_id}?after_version={spectator['version']}&wait=2")
        spectator = polled.json() if polled.status_code == 200 else get(base, f"/v1/games/{game_id}").json()
    mine = get(base, f"/v1/games/{game_id}", ann)
    assert mine.status_code == 200
    assert (spectator["version"], spectator["seats"][0]["kind"], spectator["you"]) == (6, "ai", None)
    assert without_presence(mine.json()) == without_presence(spectator)  # `you` null, no card the AI saw
    assert spectator["state"]["layouts"][0]["slots"][0] == {"position": 0, "empty": False, "card": None,
                                                            "seen_by": [0]}
    events_of = [get(base, f"/v1/games/{game_id}/events?after=4", token).json() for token in (ann, None)]
    assert events_of[0] == events_of[1]
    assert [event["type"] for event in events_of[1]["events"]] == ["discarded", "peeked"]
    assert events_of[1]["events"][1] == {"version": 6, "type": "peeked", "seat": 0,
                                         "target": {"seat": 0, "position": 0}}  # seat 0's own event adds 7C
    # the token still names its seat: leaving again changes nothing; Bob's token is unchanged
    again = post(base, f"/v1/games/{game_id}/leave", ann)
    assert (again["outcome"], again["version"]) == ("resigned", 6)
    assert get(base, f"/v1/games/{game_id}", bob).json()["you"] == 1
