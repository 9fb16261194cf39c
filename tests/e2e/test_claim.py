"""A claim against an absent player on real gunicorn and the real RQ worker (docs/api-additions.md "Presence and
claims"): a three-seat Talmut, two humans and an `easy` AI; Ann plays a turn and goes away, Bob claims once she has
been away `claim_after_seconds` (the shortest, 30 s, waited out in real time: `Retry-After` says how long), the AI
plays her seat on (talmut.md §3.17) and Bob plays the game to its end."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
import requests

from service.presence import MIN_SECONDS
from tests.e2e.stack import Stack, StallGuard, call

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 5
OPTIONAL = ("match", "withdraw", "resign")


def turn_actions(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's actions the game waits for (not the optional ones)."""
    return [action for action in view["legal_actions"] if action["type"] not in OPTIONAL]


def play_turn(session: requests.Session, game_url: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Play random turn actions for the session's seat while it has some; the view after them."""
    while turn_actions(view):
        response = call(session, "POST", f"{game_url}/actions", json=rng.choice(turn_actions(view)))
        if response.status_code == 409:  # an AI seat's move landed first, or ended the game: look again
            assert response.json()["error"] in ("version_conflict", "game_finished"), response.text
            view = call(session, "GET", game_url).json()
            continue
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def awaited(view: dict[str, Any]) -> list[int]:
    """The seats the game waits for, as the view's `claim` block names them."""
    return [entry["seat"] for entry in view["claim"]["seats"]]


def next_version(session: requests.Session, game_url: str, view: dict[str, Any]) -> dict[str, Any]:
    polled = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}")
    return polled.json() if polled.status_code == 200 else view


def test_bob_claims_against_absent_ann_and_the_game_goes_on_to_its_end(stack: Stack) -> None:
    rng = random.Random(41)
    ann, bob = requests.Session(), requests.Session()
    created = call(
        ann,
        "POST",
        f"{stack.base_url}/v1/games",
        json={
            "game": "talmut",
            "seed": 41,
            "options": {"target": 10, "match_pause_ms": 50, "claim_after_seconds": MIN_SECONDS},
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "human"}],
        },
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    game_url = f"{stack.base_url}/v1/games/{game_id}"
    ann.headers["Authorization"] = f"Bearer {created.json()['player_token']}"
    joined = call(bob, "POST", f"{game_url}/seats", json={"name": "Bob"})
    assert joined.status_code == 201, joined.text
    bob.headers["Authorization"] = f"Bearer {joined.json()['player_token']}"

    # Ann plays one whole turn (Bob his, if his comes first), then makes no request again
    guard = StallGuard(f"game {game_id}")
    ann_view, bob_view = call(ann, "GET", game_url).json(), joined.json()
    while not turn_actions(ann_view):
        guard.check(ann_view["version"])
        bob_view = play_turn(bob, game_url, bob_view, rng)
        ann_view = next_version(ann, game_url, ann_view)
    play_turn(ann, game_url, ann_view, rng)
    ann_left = time.time()

    # Bob plays his turns until the game waits for Ann again
    bob_view = call(bob, "GET", game_url).json()
    while awaited(bob_view) != [0]:
        guard.check(bob_view["version"])
        bob_view = play_turn(bob, game_url, bob_view, rng)
        if awaited(bob_view) != [0]:
            bob_view = next_version(bob, game_url, bob_view)

    # too early: 409 with the seconds left, then the claim after them
    for _ in range(3):
        claimed = call(bob, "POST", f"{game_url}/claim")
        if claimed.status_code != 409:
            break
        assert claimed.json()["error"] == "claim_too_early", claimed.text
        left = int(claimed.headers["Retry-After"])
        assert 1 <= left <= MIN_SECONDS
        time.sleep(left)
    assert claimed.status_code == 200, claimed.text
    assert time.time() - ann_left >= MIN_SECONDS - 10  # her last_seen may be up to 10 s older than her last request
    view = claimed.json()
    assert view["you"] == 2 and view["status"] == "active" and view["result"] is None  # talmut.md §3.17
    assert view["seats"][0]["kind"] == "ai" and view["seats"][0]["resigned"] is True
    history = call(bob, "GET", f"{game_url}/events?after={view['version'] - 1}").json()["events"]
    assert [event["type"] for event in history][:2] == ["claimed", "resigned"]
    assert history[0] == {"version": view["version"], "type": "claimed", "seat": 0, "by": 2}
    assert call(ann, "POST", f"{game_url}/claim").json()["error"] == "not_your_claim"  # her seat is the AI's

    # the worker plays Ann's seat now; Bob plays on to the target
    while view["status"] != "finished":
        guard.check(view["version"])
        view = play_turn(bob, game_url, view, rng)
        if view["status"] != "finished":
            view = next_version(bob, game_url, view)
    result = view["result"]
    assert result["reason"] == "target_reached" and 0 in result["losers"] and 0 not in result["winners"]
