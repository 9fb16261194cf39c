"""Your-turn webhooks (issue 41): a seat's registration, which events a write makes due, their signature.

A seat registers `{"url", "secret"}` when it creates or joins a game (docs/api-additions.md "Your-turn webhooks").
After each committed version, `notify` (called by the one write path, service/turns.py) enqueues one RQ job per
delivery due, `worker.webhooks.deliver` by name on the game's queue, which POSTs the event from a worker with
retries. A move never waits for a receiver, and a queue Redis that fails does not fail the move (logged, counted).

- `your_turn`: a human seat with a live webhook must act at the new version (`clocks.must_act`: a legal action
  other than `resign` and the optional ones), unless the version is the seat's own move and it had to act before
  it too (its own answer told it). So a seat hears of every version it must act on that someone or something
  else made: the game starting, another seat's move, a clock's timeout played for it.
- `game_over`: the game finished at this version; every seat with a live webhook, once.

A webhook belongs to the token that registered it (`holder`): once the seat changes hands (freed and taken by
another player, or its token replaced) it is dead, and a new holder registers its own. A seat the AI plays (a
resigned Talmut seat) gets no `your_turn`, only `game_over`.

The signature follows the scheme of Stripe's webhooks: `Cardroom-Signature: t=<unix seconds>,v1=<hex
HMAC-SHA256 of "<t>.<body>" with the secret>` (`signature`, `verify`).

Flask-free: the worker imports it too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import urllib.parse
from collections.abc import Collection
from typing import Any

from rq import Queue, Retry

from engine import GAMES
from service import clocks
from service.game_metrics import count_webhook_delivery
from service.records import GameRecord, SeatRecord, Status, game_key
from service.redis_clients import STORE_ERRORS
from service.refusals import Refusal
from service.scheduling import Queues, enqueue_once
from service.store import GameStore

log = logging.getLogger(__name__)

DELIVER_JOB = "worker.webhooks.deliver"
SCHEMES = {"http": 80, "https": 443}
"""The schemes a webhook URL may have, with their default ports."""
URL_MAX_LENGTH = 2048
SECRET_LENGTHS = (16, 256)
"""The shortest and longest secret, in characters: 16 random characters are about 95 bits."""
RETRY_INTERVALS = (1, 4, 16, 64, 256)
"""Seconds before each retry of a delivery that failed (a connection error, a timeout, 5xx or 429): six attempts
over about six minutes. RQ's scheduler (the worker runs `with_scheduler`) queues each one, to the second."""
REQUEST_TIMEOUT_SECONDS = 5.0
"""How long one attempt waits to connect, and then for each read of the answer; twice it in all (worker/webhooks.py)."""
JOB_TIMEOUT_SECONDS = 30
"""RQ's hard limit on one attempt: its connection and reads are bounded by `REQUEST_TIMEOUT_SECONDS` already."""
FAILURE_TTL_SECONDS = 3600
"""How long the queue's Redis keeps a delivery job that raised unexpectedly (a bug): long enough to look at it."""
SIGNATURE_HEADER = "Cardroom-Signature"
USER_AGENT = "Cardroom-Webhook/1"
EVENTS = ("your_turn", "game_over")


class WebhookNotAllowed(Refusal):
    """A webhook URL whose host and port `WEBHOOK_ALLOWED_HOSTS` does not list (422 `webhook_not_allowed`)."""

    status = 422
    error = "webhook_not_allowed"


class WebhookNotFound(Refusal):
    """The seat has no live webhook (404 `webhook_not_found`)."""

    status = 404
    error = "webhook_not_found"


def host_allowed(url: str, allowed: Collection[tuple[str, int | None]]) -> bool:
    """Whether `url` (http or https, with a host) names a `(host, port)` of `allowed` (service/config.py).

    Exact: the host as the URL spells it, lowercased (no name is resolved: `127.1` is not `127.0.0.1`); an entry
    without a port allows the scheme's default port only.
    """
    parsed = urllib.parse.urlsplit(url)
    try:
        port = parsed.port
    except ValueError:
        return False
    if parsed.scheme not in SCHEMES or not parsed.hostname:
        return False
    effective = port if port is not None else SCHEMES[parsed.scheme]
    return (parsed.hostname, effective) in allowed or (
        effective == SCHEMES[parsed.scheme] and (parsed.hostname, None) in allowed
    )


def registration(webhook: dict[str, str] | None, allowed: Collection[tuple[str, int | None]]) -> dict[str, str] | None:
    """The request's `webhook` (validated in shape by service/schemas/webhooks.py), checked against `allowed`.

    Returns `{"url", "secret"}`, or None without one.

    Raises:
        WebhookNotAllowed: its host and port are not in `allowed` (`WEBHOOK_ALLOWED_HOSTS`; empty refuses all).
    """
    if webhook is None:
        return None
    if not host_allowed(webhook["url"], allowed):
        raise WebhookNotAllowed(
            "this server calls no webhook at that host and port: its operator's WEBHOOK_ALLOWED_HOSTS does not list it"
            if allowed
            else "this server calls no webhooks (WEBHOOK_ALLOWED_HOSTS is empty)"
        )
    return {"url": webhook["url"], "secret": webhook["secret"]}


def attach(seat: SeatRecord, webhook: dict[str, str] | None) -> None:
    """Give `seat` (holding its new token already) the webhook `registration` returned; None changes nothing."""
    if webhook is not None:
        assert seat.token_hash is not None, "a webhook belongs to the token that registered it"
        seat.webhook = {**webhook, "holder": seat.token_hash}


def live_webhook(seat: SeatRecord) -> dict[str, str] | None:
    """`seat`'s webhook while the token that registered it holds the seat, else None."""
    hook = seat.webhook
    if hook is None or seat.token_hash is None or not hmac.compare_digest(hook["holder"], seat.token_hash):
        return None
    return hook


def due(previous: GameRecord | None, record: GameRecord, mover: int | None) -> list[dict[str, Any]]:
    """The events due after the write of `record` over `previous` (None: `record` is a new game), one per seat.

    `mover` is the seat whose own action made `record` (None: a seat taken or left, a clock's move, a new game).
    Each event is the body a delivery sends: `{"event", "game_id", "game", "version", "seat", "to_act",
    "deadline"}` (`deadline` the seat's clock deadline, ISO 8601 UTC, or null) and, for `game_over`, `result`.
    Costs nothing for a game without a webhook; with one, the rules' `legal_actions` of the hooked seats.
    """
    hooked = [number for number, seat in enumerate(record.seats) if live_webhook(seat) is not None]
    if not hooked:
        return []
    if record.status == Status.FINISHED:
        if previous is not None and previous.status == Status.FINISHED:
            return []
        return [_event("game_over", record, seat, []) for seat in hooked]
    if record.status != Status.ACTIVE:
        return []
    to_act = sorted(GAMES[record.game].to_act(record.engine_state()))
    deadlines = clocks.deadlines(record)
    events = []
    for seat in hooked:
        if seat not in to_act or record.seats[seat].kind != "human" or not clocks.must_act(record, seat):
            continue
        if (
            mover == seat
            and previous is not None
            and previous.status == Status.ACTIVE
            and clocks.must_act(previous, seat)
        ):
            continue  # its own move, and it had to act before it: its answer showed it the new version
        due_at = deadlines.get(seat)
        events.append(_event("your_turn", record, seat, to_act, clocks.utc_iso(due_at) if due_at else None))
    return events


def _event(kind: str, record: GameRecord, seat: int, to_act: list[int], deadline: str | None = None) -> dict[str, Any]:
    event = {
        "event": kind,
        "game_id": record.game_id,
        "game": record.game,
        "version": record.version,
        "seat": seat,
        "to_act": to_act,
        "deadline": deadline,
    }
    if kind == "game_over":
        event["result"] = record.result
    return event


def delivery_job_id(event: dict[str, Any]) -> str:
    """The unique RQ job id of one delivery: the same event enqueued twice is delivered once."""
    return f"hook-{event['game_id']}-{event['version']}-{event['seat']}-{event['event']}"


def notify(
    store: GameStore, queues: Queues, previous: GameRecord | None, record: GameRecord, mover: int | None
) -> None:
    """Enqueue the deliveries `due` after the stored write of `record`, on the game's queue; never raises for Redis.

    A queue Redis that fails now must not turn the committed move into an error: the events are lost, logged and
    counted (`cardroom_webhook_deliveries{outcome="not_enqueued"}`), and the seat still reads its view.
    """
    events = due(previous, record, mover)
    if not events:
        return
    queue = queues.for_game(record.game_id)
    for event in events:
        try:
            enqueue_delivery(queue, store.prefix, event)
        except STORE_ERRORS:
            log.warning(
                "game %s version %s: webhook %s of seat %s not enqueued",
                record.game_id,
                record.version,
                event["event"],
                event["seat"],
                exc_info=True,
            )
            count_webhook_delivery(store.client, store.prefix, event["event"], "not_enqueued")


def enqueue_delivery(queue: Queue, key_prefix: str, event: dict[str, Any]) -> None:
    """Enqueue the delivery of `event` (`due`) of a game under `key_prefix` on `queue`, at once, with its retries.

    The job keeps no result (`result_ttl=0`); it carries the event, never the URL or the secret, which the worker
    reads from the game (worker/webhooks.py `deliver`).
    """
    now = time.time()
    enqueue_once(
        queue,
        now,
        now,
        DELIVER_JOB,
        delivery_job_id(event),
        args=(key_prefix, event),
        retry=Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS)),
        job_timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=0,
        failure_ttl=FAILURE_TTL_SECONDS,
    )


def body_bytes(event: dict[str, Any]) -> bytes:
    """The exact bytes a delivery of `event` sends, and signs."""
    return json.dumps(event, separators=(",", ":"), sort_keys=True).encode()


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The `Cardroom-Signature` header value: `t=<timestamp>,v1=<hex HMAC-SHA256 of b"<t>." + body>`.

    `timestamp` is Unix seconds (each attempt signs with its own), `body` the bytes sent.
    """
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, header: str, body: bytes, now: float, tolerance_seconds: float = 300) -> bool:
    """What a receiver checks: `header` signs `body` with `secret`, and its `t` is within `tolerance_seconds` of `now`.

    The tolerance bounds a replay of a captured delivery. Any `v1` of the header may match (a receiver may see
    several during a secret's rotation); the comparison takes constant time.
    """
    parts = [part.partition("=") for part in header.split(",")]
    stamps = [value for name, _, value in parts if name.strip() == "t"]
    if len(stamps) != 1 or not stamps[0].isdigit() or abs(now - int(stamps[0])) > tolerance_seconds:
        return False
    expected = signature(secret, int(stamps[0]), body).partition(",v1=")[2]
    return any(hmac.compare_digest(expected, value.strip()) for name, _, value in parts if name.strip() == "v1")


def delivery_key(key_prefix: str, game_id: str, seat: int) -> str:
    """`<prefix>:{<game_id>}:webhook:<seat>`: the seat's latest delivery, next to the game's keys (`game_key`)."""
    return game_key(key_prefix, game_id, f"webhook:{seat}")


def record_delivery(
    store: GameStore, record: GameRecord, seat: int, hook: dict[str, str], delivery: dict[str, Any]
) -> None:
    """Keep `delivery` (`{"event", "version", "status", "http_status"?, "attempts", "at"}`) as `seat`'s latest.

    Next to the game's keys, for as long as the game's keys live (`GameStore.ttl_of`), with the `holder` of the
    webhook `hook` it went to: a later holder of the seat is not shown it. The latest attempt of any event wins:
    deliveries to one seat may overlap while one is retried.
    """
    kept = {**delivery, "holder": hook["holder"]}
    store.client.set(delivery_key(store.prefix, record.game_id, seat), json.dumps(kept), ex=store.ttl_of(record))


def webhook_status(store: GameStore, record: GameRecord, seat: int) -> dict[str, Any]:
    """`GET /v1/games/{game_id}/seats/{seat}/webhook`: `{"url", "last_delivery"}` (None before any attempt).

    Raises:
        WebhookNotFound: the seat has no live webhook.
    """
    hook = live_webhook(record.seats[seat])
    if hook is None:
        raise WebhookNotFound(f"seat {seat} has no webhook registered by its token")
    stored = store.client.get(delivery_key(store.prefix, record.game_id, seat))
    last = json.loads(stored) if stored is not None else None
    if last is not None and not hmac.compare_digest(last.pop("holder"), hook["holder"]):
        last = None  # a delivery to the webhook of the seat's previous holder
    return {"url": hook["url"], "last_delivery": last}
