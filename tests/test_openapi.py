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
        "/v1/games/{game_id}/actions", "/v1/games/{game_id}/events", "/healthz", "/readyz",
    }
