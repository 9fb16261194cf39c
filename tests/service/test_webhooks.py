"""Your-turn webhooks through the HTTP API (the app in this process, the real Redis, deliveries by the real job).

docs/api-additions.md "Your-turn webhooks". The end-to-end run with gunicorn and a worker is
tests/e2e/test_webhooks.py.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service import webhooks
from service.config import webhook_allowed_hosts
from service.webhooks import host_allowed, signature, verify
from tests.redis_server import free_port
from tests.service.conftest import Api
from tests.webhook_receiver import Receiver, start_receiver
from worker.webhooks import attempt

SECRET = "whsec_0123456789abcdef"
HUMAN_VS_AI = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}]


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    running = start_receiver()
    yield running
    running.close()


@pytest.fixture
def hooked(api: Api, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> Api:
    """`api` whose web side and (in-process) worker allow the receiver's host and port only."""
    allowed = f"127.0.0.1:{receiver.port}"
    api.app.config["WEBHOOK_ALLOWED_HOSTS"] = webhook_allowed_hosts(allowed)
    monkeypatch.setenv("WEBHOOK_ALLOWED_HOSTS", allowed)
    return api


def test_signature_matches_a_known_vector() -> None:
    # printf '1700000000.{"event":"your_turn"}' | openssl dgst -sha256 -hmac whsec_0123456789abcdef
    expected = "ee412411cf3d375c2e774fc914ba89e38a70356a65bc6b7d0155d7639e01d145"
    assert signature(SECRET, 1700000000, b'{"event":"your_turn"}') == f"t=1700000000,v1={expected}"


def test_verify_accepts_only_the_right_secret_body_and_time() -> None:
    body = b'{"event":"game_over"}'
    header = signature(SECRET, 1700000000, body)
    assert verify(SECRET, header, body, now=1700000100)
    assert not verify("another-secret-of-16", header, body, now=1700000100)
    assert not verify(SECRET, header, body + b" ", now=1700000100)
    assert not verify(SECRET, header, body, now=1700000000 + 301)  # a replay past the tolerance
    assert not verify(SECRET, "v1=" + header.partition("v1=")[2], body, now=1700000000)  # no t
    assert verify(SECRET, header + ",v1=00ff", body, now=1700000000)  # one v1 of several matches


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:9000/hook", True),
        ("https://127.0.0.1:9000/hook", True),
        ("http://hooks.example.com/x", True),  # no port listed: the scheme's default
        ("https://hooks.example.com/x", True),
        ("http://hooks.example.com:8080/x", False),
        ("http://HOOKS.example.com/x", True),  # hosts are case-insensitive
        ("http://127.0.0.2:9000/hook", False),  # loopback, but not listed
        ("http://127.1:9000/hook", False),  # the same address spelled otherwise: no name is resolved
        ("http://127.0.0.1:9001/hook", False),
        ("http://[::1]:9000/hook", False),
        ("ftp://127.0.0.1:9000/hook", False),
    ],
)
def test_host_allowed_is_an_exact_match(url: str, allowed: bool) -> None:
    hosts = webhook_allowed_hosts("127.0.0.1:9000, hooks.example.com")
    assert host_allowed(url, hosts) is allowed


def test_an_empty_allow_list_refuses_every_webhook(api: Api, receiver: Receiver) -> None:
    assert api.app.config["WEBHOOK_ALLOWED_HOSTS"] == frozenset()  # the default
    body = {"webhook": {"url": receiver.url("/a"), "secret": SECRET}}
    created = api.create(HUMAN_VS_AI, **body)
    assert (created.status_code, created.json["error"]) == (422, "webhook_not_allowed")
    assert "WEBHOOK_ALLOWED_HOSTS is empty" in created.json["message"]
    assert api.request("GET", "/v1/games?status=active").json["games"] == []  # nothing was created


def test_a_host_outside_the_allow_list_is_refused_on_create_and_join(hooked: Api, receiver: Receiver) -> None:
    outside = {"url": receiver.url("/a", host="127.0.0.2"), "secret": SECRET}
    created = hooked.create(HUMAN_VS_AI, webhook=outside)
    assert (created.status_code, created.json["error"]) == (422, "webhook_not_allowed")
    game = hooked.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}]).json
    joined = hooked.request("POST", f"/v1/games/{game['game_id']}/seats", json={"name": "Bob", "webhook": outside})
    assert (joined.status_code, joined.json["error"]) == (422, "webhook_not_allowed")
    assert hooked.view(game["game_id"]).json["seats"][1]["open"] is True  # nobody was seated


@pytest.mark.parametrize(
    ("webhook", "field"),
    [
        ({"url": "ftp://127.0.0.1/x", "secret": SECRET}, "url"),
        ({"url": "127.0.0.1/x", "secret": SECRET}, "url"),
        ({"url": "http://user:pw@127.0.0.1/x", "secret": SECRET}, "url"),
        ({"url": "http://127.0.0.1/x#frag", "secret": SECRET}, "url"),
        ({"url": "http://127.0.0.1:99999/x", "secret": SECRET}, "url"),
        ({"url": "http://127.0.0.1/a b", "secret": SECRET}, "url"),
        ({"url": "http://127.0.0.1/" + "x" * 2048, "secret": SECRET}, "url"),
        ({"url": "http://127.0.0.1/x", "secret": "too-short"}, "secret"),
        ({"url": "http://127.0.0.1/x", "secret": "s" * 257}, "secret"),
        ({"url": "http://127.0.0.1/x"}, "secret"),
    ],
)
def test_a_malformed_webhook_is_invalid_request(hooked: Api, webhook: dict[str, str], field: str) -> None:
    created = hooked.create(HUMAN_VS_AI, webhook=webhook)
    assert (created.status_code, created.json["error"]) == (422, "invalid_request")
    assert field in created.json["errors"]["json"]["webhook"]


def test_an_all_ai_game_takes_no_webhook(hooked: Api, receiver: Receiver) -> None:
    created = hooked.create(
        [{"kind": "ai", "level": "random"}] * 2, webhook={"url": receiver.url("/ai"), "secret": SECRET}
    )
    assert (created.status_code, created.json["error"]) == (422, "invalid_request")
    why = "needs a human seat: a game of AI seats only has none of yours"
    assert created.json["errors"]["json"]["webhook"] == [why]


def test_a_game_against_the_ai_sends_signed_your_turn_and_game_over(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-game", SECRET)
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    assert created.status_code == 201, created.json
    game_id, token = created.json["game_id"], created.json["player_token"]
    assert SECRET not in json.dumps(created.json)
    assert hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json == {
        "url": url,
        "last_delivery": None,
    }
    for _ in range(500):  # the human plays its first legal action until the game ends
        hooked.run_ai()
        view = hooked.view(game_id, token).json
        if view["status"] == "finished":
            break
        if view["legal_actions"]:
            hooked.act(game_id, token, view["legal_actions"][0])
    hooked.run_ai()
    got = receiver.at("/svc-game")
    assert got and all(delivery.verified and delivery.answered == 200 for delivery in got)
    events = [delivery.event for delivery in got]
    assert events[-1]["event"] == "game_over" and events[-1]["result"] == view["result"]
    turns = [event for event in events if event["event"] == "your_turn"]
    assert turns and all(event["seat"] == 0 and 0 in event["to_act"] and event["deadline"] is None for event in turns)
    assert [event["event"] for event in events].count("game_over") == 1
    headers = got[0].headers
    assert (headers["Content-Type"], headers["User-Agent"]) == ("application/json", "Cardroom-Webhook/1")
    status = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json
    assert status["last_delivery"]["status"] == "delivered"
    assert status["last_delivery"]["event"] == "game_over" and status["last_delivery"]["http_status"] == 200
    assert status["last_delivery"]["attempts"] == 1 and SECRET not in json.dumps(status)
    events_text = hooked.request("GET", f"/v1/games/{game_id}/events", token).get_data(as_text=True)
    assert SECRET not in events_text and url not in events_text


def test_your_turn_goes_to_the_seat_that_must_act_after_another_seats_move(hooked: Api, receiver: Receiver) -> None:
    urls = [receiver.expect(f"/svc-duel-{seat}", SECRET) for seat in range(2)]
    created = hooked.create(
        [{"kind": "human", "name": "Ann"}, {"kind": "human"}], seed=5, webhook={"url": urls[0], "secret": SECRET}
    )
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    hooked.run_ai()
    assert receiver.at("/svc-duel-0") == []  # waiting for a player: nobody must act
    joined = hooked.request(
        "POST", f"/v1/games/{game_id}/seats", json={"name": "Bob", "webhook": {"url": urls[1], "secret": SECRET}}
    )
    tokens.append(joined.json["player_token"])
    hooked.run_ai()
    started = joined.json["version"]
    first = joined.json["to_act"]
    for seat in (0, 1):
        events = [delivery.event for delivery in receiver.at(f"/svc-duel-{seat}")]
        assert [(event["event"], event["version"]) for event in events] == (
            [("your_turn", started)] if seat in first else []
        )
    mover = first[0]
    after = hooked.act(game_id, tokens[mover], hooked.legal(game_id, tokens[mover])[0]).json
    hooked.run_ai()
    other = 1 - mover
    if other in after["to_act"]:
        assert receiver.at(f"/svc-duel-{other}")[-1].event["version"] == after["version"]
    # the mover's own move: no event for it, whether or not it must act again
    assert [delivery.event["version"] for delivery in receiver.at(f"/svc-duel-{mover}")] == [started]


def test_your_turn_carries_the_seats_clock_deadline(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-clock", SECRET)
    created = hooked.create(
        [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
        options={"clock": {"turn_seconds": 600, "on_timeout": "autoplay"}},
        webhook={"url": url, "secret": SECRET},
    )
    game_id = created.json["game_id"]
    joined = hooked.request(
        "POST", f"/v1/games/{game_id}/seats", json={"name": "Bob", "webhook": {"url": url, "secret": SECRET}}
    ).json
    hooked.run_ai()
    [event] = [delivery.event for delivery in receiver.at("/svc-clock")]
    assert event["seat"] == joined["to_act"][0]
    assert event["deadline"] == joined["clock"]["deadline"] and event["deadline"].endswith("Z")


def test_a_receiver_with_the_wrong_secret_rejects_and_is_not_retried(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-wrong", "the-receivers-own-secret")
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    hooked.run_ai()
    got = receiver.at("/svc-wrong")
    assert len(got) == 1 and not got[0].verified and got[0].answered == 401
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["http_status"], last["attempts"]) == ("failed", 401, 1)


def test_a_500_is_retried_until_delivered(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-flaky", SECRET, [500, 500, 200])
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    hooked.run_ai(with_scheduler=False)  # the AI's move if it starts, and the first attempt
    got = receiver.at("/svc-flaky")
    assert [delivery.answered for delivery in got] == [500]
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["http_status"], last["attempts"]) == ("retrying", 500, 1)
    hooked.run_ai()  # the retries, made due at once
    got = receiver.at("/svc-flaky")
    assert [delivery.answered for delivery in got] == [500, 500, 200]
    assert len({delivery.body for delivery in got}) == 1  # the same event each time, signed anew
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["http_status"], last["attempts"]) == ("delivered", 200, 3)


def test_no_answer_is_retried_and_the_last_attempt_fails(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-down", SECRET, [503])
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    hooked.run_ai()
    assert len(receiver.at("/svc-down")) == len(webhooks.RETRY_INTERVALS) + 1
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["http_status"], last["attempts"]) == ("failed", 503, 6)


def test_the_webhook_status_is_the_holders_only(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-holder", SECRET)
    created = hooked.create(
        [{"kind": "human", "name": "Ann"}, {"kind": "human"}, {"kind": "human"}],
        game="talmut",
        webhook={"url": url, "secret": SECRET},
    )
    game_id, token = created.json["game_id"], created.json["player_token"]
    joined = hooked.request(
        "POST", f"/v1/games/{game_id}/seats", json={"name": "Bob", "webhook": {"url": url, "secret": SECRET}}
    )
    bob = joined.json["player_token"]
    assert hooked.request("GET", f"/v1/games/{game_id}/seats/1/webhook", token).status_code == 401
    assert hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook").status_code == 401
    assert hooked.request("GET", f"/v1/games/{game_id}/seats/1/webhook", bob).json["url"] == url
    # Bob leaves the waiting game: the seat is open again, and Carol who takes it has no webhook of Bob's
    assert hooked.request("POST", f"/v1/games/{game_id}/leave", bob).json["outcome"] == "seat_freed"
    carol = hooked.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Carol", "seat": 1}).json
    missing = hooked.request("GET", f"/v1/games/{game_id}/seats/1/webhook", carol["player_token"])
    assert (missing.status_code, missing.json["error"]) == (404, "webhook_not_found")
    assert SECRET not in json.dumps(carol)


def test_a_failing_queue_redis_does_not_fail_the_move(
    hooked: Api, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = receiver.expect("/svc-no-queue", SECRET)
    hook = {"url": url, "secret": SECRET}
    created = hooked.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], webhook=hook)
    game_id = created.json["game_id"]

    def queue_down(*args: object, **kwargs: object) -> None:
        raise redis.ConnectionError("the queue Redis is down")

    monkeypatch.setattr(webhooks, "enqueue_once", queue_down)
    joined = hooked.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob", "webhook": hook})
    assert joined.status_code == 201 and joined.json["status"] == "active"
    assert len(joined.json["to_act"]) == 1  # one your_turn due, counted as lost instead of raised
    metrics = hooked.request("GET", "/metrics").get_data(as_text=True)
    assert 'cardroom_webhook_deliveries_total{event="your_turn",outcome="not_enqueued"} 1.0' in metrics
    hooked.run_ai()
    assert receiver.at("/svc-no-queue") == []


def test_a_redirect_is_not_followed_and_not_retried(hooked: Api, receiver: Receiver) -> None:
    url = receiver.expect("/svc-redirect", SECRET, [302])
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    hooked.run_ai()
    assert [delivery.answered for delivery in receiver.at("/svc-redirect")] == [302]
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["http_status"], last["attempts"]) == ("failed", 302, 1)


def test_a_url_beyond_ascii_is_delivered_percent_encoded(hooked: Api, receiver: Receiver) -> None:
    # found attacking webhooks: the URL was accepted, but http.client writes its request line in ASCII, so every
    # delivery raised UnicodeEncodeError in the worker (six attempts as a bug's, no last_delivery, no count)
    receiver.expect("/svc-caf%C3%A9?n=%C3%BC", SECRET)
    url = receiver.url("/svc-café?n=ü")
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    hooked.run_ai()
    assert [delivery.answered for delivery in receiver.at("/svc-caf%C3%A9?n=%C3%BC")] == [200]
    status = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json
    assert (status["url"], status["last_delivery"]["status"]) == (url, "delivered")


def test_a_receiver_that_refuses_connections_is_retried_then_failed(
    api: Api, redis_connection: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = free_port()  # nothing listens there
    allowed = f"127.0.0.1:{closed}"
    api.app.config["WEBHOOK_ALLOWED_HOSTS"] = webhook_allowed_hosts(allowed)
    monkeypatch.setenv("WEBHOOK_ALLOWED_HOSTS", allowed)
    created = api.create(HUMAN_VS_AI, seed=3, webhook={"url": f"http://{allowed}/x", "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    api.run_ai()
    last = api.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["attempts"]) == ("failed", len(webhooks.RETRY_INTERVALS) + 1)
    assert "http_status" not in last  # no answer came


def test_a_host_removed_from_the_workers_allow_list_is_not_called(
    hooked: Api, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = receiver.expect("/svc-removed", SECRET)
    created = hooked.create(HUMAN_VS_AI, seed=3, webhook={"url": url, "secret": SECRET})
    game_id, token = created.json["game_id"], created.json["player_token"]
    monkeypatch.setenv("WEBHOOK_ALLOWED_HOSTS", "")  # the operator took it out; the worker checks each delivery
    hooked.run_ai()
    assert receiver.at("/svc-removed") == []
    last = hooked.request("GET", f"/v1/games/{game_id}/seats/0/webhook", token).json["last_delivery"]
    assert (last["status"], last["attempts"]) == ("failed", 1)
    metrics = hooked.request("GET", "/metrics").get_data(as_text=True)
    assert 'cardroom_webhook_deliveries_total{event="your_turn",outcome="refused"} 1.0' in metrics


def test_a_receiver_trickling_its_answer_holds_an_attempt_no_longer_than_its_timeout() -> None:
    # found attacking webhooks: each read waited up to the timeout, so a receiver sending a byte of its status line
    # every 0.1 s kept the attempt (and the worker, which plays AI turns too) until RQ's 30 s job limit
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def trickle() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            while not stop.wait(0.1):
                try:
                    connection.sendall(b"H")
                except OSError:
                    return

    threading.Thread(target=trickle, daemon=True).start()
    answers: list[tuple[int | None, str | None]] = []
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
    client = threading.Thread(target=lambda: answers.append(attempt(url, SECRET, b"{}", timeout=0.5)), daemon=True)
    started = time.monotonic()
    client.start()
    client.join(10)  # a hang guard: the trickle would go on for hours (65 KB of status line at 10 bytes a second)
    elapsed = time.monotonic() - started
    stop.set()
    listener.close()
    client.join(10)
    assert elapsed < 2 * 0.5 + 1.0  # the connection's timeout and the answer's, with room for a busy machine
    assert len(answers) == 1 and answers[0][0] is None and answers[0][1] is not None
