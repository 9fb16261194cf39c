"""JSON logs and request ids.

Every request gets an id: the client's `X-Request-ID` when it is well formed (`REQUEST_ID_PATTERN`), else a new
one; it is returned in the `X-Request-ID` response header, added to every log record written while the request
runs, and to gunicorn's access log line (`JsonGunicornLogger`). One JSON object per line; no header, body or
query string is ever logged, so a player token (sent only in `Authorization`) never reaches a log.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sys
import time
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from gunicorn.glogging import Logger as GunicornLogger

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_LOWER = REQUEST_ID_HEADER.lower()
REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
"""A client's request id is kept when it is 1-128 of these characters (no spaces, quotes or control characters)."""


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id (in a request), exception."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id:
            entry["request_id"] = request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        return json.dumps(entry, ensure_ascii=True, default=str)


class RequestIdFilter(logging.Filter):
    """Adds the current request's id to each record written during a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always keeps the record."""
        if not getattr(record, "request_id", None) and has_request_context():
            record.request_id = g.get("request_id")
        return True


def configure_logging(level: int = logging.INFO) -> None:
    """Send every log record (the app's, RQ's) to stderr as JSON lines; used by gunicorn's app and the worker."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def request_id_of(header: str | None) -> str:
    """The client's id if well formed, else a new random one (32 hex digits, 128 random bits)."""
    if header and REQUEST_ID_PATTERN.fullmatch(header):
        return header
    return secrets.token_hex(16)  # what uuid4().hex held, without building a UUID (a fifth of the hook's time)


def init_app(app: Flask) -> None:
    """Give each request of `app` an id, returned in `X-Request-ID`."""

    @app.before_request
    def assign_request_id() -> None:
        g.request_id = request_id_of(request.headers.get(REQUEST_ID_HEADER))

    @app.after_request
    def return_request_id(response: Response) -> Response:
        response.headers[REQUEST_ID_HEADER] = g.get("request_id") or request_id_of(None)
        return response


class JsonGunicornLogger(GunicornLogger):
    """gunicorn's logger writing JSON lines: its own messages, and one access line per request with its id.

    The access line holds the method, path (without the query string), status, size, duration and request id;
    never a header or the query string.
    """

    def setup(self, cfg: Any) -> None:
        """Do gunicorn's setup, then put the JSON formatter on its handlers."""
        super().setup(cfg)
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(JsonFormatter())
        # asked once, not per request (gunicorn's settings are fixed by now): reading them was a third of a line's cost
        self.logs_access = bool(cfg.accesslog or cfg.logconfig or cfg.logconfig_dict or cfg.syslog)

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        """One JSON access line (when the access log is on)."""
        if not self.logs_access:
            return
        request_id = next((value for name, value in resp.headers if name.lower() == _REQUEST_ID_LOWER), None)
        fields = {
            "remote": environ.get("REMOTE_ADDR"),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "status": int(str(resp.status).split()[0]),
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 1),
            "request_id": request_id,
        }
        try:
            self.access_log.info("request", extra={"fields": fields})
        except Exception:  # noqa: BLE001 - gunicorn's own rule: a log failure never fails the request
            self.exception("failed to log the request")
