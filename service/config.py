"""Settings read from the environment (defaults suit a developer machine)."""

from __future__ import annotations

import os
from typing import Any


def from_environment() -> dict[str, Any]:
    """The app's settings: `REDIS_URL`, `KEY_PREFIX`, `RQ_QUEUE` and the API's fixed options.

    `REDIS_URL` defaults to the local server at 127.0.0.1:6379; `cardroom serve` sets it to its embedded Redis.
    """
    return {
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "KEY_PREFIX": os.environ.get("KEY_PREFIX", "cardroom"),
        "RQ_QUEUE": os.environ.get("RQ_QUEUE", "cardroom"),
        "IDEMPOTENCY_TTL_SECONDS": int(os.environ.get("IDEMPOTENCY_TTL_SECONDS", str(24 * 3600))),
        "MAX_CONTENT_LENGTH": 64 * 1024,
        "LONG_POLL_MAX_SECONDS": 30,
        "API_TITLE": "Cardroom",
        "API_VERSION": "1.0.0",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "/docs",
        "OPENAPI_SWAGGER_UI_URL": "https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        "API_SPEC_OPTIONS": {
            "info": {"description": "An HTTP game server for turn-based card games. Contract: shared/API.md."},
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        },
    }


def redis_client(url: str):  # noqa: ANN201 - redis.Redis, imported lazily by callers that need it
    """A bytes (non-decoding) redis-py client for `url`, shared by the store and RQ (rq#1188).

    Short socket timeouts make an unreachable Redis fail fast as 503 rather than hang a request.
    """
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2, health_check_interval=30)
