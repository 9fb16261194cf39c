"""A game as a client reads it at request time and follows it: read-time extras, long-poll wait, SSE stream.

What a view adds when it is read (`pending_ai`, presence), the long-poll's wait for a new version and the
Server-Sent Events of `GET /v1/games/{game_id}/stream` (docs/API.md "Push"). Waiting itself (one Redis
subscription per process, the waiters' cap) is service/dispatcher.py's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from flask import current_app

from service.auth import Reader, mark_present
from service.dispatcher import TooManyWaiters
from service.errors import envelope
from service.extensions import services
from service.records import GameRecord, Status
from service.redis_clients import STORE_ERRORS
from service.store import GameNotFound
from service.turns import pending_ai
from service.views import view_body

RECONNECT_MILLISECONDS = 1000
"""The stream's `retry:`: how soon a client reconnects when its stream ends (a process shutting down ends them)."""


def reading_extras(record: GameRecord) -> tuple[list[int], dict[int, float]]:
    """What a view adds to `record` when it is read: `pending_ai` (from the queue) and each seat's last request.

    The presence is the one read with the record (`GameRecord.last_seen`): no round trip of its own.
    """
    return pending_ai(services().queues, record, current_app.config["AI_JOB_STALE_SECONDS"]), record.last_seen


def wait_for_version(record: GameRecord, after_version: int, seconds: float) -> int | None:
    """Hold this request until the version of `record`'s game exceeds `after_version` or `seconds` pass.

    `record` is the game as this request read it. Returns the version seen last.

    Raises:
        TooManyWaiters: the process holds `MAX_WAITERS` waiting clients (503 `server_busy`, service/errors.py).
    """
    store, game_id = services().store, record.game_id
    known = None if record.read_at is None else (record.version, record.read_at)
    return services().dispatcher.wait(game_id, after_version, seconds, lambda: store.version(game_id), known)


def view_events(record: GameRecord, who: Reader, after: int | None) -> Iterator[str]:
    """The SSE text of a stream from `record` on: `id: V`, `event: view`, `data: <view JSON>` per new version.

    Ends after the finished view, when the game is gone, when Redis fails (the client reconnects with
    `Last-Event-ID`) or when the process shuts down (service/gunicorn_worker.py drains it); and with
    `event: revoked` (no `id:`) as soon as a version read shows that `who`'s token no longer reads its seat.
    """
    keepalive = current_app.config["STREAM_KEEPALIVE_SECONDS"]
    dispatcher = services().dispatcher
    game_id = record.game_id
    sent = after
    # first, at once, so the client gets the headers now, not with the first new version: how soon to reconnect
    # when the stream ends (a process shutting down ends its streams)
    yield f"retry: {RECONNECT_MILLISECONDS}\n\n"
    try:
        while True:
            if not who.still_reads(record):  # checked on the record the view would be built from: no extra read
                message = f"this token no longer holds seat {who.seat} of this game"
                data = json.dumps(envelope(401, "unauthorized", message, version=record.version), separators=(",", ":"))
                yield f"event: revoked\ndata: {data}\n\n"
                return
            if sent is None or record.version > sent:
                pending, seen = reading_extras(record)
                data = view_body(record, who.seat, pending, seen).decode()
                yield f"id: {record.version}\nevent: view\ndata: {data}\n\n"
                sent = record.version
            if record.status == Status.FINISHED and sent >= record.version:
                return
            if who.seat is not None:
                mark_present(record, who.seat)  # a player holding a stream is here (its one request is long)
            version = wait_for_version(record, sent, keepalive)
            if dispatcher.draining.is_set():
                return
            if version is None or version <= sent:
                yield ": keep-alive\n\n"
            record = services().records.load(game_id, at_least=version)
    except (*STORE_ERRORS, GameNotFound, TooManyWaiters):
        return
