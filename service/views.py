"""The API view of a game for one viewer (docs/API.md "The view"), built from a stored record.

Flask-free: the worker builds an AI seat's view with the same function, so an AI sees exactly what a
human in that seat would see.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from engine import GAMES
from engine.ai.view import SeatView
from engine.protocol import Event, capabilities
from engine.redaction import event_for
from service.clocks import clock_view, utc_iso
from service.pauses import pause_ends
from service.presence import claim_block, with_claims
from service.records import GameRecord, Status


def game_view(record: GameRecord, seat: int | None, pending_ai: list[int]) -> dict[str, Any]:
    """The view of `record` for `seat` (None: a spectator); `pending_ai` lists AI seats being computed.

    While the game is `waiting` nothing has been dealt for anyone to see: `state` is null, `to_act` empty. A
    version's view of a seat is built once and kept on the record (`GameRecord.views`), so the clients woken by
    one move share it; the nested values are shared too: callers must not change them. Nothing in it depends on
    when it is read (the clock's times and the end of an AI seat's pause, `ai_pauses`, are absolute:
    service/clocks.py, service/pauses.py); `with_presence` adds what does.
    """
    view = record.views.get(seat)
    if view is None:
        view = record.views[seat] = _view(record, seat)
    return {**view, "pending_ai": pending_ai}


def _view(record: GameRecord, seat: int | None) -> dict[str, Any]:
    game = GAMES[record.game]
    seats: list[dict[str, Any]] = []
    for number, seat_record in enumerate(record.seats):
        entry: dict[str, Any] = {"seat": number, "kind": seat_record.kind, "name": seat_record.name}
        if seat_record.kind == "ai":
            entry["level"] = seat_record.level
        else:
            entry["open"] = seat_record.is_open
        seats.append(entry)
    state_json = None
    to_act: list[int] = []
    legal: list[dict[str, Any]] = []
    if record.status != Status.WAITING:
        state = record.engine_state()
        # CPU-bound like `turns.play` (no yield to gevent's loop), bounded by one game's size; once per version
        # and seat in a process, however many clients it wakes
        view = game.view(state, seat)
        state_json = view.state
        for entry, public in zip(seats, view.seats, strict=True):
            entry.update(public)
        to_act = sorted(game.to_act(state))
        if seat is not None and seat in to_act:
            legal = [dict(action) for action in game.legal_actions(state, seat)]
    clock, seat_clocks = clock_view(record)
    ai_seats = [number for number in to_act if record.seats[number].kind == "ai"]
    reason = capabilities(game).ai_delay_reason
    ai_pauses = [
        {"seat": number, "reason": reason, "until": utc_iso(end)}
        for number, end in pause_ends(record, ai_seats, record.written_at).items()
    ]
    for entry, seat_clock in zip(seats, seat_clocks, strict=False):
        entry["clock"] = seat_clock
    extra: dict[str, Any] = {}
    if seat is not None and (invites := record.shown_invites()) is not None:
        extra["invites"] = invites  # to share: codes only the seated players are shown (service/seating.py leave)
    if (claim := claim_block(record)) is not None:
        extra["claim"] = claim  # only in games with options.claim_after_seconds (service/presence.py)
    return {
        "game_id": record.game_id,
        "game": record.game,
        "version": record.version,
        "status": record.status,
        "you": seat,
        "seats": seats,
        "to_act": to_act,
        "pending_ai": [],
        "ai_pauses": ai_pauses,
        "legal_actions": legal,
        "state": state_json,
        "result": record.result,
        "visibility": record.visibility,
        "clock": clock,
        "rematch": record.rematch,
        **extra,
    }


def with_presence(view: dict[str, Any], last_seen: dict[int, float]) -> dict[str, Any]:
    """`view` with each seat's `last_seen` (ISO 8601 UTC; null if never seen), from `GameRecord.last_seen`.

    An AI seat from the start is never seen; a Talmut seat resigned to the AI keeps its player's time, which the
    player's token still moves (it reads the spectator view, service/auth.py `reading_seat`).

    Presence is written without a new version (at most every 10 s per seat), so it is added per request, never
    kept in the memoised view; `view` itself is not changed. So is the `claim` block's `from` of each awaited
    seat (service/presence.py `with_claims`) in a game with `options.claim_after_seconds`.
    """
    seats = [
        {**entry, "last_seen": utc_iso(last_seen[entry["seat"]]) if entry["seat"] in last_seen else None}
        for entry in view["seats"]
    ]
    return with_claims({**view, "seats": seats}, last_seen)


def view_body(record: GameRecord, seat: int | None, pending_ai: list[int], last_seen: dict[int, float]) -> bytes:
    """The JSON text (UTF-8, no trailing newline) of `with_presence(game_view(record, seat, pending_ai), last_seen)`.

    Made once per version, seat, `pending_ai` and presence in a process, and kept on the record
    (`GameRecord.bodies`): every GET, long-poll, stream and action answer of that version for that seat sends these
    very bytes (a move wakes its readers at once, so they share them). `json_text`'s bytes: what Flask's JSON
    provider sends. The view is the schema's dump unchanged (tests/service/test_view_schemas.py), so no schema
    dump is needed to send it.
    """
    key = (tuple(pending_ai), tuple(sorted(last_seen.items())))
    kept = record.bodies.get(seat)
    if kept is not None and kept[0] == key:
        return kept[1]
    body = json_text(with_presence(game_view(record, seat, pending_ai), last_seen))
    record.bodies[seat] = (key, body)
    return body


def json_text(value: Any) -> bytes:
    r"""`value` as the JSON that Flask's default provider writes (sorted keys, compact, ASCII), with orjson.

    orjson writes the same text as `json.dumps(value, sort_keys=True, separators=(",", ":"))` for the views' values
    (strings, integers, booleans, null, lists, objects of string keys), ~10x faster, except that it writes
    non-ASCII characters as UTF-8 where Flask escapes them (as `\u00eb` for ë): those rare texts (a seat's name) are
    written by `json` instead, so the bytes stay Flask's.
    """
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    if text.isascii():
        return text
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def ai_seat_view(record: GameRecord, seat: int, history: list[dict[str, Any]] | None = None) -> SeatView:
    """What an AI seat may know: the same view a human in `seat` gets, reduced to `SeatView`.

    `history` is the game's stored events (`GameStore.events`); each is redacted for `seat` with `event_view`,
    exactly as `GET /events` shows them to that seat's player.
    """
    view = game_view(record, seat, pending_ai=[])
    return SeatView(
        game=record.game,
        you=seat,
        state=view["state"],
        legal_actions=view["legal_actions"],
        history=[event_view(stored, seat) for stored in history or []],
    )


def stored_event(version: int, event: Event) -> dict[str, Any]:
    """The stored JSON of an engine event applied at `version` (private parts kept, redacted on read)."""
    return {
        "version": version,
        "type": event.type,
        "public": dict(event.public),
        "private": {str(seat): dict(fields) for seat, fields in event.private.items()},
    }


def event_view(stored: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One stored event as `viewer` may see it: `{"version": v, "type": ..., public and own private fields}`."""
    event = Event(
        type=stored["type"],
        public=stored["public"],
        private={int(seat): fields for seat, fields in stored["private"].items()},
    )
    return {"version": stored["version"], **event_for(event, viewer)}
