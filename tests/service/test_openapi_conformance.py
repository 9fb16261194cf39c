"""Real responses validate against the committed spec (openapi/openapi.json), and so do the spec's own examples.

Every response below is checked against the schema the spec documents for its operation and status, with
openapi-schema-validator's OpenAPI 3.0 validator (`nullable`, `anyOf`, `oneOf` + discriminator, `required`).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator

from engine import GAMES
from tests.service.conftest import Api
from tests.service.test_view_bytes import stream_view

SPEC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


def schema_errors(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Validation messages of `instance` against `schema` (its `$ref`s resolved within the spec)."""
    document = {"components": SPEC["components"], **schema}
    return [f"{list(error.absolute_path)}: {error.message}" for error in OAS30Validator(document).iter_errors(instance)]


def documented(path: str, method: str, status: int) -> dict[str, Any]:
    """The documented response of an operation for `status` (the `default` response when none is listed)."""
    template = next(
        template for template in SPEC["paths"]
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path.split("?")[0])
    )
    responses = SPEC["paths"][template][method.lower()]["responses"]
    assert str(status) in responses, f"{method} {template} answers {status}, which the spec does not list"
    response = responses[str(status)]
    if "$ref" in response:
        response = SPEC["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return response


def conforms(api: Api, method: str, path: str, token: str | None = None, json: Any = None, **headers: str) -> Any:
    """Make the request; assert the status, body and headers are as documented; return the parsed body."""
    response = api.request(method, path, token, json=json, **headers)
    spec = documented(path, method, response.status_code)
    for header in spec.get("headers", {}):
        assert header in response.headers, f"{method} {path} {response.status_code}: no {header} header"
    if "content" not in spec:
        return None
    media_type = next(iter(spec["content"]))
    assert response.mimetype == media_type.split(";")[0], (method, path, response.mimetype)
    if media_type != "application/json":
        return response.text
    errors = schema_errors(response.json, spec["content"][media_type]["schema"])
    assert errors == [], f"{method} {path} {response.status_code}: {errors}\n{response.json}"
    return response.json


@pytest.mark.parametrize("game", sorted(GAMES))
def test_responses_of_a_game_match_the_spec(api: Api, game: str) -> None:
    rules = conforms(api, "GET", f"/v1/rules/{game}")
    seats = [{"kind": "human", "name": "Ann"}] + [{"kind": "ai", "level": rules["ai_levels"][0]}] * (
        rules["seats"]["min"] - 1
    )
    options = {"match_pause_ms": 0} if "match_pause_ms" in rules["options"] else {}  # Talmut: no AI pause
    view = conforms(api, "POST", "/v1/games", json={"game": game, "seats": seats, "seed": 3, "options": options})
    game_id, token = view["game_id"], view["player_token"]
    rng = random.Random(3)
    for _ in range(12):
        api.run_ai()
        view = conforms(api, "GET", f"/v1/games/{game_id}", token)
        if view["status"] == "finished":
            break
        choices = [action for action in view["legal_actions"] if action["type"] != "resign"]
        if choices:
            view = conforms(api, "POST", f"/v1/games/{game_id}/actions", token, json=rng.choice(choices),
                            **{"If-Match": f'"{view["version"]}"', "Idempotency-Key": f"k{view['version']}"})
    conforms(api, "GET", f"/v1/games/{game_id}")  # the spectator
    for reader in (token, None):  # a stream's view event holds the bytes of a GET: the View schema's
        streamed = stream_view(api, game_id, view["version"], reader)
        assert streamed == api.view(game_id, reader).data.rstrip(b"\n")
        errors = schema_errors(json.loads(streamed), documented(f"/v1/games/{game_id}", "GET", 200)["content"][
            "application/json"]["schema"])
        assert errors == [], errors
    conforms(api, "GET", f"/v1/games/{game_id}/events", token)
    conforms(api, "GET", f"/v1/games/{game_id}", token, **{"If-None-Match": f'"{view["version"]}"'})  # 304
    conforms(api, "POST", f"/v1/games/{game_id}/actions", token, json={"type": "resign"})
    finished = conforms(api, "GET", f"/v1/games/{game_id}", token)
    assert finished["status"] == "finished" and finished["result"] is not None


def test_lobby_probes_metrics_and_errors_match_the_spec(api: Api) -> None:
    created = conforms(api, "POST", "/v1/games", json={"game": "durak", "seats": [{"kind": "human"}] * 2})
    game_id = created["game_id"]
    assert conforms(api, "GET", "/v1/games")["games"]
    conforms(api, "GET", "/v1/rules")
    conforms(api, "POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"})
    for path in ("/healthz", "/readyz", "/metrics"):
        conforms(api, "GET", path)
    errors = [
        conforms(api, "GET", "/v1/rules/chess"),
        conforms(api, "GET", "/v1/games/nope"),
        conforms(api, "GET", "/v1/games?limit=1000"),
        conforms(api, "POST", "/v1/games", json={"game": "chess", "seats": [{"kind": "human"}]}),
        conforms(api, "POST", f"/v1/games/{game_id}/seats", json={"name": "Cy"}),
        conforms(api, "POST", f"/v1/games/{game_id}/actions", "not-a-token", json={"type": "take"}),
        conforms(api, "POST", f"/v1/games/{game_id}/actions", created["player_token"], json={"type": "fly"}),
        conforms(api, "POST", f"/v1/games/{game_id}/actions", created["player_token"], json={"type": "take"},
                 **{"If-Match": '"1"'}),
    ]
    assert [error["error"] for error in errors] == [
        "unknown_game", "game_not_found", "invalid_request", "unknown_game", "game_full", "unauthorized",
        "invalid_request", "precondition_failed",
    ]


def test_every_example_in_the_spec_matches_its_schema() -> None:
    """Examples are what clients copy: each validates against the schema it illustrates."""
    checked = 0

    def walk(node: Any) -> None:
        nonlocal checked
        if isinstance(node, dict):
            schema = node.get("schema")
            if isinstance(schema, dict) and "example" in node:
                assert schema_errors(node["example"], schema) == [], node
                checked += 1
            if "example" in node and "type" in node and not isinstance(node.get("example"), dict | list):
                assert schema_errors(node["example"], {k: v for k, v in node.items() if k != "example"}) == [], node
                checked += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(SPEC)
    assert checked > 20


def test_every_request_body_has_an_example_the_server_accepts(api: Api) -> None:
    """Issue 20 §2: what Swagger UI's "Try it out" sends first is the example: create, then join, then play."""
    bodies = {
        (method, path): operation["requestBody"]["content"]["application/json"]["example"]
        for path, item in SPEC["paths"].items() for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
    }
    assert set(bodies) == {("post", "/v1/games"), ("post", "/v1/games/{game_id}/seats"),
                           ("post", "/v1/games/{game_id}/actions"), ("post", "/v1/games/{game_id}/rematch"),
                           ("post", "/v1/matches")}
    created = api.request("POST", "/v1/games", json=bodies["post", "/v1/games"])
    assert created.status_code == 201, created.json
    two_humans = {**bodies["post", "/v1/games"], "seats": [{"kind": "human"}, {"kind": "human"}]}
    waiting = api.request("POST", "/v1/games", json=two_humans).json
    join = bodies["post", "/v1/games/{game_id}/seats"]
    joined = api.request("POST", f"/v1/games/{waiting['game_id']}/seats", json=join)
    assert joined.status_code == 201 and joined.json["status"] == "active", joined.json
    assert bodies["post", "/v1/games/{game_id}/actions"]["type"] in GAMES[created.json["game"]].ACTIONS
    token = created.json["player_token"]
    api.act(created.json["game_id"], token, {"type": "resign"})
    again = api.request("POST", f"/v1/games/{created.json['game_id']}/rematch", token,
                        json=bodies["post", "/v1/games/{game_id}/rematch"])
    assert again.status_code == 201, again.json
    ticket = api.request("POST", "/v1/matches", json=bodies["post", "/v1/matches"])
    assert (ticket.status_code, ticket.json["status"]) == (202, "waiting"), ticket.json
