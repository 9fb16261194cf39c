"""The browser table (issue 19): `/`, `/rules/<game>` and their static files, all shipped inside the package.

The pages are plain HTML, CSS and JavaScript modules (no build step, nothing fetched from the network) and talk to
the server only through the public `/v1` API, like any other client.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

from engine import GAMES

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

blp = Blueprint("web", __name__, static_folder=str(STATIC), static_url_path="/assets")


@blp.get("/")
def lobby() -> Response:
    """The single page: the lobby, or a table with `?game=<id>`, or a join form with `?join=<id>`."""
    return _page("index.html")


@blp.get("/rules/<game>")
def rules_page(game: str) -> Response:
    """The players' rules of `game` (one shell; the text of the chosen language is loaded by the page)."""
    if game not in GAMES:
        abort(404)
    return _page("rules.html")


def _page(name: str) -> Response:
    response = send_from_directory(STATIC, name, max_age=0)
    # the page uses nothing but its own files and the API of the same origin
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'"
    )
    return response
