"""Issue 7 through the API and the real AI job: search levels play whole games; a failing level never leaves a
seat stuck (a fallback level moves and an `ai_fallback` event says so). Budgets are capped in tests/conftest.py.
"""

from __future__ import annotations

import pytest
from rq.timeouts import JobTimeoutException

from engine.ai import search
from engine.players import LEVELS, SEARCH_HOOKS
from service.turns import AI_JOB_TIMEOUT_SECONDS
from worker import jobs


def events_of(api, game_id: str) -> list[dict]:
    return api.request("GET", f"/v1/games/{game_id}/events").json["events"]


@pytest.mark.parametrize(("game_id", "seats"), [("durak", 2), ("tadmur", 2), ("talmut", 3)])
def test_all_ai_game_hard_against_random_plays_itself_through_the_worker(api, game_id: str, seats: int) -> None:
    """How tournaments run (issue 7): every seat an AI, the worker plays the game to its end."""
    body = [{"kind": "ai", "level": "hard"}] + [{"kind": "ai", "level": "random"}] * (seats - 1)
    options = {"target": 10, "match_pause_ms": 0} if game_id == "talmut" else {}
    created = api.create(body, game=game_id, seed=3, options=options)
    assert created.status_code == 201, created.json
    api.run_ai()
    final = api.view(created.json["game_id"]).json
    assert final["status"] == "finished" and final["pending_ai"] == []
    assert not [event for event in events_of(api, final["game_id"]) if event["type"] == "ai_fallback"]


def test_the_job_timeout_is_above_every_levels_wall_budget() -> None:
    caps = [search.default_budget(hooks, level).seconds
            for hooks in SEARCH_HOOKS.values() for level in search.SEARCH_LEVELS]
    assert max(caps) * 10 < AI_JOB_TIMEOUT_SECONDS


@pytest.mark.parametrize(("failure", "reason"), [(RuntimeError("search broke"), "error"),
                                                 (JobTimeoutException("too slow"), "timeout")])
def test_a_failing_level_falls_back_and_says_so(api, monkeypatch, failure, reason) -> None:
    def broken(view, rng):
        raise failure

    monkeypatch.setitem(LEVELS["durak"], "hard", broken)
    created = api.create([{"kind": "ai", "level": "hard"}, {"kind": "ai", "level": "random"}], seed=7)
    api.run_ai()
    game_id = created.json["game_id"]
    final = api.view(game_id).json
    assert final["status"] == "finished"
    fallbacks = [event for event in events_of(api, game_id) if event["type"] == "ai_fallback"]
    assert fallbacks and all(event["seat"] == 0 and event["reason"] == reason for event in fallbacks)
    assert fallbacks[0] == {"version": fallbacks[0]["version"], "type": "ai_fallback", "seat": 0, "level": "hard",
                            "fallback": "easy", "reason": reason}


def test_an_illegal_choice_falls_back(api, monkeypatch) -> None:
    monkeypatch.setitem(LEVELS["durak"], "hard", lambda view, rng: {"type": "attack", "card": "2H"})
    created = api.create([{"kind": "ai", "level": "hard"}, {"kind": "ai", "level": "random"}], seed=7)
    api.run_ai()
    events = events_of(api, created.json["game_id"])
    assert any(event["type"] == "ai_fallback" and event["reason"] == "error" for event in events)


def test_a_failed_job_is_answered_by_its_failure_callback(api, monkeypatch) -> None:
    """The job raises after choosing (here: storing its move); RQ runs `ai_turn_failed`, which plays a fallback."""
    calls = []
    play = jobs.play

    def flaky(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("Redis down")
        return play(*args, **kwargs)

    monkeypatch.setattr(jobs, "play", flaky)
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=7)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = created.json
    if 1 not in view["to_act"]:
        view = api.act(game_id, token, view["legal_actions"][0]).json
    before = view["version"]
    api.run_ai()
    after = api.view(game_id, token).json
    assert after["version"] == before + 1, "the failure callback moved for the AI seat"
    fallbacks = [event for event in events_of(api, game_id) if event["type"] == "ai_fallback"]
    assert fallbacks == [{"version": before + 1, "type": "ai_fallback", "seat": 1, "level": "easy",
                          "fallback": "easy", "reason": "error"}]


def test_a_job_stopped_by_a_cold_shutdown_is_left_to_the_sweep(api, monkeypatch) -> None:
    """A second SIGTERM raises SystemExit inside the job (it runs in the worker's own process): the failure
    callback plays no fallback move, so the turn is revived later at its own level, not answered by `easy`."""
    calls = []
    choose_action = jobs.choose_action

    def stopped_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise SystemExit(1)
        return choose_action(*args, **kwargs)

    monkeypatch.setattr(jobs, "choose_action", stopped_once)
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "hard"}], seed=7)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = created.json
    if 1 not in view["to_act"]:
        view = api.act(game_id, token, view["legal_actions"][0]).json
    api.run_ai()
    assert api.services.store.version(game_id) == view["version"]
    assert [event for event in events_of(api, game_id) if event["type"] == "ai_fallback"] == []


def test_the_ai_history_holds_only_what_its_seat_may_see(api) -> None:
    """The search's history is `GET /events` for its seat: another seat's private fields never reach it."""
    from service.views import ai_seat_view

    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "random"}], game="svoi_koziri",
                         seed=4)
    game_id, token = created.json["game_id"], created.json["player_token"]
    api.act(game_id, token, {"type": "choose_trump", "suit": "S"})
    api.run_ai()
    store = api.services.store
    record = store.load(game_id)
    for seat in (0, 1):
        dealt = [e for e in ai_seat_view(record, seat, store.events(game_id))["history"] if e["type"] == "dealt"]
        own = [e for e in store.events(game_id) if e["type"] == "dealt"][0]["private"][str(seat)]["cards"]
        assert dealt[0]["cards"] == own
