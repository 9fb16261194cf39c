"""The committed spec (openapi/openapi.json) equals what the app serves; regenerate with the README's command."""

from __future__ import annotations

import json
from pathlib import Path

from service.app import create_app

SPEC = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def test_committed_spec_matches_the_app():
    app = create_app()
    served = app.test_client().get("/openapi.json").json
    app.extensions["cardroom"].store.client.close()
    assert json.loads(SPEC.read_text()) == served, (
        "openapi/openapi.json is stale: run "
        "`flask --app service.app:create_app openapi write --format=json openapi/openapi.json`"
    )


def test_spec_is_openapi_3_0_with_every_route():
    spec = json.loads(SPEC.read_text())
    assert spec["openapi"].startswith("3.0.")
    assert set(spec["paths"]) == {
        "/v1/rules", "/v1/rules/{game}", "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/seats",
        "/v1/games/{game_id}/actions", "/v1/games/{game_id}/events", "/v1/games/{game_id}/stream", "/healthz",
        "/readyz", "/metrics",
    }


def test_spec_validates_with_openapi_spec_validator():
    from openapi_spec_validator import OpenAPIV30SpecValidator

    errors = list(OpenAPIV30SpecValidator(json.loads(SPEC.read_text())).iter_errors())
    assert errors == []


def test_spec_documents_headers_security_and_errors():
    """shared/API.md: ETag, If-Match, Idempotency-Key, Location, Retry-After, bearer, the `error` field."""
    spec = json.loads(SPEC.read_text())
    paths, components = spec["paths"], spec["components"]
    assert components["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    assert {"code", "status", "error", "message"} <= set(components["schemas"]["Error"]["required"])
    assert "Retry-After" in components["responses"]["STORE_UNAVAILABLE"]["headers"]
    view, actions = paths["/v1/games/{game_id}"]["get"], paths["/v1/games/{game_id}/actions"]["post"]
    assert {"If-None-Match"} <= {p["name"] for p in view["parameters"] if p["in"] == "header"}
    assert {"If-Match", "Idempotency-Key"} == {p["name"] for p in actions["parameters"] if p["in"] == "header"}
    assert "ETag" in view["responses"]["200"]["headers"] and "ETag" in actions["responses"]["200"]["headers"]
    assert "Location" in paths["/v1/games"]["post"]["responses"]["201"]["headers"]
    assert actions["security"] == [{"bearer": []}]
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            assert operation["responses"]["default"] == {"$ref": "#/components/responses/DEFAULT_ERROR"}
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")) and "$ref" not in response:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (path, method, status)


def test_actions_are_a_discriminated_one_of_per_game():
    from engine import GAMES

    spec = json.loads(SPEC.read_text())
    schemas = spec["components"]["schemas"]
    for game_id, game in GAMES.items():
        name = "".join(part.capitalize() for part in game_id.split("_")) + "Action"
        union = schemas[name]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == set(game.ACTIONS)
        assert len(union["oneOf"]) == len(game.ACTIONS)
        for action_type, ref in union["discriminator"]["mapping"].items():
            variant = schemas[ref.rsplit("/", 1)[1]]
            assert variant["properties"]["type"]["enum"] == [action_type] and "type" in variant["required"]
