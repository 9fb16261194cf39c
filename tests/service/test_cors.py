"""CORS (README "Browser front ends"): off by default, `*` or exact origins with `CORS_ORIGINS`.

The headers a browser needs: the preflight allows the API's request headers, and responses (errors too) expose
ETag, Retry-After, X-Request-ID and Location to the page's script. tests/e2e/test_browser.py plays through it.
"""

from __future__ import annotations

import os
import uuid

import pytest
import redis

from service.app import create_app
from service.config import cors_origins
from tests.service.conftest import delete_test_keys

PAGE = "http://127.0.0.1:5173"
PREFLIGHT = {
    "Origin": PAGE, "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key",
}


@pytest.fixture
def client_with(redis_connection: redis.Redis):
    made = []

    def make(origins):  # type: ignore[no-untyped-def]
        prefix = f"test-{uuid.uuid4().hex[:12]}"
        settings = {"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True}
        if origins is not None:
            settings["CORS_ORIGINS"] = origins
        app = create_app(settings)
        made.append((app, prefix))
        return app.test_client()

    yield make
    for app, prefix in made:
        delete_test_keys(redis_connection, prefix)
        app.extensions["cardroom"].store.client.close()


def test_the_setting_reads_none_a_star_or_exact_origins() -> None:
    assert cors_origins("") == []
    assert cors_origins(" * ") == "*"
    assert cors_origins("https://a.example, http://127.0.0.1:5173 ") == ["https://a.example", "http://127.0.0.1:5173"]


def test_no_cors_headers_by_default(client_with) -> None:  # type: ignore[no-untyped-def]
    client = client_with(None)
    preflight = client.options("/v1/games/abc/actions", headers=PREFLIGHT)
    assert not [name for name in preflight.headers.keys() if name.startswith("Access-Control-")]
    answer = client.get("/v1/rules", headers={"Origin": PAGE})
    assert answer.status_code == 200 and "Access-Control-Allow-Origin" not in answer.headers


@pytest.mark.parametrize("origins", [[PAGE], "*"])
def test_a_listed_origin_may_call_with_the_api_s_headers(client_with, origins) -> None:  # type: ignore[no-untyped-def]
    client = client_with(origins)
    preflight = client.options("/v1/games/abc/actions", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == ("*" if origins == "*" else PAGE)
    allowed = {name.strip().lower() for name in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= allowed
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    missing = client.get("/v1/games/abc", headers={"Origin": PAGE})  # an error body is readable too
    assert missing.status_code == 404 and missing.headers["Access-Control-Allow-Origin"] in (PAGE, "*")
    exposed = {name.strip().lower() for name in missing.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "retry-after", "x-request-id", "location"} <= exposed
    preflight = client.options("/v1/games/abc", headers={**PREFLIGHT, "Access-Control-Request-Method": "GET",
                                                         "Access-Control-Request-Headers": "if-none-match"})
    assert "if-none-match" in preflight.headers["Access-Control-Allow-Headers"].lower()


def test_an_unlisted_origin_gets_no_cors_headers(client_with) -> None:  # type: ignore[no-untyped-def]
    client = client_with(["https://cards.example"])
    preflight = client.options("/v1/games/abc/actions", headers=PREFLIGHT)
    assert "Access-Control-Allow-Origin" not in preflight.headers
    assert "Access-Control-Allow-Origin" not in client.get("/v1/rules", headers={"Origin": PAGE}).headers


def test_vary_names_both_origin_and_authorization(client_with) -> None:  # type: ignore[no-untyped-def]
    """flask-cors adds `Vary: Origin` when one of several origins is echoed; the game's `Vary: Authorization` is
    kept beside it."""
    client = client_with([PAGE, "https://cards.example"])
    missing = client.get("/v1/games/abc", headers={"Origin": PAGE})
    varies = {name.strip() for value in missing.headers.getlist("Vary") for name in value.split(",")}
    assert (missing.status_code, varies) == (404, {"Origin", "Authorization"})
