"""A webhook receiver on 127.0.0.1 for the tests and bench/webhooks.py: it checks each delivery's signature itself.

Each path is a receiver of its own (`Receiver.expect`): the secret it verifies with and the statuses it answers in
turn (the last one repeated). A delivery whose `Cardroom-Signature` does not verify is answered 401, as a real
receiver would, and kept with `verified` False. The check is written here from the contract (docs/api-additions.md),
not with service/webhooks.py's `verify`, so that the tests hold the service to the contract.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Delivery:
    """One request the receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    answered: int
    at: float

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Route:
    secret: str
    statuses: list[int]
    served: int = 0


def signed_correctly(secret: str, header: str, body: bytes, now: float, tolerance: float = 300) -> bool:
    """`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, with `t` within `tolerance` seconds of `now`."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    if not fields.get("t", "").isdigit() or abs(now - int(fields["t"])) > tolerance:
        return False
    expected = hmac.new(secret.encode(), fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields.get("v1", ""))


@dataclass
class Receiver:
    """A running receiver: `url(path)`, `expect(path, secret, statuses)`, and what it got (`deliveries`)."""

    server: ThreadingHTTPServer
    routes: dict[str, Route] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    keep: bool = True

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str, host: str | None = None) -> str:
        """`path` on this receiver; `host` another name of its address (default the address it listens on)."""
        return f"http://{host or self.server.server_address[0]}:{self.port}{path}"

    def expect(self, path: str, secret: str, statuses: list[int] | None = None) -> str:
        """Serve `path` verifying with `secret`, answering `statuses` in turn (default 200s); returns its URL."""
        with self.lock:
            self.routes[path] = Route(secret, statuses or [200])
        return self.url(path)

    def at(self, path: str) -> list[Delivery]:
        with self.lock:
            return [delivery for delivery in self.deliveries if delivery.path == path]

    def wait_for(self, path: str, count: int, timeout: float = 60.0) -> list[Delivery]:
        """The first `count` deliveries to `path`, waiting up to `timeout` s (a hang guard: they take milliseconds,
        a retried one its interval)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.at(path)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"{path}: {len(self.at(path))} deliveries within {timeout} s, expected {count}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_receiver(host: str = "127.0.0.1") -> Receiver:
    """A receiver listening on `host` (loopback) at a free port, served by a daemon thread."""
    receiver: Receiver

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with receiver.lock:
                route = receiver.routes.get(self.path)
                verified = route is not None and signed_correctly(
                    route.secret, self.headers.get("Cardroom-Signature", ""), body, time.time()
                )
                if route is None:
                    status = 404
                elif not verified:
                    status = 401
                else:
                    status = route.statuses[min(route.served, len(route.statuses) - 1)]
                    route.served += 1
                if receiver.keep:
                    receiver.deliveries.append(
                        Delivery(self.path, dict(self.headers), body, verified, status, time.time())
                    )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    receiver = Receiver(server)
    threading.Thread(target=server.serve_forever, name="webhook-receiver", daemon=True).start()
    return receiver
