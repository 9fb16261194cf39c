"""HTTP at its limits against the real gunicorn (issue 15, points 5 and 7): over-long bodies, chunked bodies,
request lines and headers beyond the limits. Every answer is the JSON error envelope, and the connection is either
still usable or closed with `Connection: close` said first, as a client expects (RFC 9112 §9.6)."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from service.logs import REQUEST_ID_PATTERN
from tests.e2e.stack import Stack

pytestmark = pytest.mark.e2e

LIMIT = 64 * 1024
"""MAX_BODY_BYTES's default."""
SEATS = [{"kind": "human", "name": "Ann"}, {"kind": "human"}]


@pytest.fixture
def connection(stack: Stack) -> Iterator[http.client.HTTPConnection]:
    """One keep-alive connection to the stack, closed after the test."""
    address = urlsplit(stack.base_url)
    opened = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    yield opened
    opened.close()


def answer(connection: http.client.HTTPConnection) -> tuple[int, dict[str, str], bytes]:
    response = connection.getresponse()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()


def assert_usable_or_closed(connection: http.client.HTTPConnection, headers: dict[str, str]) -> None:
    """The connection answers another request, unless the response said `Connection: close`."""
    if headers.get("connection", "").lower() == "close":
        return
    connection.request("GET", "/healthz")
    status, _, _ = answer(connection)
    assert status == 200


@pytest.mark.parametrize("size", [LIMIT + 10_000, 1024 * 1024, 8 * 1024 * 1024])
def test_a_body_over_the_limit_is_413_and_the_connection_goes_on_or_is_closed_as_said(
    connection: http.client.HTTPConnection, size: int
) -> None:
    body = json.dumps({"game": "durak", "seats": SEATS, "pad": "x" * size})
    connection.request("POST", "/v1/games", body=body, headers={"Content-Type": "application/json"})
    status, headers, data = answer(connection)
    assert (status, json.loads(data)["error"]) == (413, "payload_too_large")
    assert_usable_or_closed(connection, headers)


def chunks(text: str, size: int = 8192) -> Iterator[bytes]:
    data = text.encode()
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_a_chunked_body_over_the_limit_is_413_not_cut_short(connection: http.client.HTTPConnection) -> None:
    """Valid JSON then 1 MiB of spaces: read only up to the limit it would pass as a game; it is too large."""
    body = json.dumps({"game": "durak", "seats": SEATS}) + " " * (1024 * 1024)
    connection.request("POST", "/v1/games", body=chunks(body), encode_chunked=True,
                       headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    status, headers, data = answer(connection)
    assert (status, json.loads(data)["error"]) == (413, "payload_too_large"), data[:300]
    assert_usable_or_closed(connection, headers)


def test_a_chunked_body_within_the_limit_is_read_whole(connection: http.client.HTTPConnection) -> None:
    body = json.dumps({"game": "durak", "seats": SEATS}) + " " * (LIMIT - 2000)
    connection.request("POST", "/v1/games", body=chunks(body), encode_chunked=True,
                       headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    status, headers, data = answer(connection)
    assert status == 201, data[:300]
    assert_usable_or_closed(connection, headers)


def raw(stack: Stack, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` bytes as they are on a new connection and read the answer."""
    address = urlsplit(stack.base_url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        try:
            response.begin()
            return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()
        finally:
            response.close()


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET /v1/games?" + b"x" * 5000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    (b"GET /v1/rules HTTP/1.1\r\nHost: a\r\nX-Big: " + b"y" * 9000 + b"\r\n\r\n", 431),
    (b"GET /v1/rules HTTP/1.1\r\nHost: a\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(120)) + b"\r\n", 431),
    # beyond gunicorn's own limits (service/gunicorn_conf.py): answered by the gunicorn worker, before the app
    (b"GET /v1/games?" + b"x" * 9000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    (b"GET /v1/rules HTTP/1.1\r\nHost: a\r\nX-Big: " + b"y" * 64 * 1024 + b"\r\n\r\n", 431),
    (b"GET /v1/rules HTTP/1.1\r\nHost: a\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(250)) + b"\r\n", 431),
], ids=["request line", "header field", "header count", "gunicorn's request line", "64 KB header field",
        "250 header fields"])
def test_requests_beyond_the_line_and_header_limits_get_the_json_envelope(
    stack: Stack, request_bytes: bytes, status: int
) -> None:
    """README "Limits and lifetimes": the app answers the usual excess; gunicorn's worker (service/gunicorn_worker.py)
    what is beyond gunicorn's own limits (issue 43 point 5: that was gunicorn's HTML page)."""
    answered, headers, data = raw(stack, request_bytes)
    assert answered == status, data[:300]
    assert headers["content-type"] == "application/json"
    body = json.loads(data)
    assert body["code"] == status and body["error"] and body["message"]
    assert_has_request_id(stack, headers)


def assert_has_request_id(stack: Stack, headers: dict[str, str]) -> None:
    """README "Operations": every response, errors included, returns its request id, which the log holds (the
    access line; the warning for a request refused before its request line and headers were read)."""
    assert REQUEST_ID_PATTERN.fullmatch(headers.get("x-request-id", "")), headers
    logged = f'"request_id": "{headers["x-request-id"]}"'
    for _ in range(100):  # gunicorn writes the access line just after the answer: 10 s is the hang guard
        if logged in stack.logs["gunicorn"].read_text():
            return
        time.sleep(0.1)
    raise AssertionError(f"no access line with the request id {headers['x-request-id']}")


CREATE_BODY = json.dumps({"game": "durak", "seats": SEATS}).encode()


@pytest.mark.parametrize("coding", ["gzip, chunked", "deflate, chunked", "gzip", "br, chunked", "chunked, chunked"])
def test_a_transfer_coding_other_than_chunked_alone_is_refused_in_the_json_envelope(stack: Stack, coding: str) -> None:
    """Issue 43 point 5: `gzip, chunked` was accepted (its body read as JSON as it came), the others were gunicorn's
    HTML 400 or 501. Each is 400 `invalid_request` in the JSON envelope, the connection closed, nothing created."""
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(CREATE_BODY), CREATE_BODY)
    request = (b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: " + coding.encode() + b"\r\n\r\n" + chunked)
    answered, headers, data = raw(stack, request)
    assert answered == 400, data[:300]
    assert headers["content-type"] == "application/json" and headers["connection"].lower() == "close"
    body = json.loads(data)
    assert (body["code"], body["error"]) == (400, "invalid_request") and body["message"]


@pytest.mark.parametrize("request_bytes", [
    b"GET /v1/rules HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n",
    b"GARBAGE\r\n\r\n",
    b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"zz\r\nabc\r\n0\r\n\r\n",
    b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"5\r\nabcdefgh\r\n0\r\n\r\n",
], ids=["header name", "request line", "chunk size", "chunk terminator"])
def test_a_request_gunicorn_cannot_parse_gets_the_json_envelope(stack: Stack, request_bytes: bytes) -> None:
    """gunicorn's HTML 400 before the app (header, request line); a 500 `internal_error` for a malformed chunk,
    which gunicorn meets while the app reads the body. gunicorn then closes the connection (where the next request
    starts is unknown), so the answer says `Connection: close` (a malformed chunk's said keep-alive: a request
    pipelined after it was dropped unanswered)."""
    answered, headers, data = raw(stack, request_bytes)
    assert (answered, headers["content-type"]) == (400, "application/json"), data[:300]
    assert headers["connection"].lower() == "close"
    assert_has_request_id(stack, headers)
    body = json.loads(data)
    assert (body["code"], body["error"]) == (400, "invalid_request") and body["message"]


def test_a_malformed_chunk_after_the_limit_gets_the_413_alone(stack: Stack) -> None:
    """The app answers 413 having read the body up to the limit; gunicorn then meets a malformed chunk in the rest
    while it discards it. That answered request is not answered again: the one 413, then the connection closes
    (a second, unasked-for 400 followed the 413, which a keep-alive client would take for its next answer)."""
    body = json.dumps({"game": "durak", "seats": SEATS}).encode() + b" " * (LIMIT + 8192)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(body[at : at + 8192]), body[at : at + 8192])
                       for at in range(0, len(body), 8192))
    request = (b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
               b"\r\n\r\n" + chunked + b"zz\r\nabc\r\n0\r\n\r\n")
    address = urlsplit(stack.base_url)
    received = b""
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(request)
        while data := sock.recv(65536):  # to the server's close (the socket's timeout: the hang guard)
            received += data
    assert received.startswith(b"HTTP/1.1 413 "), received[:300]
    assert received.count(b"HTTP/1.1 ") == 1, received.decode("latin-1")


BODY_READ_TIMEOUT = 5
"""BODY_READ_TIMEOUT_SECONDS's default (README "Limits and lifetimes")."""


@pytest.mark.parametrize("request_bytes", [
    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nContent-Type: application/json\r\n\r\n{}",
    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    b"64\r\n{}",
], ids=["Content-Length", "chunked"])
def test_a_body_that_never_arrives_is_400_and_the_connection_closed(stack: Stack, request_bytes: bytes) -> None:
    """A body announced and never sent (100 bytes, of which 2 come) held its connection and greenlet for ever
    (gunicorn's `keepalive` bounds the request line and headers only): after BODY_READ_TIMEOUT_SECONDS it is 400
    `invalid_request` in the JSON envelope, `Connection: close` said, and the connection closed. The socket's
    timeout, ten times the bound, is the hang guard."""
    address = urlsplit(stack.base_url)
    received = b""
    with socket.create_connection((address.hostname, address.port), timeout=10 * BODY_READ_TIMEOUT) as sock:
        sock.sendall(request_bytes)
        while data := sock.recv(65536):  # to the server's close
            received += data
    head, _, data = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), received[:300]
    assert b"\r\nconnection: close" in head.lower() and b"\r\ncontent-type: application/json" in head.lower()
    body = json.loads(data)
    assert (body["code"], body["error"]) == (400, "invalid_request") and "5 s" in body["message"], body


def test_a_chunk_declared_over_the_limit_is_413_before_it_arrives(stack: Stack) -> None:
    """A chunk of 2^80 bytes announced, two sent: 413 `payload_too_large` at once, as an over-limit Content-Length
    is, and the connection closed (the rest is not read). It was read until the client gave up; the socket's
    timeout is the hang guard."""
    request = (b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json"
               b"\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n{}")
    answered, headers, data = raw(stack, request)
    assert (answered, headers["content-type"], headers["connection"].lower()) == (413, "application/json", "close")
    body = json.loads(data)
    assert (body["code"], body["error"]) == (413, "payload_too_large"), body
    assert body["message"] == "a chunk of 1208925819614629174706175 bytes declared, more than the limit of 65536"

