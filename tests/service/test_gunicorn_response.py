"""service/gunicorn_worker.py `OneWriteResponse`: an answer's header block and body leave in one write.

gunicorn's own `Response` is driven here as its worker drives it (`start_response`, `write` per body item, `close`)
over a socket stand-in that records each `sendall`, on a request parsed by gunicorn's own parser.
"""

from __future__ import annotations

from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser
from gunicorn.http.wsgi import Response

from service.gunicorn_worker import OneWriteResponse, sending_in_one_write


class Recorded:
    """A client socket that keeps every `sendall`."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))


def answer(kind: type[Response], method: str, status: str, headers: list[tuple[str, str]],
           body: list[bytes]) -> list[bytes]:
    """The writes `kind` makes answering a `method` request with `status`, `headers` and `body`."""
    request = next(RequestParser(Config(), iter([f"{method} /v1/games/g HTTP/1.1\r\nHost: h\r\n\r\n".encode()]),
                                 ("127.0.0.1", 5000)))
    sock = Recorded()
    response = kind(request, sock, Config())
    response.start_response(status, headers)
    for item in body:
        response.write(item)
    response.close()
    return sock.writes


VIEW = b'{"version":7}'
SIZED = [("Content-Type", "application/json"), ("Content-Length", str(len(VIEW)))]


def test_a_view_leaves_in_one_write_where_gunicorn_makes_two() -> None:
    ours = answer(OneWriteResponse, "GET", "200 OK", SIZED, [VIEW])
    theirs = answer(Response, "GET", "200 OK", SIZED, [VIEW])
    assert len(theirs) == 2 and theirs[1] == VIEW  # the header block, then the body
    assert ours == [b"".join(theirs)]
    assert ours[0].startswith(b"HTTP/1.1 200 OK\r\n") and ours[0].endswith(b"\r\n\r\n" + VIEW)


@pytest.mark.parametrize(("method", "status", "body"), [("GET", "304 Not Modified", []), ("HEAD", "200 OK", [VIEW])])
def test_an_answer_without_a_body_sends_its_header_block_alone(method: str, status: str, body: list[bytes]) -> None:
    headers = [] if status.startswith("304") else SIZED
    ours = answer(OneWriteResponse, method, status, headers, body)
    assert ours == [b"".join(answer(Response, method, status, headers, body))]
    assert ours[0].endswith(b"\r\n\r\n")


def test_a_body_of_several_items_sends_the_first_with_the_header_block_and_the_rest_as_gunicorn_does() -> None:
    parts = [b'{"a":', b"1}"]
    headers = [("Content-Length", "7")]
    ours = answer(OneWriteResponse, "GET", "200 OK", headers, parts)
    theirs = answer(Response, "GET", "200 OK", headers, parts)
    assert ours == [theirs[0] + theirs[1], theirs[2]]


def test_a_chunked_answer_is_written_as_gunicorn_writes_it() -> None:
    """A stream (no Content-Length on HTTP/1.1): each chunk framed by gunicorn, nothing held back."""
    stream = [b"data: 1\n\n", b"data: 2\n\n"]
    headers = [("Content-Type", "text/event-stream")]
    assert answer(OneWriteResponse, "GET", "200 OK", headers, stream) == answer(Response, "GET", "200 OK", headers,
                                                                                stream)


def test_the_wrapper_makes_gunicorns_http1_responses_one_write_responses() -> None:
    seen: list[type] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(type(start_response.__self__))
        start_response("200 OK", SIZED)
        return [VIEW]

    request = next(RequestParser(Config(), iter([b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"]), ("127.0.0.1", 5000)))
    response = Response(request, Recorded(), Config())
    assert sending_in_one_write(app)({}, response.start_response) == [VIEW]
    assert seen == [OneWriteResponse]
