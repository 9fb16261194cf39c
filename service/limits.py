"""What a request may be, checked before any route: request line, headers, body size and body media type.

docs/operations/limits.md. The body's size counts whether it is sent with a length or chunked.

gunicorn answers requests beyond its own limits itself, in HTML (service/gunicorn_conf.py sets them a little above
these), so the app, which answers with the JSON error envelope, enforces the tighter ones:

| what | limit | over it |
|---|---|---|
| request line (method, target, protocol) | `MAX_REQUEST_LINE_BYTES` | 414 `invalid_request` |
| header fields | `MAX_HEADER_FIELDS` | 431 `invalid_request` |
| one header field (`Name: value`) | `MAX_HEADER_FIELD_BYTES` | 431 `invalid_request` |
| body, with `Content-Length` or chunked | `MAX_BODY_BYTES` (Flask's `MAX_CONTENT_LENGTH`) | 413 `payload_too_large` |
| `Transfer-Encoding` | `chunked` alone | 400 `invalid_request` |
| the body's arrival, after the headers | `BODY_READ_TIMEOUT_SECONDS` | 400 `invalid_request` |
| body of a POST, PUT or PATCH not declared JSON | `application/json` or `*/*+json` | 415 `unsupported_media_type` |

A chunk declared over the body limit is refused before it is read, and a body that does not arrive in time is
given up (service/gunicorn_worker.py): both close the connection.

A body not declared JSON is refused rather than read as JSON whatever its type: the client learns at once that its
request was not understood (a form post, a forgotten header), instead of a 422 naming fields its body holds.
"""

from __future__ import annotations

import io

from flask import Flask, current_app, request
from flask_smorest import abort
from gunicorn.http.errors import ParseException

MAX_REQUEST_LINE_BYTES = 4094
MAX_HEADER_FIELDS = 100
MAX_HEADER_FIELD_BYTES = 8190
"""gunicorn's own defaults: the app keeps them, gunicorn gets more room (service/gunicorn_conf.py)."""
BODY_METHODS = {"POST", "PUT", "PATCH"}
_BODY_KEYS = frozenset({"CONTENT_TYPE", "CONTENT_LENGTH"})
_BODY_KEYS_AS_HTTP = frozenset({"HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"})
"""The environ keys werkzeug's `EnvironHeaders` takes the body's headers from, and the ones it leaves out."""


def init_app(app: Flask) -> None:
    """Check every request of `app` against the limits above before its route runs."""
    app.before_request(check_request)


def check_request() -> None:
    """Abort with the JSON envelope a request beyond a limit; read a body within the limit in whole (`read_body`)."""
    environ = request.environ
    target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or request.full_path
    line = len(request.method) + len(target) + len(environ.get("SERVER_PROTOCOL", "HTTP/1.1")) + 2
    if line > MAX_REQUEST_LINE_BYTES:
        abort(414, message=f"the request line is {line} bytes, more than {MAX_REQUEST_LINE_BYTES}",
              error="invalid_request")
    # the fields as werkzeug's `request.headers` lists them, read from the environ in one pass (a name's length is
    # its environ key's less `HTTP_`): iterating `request.headers`, and its `len`, title-case every name each time
    fields = [(key[5:] if key.startswith("HTTP_") else key, value) for key, value in environ.items()
              if key.startswith("HTTP_") and key not in _BODY_KEYS_AS_HTTP or key in _BODY_KEYS and value]
    if len(fields) > MAX_HEADER_FIELDS:
        abort(431, message=f"{len(fields)} header fields, more than {MAX_HEADER_FIELDS}", error="invalid_request")
    for key, value in fields:
        if len(key) + len(value) + 2 > MAX_HEADER_FIELD_BYTES:
            name = key.replace("_", "-").title()
            abort(431, message=f"the header field {name[:40]} is over {MAX_HEADER_FIELD_BYTES} bytes",
                  error="invalid_request")
    coding = environ.get("HTTP_TRANSFER_ENCODING")  # what `request.headers.get("Transfer-Encoding")` reads
    if coding is not None:
        if [part.strip(" \t").lower() for part in coding.split(",")] != ["chunked"]:
            # gunicorn takes `gzip, chunked` (and deflate, compress) and hands the app the body still compressed
            abort(400, message=f"Transfer-Encoding {coding[:40]!r} is not supported: send the body with "
                  "Content-Length or chunked alone", error="invalid_request")
    if coding is not None or 0 < (request.content_length or 0) <= current_app.config["MAX_CONTENT_LENGTH"]:
        read_body()
    if request.method in BODY_METHODS and has_body() and not request.is_json:
        abort(415, message="send the body as JSON, with Content-Type: application/json", error="unsupported_media_type")


def read_body() -> None:
    """Read a body up to one byte past the limit: 413 if it is longer, 400 if it cannot be read, else hand it on.

    A chunked body, or one of a length within the limit; handed on with its length. Read here, in whole, so that a body
    which cannot be read is answered 400 whatever the route: gunicorn decodes the chunks as they are read, and a
    malformed one stops it; service/gunicorn_worker.py gives up on a body that has not arrived within
    `BODY_READ_TIMEOUT_SECONDS` (`BodyWithin`). Flask would read at most `MAX_CONTENT_LENGTH` bytes of a chunked body
    and silently drop the rest, so a body of valid JSON followed by a megabyte of anything would pass. gunicorn discards
    what is left unread before the next request.
    """
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    try:
        data = request.environ["wsgi.input"].read(limit + 1)
    except ParseException as error:
        if getattr(error, "status", 400) == 413:  # a chunk declared over the limit (service/gunicorn_worker.py)
            abort(413, message=str(error), error="payload_too_large")
        abort(400, message=f"the body could not be read: {error}", error="invalid_request")
    if len(data) > limit:
        abort(413, message=f"the body is over {limit} bytes", error="payload_too_large")
    request.environ["wsgi.input"] = io.BytesIO(data)
    request.environ["CONTENT_LENGTH"] = str(len(data))


def has_body() -> bool:
    """Whether the request carries a body (a length above 0; a chunked one is read by then, with its length)."""
    return (request.content_length or 0) > 0
