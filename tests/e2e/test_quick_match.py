"""Quick match against gunicorn + the RQ worker on the real Redis: a race of 50 tickets, and a fallback the sweep
seats with AI seats that the worker plays (docs/api-additions.md "Quick match")."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.e2e.stack import Stack, StallGuard, call

pytestmark = pytest.mark.e2e

TICKETS = 50
WAIT_SECONDS = 20


def follow(base_url: str, ticket: dict[str, Any]) -> dict[str, Any]:
    """Long-poll `ticket` until it stops waiting; the ticket then."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {ticket['ticket_token']}"
    guard = StallGuard(f"ticket {ticket['ticket_id']}")
    while ticket["status"] == "waiting":
        guard.check(None)
        response = call(session, "GET", f"{base_url}/v1/matches/{ticket['ticket_id']}?wait={WAIT_SECONDS}",
                        timeout=WAIT_SECONDS + 10)
        assert response.status_code == 200, response.text
        ticket = {**response.json(), "ticket_token": ticket["ticket_token"]}
    return ticket


def test_fifty_tickets_at_once_make_twenty_five_games_none_twice(stack: Stack) -> None:
    # options of this test's own (a clock nobody reaches), so no other test's tickets share the queue
    options = {"clock": {"turn_seconds": 3000 + random.randrange(600), "on_timeout": "forfeit"}}
    start = threading.Barrier(TICKETS)

    def one(number: int) -> dict[str, Any]:
        session = requests.Session()
        start.wait(timeout=60)
        made = call(session, "POST", f"{stack.base_url}/v1/matches",
                    json={"game": "durak", "options": options, "name": f"P{number}"})
        assert made.status_code == 202, made.text
        return follow(stack.base_url, made.json())

    with ThreadPoolExecutor(TICKETS) as pool:
        tickets = list(pool.map(one, range(TICKETS)))
    assert {ticket["status"] for ticket in tickets} == {"matched"}
    seats = Counter((ticket["game_id"], ticket["seat"]) for ticket in tickets)
    assert set(seats.values()) == {1}, "a seat of a game held by two tickets"
    games = Counter(ticket["game_id"] for ticket in tickets)
    assert len(games) == TICKETS // 2 and set(games.values()) == {2}
    session = requests.Session()
    for ticket in tickets:  # each token plays its own seat of its one game, which holds two humans
        view = call(session, "GET", f"{stack.base_url}/v1/games/{ticket['game_id']}",
                    headers={"Authorization": f"Bearer {ticket['player_token']}"}).json()
        assert (view["you"], view["status"]) == (ticket["seat"], "active")
        assert [seat["kind"] for seat in view["seats"]] == ["human", "human"]


def test_a_fallback_nobody_polls_is_seated_by_the_sweep_and_the_worker_plays_the_ai(stack: Stack) -> None:
    session = requests.Session()
    options = {"clock": {"turn_seconds": 3000 + random.randrange(600), "on_timeout": "forfeit"}}
    made = call(session, "POST", f"{stack.base_url}/v1/matches", json={
        "game": "durak", "options": options, "fallback": {"after_seconds": 1, "level": "random"}}).json()
    assert made["status"] == "waiting"
    time.sleep(8)  # no read until the sweep's interval (5 s) has passed: the worker seats the table on its own
    session.headers["Authorization"] = f"Bearer {made['ticket_token']}"
    ticket = call(session, "GET", f"{stack.base_url}/v1/matches/{made['ticket_id']}").json()
    assert (ticket["status"], ticket["seat"]) == ("matched", 0)
    game_url = f"{stack.base_url}/v1/games/{ticket['game_id']}"
    session.headers["Authorization"] = f"Bearer {ticket['player_token']}"
    view = call(session, "GET", game_url).json()
    assert [(seat["kind"], seat.get("level")) for seat in view["seats"]] == [("human", None), ("ai", "random")]
    rng = random.Random(uuid.UUID(ticket["game_id"]).int)
    guard = StallGuard(f"game {ticket['game_id']}")
    while view["status"] != "finished":
        guard.check(view["version"])
        if 0 in view["to_act"]:
            action = rng.choice([action for action in view["legal_actions"] if action["type"] != "resign"])
            response = call(session, "POST", f"{game_url}/actions", json=action)
            assert response.status_code in (200, 409), response.text
            view = response.json() if response.status_code == 200 else call(session, "GET", game_url).json()
        else:
            response = call(session, "GET", f"{game_url}?after_version={view['version']}&wait={WAIT_SECONDS}",
                            timeout=WAIT_SECONDS + 10)
            if response.status_code == 200:
                view = response.json()
    events = call(session, "GET", f"{game_url}/events").json()["events"]
    assert any(event.get("seat") == 1 for event in events if event["type"] not in ("created",)), events[:5]
