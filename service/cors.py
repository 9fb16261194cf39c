"""Cross-origin requests from web pages (docs/operations/production.md "Browser front ends (CORS)"), with flask-cors.

Off unless `CORS_ORIGINS` names origins (or `*`). A page on a listed origin may send the API's request headers
(`Authorization`, `If-Match`, `If-None-Match`, `Idempotency-Key`, JSON bodies) and its script may read the
response headers clients need (`ETag`, `Retry-After`, `X-Request-ID`, `Location`), on errors too. No cookies are
involved (tokens travel in `Authorization`), so credentials mode stays off and `*` is safe for a public server.
"""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

ALLOWED_HEADERS = ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key"]
EXPOSED_HEADERS = ["ETag", "Retry-After", "X-Request-ID", "Location"]
PREFLIGHT_MAX_AGE_SECONDS = 600


def init_app(app: Flask) -> None:
    """Answer CORS for `app.config["CORS_ORIGINS"]` (a list of exact origins, or `"*"`); nothing when empty."""
    origins = app.config["CORS_ORIGINS"]
    if not origins:
        return
    CORS(
        app,
        origins=origins,
        methods=["GET", "POST", "OPTIONS"],
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        supports_credentials=False,
        send_wildcard=origins == "*",  # `*` itself rather than the caller's origin echoed: one cacheable answer
        max_age=PREFLIGHT_MAX_AGE_SECONDS,
    )
