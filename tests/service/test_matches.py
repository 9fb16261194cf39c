"""Quick match through the HTTP API (docs/api-additions.md "Quick match"): tickets, pairing, errors, cancelling,
expiry, fallback to AI seats, long-poll and stream, on the real Redis."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.cluster import key_slot
from rq.job import Job

from service import game_metrics, matchmaking
from service.app import create_app
from service.matchmaking import Matchmaker
from service.turns import InvalidSetup, ai_job_id
from tests.service.conftest import Api, delete_test_keys
from tests.service.test_cluster import cluster_api, on_cluster  # noqa: F401 (a fixture)
from tests.service.test_reliability import ai_game, make_api  # noqa: F401 (a fixture)
from worker.sweeper import sweep

TICKET_KEYS = {"ticket_id", "status", "game", "options", "players", "fallback", "created_at", "expires_at",
               "game_id", "seat", "player_token"}


@pytest.fixture
def quick_api(redis_connection: redis.Redis) -> Iterator[Api]:
    """An app whose tickets expire after 2 seconds (the default is 600)."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix,
                      "TESTING": True, "MATCH_TICKET_TTL_SECONDS": 2})
    try:
        yield Api(app, redis_connection)
    finally:
        delete_test_keys(redis_connection, prefix)
        app.extensions["cardroom"].store.client.close()


def ticket(api: Api, **body: Any) -> dict[str, Any]:
    response = api.request("POST", "/v1/matches", json={"game": "durak", **body})
    assert response.status_code == 202, response.json
    assert response.headers["Location"] == f"/v1/matches/{response.json['ticket_id']}"
    return response.json


def read(api: Api, made: dict[str, Any], **query: Any):
    path = f"/v1/matches/{made['ticket_id']}" + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
    return api.request("GET", path, made["ticket_token"])


def test_two_tickets_make_one_game_seated_first_come_first_served(api: Api) -> None:
    ann = ticket(api, name="Ann")
    assert set(ann) == TICKET_KEYS | {"ticket_token"}
    assert (ann["status"], ann["game_id"], ann["seat"], ann["player_token"]) == ("waiting", None, None, None)
    assert (ann["players"], ann["options"], ann["fallback"]) == (2, {}, None)
    assert read(api, ann).json["status"] == "waiting"
    bob = ticket(api, name="Bob")
    assert (bob["status"], bob["seat"], bob["player_token"]) == ("matched", 1, bob["ticket_token"])
    seen = read(api, ann).json
    assert (seen["status"], seen["game_id"], seen["seat"]) == ("matched", bob["game_id"], 0)
    view = api.view(seen["game_id"], seen["player_token"]).json
    assert (view["you"], view["status"]) == (0, "active")
    assert [(seat["kind"], seat["name"]) for seat in view["seats"]] == [("human", "Ann"), ("human", "Bob")]
    assert api.view(seen["game_id"], bob["player_token"]).json["you"] == 1
    action = api.legal(seen["game_id"], seen["player_token"]) or api.legal(seen["game_id"], bob["player_token"])
    assert action  # one of the two is to act, with its seat token from the ticket
    carol = ticket(api)
    assert carol["status"] == "waiting"  # a table takes each ticket once


def test_options_meet_in_their_canonical_form_only(api: Api) -> None:
    spelled = ticket(api, game="talmut", options={"deck_size": 40, "target": 50})
    other = ticket(api, game="talmut", options={"target": 60})
    wider = ticket(api, game="talmut", players=4)
    assert spelled["options"] == {"deck_size": 40, "target": 50, "call_penalty": 5, "match_pause_ms": 1500}
    assert ticket(api, game="talmut")["status"] == "waiting"  # the defaults: meets `spelled`, not yet three
    third = ticket(api, game="talmut", options={"call_penalty": 5})
    assert third["status"] == "matched" and third["seat"] == 2
    for waiting in (other, wider):
        assert read(api, waiting).json["status"] == "waiting"
    game = api.view(third["game_id"]).json
    assert len(game["seats"]) == 3 and game["state"]["options"]["target"] == 50


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"game": "chess"}, 404, "unknown_game"),
    ({"game": "durak", "players": 3}, 422, "invalid_request"),
    ({"game": "talmut", "players": 9}, 422, "invalid_request"),
    ({"game": "talmut", "options": {"target": 0}}, 422, "invalid_request"),
    ({"game": "durak", "options": {"clock": {"turn_seconds": -1}}}, 422, "invalid_request"),
    ({"game": "durak", "fallback": {"after_seconds": 5, "level": "godlike"}}, 422, "invalid_request"),
    ({"game": "durak", "fallback": {"after_seconds": -1, "level": "easy"}}, 422, "invalid_request"),
    ({"game": "durak", "seats": []}, 422, "invalid_request"),
    ({"game": "durak", "name": "\u202eAnn"}, 422, "invalid_request"),
    ({}, 422, "invalid_request"),
])
def test_bad_requests_are_refused_and_write_nothing(api: Api, body: dict[str, Any], status: int, error: str) -> None:
    response = api.request("POST", "/v1/matches", json=body)
    assert (response.status_code, response.json["error"]) == (status, error), response.json
    written = api.connection.scan_iter(match=f"{api.services.store.prefix}:*")
    assert [key for key in written if b":ratelimit:" not in key] == []  # the rate limits' shared counts aside


def test_a_ticket_is_read_and_cancelled_with_its_token_only(api: Api) -> None:
    made = ticket(api)
    path = f"/v1/matches/{made['ticket_id']}"
    for token, message in ((None, "a bearer token is required"), ("wrong", "this token is not this ticket's")):
        for method in ("GET", "DELETE"):
            response = api.request(method, path, token)
            assert (response.status_code, response.json["error"]) == (401, "unauthorized")
            assert response.json["message"].startswith(message)
            assert response.headers["WWW-Authenticate"] == "Bearer"
    for missing in ("0" * 32, "not-a-ticket", made["ticket_id"][:16] + "f" * 16):
        response = api.request("GET", f"/v1/matches/{missing}", made["ticket_token"])
        assert (response.status_code, response.json["error"]) == (404, "ticket_not_found")
    assert read(api, made).json["status"] == "waiting"


def test_cancelled_tickets_take_no_seat_and_matched_ones_cannot_be_cancelled(api: Api) -> None:
    gone = ticket(api)
    cancelled = api.request("DELETE", f"/v1/matches/{gone['ticket_id']}", gone["ticket_token"])
    assert (cancelled.status_code, cancelled.json["status"]) == (200, "cancelled")
    again = api.request("DELETE", f"/v1/matches/{gone['ticket_id']}", gone["ticket_token"])
    assert (again.status_code, again.json["status"]) == (200, "cancelled")
    first = ticket(api)
    assert first["status"] == "waiting"  # not seated with the cancelled ticket
    second = ticket(api)
    assert second["status"] == "matched"
    for made in (first, second):
        refused = api.request("DELETE", f"/v1/matches/{made['ticket_id']}", made["ticket_token"])
        assert (refused.status_code, refused.json["error"]) == (409, "ticket_matched")
        assert read(api, made).json["status"] == "matched"


def test_tickets_expire_and_expired_ones_take_no_seat(quick_api: Api) -> None:
    old = ticket(quick_api)
    assert old["expires_at"] > old["created_at"]
    time.sleep(2.1)
    assert read(quick_api, old).json["status"] == "expired"
    kept = quick_api.request("DELETE", f"/v1/matches/{old['ticket_id']}", old["ticket_token"])
    assert (kept.status_code, kept.json["status"]) == (200, "expired")
    assert ticket(quick_api)["status"] == "waiting"


def test_a_long_poll_answers_when_the_table_completes_and_waits_otherwise(api: Api) -> None:
    made = ticket(api)
    started = time.monotonic()
    assert read(api, made, wait=0.5).json["status"] == "waiting"
    assert 0.5 <= time.monotonic() - started < 5
    answers: list[Any] = []
    held = threading.Thread(target=lambda: answers.append(read(api, made, wait=20)))
    started = time.monotonic()
    held.start()
    time.sleep(0.5)  # held: the other ticket comes while it waits
    other = ticket(api)
    held.join(timeout=25)
    assert answers and answers[0].json["status"] == "matched", answers
    assert answers[0].json["game_id"] == other["game_id"]
    assert time.monotonic() - started < 10  # woken by the ticket's channel, not the wait's end
    assert api.services.dispatcher.waiters == 0


def test_a_long_poll_on_a_ticket_that_expires_answers_expired(quick_api: Api) -> None:
    made = ticket(quick_api)
    started = time.monotonic()
    assert read(quick_api, made, wait=10).json["status"] == "expired"
    assert 1.5 <= time.monotonic() - started < 5


def test_a_fallback_seats_ai_when_nobody_comes(api: Api) -> None:
    made = ticket(api, game="talmut", fallback={"after_seconds": 1, "level": "easy"}, name="Ann")
    joined = ticket(api, game="talmut")  # a second player, but no third in time
    assert made["fallback"] == {"after_seconds": 1, "level": "easy"}
    matched = read(api, made, wait=10).json  # the wait ends at the fallback's time, which this read seats
    assert (matched["status"], matched["seat"]) == ("matched", 0)
    assert read(api, joined).json["game_id"] == matched["game_id"]
    game = api.view(matched["game_id"]).json
    assert [(seat["kind"], seat.get("level")) for seat in game["seats"]] == [
        ("human", None), ("human", None), ("ai", "easy")]
    assert game["status"] == "active"


def test_the_sweep_seats_a_due_fallback_nobody_reads(api: Api) -> None:
    made = ticket(api, fallback={"after_seconds": 0, "level": "random"})
    matchmaker = api.services.matchmaker
    assert matchmaker.fall_back_due(api.services.queues) == 1
    assert matchmaker.fall_back_due(api.services.queues) == 0
    assert api.connection.zcard(matchmaker.fallbacks_key) == 0
    seen = read(api, made).json
    game = api.view(seen["game_id"], seen["player_token"]).json
    assert [seat["kind"] for seat in game["seats"]] == ["human", "ai"]
    if game["to_act"] != [0]:
        api.run_ai()  # the AI seat opens: the worker plays it
        assert api.view(seen["game_id"]).json["version"] > game["version"]


def test_a_table_whose_creator_died_is_completed_by_the_next_read(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ticket(api)
    original = Matchmaker.seat_table

    def dies(self: Matchmaker, queues: Any, ticket_ids: list[str]) -> None:
        raise ConnectionAbortedError("the creator's process died here")

    monkeypatch.setattr(Matchmaker, "seat_table", dies)
    with pytest.raises(ConnectionAbortedError):
        api.request("POST", "/v1/matches", json={"game": "durak"})
    monkeypatch.setattr(Matchmaker, "seat_table", original)
    assert read(api, first).json["status"] == "waiting"  # pairing: not stale yet
    monkeypatch.setattr(matchmaking, "PAIRING_STALE_SECONDS", 0.0)
    seen = read(api, first).json
    assert (seen["status"], seen["seat"]) == ("matched", 0)
    assert api.view(seen["game_id"], seen["player_token"]).json["you"] == 0
    assert ticket(api)["status"] == "waiting"  # the dead creator's ticket is seated, not waiting again


def test_the_stream_sends_the_ticket_then_its_table(api: Api) -> None:
    made = ticket(api)
    response = api.client.get(f"/v1/matches/{made['ticket_id']}/stream",
                              headers={"Authorization": f"Bearer {made['ticket_token']}"}, buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert next(chunks).decode() == "retry: 1000\n\n"
    assert '"status": "waiting"' in next(chunks).decode()
    other = ticket(api)
    rest = b"".join(chunks).decode()
    assert rest.startswith("event: ticket\ndata: ") and f'"game_id": "{other["game_id"]}"' in rest
    assert '"status": "matched"' in rest
    refused = api.client.get(f"/v1/matches/{made['ticket_id']}/stream")
    assert (refused.status_code, refused.json["error"]) == (401, "unauthorized")


def test_quick_match_on_a_redis_cluster_pairs_in_one_slot_and_wakes_by_sharded_pub_sub(
    on_cluster: dict[str, Any],  # noqa: F811 (the fixture imported above)
) -> None:
    """The pairing scripts run on the queue's slot; the ticket's channel is SPUBLISHed there (issue 21's rules)."""
    api = cluster_api(on_cluster)
    made = ticket(api)
    matchmaker = api.services.matchmaker
    assert key_slot(matchmaker.ticket_key(made["ticket_id"]).encode()) == key_slot(
        matchmaker.channel(made["ticket_id"]).encode())
    answers: list[Any] = []
    held = threading.Thread(target=lambda: answers.append(read(api, made, wait=20)))
    started = time.monotonic()
    held.start()
    time.sleep(0.5)
    other = ticket(api)
    held.join(timeout=25)
    assert answers[0].json["status"] == "matched" and answers[0].json["game_id"] == other["game_id"]
    assert time.monotonic() - started < 10
    lone = ticket(api, fallback={"after_seconds": 0, "level": "easy"})
    assert matchmaker.fall_back_due(api.services.queues) == 1
    assert read(api, lone).json["status"] == "matched"


def test_a_cancel_wins_over_a_fallback_due_but_not_seated_yet(api: Api) -> None:
    made = ticket(api, fallback={"after_seconds": 0, "level": "easy"})
    cancelled = api.request("DELETE", f"/v1/matches/{made['ticket_id']}", made["ticket_token"])
    assert (cancelled.status_code, cancelled.json["status"], cancelled.json["game_id"]) == (200, "cancelled", None)
    assert api.services.matchmaker.fall_back_due(api.services.queues) == 0
    assert read(api, made).json["status"] == "cancelled"


def test_a_later_tickets_fallback_seats_ai_at_its_own_level(api: Api) -> None:
    """The AI seats take the level of the ticket whose fallback came due, not the oldest ticket's.

    Found in review: `seat_table` took `tickets[0].fallback_level`; a ticket without a fallback followed by one with
    one gave level None, `create_game` raised InvalidSetup, the tickets stayed `pairing` and every read was 422.
    """
    ann = ticket(api, game="talmut", name="Ann")  # no fallback, the oldest: seat 0
    bob = ticket(api, game="talmut", fallback={"after_seconds": 0, "level": "medium"}, name="Bob")
    seen = read(api, bob)
    assert seen.status_code == 200, seen.json
    assert (seen.json["status"], seen.json["seat"]) == ("matched", 1)
    assert read(api, ann).json["game_id"] == seen.json["game_id"]
    game = api.view(seen.json["game_id"]).json
    assert [(seat["kind"], seat["name"], seat.get("level")) for seat in game["seats"]] == [
        ("human", "Ann", None), ("human", "Bob", None), ("ai", "AI (medium)", "medium")]


def test_the_sweep_seats_ai_at_the_level_of_the_fallback_that_came_due(api: Api) -> None:
    """Four seats: the oldest has no fallback, the second one later at `hard`, the third one due now at `easy`."""
    made = [ticket(api, game="talmut", players=4),
            ticket(api, game="talmut", players=4, fallback={"after_seconds": 600, "level": "hard"}),
            ticket(api, game="talmut", players=4, fallback={"after_seconds": 0, "level": "easy"})]
    assert api.services.matchmaker.fall_back_due(api.services.queues) == 1
    seen = [read(api, one).json for one in made]
    assert [(one["status"], one["seat"]) for one in seen] == [("matched", 0), ("matched", 1), ("matched", 2)]
    game = api.view(seen[0]["game_id"]).json
    assert [(seat["kind"], seat.get("level")) for seat in game["seats"]] == [
        ("human", None), ("human", None), ("human", None), ("ai", "easy")]


def test_the_sweep_goes_past_a_table_it_cannot_seat(
    make_api: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,  # noqa: F811 (a fixture)
) -> None:
    """worker/sweeper.py: a due fallback whose game cannot be created is logged and counted; the sweep still seats
    the next due fallback and revives a lost AI turn (review: it raised out of the sweep, every interval)."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")  # the sweep's, read like the worker's from the environment
    api = make_api(AI_JOB_STALE_SECONDS=1)
    broken = ticket(api, game="talmut", fallback={"after_seconds": 0, "level": "easy"})  # due first
    lone = ticket(api, fallback={"after_seconds": 0, "level": "easy"})
    create_game = matchmaking.create_game

    def refuses_talmut(store: Any, queues: Any, game: str, *args: Any, **kwargs: Any) -> Any:
        if game == "talmut":
            raise InvalidSetup("a table this version cannot seat")
        return create_game(store, queues, game, *args, **kwargs)

    monkeypatch.setattr(matchmaking, "create_game", refuses_talmut)
    game_id, _, view = ai_game(api)
    queue = api.services.queues[0]
    Job.fetch(ai_job_id(game_id, view["version"], 1), queue.connection, queue.serializer).delete()
    time.sleep(1.1)  # a missing job is lost once its version is AI_JOB_STALE_SECONDS old
    assert sweep(api.services.store, queue, interval=1.0) == [(game_id, 1)]
    assert read(api, lone).json["status"] == "matched"
    assert f"cannot seat the table of ticket {broken['ticket_id']}" in caplog.text
    game_metrics.PENDING.flush(api.services.store.client)
    failures = game_metrics.quick_match_failures_key(api.services.store.prefix)
    assert api.connection.hget(failures, "talmut") == b"1"


def test_the_sweep_keeps_tickets_for_the_configured_lifetime(
    make_api: Any, monkeypatch: pytest.MonkeyPatch,  # noqa: F811 (a fixture)
) -> None:
    """`MATCH_TICKET_TTL_SECONDS` is the sweep's too (review: its Matchmaker had the default, 600 s, so a table it
    seated kept its tickets 600 + 3,600 s whatever the setting)."""
    monkeypatch.setenv("MATCH_TICKET_TTL_SECONDS", "7200")  # the worker's, read from the environment
    api = make_api(MATCH_TICKET_TTL_SECONDS=7200)
    made = ticket(api, fallback={"after_seconds": 0, "level": "easy"})
    assert sweep(api.services.store, api.services.queues[0], interval=1.0) == []
    assert read(api, made).json["status"] == "matched"
    kept = api.connection.ttl(api.services.matchmaker.ticket_key(made["ticket_id"]))
    assert 7200 + matchmaking.KEPT_SECONDS - 60 < kept <= 7200 + matchmaking.KEPT_SECONDS
