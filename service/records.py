"""A game as stored in Redis: `GameRecord` and its `SeatRecord`s (the JSON of the game's hash), `Status`, tokens.

The layout of a game's keys (`game_key`) and of its hash (`record`, `version`, `seen:<seat>`) is service/store.py's
docstring; this module reads a hash into a record (`stored_record`) and keeps no connection.

Flask-free: the RQ worker imports it too.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from engine import GAMES


class Status(StrEnum):
    """A game's status (docs/API.md "Game lifecycle"): stored and sent as its string value."""

    WAITING = "waiting"  # some human seat is open
    ACTIVE = "active"
    FINISHED = "finished"


STATUSES = tuple(Status)

SEEN = b"seen:"
"""The prefix of a seat's presence field in the game's hash (`GameStore.touch_seen`)."""


def game_key(prefix: str, game_id: str, part: str) -> str:
    """`<prefix>:{<game_id>}:<part>`: a key of the game, all in one hash slot (its id is the hash tag)."""
    return f"{prefix}:{{{game_id}}}:{part}"


@dataclass
class SeatRecord:
    """One seat: `kind` "human" or "ai"; a human seat is open until `token_hash` is set.

    `invite_hash` is the hash of the invitation code that seated the player of a private game: it is given back
    to the game's unused codes if that player leaves before the game starts.

    `webhook` is the seat's your-turn webhook, `{"url", "secret", "holder"}` (service/webhooks.py): `holder` is the
    `token_hash` that registered it, and it is live only while that token holds the seat. The secret is stored as
    given (it signs every delivery) and never shown in a view.

    `taken_at` is the Unix time in seconds at which a player took the seat after the game's creation (None: taken
    at creation, or never): a seat never seen is away from then on (service/presence.py), not from the creation.
    """

    kind: str
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    invite_hash: str | None = None
    webhook: dict[str, str] | None = field(default=None, repr=False)  # its secret never in a log line
    taken_at: float | None = None

    @property
    def is_open(self) -> bool:
        """True for a human seat nobody has taken yet."""
        return self.kind == "human" and self.token_hash is None

    @property
    def had_player(self) -> bool:
        """True for a seat a human player took (a token names it), though an AI plays it now (a resigned Talmut seat).

        Such a seat is a human's in a rematch (service/rematch.py) and in an export (service/export.py).
        """
        return self.token_hash is not None


@dataclass
class GameRecord:
    """A game as stored: metadata, seats and the engine state (`engine` game module's `dump_state` output).

    `ai_delays_since` maps a seat (its number as a string: a JSON key) to the Unix time in seconds at which the
    AI delay it has at this version began (service/turns.py `ai_delays_since`), e.g. `{"1": 1764500000.25}`;
    records stored before the field existed load with `{}`, which schedules from the time of reading.

    `clock` is the state of the game's clock at this version (service/clocks.py), None without `options.clock`.
    `visibility` is "public" (listed in the lobby) or "private"; `invites` holds the hashes of a private game's
    unused invitation codes. `invite_codes` holds, as they are, every code it made: those of its creation and
    those made when a seat that no code had taken (its creator's) was freed (service/seating.py `leave`). Its
    players still seated are shown the unused ones (`shown_invites`), so that no open seat waits for a code only a
    player who left holds; like the hidden hands, a code is only as safe as Redis. `rematch`
    is `{"game_id": ...}` once a rematch of this finished game was created; `rematch_of` is the finished game's id
    in its rematch. Records stored before these fields existed load with their defaults.

    `written_at` is the Unix time in seconds (the writer's clock) at which `GameStore.create` or `GameStore.save`
    stored this version; records stored before the field existed load with 0.0, as if written long ago. It tells a
    turn whose job is not enqueued yet from one whose job was lost (service/turns.py `revive_ai_turns`).
    `renewed_at` is the `written_at` of the latest write that renewed the lifetime of the game's keys
    (`GameStore.save`); 0.0 for records stored before the field existed.
    """

    game_id: str
    game: str
    version: int
    status: str
    created_at: float
    seats: list[SeatRecord]
    options: dict[str, Any]
    state: dict[str, Any]
    result: dict[str, Any] | None = None
    ai_delays_since: dict[str, float] = field(default_factory=dict)
    clock: dict[str, Any] | None = None
    visibility: str = "public"
    invites: list[str] = field(default_factory=list)
    invite_codes: list[str] = field(default_factory=list)
    rematch: dict[str, str] | None = None
    rematch_of: str | None = None
    written_at: float = 0.0
    renewed_at: float = 0.0
    last_seen: dict[int, float] = field(default_factory=dict, repr=False, compare=False, metadata={"stored": False})
    """Seat -> Unix time of its last recorded request (presence, `GameStore.touch_seen`), as the read of this record
    found it (`GameStore.load`); seats never seen are absent. Never in the record's JSON (the hash's `seen:<seat>`
    fields hold it), but carried by `dataclasses.replace`: the version a write makes is answered with the presence
    its writer read."""
    decoded: Any = field(default=None, init=False, repr=False, compare=False)
    """The engine state `state` decodes to, kept by `engine_state` (never stored; `dataclasses.replace` drops it)."""
    views: dict[int | None, dict[str, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The API view of this version per seat (None: spectator), built once (service/views.py `game_view`)."""
    bodies: dict[int | None, tuple[Any, bytes]] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The JSON body of this version's view per seat, with the presence and `pending_ai` it was sent with (the key
    it is kept under: service/views.py `view_body`)."""
    read_at: float | None = field(default=None, init=False, repr=False, compare=False)
    """Monotonic time at which the latest read that found this version began (`GameStore.load`), or the write that
    stored it (`GameStore.save`); None: neither. Redis held this version then: service/cache.py `vouched_copy`."""
    text: str | None = field(default=None, init=False, repr=False, compare=False)
    """The JSON text this record was read as or written as (`to_json`): `GameStore.load` reuses a known record only
    if Redis holds that very text, since a failover can lose a write and let another take its version."""

    def engine_state(self) -> Any:
        """The game module's state object for `state`, decoded at most once per record.

        Decoding is the costly part of reading a game (~5 ms for an 8-seat Talmut table), and one request reads the
        state several times (the view, whose turn it is, the AI turns due): they all share this one decode. Engine
        states are immutable, so sharing is safe.
        """
        if self.decoded is None:
            self.decoded = GAMES[self.game].load_state(self.state)
        return self.decoded

    def to_json(self) -> str:
        """The stored JSON text; also kept as `text`."""
        data = {name: getattr(self, name) for name in _stored_fields(GameRecord)}
        data["seats"] = [seat.__dict__ for seat in self.seats]
        self.text = json.dumps(data, separators=(",", ":"))
        return self.text

    @classmethod
    def from_json(cls, text: bytes | str) -> GameRecord:
        """Inverse of `to_json`.

        Keys that are not fields of this version are ignored: during a rolling deploy, processes of two versions
        read each other's records.
        """
        data = json.loads(text)
        data["seats"] = [SeatRecord(**_known(SeatRecord, seat)) for seat in data["seats"]]
        record = cls(**_known(cls, data))
        record.text = text if isinstance(text, str) else text.decode()
        return record

    def open_seats(self) -> list[int]:
        """Seat numbers of the human seats not taken yet."""
        return [number for number, seat in enumerate(self.seats) if seat.is_open]

    @property
    def by_invitation(self) -> bool:
        """Whether the open seats are taken with invitation codes: a private game, not a rematch.

        A rematch's seats are kept for its players (service/rematch.py).
        """
        return self.visibility == "private" and self.rematch_of is None

    def shown_invites(self) -> list[str] | None:
        """The codes of `invite_codes` still unused, which the seated players' views show while the game waits.

        None where a view shows none: a public game, a rematch, a game that started.
        """
        if not self.by_invitation or self.status != Status.WAITING:
            return None
        return [code for code in self.invite_codes if hash_token(code) in self.invites]


@functools.cache
def _stored_fields(record_type: type) -> tuple[str, ...]:
    return tuple(item.name for item in fields(record_type) if item.init and item.metadata.get("stored", True))


def _known(record_type: type, data: dict[str, Any]) -> dict[str, Any]:
    names = _stored_fields(record_type)
    return {key: value for key, value in data.items() if key in names}


def stored_record(game_hash: dict[bytes, bytes], known: GameRecord | None) -> GameRecord | None:
    """The record a game's hash holds (`known` if it is that very text), with its presence; None: no game.

    `last_seen` is set to a new dict, never changed after: a request holding the record's last one may read it.
    """
    text = game_hash.get(b"record")
    if text is None:
        return None
    stored = text.decode()
    record = known if known is not None and known.text == stored else None
    if record is None:
        record = GameRecord.from_json(stored)  # a new version (else: skip decoding it again, service/cache.py)
    record.last_seen = {
        int(name[len(SEEN) :]): float(moment) for name, moment in game_hash.items() if name.startswith(SEEN)
    }
    return record


def hash_token(token: str) -> str:
    """The stored form of a player token: hex SHA-256 (the token itself is never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_for_hash(record: GameRecord, presented: str) -> int | None:
    """The seat whose token hashes to `presented` (`hash_token`), compared in constant time; None: no seat's.

    No Redis read: a stream or a long-poll checks its token against each record it is about to answer with.
    """
    found = None
    for number, seat in enumerate(record.seats):
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, presented):
            found = number
    return found
