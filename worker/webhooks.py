"""The RQ job that delivers one webhook event to a seat's receiver (service/webhooks.py), with RQ's retries.

One attempt is one POST with `REQUEST_TIMEOUT_SECONDS` bounds (twice it in all), redirects never followed (a
receiver cannot send the worker to an address the allow-list does not name). A connection error, a timeout, a 5xx or
a 429 raises `DeliveryFailed`, and RQ's `Retry` (the job's `retry`, `RETRY_INTERVALS`) runs the job again later
through RQ's scheduler; any other answer ends it: 2xx delivered, another 4xx (or 3xx) failed at once. Each attempt
leaves the seat's `last_delivery` (`GET /v1/games/{game_id}/seats/{seat}/webhook`) and a count.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import socket
import threading
import time
import urllib.parse
from typing import Any

from rq import get_current_job

from service.clocks import utc_iso
from service.config import webhook_allowed_hosts
from service.game_metrics import PENDING, count_webhook_delivery
from service.store import GameNotFound
from service.webhooks import (
    REQUEST_TIMEOUT_SECONDS,
    RETRY_INTERVALS,
    SIGNATURE_HEADER,
    USER_AGENT,
    body_bytes,
    host_allowed,
    live_webhook,
    record_delivery,
    signature,
)
from worker.jobs import game_records

log = logging.getLogger(__name__)

_PRINTABLE_ASCII = "".join(map(chr, range(0x21, 0x7F)))
RESPONSE_READ_LIMIT = 64 * 1024
"""How much of a receiver's answer is read (and dropped) before the connection is closed."""


class DeliveryFailed(Exception):
    """An attempt that may succeed later (no connection, a timeout, 5xx, 429): RQ retries the job."""


def deliver(key_prefix: str, event: dict[str, Any]) -> str:
    """POST `event` (service/webhooks.py `due`) to its seat's webhook in game `event["game_id"]` under `key_prefix`.

    The URL and secret are read from the game now, never carried in the job: a seat that changed hands since, or a
    game gone, is not delivered to ("dropped"), nor a host the worker's `WEBHOOK_ALLOWED_HOSTS` no longer lists
    ("refused"). Returns "delivered", "failed" (a 4xx or 3xx answer, or the last attempt failed), "dropped" or
    "refused".

    Raises:
        DeliveryFailed: the attempt failed in a way worth retrying and retries are left (RQ schedules the next).
    """
    job = get_current_job()
    assert job is not None, "runs inside an RQ job"
    records = game_records(key_prefix)
    store, kind, seat = records.store, event["event"], event["seat"]
    try:
        try:
            record = records.load(event["game_id"])
        except GameNotFound:
            return _counted(store, kind, "dropped")
        hook = live_webhook(record.seats[seat])
        if hook is None:
            return _counted(store, kind, "dropped")
        attempts = len(RETRY_INTERVALS) - (job.retries_left or 0) + 1
        delivery: dict[str, Any] = {"event": kind, "version": event["version"], "attempts": attempts}
        if not host_allowed(hook["url"], webhook_allowed_hosts()):
            record_delivery(store, record, seat, hook, {**delivery, "status": "failed", "at": utc_iso(time.time())})
            return _counted(store, kind, "refused")
        status, error = attempt(hook["url"], hook["secret"], body_bytes(event))
        retry = status is None or status >= 500 or status == 429
        last = not job.retries_left
        outcome = (
            "delivered" if status is not None and 200 <= status < 300 else "retried" if retry and not last else "failed"
        )
        state = {"delivered": "delivered", "retried": "retrying", "failed": "failed"}[outcome]
        record_delivery(
            store,
            record,
            seat,
            hook,
            {
                **delivery,
                "status": state,
                "at": utc_iso(time.time()),
                **({"http_status": status} if status is not None else {}),
            },
        )
        _counted(store, kind, outcome)
        if outcome == "retried":
            raise DeliveryFailed(
                f"webhook {kind} of game {event['game_id']} seat {seat} version {event['version']}, "
                f"attempt {attempts}: {error or f'HTTP {status}'}; retried"
            )
        return outcome
    finally:  # the counts reach Redis with the job, as an AI turn's (worker/jobs.py)
        PENDING.flush(store.client)


def _counted(store: Any, event: str, outcome: str) -> str:
    count_webhook_delivery(store.client, store.prefix, event, outcome)
    return outcome


def attempt(
    url: str, secret: str, body: bytes, timeout: float = REQUEST_TIMEOUT_SECONDS, now: float | None = None
) -> tuple[int | None, str | None]:
    """One signed POST of `body` to `url`: `(HTTP status, None)`, or `(None, why)` when no answer came.

    No redirect is followed (a 3xx is the answer), no proxy used; `timeout` bounds the connection and each read,
    and twice `timeout` the whole attempt (seconds).
    `now` (Unix seconds, default the clock's) is the signature's `t`.
    """
    parsed = urllib.parse.urlsplit(url)
    connection_type = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parsed.hostname or "", parsed.port, timeout=timeout)
    path = parsed.path or "/"
    if parsed.query:
        path += f"?{parsed.query}"
    # the request line is ASCII: a character beyond it is sent as its UTF-8 %-escapes, as browsers do (the rest of
    # the URL, `%` escapes included, as it was registered: no spaces or control characters, service/schemas)
    path = urllib.parse.quote(path, safe=_PRINTABLE_ASCII)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: signature(secret, int(time.time() if now is None else now), body),
    }
    # `timeout` bounds each read only: a receiver trickling a byte per read would hold the worker (which plays AI
    # turns too) until RQ's job limit, so the socket is shut at the attempt's deadline, which ends any read
    watchdog = threading.Timer(2 * timeout, _shut, (connection,))
    watchdog.start()
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(RESPONSE_READ_LIMIT)
        return response.status, None
    except (OSError, http.client.HTTPException) as failure:  # refused, reset, timed out, TLS, a malformed answer
        return None, f"{type(failure).__name__}: {failure}"
    finally:
        watchdog.cancel()
        connection.close()


def _shut(connection: http.client.HTTPConnection) -> None:
    with contextlib.suppress(OSError):  # closed meanwhile
        if connection.sock is not None:
            connection.sock.shutdown(socket.SHUT_RDWR)
