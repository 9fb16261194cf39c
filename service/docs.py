"""`/docs`: Swagger UI served from the pinned `swagger-ui-bundle-v2` package, never from a CDN.

The page works on a machine with no route to the internet, and every visitor gets the version pinned in
pyproject.toml. flask-smorest renders `/docs` itself and loads the scripts from `OPENAPI_SWAGGER_UI_URL`, which
service/config.py points at the route below.
"""

from __future__ import annotations

from flask import Flask, Response, send_from_directory
from swagger_ui_bundle import swagger_ui_path

ASSETS_URL = "/docs/assets/"


def init_app(app: Flask) -> None:
    """Serve the Swagger UI files (scripts, styles) under `ASSETS_URL`; outside the spec, as `/openapi.json` is."""

    def swagger_ui_asset(filename: str) -> Response:
        # one day: the files change only with the pinned package, and then the page is reloaded anyway
        return send_from_directory(str(swagger_ui_path), filename, max_age=24 * 3600)

    app.add_url_rule(f"{ASSETS_URL}<path:filename>", "swagger_ui_asset", swagger_ui_asset)
