"""Rate limits per client address and per player token, counted in Redis (README "Limits and lifetimes").

flask-limiter with the `limits` package's Redis storage on the app's own connection pool, so every gunicorn
process and every pod share one count, the keys live under `<KEY_PREFIX>:ratelimit:`, and a Redis outage is the
same 503 `store_unavailable` as anywhere else. Both limits are fixed windows (`RATE_LIMIT_PER_ADDRESS`,
`RATE_LIMIT_PER_TOKEN`, e.g. "1200/minute"); the token's is keyed by its hash, never the token itself. Probes
and `/metrics` are not limited. Over a limit: 429 `rate_limited` with `Retry-After` (seconds).
"""

from __future__ import annotations

from flask import Flask, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.util import get_remote_address

from service.extensions import UNLIMITED_PATHS
from service.store import hash_token


def _token_key() -> str:
    from service.routes.games import bearer_token

    token = bearer_token()
    return hash_token(token) if token else ""


def _no_token() -> bool:
    return _token_key() == ""


def init_app(app: Flask, connection_pool: object, prefix: str) -> Limiter:
    """Limit every request of `app` by client address and by token, counting in Redis under `prefix`."""
    limiter = Limiter(
        get_remote_address,
        app=None,
        application_limits=[
            ApplicationLimit(app.config["RATE_LIMIT_PER_ADDRESS"], key_function=get_remote_address, scope="address"),
            ApplicationLimit(
                app.config["RATE_LIMIT_PER_TOKEN"], key_function=_token_key, scope="token", exempt_when=_no_token
            ),
        ],
        storage_uri="redis://",
        # flask-limiter's hint (str | int values) is narrower than what its redis storage takes: a connection pool
        storage_options={"connection_pool": connection_pool, "key_prefix": f"{prefix}:ratelimit"},  # type: ignore[dict-item]
        strategy="fixed-window",
        headers_enabled=False,
        swallow_errors=False,
        enabled=app.config["RATE_LIMIT_ENABLED"],
    )
    limiter.request_filter(lambda: request.path in UNLIMITED_PATHS)
    limiter.init_app(app)
    return limiter
