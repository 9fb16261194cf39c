"""The `/v1/games` blueprint, which the routes of service/routes/games.py and service/routes/seats.py share.

One blueprint, so the spec keeps one `games` tag over every operation on a game; and the answers those routes
share: `Vary: Authorization`, a seat's view (`view_of`), the view's bytes with their ETag (`view_response`) and the
304 of a version the client has (`not_modified`).
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request

from service.extensions import Blueprint
from service.records import GameRecord
from service.streams import reading_extras
from service.views import game_view, view_body, with_presence

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games, seats, views, actions and events")


@blp.after_request
def varying_with_the_token(response: Response) -> Response:
    """`Vary: Authorization` on every answer about one game, added to a `Vary` already set, not over it.

    Its view, long-poll, stream, events and actions are the token's seat's or the spectator's, under the same ETag
    (the version), so a cache between must not answer one with the other (RFC 9110 §12.5.5).
    """
    if "game_id" in (request.view_args or {}):
        if "Vary" in response.headers:
            response.vary.add("Authorization")
        else:  # the usual case, without parsing and writing back a header set
            response.headers["Vary"] = "Authorization"
    return response


def view_of(record: GameRecord, seat: int | None) -> dict[str, Any]:
    """The API view of `record` for `seat`, with `pending_ai` read from the queue and each seat's `last_seen`."""
    pending, seen = reading_extras(record)
    return with_presence(game_view(record, seat, pending), seen)


def view_response(
    record: GameRecord,
    seat: int | None,
    extras: tuple[list[int], dict[int, float]] | None = None,
) -> Response:
    """`view_of(record, seat)` as a 200 JSON response with its ETag, sending the bytes kept for the version and seat.

    The body is `view_body`'s (service/views.py), not a schema dump: the same bytes as Flask's JSON of the dump.
    `extras`: `reading_extras(record)` when read already.
    """
    pending, seen = extras or reading_extras(record)
    return current_app.response_class(
        view_body(record, seat, pending, seen) + b"\n",
        mimetype="application/json",
        headers=etag_of(record),
    )


def etag_of(record: GameRecord) -> dict[str, str]:
    """The `ETag` header of a view of `record`: its version, strong (`"17"`)."""
    return {"ETag": f'"{record.version}"'}


def not_modified(record: GameRecord) -> Response:
    """A 304 with `record`'s ETag, as a response object.

    Returned as a tuple, flask-smorest would dump an empty body with the view's schema and JSON-encode it, which
    werkzeug then drops with its `Content-Type` and `Content-Length` for a 304 (RFC 9110 §15.4.5): the same bytes
    without that work (about 10 of a 304's 320 us in process).
    """
    return current_app.response_class(status=304, headers=etag_of(record))
