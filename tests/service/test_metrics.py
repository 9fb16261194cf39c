"""`GET /metrics` (README "Metrics"): request, action, AI and game metrics in Prometheus text format."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from service.metrics import _histograms, observe_ai_decision
from tests.service.conftest import Api


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page: (name, sorted labels) -> value."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_requests_by_route_actions_ai_turns_and_active_games(api: Api) -> None:
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
    assert found[("cardroom_active_games", (("game", "durak"),))] == 1
    assert found[("cardroom_ai_queue_depth", ())] == 0


def test_ai_decision_histogram_is_cumulative(api: Api) -> None:
    store = api.services.store
    for seconds in (0.001, 0.02, 0.02, 100.0):
        observe_ai_decision(store.client, store.prefix, "tadmur", "random", seconds)
    fields = store.client.hgetall(f"{store.prefix}:metrics:ai_decision_seconds")
    buckets, total = _histograms(fields)[("tadmur", "random")]
    bounds = dict(buckets)
    assert (bounds["0.005"], bounds["0.025"], bounds["60.0"], bounds["+Inf"]) == (1, 3, 3, 4)
    assert abs(total - 100.041) < 1e-9
