"""What a client follows, a game or a quick-match ticket: read-time extras, long-poll waits, SSE streams.

What a view adds when it is read (`pending_ai`, presence), the long-poll's wait for a game's new version
(`wait_for_version`) or for a ticket to stop waiting (`wait_for_ticket`), and the Server-Sent Events of
`GET /v1/games/{game_id}/stream` (docs/API.md "Push") and `GET /v1/matches/{ticket_id}/stream`, both through one
loop (`event_stream`). Waiting itself (one Redis subscription per process, the waiters' cap) is
service/dispatcher.py's; when a ticket is due to change, service/matchmaking.py's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

from flask import current_app

from service.auth import Reader, mark_present
from service.dispatcher import TooManyWaiters
from service.errors import envelope
from service.extensions import services
from service.matchmaking import WAITING, Ticket, TicketNotFound
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


def wait_for_ticket(ticket: Ticket, seconds: float) -> Ticket:
    """`ticket` once it stops waiting, or as it is after `seconds` (read again at its `next_due`, if sooner).

    Waits through the dispatcher on the ticket's channel; what comes due meanwhile (a fallback, a stale pairing)
    this request seats itself (`Matchmaker.settle`) rather than leave it to the sweep.

    Raises:
        TooManyWaiters: the process holds `MAX_WAITERS` waiting clients (503 `server_busy`).
        TicketNotFound: the ticket is gone meanwhile.
    """
    matchmaker, dispatcher, ticket_id = services().matchmaker, services().dispatcher, ticket.ticket_id
    deadline = time.time() + seconds
    while True:
        now = time.time()
        if ticket.shown != WAITING or now >= deadline or dispatcher.draining.is_set():
            return ticket
        until = min(deadline, ticket.next_due)
        version = dispatcher.wait(
            ticket_id,
            1,
            max(until - now, 0.05),
            lambda: matchmaker.version(ticket_id),
            channel=matchmaker.channel(ticket_id),
        )
        if version == 1 and until == deadline:
            return ticket  # the wait's end, nothing new and nothing due: no read (a stream's keep-alive)
        ticket = matchmaker.settle(services().queues, matchmaker.load(ticket_id))


def event_stream(
    events: Callable[[], tuple[list[str], bool]],
    wait: Callable[[float], bool],
    gone: tuple[type[Exception], ...],
) -> Iterator[str]:
    """The SSE text of a stream: `retry:`, then `events()` and `wait(keepalive)` in turn.

    `events()` answers the events to send now and whether the stream ends after them; `wait(seconds)` holds the
    stream until something new may be there (True) or `STREAM_KEEPALIVE_SECONDS` pass (False: a keep-alive comment
    is sent). Ends too when the process shuts down (service/gunicorn_worker.py drains it), when Redis fails (the
    client reconnects), when the process holds `MAX_WAITERS`, or on one of `gone` (what the stream follows is gone).
    """
    keepalive = current_app.config["STREAM_KEEPALIVE_SECONDS"]
    dispatcher = services().dispatcher
    ends: tuple[type[Exception], ...] = (*STORE_ERRORS, TooManyWaiters, *gone)
    # first, at once, so the client gets the headers now, not with the first new version: how soon to reconnect
    # when the stream ends (a process shutting down ends its streams)
    yield f"retry: {RECONNECT_MILLISECONDS}\n\n"
    try:
        while True:
            now, done = events()
            yield from now
            if done:
                return
            new = wait(keepalive)
            if dispatcher.draining.is_set():
                return
            if not new:
                yield ": keep-alive\n\n"
    except ends:
        return


def view_events(record: GameRecord, who: Reader, after: int | None) -> Iterator[str]:
    """The SSE text of a stream from `record` on: `id: V`, `event: view`, `data: <view JSON>` per new version.

    Ends after the finished view, when the game is gone, when Redis fails (the client reconnects with
    `Last-Event-ID`) or when the process shuts down (`event_stream`); and with `event: revoked` (no `id:`) as soon
    as a version read shows that `who`'s token no longer reads its seat.
    """
    sent = after

    def events() -> tuple[list[str], bool]:
        nonlocal sent
        if not who.still_reads(record):  # checked on the record the view would be built from: no extra read
            message = f"this token no longer holds seat {who.seat} of this game"
            data = json.dumps(envelope(401, "unauthorized", message, version=record.version), separators=(",", ":"))
            return [f"event: revoked\ndata: {data}\n\n"], True
        now = []
        if sent is None or record.version > sent:
            pending, seen = reading_extras(record)
            data = view_body(record, who.seat, pending, seen).decode()
            now.append(f"id: {record.version}\nevent: view\ndata: {data}\n\n")
            sent = record.version
        return now, record.status == Status.FINISHED and sent >= record.version

    def wait(seconds: float) -> bool:
        nonlocal record
        assert sent is not None  # `events` sent the first view
        if who.seat is not None:
            mark_present(record, who.seat)  # a player holding a stream is here (its one request is long)
        version = wait_for_version(record, sent, seconds)
        if services().dispatcher.draining.is_set():
            return True  # the stream ends: no read
        record = services().records.load(record.game_id, at_least=version)
        return version is not None and version > sent

    return event_stream(events, wait, (GameNotFound,))


def ticket_events(ticket: Ticket, token: str) -> Iterator[str]:
    """The SSE text of a ticket's stream: `event: ticket` with the ticket now, then once more when it stops waiting.

    `token` is the ticket's (its body shows it once matched). Ends after the ticket stops waiting, when it is
    gone, or as `event_stream` ends.
    """
    first = True

    def events() -> tuple[list[str], bool]:
        nonlocal first
        ended = ticket.shown != WAITING
        now = [f"event: ticket\ndata: {json.dumps(ticket.body(token))}\n\n"] if first or ended else []
        first = False
        return now, ended

    def wait(seconds: float) -> bool:
        nonlocal ticket
        ticket = wait_for_ticket(ticket, seconds)
        return ticket.shown != WAITING

    return event_stream(events, wait, (TicketNotFound,))
