"""gunicorn's gevent worker: drains the waiting clients on shutdown, answers gunicorn's refusals in JSON, bounds bodies.

On SIGTERM (or SIGINT, SIGQUIT) gunicorn stops accepting connections and lets requests in flight finish within
`graceful_timeout`; a long-poll holds a request up to 30 s and a stream for ever, so without this they would be cut
off with an empty reply. Draining answers every held long-poll at once (the current view, or 304) and ends every
stream (its client reconnects with `Last-Event-ID`, to another process), so no client sees an empty reply.

gunicorn parses the request line and the headers itself and answers what it cannot take with a short HTML page
(`gunicorn.workers.base.Worker.handle_error`, which the gevent worker calls for any error while it reads a
request): beyond its limits of service/gunicorn_conf.py, a malformed line or header, a refused transfer coding.
`GeventWorker.handle_error` answers those with the envelope of service/errors.py instead (docs/API.md's error
table: 414 and 431 `invalid_request`, and 400 `invalid_request` for the rest, a refused transfer coding
included, which gunicorn answers 501), closing the connection as gunicorn does. gunicorn also calls it for a
malformed chunk in the unread rest of a body it discards after the answer: that request is not answered twice.

gunicorn's `keepalive` timeout bounds the request line and headers; the body is read later, as the app asks, with no
bound: the app is handed it as a `BodyWithin`, whose reads give up `BODY_READ_TIMEOUT_SECONDS` after the headers,
and a chunked one is read by `ChunksWithin`, which refuses a chunk declared over the body limit before reading it.
service/limits.py reads every body up front and answers those 400 and 413; the connection is then closed.

gunicorn sends a response's header block and its body in two writes, two system calls, each waking the client: on
a box whose cores the server, Redis and the clients share, those were a tenth of a view read's samples. An answer
that is not chunked goes out in one write (`OneWriteResponse`), as other servers do (Starman, Pitchfork).
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors
from gunicorn.http.body import ChunkedReader
from gunicorn.http.parser import Parser
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers import ggevent

from service.config import body_read_timeout, max_body_bytes
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
    errors.ExpectationFailed,  # 417 to an `Expect` other than 100-continue: no code of docs/API.md's table
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


class _Collected:
    """A stand-in for a response's socket that keeps what is sent to it (gunicorn writes with `sendall`)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.parts.append(data)


class OneWriteResponse(Response):
    """gunicorn's `Response`, its header block sent with the first body bytes in one write (module docstring).

    A chunked answer (a stream) and one whose headers are out already are written as gunicorn writes them, as
    are an answer without a body (`close` sends the header block alone) and a file (`write_file`).
    """

    sock: Any
    """The client's socket (gunicorn's `Response.__init__` sets it)."""

    def write(self, arg: bytes) -> None:
        """Send `arg`, the first body bytes after the header block, both in one write (gunicorn's checks kept)."""
        if self.headers_sent or self.chunked:
            super().write(arg)
            return
        sock, collected = self.sock, _Collected()
        self.sock = collected
        try:
            super().write(arg)
        finally:
            self.sock = sock
            util.write(sock, b"".join(collected.parts))


def sending_in_one_write(app: Callable[..., Any]) -> Callable[..., Any]:
    """The WSGI app `app`, each of its answers on gunicorn's HTTP/1 `Response` a `OneWriteResponse`."""

    def serve(environ: dict[str, Any], start_response: Any) -> Any:
        response = getattr(start_response, "__self__", None)
        if type(response) is Response:
            response.__class__ = OneWriteResponse  # same layout, one method more: gunicorn builds its own class
        return app(environ, start_response)

    return serve


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


class BodyTimeout(errors.ParseException):
    """The request's body did not arrive within its bound (`body_read_timeout`, in seconds)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds

    def __str__(self) -> str:
        return f"the body did not arrive within {self.seconds:g} s of the headers"


class BodyTooLarge(errors.ParseException):
    """A chunk declared of `size` bytes, more than `limit`, the body limit: service/limits.py answers 413."""

    status = 413
    """The status service/limits.py answers this with (else 400, for a `ParseException`)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(size)
        self.size = size
        self.limit = limit

    def __str__(self) -> str:
        return f"a chunk of {self.size} bytes declared, more than the limit of {self.limit}"


class ChunksWithin(ChunkedReader):
    """gunicorn's reader of a chunked body, raising `BodyTooLarge` for a chunk declared over `limit` bytes.

    Raised before the chunk is read, as an over-limit `Content-Length` is refused before its body is read. Else a chunk
    declared of 2^80 bytes is read until the body's bound (`BodyWithin`) gives up: a 400 after seconds, not the 413 it
    is. The connection is then closed (the chunk is not read to its end), which may cut off the answer of a client still
    sending; so only a chunk over the limit is refused here, and smaller chunks adding up to more are read up to the
    limit and answered 413 while gunicorn discards the rest, as before.
    """

    def __init__(self, req: Any, unreader: Any, limit: int) -> None:
        super().__init__(req, unreader)
        self.limit = limit

    def parse_chunk_size(self, unreader: Any, data: bytes | None = None) -> tuple[int, bytes | None]:
        """The next chunk's size and the bytes read after its line (`ChunkedReader.parse_chunk_size`)."""
        size, rest = super().parse_chunk_size(unreader, data)
        if size > self.limit:
            raise BodyTooLarge(size, self.limit)
        return size, rest


class BodyWithin:
    """gunicorn's request body `body`, a read given up with `BodyTimeout` `seconds` after the request's headers.

    The seconds count from when this is made, as the app is called. gunicorn's `keepalive` timeout covers the request
    line and headers only: a client announcing a body it never sends (`Content-Length: 100` and two bytes, or a chunk of
    a size it never fills) held its connection and greenlet for ever. The error is raised inside gunicorn's read, a
    `ParseException` as a malformed chunk is, so gunicorn marks the body failed and closes the connection after the
    answer (`closing_after_an_unread_body`), and service/limits.py answers it 400 `invalid_request`.
    """

    def __init__(self, body: Any, seconds: float) -> None:
        self.body = body
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def _within(self, read: Callable[..., Any], *args: Any) -> Any:
        with gevent.Timeout(max(self.deadline - time.monotonic(), 0.0), BodyTimeout(self.seconds)):
            return read(*args)

    def read(self, size: int | None = None) -> bytes:
        """Up to `size` bytes (all, for None), as `gunicorn.http.body.Body.read`; `BodyTimeout` past the bound."""
        return self._within(self.body.read, size)

    def readline(self, size: int | None = None) -> bytes:
        """One line of at most `size` bytes, as `Body.readline`; `BodyTimeout` past the bound."""
        return self._within(self.body.readline, size)

    def readlines(self, size: int | None = None) -> list[bytes]:
        """The lines of the rest, as `Body.readlines`; `BodyTimeout` past the bound."""
        return self._within(self.body.readlines, size)

    def __iter__(self) -> Any:
        return iter(self.readline, b"")


def reading_the_body_within(app: Callable[..., Any], seconds: float, limit: int) -> Callable[..., Any]:
    """The WSGI app `app`, handed its body as a `BodyWithin` of `seconds`, read by `ChunksWithin` if chunked.

    `limit`: the largest chunk `ChunksWithin` reads, in bytes.
    """

    def serve(environ: dict[str, Any], start_response: Any) -> Any:
        body = environ["wsgi.input"]
        # not read from yet: the new reader's generator is the one that parses the chunks
        if type(getattr(body, "reader", None)) is ChunkedReader:
            body.reader = ChunksWithin(body.reader.req, body.reader.req.unreader, limit)
        environ["wsgi.input"] = BodyWithin(body, seconds)
        return app(environ, start_response)

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
        """The app, its body read in time, saying `Connection: close` after a bad body, each answer in one write.

        The body is read by `reading_the_body_within`, within `body_read_timeout` and `max_body_bytes`; a body it
        could not read: `closing_after_an_unread_body`; one write: `sending_in_one_write`.
        """
        super().load_wsgi()
        self.wsgi = sending_in_one_write(closing_after_an_unread_body(
            reading_the_body_within(self.wsgi, body_read_timeout(), max_body_bytes())))

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
