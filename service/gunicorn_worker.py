"""gunicorn's gevent worker: drains the waiting clients on shutdown, answers gunicorn's refusals in JSON.

On SIGTERM (or SIGINT, SIGQUIT) gunicorn stops accepting connections and lets requests in flight finish within
`graceful_timeout`; a long-poll holds a request up to 30 s and a stream for ever, so without this they would be cut
off with an empty reply. Draining answers every held long-poll at once (the current view, or 304) and ends every
stream (its client reconnects with `Last-Event-ID`, to another process), so no client sees an empty reply.

gunicorn parses the request line and the headers itself and answers what it cannot take with a short HTML page
(`gunicorn.workers.base.Worker.handle_error`, which the gevent worker calls for any error while it reads a
request): beyond its limits of service/gunicorn_conf.py, a malformed line or header, a refused transfer coding.
`GeventWorker.handle_error` answers those with the envelope of service/errors.py instead (shared/API.md's error
table: 414 and 431 `invalid_request`, and 400 `invalid_request` for the rest, a refused transfer coding
included, which gunicorn answers 501), closing the connection as gunicorn does. gunicorn also calls it for a
malformed chunk in the unread rest of a body it discards after the answer: that request is not answered twice.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors
from gunicorn.http.parser import Parser
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers import ggevent

from service.logs import REQUEST_ID_HEADER, request_id_of

REFUSED_STATUS: dict[type[Exception], int] = {
    errors.LimitRequestLine: 414,
    errors.LimitRequestHeaders: 431,
}
"""The status of a request gunicorn refuses while parsing it: these, else 400 for any `ParseException` but those
of `LEFT_TO_GUNICORN`."""
LEFT_TO_GUNICORN = (
    errors.InvalidResponseHeader,  # the app's own bad header: a 500, as gunicorn answers it
    errors.InvalidResponseHeaderName,
    errors.ConfigurationProblem,  # gunicorn's settings, not the client: 500
    errors.ExpectationFailed,  # 417 to an `Expect` other than 100-continue: no code of shared/API.md's table
    errors.ForbiddenProxyRequest,  # 403 to a PROXY line from an address not allowed to send one (not enabled here)
)


def refused_status(exc: BaseException) -> int | None:
    """The status the JSON envelope answers gunicorn's parse error `exc` with; None: gunicorn answers it."""
    if not isinstance(exc, errors.ParseException) or isinstance(exc, LEFT_TO_GUNICORN):
        return None
    return next((status for kind, status in REFUSED_STATUS.items() if isinstance(exc, kind)), 400)


def while_discarding(exc: BaseException) -> bool:
    """Whether gunicorn raised `exc` while it discarded the unread rest of a body (its parser's `finish_body`).

    That request was answered already (a 413 after reading up to the limit, service/limits.py): gunicorn then
    closes the connection, and must not answer it again; the next request was not read yet.
    """
    return any(frame.f_code is Parser.finish_body.__code__ for frame, _ in traceback.walk_tb(exc.__traceback__))


def error_response(status: int, message: str, request_id: str) -> bytes:
    """The whole HTTP/1.1 response of a refused request: the envelope of service/errors.py, `Connection: close`.

    With `request_id` as its `X-Request-ID`, which every response returns (service/logs.py).
    """
    # the envelope's fields, written out: this module is loaded by gunicorn's master too, which must not import
    # service/errors.py (redis, through service/store.py: gevent would leave it unpatched; service/logs.py, which
    # the master's logger is, imports no more than flask); tests/e2e/test_http_limits.py holds
    # both to the same fields
    body = json.dumps({"code": status, "status": HTTPStatus(status).phrase, "error": "invalid_request",
                       "message": message}).encode()
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{REQUEST_ID_HEADER}: {request_id}\r\n"
            "\r\n")
    return head.encode("latin-1") + body


def closing_after_an_unread_body(app: Callable[..., Any]) -> Callable[..., Any]:
    """The WSGI app `app`, its answer said `Connection: close` when the request's body could not be read.

    gunicorn decodes a chunked body while the app reads it; a malformed chunk raises there (service/limits.py
    answers 400), and gunicorn then closes the connection, since where the next request starts is unknown
    (`Body.failed`). Its response header would still say keep-alive, and a request pipelined behind would go
    unanswered: RFC 9112 §9.6 asks the server to say `close` first. The app cannot say it (gunicorn drops a hop-by-hop
    `Connection` of the app's), so the response is told here, through `force_close` of gunicorn's `Response`, whose
    bound `start_response` the app is called with.
    """

    def serve(environ: dict[str, Any], start_response: Any) -> Any:
        body = environ.get("wsgi.input")  # gunicorn's, kept here: the app may put another in `environ`

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if getattr(body, "failed", False):
                start_response.__self__.force_close()
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return serve


def _drain() -> None:
    # imported here, in the worker once gevent has patched it: gunicorn's master loads this module too, and must
    # not import redis (gevent would then leave modules unpatched)
    from service.dispatcher import drain_all

    drain_all()


class GeventWorker(ggevent.GeventWorker):
    """`gunicorn.workers.ggevent.GeventWorker` with the drain on shutdown and gunicorn's refusals in JSON."""

    wsgi: Callable[..., Any]
    """The WSGI app gunicorn calls (set by gunicorn's `load_wsgi`)."""

    def handle_exit(self, sig: int, frame: object) -> None:
        """SIGTERM: stop gracefully, answering the waiting clients first."""
        super().handle_exit(sig, frame)
        gevent.spawn(_drain)  # out of the signal handler: draining takes locks

    def handle_quit(self, sig: int, frame: object) -> None:
        """SIGINT, SIGQUIT: stop quickly, answering the waiting clients first."""
        super().handle_quit(sig, frame)
        gevent.spawn(_drain)

    def load_wsgi(self) -> None:
        """The app, saying `Connection: close` after a body it could not read (`closing_after_an_unread_body`)."""
        super().load_wsgi()
        self.wsgi = closing_after_an_unread_body(self.wsgi)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request gunicorn refused while reading it (`refused_status`): the JSON envelope.

        Logged as gunicorn logs it (a warning, and the access line); any other error as gunicorn answers it. An
        error in the unread rest of a body already answered (`while_discarding`) is logged, and not answered.
        """
        if while_discarding(exc):
            self.log.warning("Invalid request body from ip=%s, after its answer: %s", (addr or ("",))[0], exc)
            return  # the connection is closed once this returns
        status = refused_status(exc)
        if status is None:
            super().handle_error(req, client, addr, exc)
            return
        started = datetime.now()
        addr = addr or ("", -1)  # a unix socket
        request_id = request_id_of(None)  # a new one: the request's own headers were not read, or not all
        self.log.warning("Invalid request from ip=%s: %s", addr[0], exc, extra={"request_id": request_id})
        if req is None and isinstance(exc, (errors.InvalidHeader, errors.InvalidHeaderName)):
            req = getattr(exc, "req", None)  # as gunicorn does: the request whose header was refused, to log it
        response = error_response(status, f"the request was refused before it was read: {exc}", request_id)
        if req is not None:
            environ = default_environ(req, client, self.cfg)
            environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = addr[0], str(addr[1])
            logged = Response(req, client, self.cfg)
            logged.headers = [(REQUEST_ID_HEADER, request_id)]
            logged.status = f"{status} {HTTPStatus(status).phrase}"
            logged.response_length = len(response)
            self.log.access(logged, req, environ, datetime.now() - started)
        try:
            util.write_nonblock(client, response)
        except OSError:
            self.log.debug("Failed to send error message.")
