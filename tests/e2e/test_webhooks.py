"""Your-turn webhooks end to end: real gunicorn, a real worker (its scheduler runs the retries), a receiver on
127.0.0.1 that verifies every signature (tests/webhook_receiver.py). docs/api-additions.md "Your-turn webhooks".

The stack allows only the receiver's `127.0.0.1:<port>`; 127.0.0.2 is loopback too, but not allowed (SSRF).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.stack import Stack, StallGuard, call, start_stack, stop_stack
from tests.webhook_receiver import Receiver, start_receiver

pytestmark = pytest.mark.e2e

SECRET = "e2e-webhook-secret-0123456789"
HUMAN_VS_AI = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}]
RETRY_GUARD_SECONDS = 60.0
"""Hang guard of the retried delivery: its two retries wait 1 s and 4 s, RQ's scheduler polls each second."""


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    running = start_receiver()
    yield running
    running.close()


@pytest.fixture(scope="module")
def hooked_stack(receiver: Receiver) -> Iterator[Stack]:
    running = start_stack(label="e2e-hooks", environment={"WEBHOOK_ALLOWED_HOSTS": f"127.0.0.1:{receiver.port}"})
    try:
        yield running
    finally:
        stop_stack(running)


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as one:
        yield one


def create(session: requests.Session, stack: Stack, **body: Any) -> dict[str, Any]:
    created = call(session, "POST", f"{stack.base_url}/v1/games", json={"game": "durak", "seats": HUMAN_VS_AI, **body})
    assert created.status_code == 201, created.text
    return created.json()


def last_delivery(session: requests.Session, stack: Stack, game: dict[str, Any]) -> dict[str, Any] | None:
    answer = call(
        session,
        "GET",
        f"{stack.base_url}/v1/games/{game['game_id']}/seats/{game['you']}/webhook",
        headers={"Authorization": f"Bearer {game['player_token']}"},
    )
    assert answer.status_code == 200, answer.text
    assert SECRET not in answer.text
    return answer.json()["last_delivery"]


def test_a_bot_that_moves_only_when_its_webhook_calls(
    hooked_stack: Stack, receiver: Receiver, session: requests.Session
) -> None:
    url = receiver.expect("/e2e-game", SECRET)
    game = create(session, hooked_stack, seed=11, webhook={"url": url, "secret": SECRET})
    auth = {"Authorization": f"Bearer {game['player_token']}"}
    game_url = f"{hooked_stack.base_url}/v1/games/{game['game_id']}"
    guard, seen = StallGuard("the webhook game"), 0
    while True:
        got = receiver.wait_for("/e2e-game", seen + 1)
        event = got[seen].event
        seen += 1
        guard.check(event["version"])
        assert got[seen - 1].verified and event["game_id"] == game["game_id"] and event["seat"] == 0
        if event["event"] == "game_over":
            break
        assert event["event"] == "your_turn" and 0 in event["to_act"] and event["deadline"] is None
        view = call(session, "GET", game_url, headers=auth).json()
        assert view["version"] >= event["version"]
        while view["status"] == "active" and view["legal_actions"]:  # our own move's answer tells us to go on
            view = call(session, "POST", f"{game_url}/actions", headers=auth, json=view["legal_actions"][0]).json()
    final = call(session, "GET", game_url, headers=auth).json()
    assert final["status"] == "finished" and event["result"] == final["result"] and event["version"] == final["version"]
    last = last_delivery(session, hooked_stack, game)
    assert last is not None and last.pop("at").endswith("Z")
    assert last == {
        "event": "game_over",
        "version": final["version"],
        "status": "delivered",
        "http_status": 200,
        "attempts": 1,
    }
    metrics = call(session, "GET", f"{hooked_stack.base_url}/metrics").text
    assert 'cardroom_webhook_deliveries_total{event="game_over",outcome="delivered"}' in metrics


def test_a_receiver_answering_500_gets_the_event_again_until_it_takes_it(
    hooked_stack: Stack, receiver: Receiver, session: requests.Session
) -> None:
    url = receiver.expect("/e2e-flaky", SECRET, [500, 500, 200])
    game = create(session, hooked_stack, seed=11, webhook={"url": url, "secret": SECRET})
    got = receiver.wait_for("/e2e-flaky", 3, timeout=RETRY_GUARD_SECONDS)
    assert [delivery.answered for delivery in got] == [500, 500, 200]
    assert all(delivery.verified for delivery in got) and len({delivery.body for delivery in got}) == 1
    # RETRY_INTERVALS' backoff, 1 s then 4 s, to RQ's scheduler's whole seconds (a due time rounded down, a poll
    # a second): the first gap 0-2 s, the second 3-5 s
    first_gap, second_gap = got[1].at - got[0].at, got[2].at - got[1].at
    assert second_gap >= 3 and second_gap > first_gap > 0, (first_gap, second_gap)
    assert [delivery.event["version"] for delivery in got] == [got[0].event["version"]] * 3
    delivered = last_delivery(session, hooked_stack, game)
    assert delivered is not None
    assert (delivered["status"], delivered["http_status"], delivered["attempts"]) == ("delivered", 200, 3)


def test_a_receiver_with_the_wrong_secret_rejects_once(
    hooked_stack: Stack, receiver: Receiver, session: requests.Session
) -> None:
    url = receiver.expect("/e2e-wrong", "the-receivers-other-secret")
    game = create(session, hooked_stack, seed=11, webhook={"url": url, "secret": SECRET})
    got = receiver.wait_for("/e2e-wrong", 1)
    assert (got[0].verified, got[0].answered) == (False, 401)
    guard = StallGuard("the rejected delivery's status")
    while (last := last_delivery(session, hooked_stack, game)) is None:
        guard.check(None)
        time.sleep(0.05)
    assert (last["status"], last["http_status"], last["attempts"]) == ("failed", 401, 1)
    assert len(receiver.at("/e2e-wrong")) == 1  # a 4xx is not retried


def test_a_loopback_address_outside_the_allow_list_is_refused(
    hooked_stack: Stack, receiver: Receiver, session: requests.Session
) -> None:
    outside = start_receiver("127.0.0.2")  # loopback, listening, but not in WEBHOOK_ALLOWED_HOSTS
    try:
        url = outside.expect("/e2e-outside", SECRET)
        assert requests.post(url, data=b"{}", timeout=5).status_code == 401  # reachable: it answers unsigned posts
        refused = call(
            session,
            "POST",
            f"{hooked_stack.base_url}/v1/games",
            json={"game": "durak", "seats": HUMAN_VS_AI, "webhook": {"url": url, "secret": SECRET}},
        )
        assert (refused.status_code, refused.json()["error"]) == (422, "webhook_not_allowed")
        game = create(session, hooked_stack, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
        joined = call(
            session,
            "POST",
            f"{hooked_stack.base_url}/v1/games/{game['game_id']}/seats",
            json={"name": "Bob", "webhook": {"url": url, "secret": SECRET}},
        )
        assert (joined.status_code, joined.json()["error"]) == (422, "webhook_not_allowed")
        assert [delivery.verified for delivery in outside.at("/e2e-outside")] == [False]  # only the test's own post
    finally:
        outside.close()
