"""Clocks (shared/API.md `options.clock`, service/clocks.py) through the HTTP API and the timeout job's code.

The service's clock is replaced by a fake one (`FakeTime`) where a test checks a bank to the millisecond: the
values come from the server's own arithmetic, never from how long the test took. The timeout itself is applied
by `worker.timeouts.apply_timeout` / the real RQ job; the e2e suite (tests/e2e/test_clocks.py) runs it with real
gunicorn, workers and their scheduler.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import pytest
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from service import clocks
from service.clocks import TIMEOUT_JOB, timeout_job_id
from tests.engine.talmut.notation import E1, action
from tests.service.test_durak_http import K1
from worker.timeouts import SCHEDULER_GRACE_SECONDS, apply_timeout, revive_timeouts


class FakeTime:
    """Stands in for the `time` module in service/turns.py: `time()` is what the test sets."""

    def __init__(self, start: float) -> None:
        self.now = start

    def time(self) -> float:
        return self.now


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime(time.time())
    monkeypatch.setattr("service.turns.time", fake)
    return fake


def moment(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def durak_humans(api, clock: dict[str, Any], deck: list[str] = K1) -> tuple[str, list[str]]:
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], deck=deck, options={"clock": clock})
    assert created.status_code == 201, created.json
    game_id = created.json["game_id"]
    joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"})
    assert joined.status_code == 201, joined.json
    return game_id, [created.json["player_token"], joined.json["player_token"]]


def talmut_humans(api, clock: dict[str, Any]) -> tuple[str, list[str]]:
    seats = [{"kind": "human", "name": f"P{n}"} for n in range(3)]
    created = api.create(seats, game="talmut", deck=E1.split(), options={"clock": clock})
    assert created.status_code == 201, created.json
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    for number in (1, 2):
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": f"P{number}"})
        tokens.append(joined.json["player_token"])
    return game_id, tokens


def seat_clocks(api, game_id: str) -> list[dict[str, Any]]:
    return [seat["clock"] for seat in api.view(game_id).json["seats"]]


def events_of(api, game_id: str, *types: str) -> list[dict[str, Any]]:
    events = api.request("GET", f"/v1/games/{game_id}/events").json["events"]
    return [event for event in events if event["type"] in types]


@pytest.mark.parametrize("clock", [
    5, [], {}, {"on_timeout": "forfeit"}, {"turn_seconds": 0}, {"turn_seconds": "2"}, {"turn_seconds": 1.5},
    {"turn_seconds": True}, {"turn_seconds": None}, {"turn_seconds": 86401}, {"bank_seconds": 0},
    {"bank_seconds": 10, "increment_seconds": -1}, {"turn_seconds": 10, "increment_seconds": 5},
    {"turn_seconds": 10, "on_timeout": "pass"}, {"turn_seconds": 10, "autoplay_limit": 1},
    {"turn_seconds": 10, "tick": 1},
])
def test_a_bad_clock_is_invalid_request_and_creates_nothing(api, clock):
    response = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], options={"clock": clock})
    assert (response.status_code, response.json["error"]) == (422, "invalid_request"), response.json
    assert response.json["message"] and list(response.json["errors"]["json"]["options"]) == ["clock"]
    assert api.request("GET", "/v1/games").json["games"] == []
    assert list(api.connection.scan_iter(match=f"{api.services.store.prefix}:{{*")) == []  # no game key


def test_a_clock_is_shown_with_its_defaults_and_not_passed_to_the_game(api):
    game_id, _ = durak_humans(api, {"turn_seconds": 30})  # Durak refuses any option of its own (durak.md §2.3)
    view = api.view(game_id).json
    deadline = view["clock"].pop("deadline")
    assert view["clock"] == {
        "turn_seconds": 30, "bank_seconds": None, "increment_seconds": 0, "on_timeout": "autoplay", "autoplay_limit": 3,
    }
    first = view["seats"][0]["clock"]
    assert first["running"] and first["deadline"] == deadline
    assert moment(first["deadline"]) == pytest.approx(moment(first["since"]) + 30, abs=0.002)
    assert view["seats"][1]["clock"] == {
        "running": False, "since": None, "bank_seconds": None, "deadline": None, "timeouts": 0,
    }


def test_without_a_clock_nothing_is_scheduled_and_the_view_says_null(api):
    game_id, tokens = api.create_humans(K1)
    api.act(game_id, tokens[0], {"type": "attack", "card": "6H"})
    view = api.view(game_id, tokens[1]).json
    assert view["clock"] is None and all("clock" not in seat for seat in view["seats"])
    assert api.services.store.load(game_id).clock is None
    scheduled = ScheduledJobRegistry(queue=api.services.queues[0]).get_job_ids()
    assert [job for job in scheduled if job.startswith("clock-")] == [] and api.services.queues[0].job_ids == []


def test_a_bank_runs_only_while_its_seat_must_act_and_gains_the_increment(api, fake_time):
    start = fake_time.now
    game_id, tokens = durak_humans(api, {"bank_seconds": 60, "increment_seconds": 5})
    ann, bob = seat_clocks(api, game_id)
    assert (ann["running"], moment(ann["since"]), ann["bank_seconds"]) == (True, pytest.approx(start, abs=0.002), 60)
    assert moment(ann["deadline"]) == pytest.approx(start + 60, abs=0.002)
    assert (bob["running"], bob["bank_seconds"]) == (False, 60)

    fake_time.now = start + 3
    api.act(game_id, tokens[0], {"type": "attack", "card": "6H"})
    ann, bob = seat_clocks(api, game_id)
    assert (ann["running"], ann["bank_seconds"]) == (False, 62)  # 60 - 3 s to act + 5
    assert (bob["running"], bob["bank_seconds"]) == (True, 60)  # not charged while Ann acted
    assert moment(bob["since"]) == pytest.approx(start + 3, abs=0.002)

    fake_time.now = start + 10
    api.act(game_id, tokens[1], {"type": "defend", "card": "7H", "against": "6H"})
    ann, bob = seat_clocks(api, game_id)
    assert (bob["running"], bob["bank_seconds"]) == (False, 58)  # 60 - 7 + 5
    assert (ann["running"], ann["bank_seconds"]) == (True, 62)
    assert moment(ann["since"]) == pytest.approx(start + 10, abs=0.002)
    assert moment(api.view(game_id).json["clock"]["deadline"]) == pytest.approx(start + 72, abs=0.002)


def test_the_deadline_is_the_turn_limit_or_the_bank_whichever_ends_first(api, fake_time):
    start = fake_time.now
    game_id, tokens = durak_humans(api, {"turn_seconds": 30, "bank_seconds": 40})
    assert moment(seat_clocks(api, game_id)[0]["deadline"]) == pytest.approx(start + 30, abs=0.002)
    fake_time.now = start + 25
    api.act(game_id, tokens[0], {"type": "attack", "card": "6H"})
    api.act(game_id, tokens[1], {"type": "defend", "card": "7H", "against": "6H"})
    ann = seat_clocks(api, game_id)[0]
    assert ann["bank_seconds"] == 15 and moment(ann["deadline"]) == pytest.approx(start + 40, abs=0.002)


def test_talmuts_matching_window_charges_only_the_seat_that_must_act(api, fake_time):
    """talmut.md §3.9, §4.1: in the window, seat 1 must draw; seat 2 may match but is not waited for."""
    start = fake_time.now
    game_id, tokens = talmut_humans(api, {"bank_seconds": 60, "increment_seconds": 5})
    fake_time.now = start + 1
    api.act(game_id, tokens[0], action("draw stock"))
    fake_time.now = start + 2
    view = api.act(game_id, tokens[0], action("swap 0")).json
    assert view["to_act"] == [1, 2]
    first, second, third = (seat["clock"] for seat in view["seats"])
    assert (first["running"], first["bank_seconds"]) == (False, 68)  # two moves, one second each, +5 each
    assert (second["running"], moment(second["since"])) == (True, pytest.approx(start + 2, abs=0.002))
    assert (third["running"], third["since"], third["deadline"], third["bank_seconds"]) == (False, None, None, 60)

    fake_time.now = start + 4
    view = api.act(game_id, tokens[2], action("match 1")).json  # correct (§8.3): the window stays open
    assert view["to_act"] == [0, 1]
    first, second, third = (seat["clock"] for seat in view["seats"])
    assert (third["running"], third["bank_seconds"]) == (False, 60)  # no charge, and no increment for a match
    assert moment(second["since"]) == pytest.approx(start + 2, abs=0.002)  # seat 1's clock ran on meanwhile
    assert first["running"] is False

    fake_time.now = start + 6
    second = api.act(game_id, tokens[1], action("draw stock")).json["seats"][1]["clock"]
    assert (second["running"], second["bank_seconds"]) == (True, 61)  # 60 - 4 + 5; it must decide now


def test_a_timeout_job_autoplays_the_whole_turn_exactly_once(api, fake_time, monkeypatch):
    """The first move carries `timeout`, the rest of the seat's turn `autoplay`; the job of that version, run
    again, finds a newer version and changes nothing; a job run before its deadline changes nothing either.

    On the fake clock (the web side's and the timeout job's): with real time, a machine busy for a second between
    two jobs let seat 1's turn time out too, and the timeouts went round the table (failed in CI at load)."""
    monkeypatch.setattr("worker.timeouts.time", fake_time)
    monkeypatch.setattr("service.clocks.time", fake_time)
    game_id, _ = talmut_humans(api, {"turn_seconds": 1})
    view = api.view(game_id).json
    version = view["version"]
    assert timeout_job_id(game_id, version, 0) in ScheduledJobRegistry(queue=api.services.queues[0]).get_job_ids()
    fake_time.now = moment(view["clock"]["deadline"]) + 0.05

    api.run_ai()  # RQ's scheduler, made due at once: seat 0's job applies, seat 1's new one is early
    view = api.view(game_id).json
    made = [event for event in events_of(api, game_id, "timeout", "autoplay") if event["seat"] == 0]
    assert [event["type"] for event in made] == ["timeout", "autoplay"]  # a draw, then the swap or discard
    assert made[0]["action"]["type"] == "draw"
    assert [event["version"] for event in made] == [version + 1, version + 2]
    assert view["state"]["turn"] != 0 and view["seats"][0]["clock"]["timeouts"] == 1

    job = api.services.queues[0].enqueue(TIMEOUT_JOB, args=(api.services.store.prefix, game_id, version, 0))
    api.run_ai()
    assert Job.fetch(job.id, api.connection, serializer="json").return_value() == "stale"
    assert [event for event in events_of(api, game_id, "timeout", "autoplay") if event["seat"] == 0] == made


def test_autoplay_limit_timeouts_in_a_row_forfeit_and_a_move_of_ones_own_resets_the_count(api, fake_time):
    game_id, tokens = durak_humans(api, {"turn_seconds": 5, "autoplay_limit": 2})
    services = api.services
    store = services.store

    apply_timeout(store, services.queues, store.load(game_id), 0)  # Ann attacks by the clock
    attack = events_of(api, game_id, "timeout")[0]["action"]
    api.act(game_id, tokens[1], {"type": "take"})
    assert api.view(game_id).json["seats"][0]["clock"]["timeouts"] == 1
    api.act(game_id, tokens[0], {"type": "done"})  # her own move: the count starts again
    assert api.view(game_id).json["seats"][0]["clock"]["timeouts"] == 0

    assert apply_timeout(store, services.queues, store.load(game_id), 0) == "autoplayed"
    api.act(game_id, tokens[1], {"type": "take"})
    assert apply_timeout(store, services.queues, store.load(game_id), 0) == "forfeited"
    view = api.view(game_id).json
    assert (view["status"], view["result"]["losers"], view["result"]["reason"]) == ("finished", [0], "resign")
    timeouts = events_of(api, game_id, "timeout", "forfeit")
    assert [(event["type"], event["action"]["type"] if "action" in event else None) for event in timeouts] == [
        ("timeout", attack["type"]), ("timeout", "attack"), ("timeout", "resign"), ("forfeit", None),
    ]
    assert view["clock"]["deadline"] is None and not any(seat["clock"]["running"] for seat in view["seats"])


def test_on_timeout_forfeit_hands_a_talmut_seat_to_the_easy_ai(api):
    """talmut.md §3.17: a resigned seat plays on at `easy`; its clock stops (AI seats are never charged)."""
    game_id, _ = talmut_humans(api, {"turn_seconds": 5, "on_timeout": "forfeit"})
    store = api.services.store
    assert apply_timeout(store, api.services.queues, store.load(game_id), 0) == "forfeited"
    view = api.view(game_id).json
    assert view["status"] == "active"
    assert (view["seats"][0]["kind"], view["seats"][0]["level"], view["seats"][0]["clock"]["running"]) == (
        "ai", "easy", False,
    )
    assert [event["type"] for event in events_of(api, game_id, "timeout", "forfeit", "resigned")][:2] == [
        "timeout", "forfeit",
    ]
    api.run_ai()
    assert api.view(game_id).json["state"]["turn"] == 1  # the AI played seat 0's turn


def test_the_sweep_schedules_again_a_timeout_whose_job_is_gone_or_stuck(api, fake_time):
    store, queue = api.services.store, api.services.queues[0]

    def game_due_since(seconds: float):  # a game whose seat 0 timed out `seconds` ago, by the real clock
        fake_time.now = time.time() - 2 - seconds
        record = store.load(durak_humans(api, {"turn_seconds": 2})[0])
        return record, timeout_job_id(record.game_id, record.version, 0)

    record, job_id = game_due_since(10)
    Job.fetch(job_id, api.connection, serializer="json").delete()  # lost (e.g. Redis failed after the write)
    assert revive_timeouts(store, queue, record, 20) == [0]
    assert job_id in queue.job_ids

    for overdue, revived in ((SCHEDULER_GRACE_SECONDS - 2, []), (SCHEDULER_GRACE_SECONDS + 2, [0])):
        record, job_id = game_due_since(overdue)
        Job.fetch(job_id, api.connection, serializer="json").delete()
        queue.empty()
        # still in RQ's scheduled registry after its due time: the scheduler's holder died with its lock
        queue.enqueue_at(datetime.fromtimestamp(time.time() + 3600), TIMEOUT_JOB, job_id=job_id,
                         args=(store.prefix, record.game_id, record.version, 0))
        assert revive_timeouts(store, queue, record, 20) == revived, overdue
        assert (job_id in queue.job_ids) == bool(revived)


def test_charged_seats_leave_out_ai_seats_and_waiting_games(api):
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], deck=K1,
                         options={"clock": {"turn_seconds": 5}})
    record = api.services.store.load(created.json["game_id"])
    assert clocks.charged_seats(record) == [0]
    api.act(record.game_id, created.json["player_token"], {"type": "attack", "card": "6H"})
    assert clocks.charged_seats(api.services.store.load(record.game_id)) == []  # the AI defends: no clock
    waiting = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], options={"clock": {"turn_seconds": 5}})
    assert clocks.charged_seats(api.services.store.load(waiting.json["game_id"])) == []
    assert waiting.json["clock"]["deadline"] is None
