"""`GET /metrics` (README "Metrics"): request, action, AI and game metrics in Prometheus text format."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from service.game_metrics import PENDING, _histograms, observe_ai_decision
from tests.service.conftest import Api


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page: (name, sorted labels) -> value."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_requests_by_route_actions_ai_turns_and_active_games(api: Api) -> None:
    # a private game is active too, though in indexes of its own (service/lobby_index.py)
    private = api.create([{"kind": "human", "name": "Bo"}, {"kind": "ai", "level": "easy"}], visibility="private")
    assert private.status_code == 201 and private.json["status"] == "active"
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=4)
    view, token = created.json, created.json["player_token"]
    api.run_ai()
    view = api.view(view["game_id"], token).json
    played = api.act(view["game_id"], token, view["legal_actions"][0])
    assert played.status_code == 200
    api.run_ai()
    api.view("no-such-game")
    response = api.request("GET", "/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    found = samples(response.text)
    names = {name for name, _ in found}
    assert {
        "cardroom_http_requests_total", "cardroom_http_request_duration_seconds_bucket",
        "cardroom_actions_applied_total", "cardroom_ai_decision_seconds_count", "cardroom_ai_queue_depth",
        "cardroom_active_games",
    } <= names
    # by URL rule, never the raw path with the game id
    not_found = ("cardroom_http_requests_total", (("method", "GET"), ("route", "/v1/games/<game_id>"),
                                                  ("status", "404")))
    assert found[not_found] >= 1
    assert not any("no-such-game" in value for _, labels in found for _, value in labels)
    first_type = view["legal_actions"][0]["type"]
    assert found[("cardroom_actions_applied_total", (("game", "durak"), ("type", first_type)))] >= 1
    assert found[("cardroom_ai_decision_seconds_count", (("game", "durak"), ("level", "easy")))] >= 1
    assert found[("cardroom_active_games", (("game", "durak"),))] == 2
    assert found[("cardroom_ai_queue_depth", ())] == 0


def test_ai_decision_histogram_is_cumulative(api: Api) -> None:
    store = api.services.store
    for seconds in (0.001, 0.02, 0.02, 100.0):
        observe_ai_decision(store.client, store.prefix, "tadmur", "random", seconds)
    PENDING.flush(store.client)
    fields = store.client.hgetall(f"{store.prefix}:metrics:ai_decision_seconds")
    buckets, total = _histograms(fields)[("tadmur", "random")]
    bounds = dict(buckets)
    assert (bounds["0.005"], bounds["0.025"], bounds["60.0"], bounds["+Inf"]) == (1, 3, 3, 4)
    assert abs(total - 100.041) < 1e-9


def test_one_process_reports_its_process_and_python_collectors_and_the_build(api: Api) -> None:
    """Outside gunicorn's multiprocess mode (here, one process) the standard collectors apply as they are."""
    from importlib.metadata import version

    found = samples(api.request("GET", "/metrics").text)
    names = {name for name, _ in found}
    assert {"process_cpu_seconds_total", "process_resident_memory_bytes", "python_gc_objects_collected_total"} <= names
    (info,) = [labels for name, labels in found if name == "python_info"]
    (build,) = [(labels, value) for (name, labels), value in found.items() if name == "cardroom_build_info"]
    assert dict(build[0])["version"] == version("cardroom") and build[1] == 1
    assert dict(build[0])["python"] == dict(info)["version"]


def test_ai_fallbacks_are_counted_by_game_level_and_reason(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from engine.players import LEVELS

    def broken(view, rng):  # type: ignore[no-untyped-def]
        raise RuntimeError("search broke")

    monkeypatch.setitem(LEVELS["durak"], "hard", broken)
    created = api.create([{"kind": "ai", "level": "hard"}, {"kind": "ai", "level": "random"}], seed=7)
    api.run_ai()
    events = api.request("GET", f"/v1/games/{created.json['game_id']}/events").json["events"]
    fallbacks = sum(event["type"] == "ai_fallback" for event in events)
    found = samples(api.request("GET", "/metrics").text)
    key = ("cardroom_ai_fallbacks_total", (("game", "durak"), ("level", "hard"), ("reason", "error")))
    assert fallbacks > 0 and found[key] == fallbacks


def test_long_polls_have_a_histogram_of_their_own_and_streams_a_count(api: Api) -> None:
    """A long-poll's wait would drown the request latency histogram: it is observed in its own.

    The HTTP metrics belong to the test process, shared by every app of the suite: compared before and after.
    """
    game_id, tokens = api.create_humans(game="tadmur")
    version = api.view(game_id).json["version"]
    view = (("method", "GET"), ("route", "/v1/games/<game_id>"))
    keys = {
        "requests": ("cardroom_http_requests_total", (*view, ("status", "304"))),
        "latency": ("cardroom_http_request_duration_seconds_count", (*view, ("status", "304"))),
        "long_polls": ("cardroom_long_poll_duration_seconds_count", (("status", "304"),)),
        "held": ("cardroom_long_poll_duration_seconds_sum", (("status", "304"),)),
        "streams": ("cardroom_streams_opened_total", (("status", "200"),)),
    }
    before = samples(api.request("GET", "/metrics").text)
    held = api.request("GET", f"/v1/games/{game_id}?after_version={version}&wait=0.2", tokens[0])
    assert held.status_code == 304
    stream = api.request("GET", f"/v1/games/{game_id}/stream?after_version={version}", tokens[0])
    assert stream.status_code == 200
    stream.close()
    after = samples(api.request("GET", "/metrics").text)
    grown = {name: after.get(key, 0) - before.get(key, 0) for name, key in keys.items()}
    assert grown["held"] >= 0.2
    assert {**grown, "held": None} == {"requests": 1, "latency": 0, "long_polls": 1, "held": None, "streams": 1}


def test_requests_over_a_rate_limit_are_counted_by_scope(redis_connection) -> None:  # type: ignore[no-untyped-def]
    import os
    import uuid

    from service.app import create_app
    from tests.service.conftest import delete_test_keys

    prefix = f"test-{uuid.uuid4().hex[:12]}"
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True,
                      "RATE_LIMIT_PER_ADDRESS": "3/minute"})
    try:
        client = app.test_client()
        key = ("cardroom_rate_limited_total", (("scope", "address"),))
        before = samples(client.get("/metrics").text).get(key, 0)  # the test process's count, shared by its apps
        statuses = [client.get("/v1/rules").status_code for _ in range(5)]
        assert statuses == [200, 200, 200, 429, 429]
        assert samples(client.get("/metrics").text)[key] - before == 2
    finally:
        delete_test_keys(redis_connection, prefix)
        app.extensions["cardroom"].store.client.close()
