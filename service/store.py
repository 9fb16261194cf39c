"""GameStore: every game's record, events, tokens and idempotency keys in Redis.

Keys share one hash tag per game (`<prefix>:{<game_id>}:...`) so the atomic write stays legal on a Cluster:
- `<prefix>:{<id>}:game`   hash: `version` (int) and `record` (the JSON `GameRecord`)
- `<prefix>:{<id>}:events` list: one JSON object per event, oldest first
- `<prefix>:{<id>}:idem:<seat>:<sha256 of key>`  the first response to a seat's `Idempotency-Key`, with a TTL
- `<prefix>:{<id>}:version` pub/sub channel: the new version, published by every write (service/dispatcher.py)
- `<prefix>:index:<status>` sorted set of game ids by creation time, for the lobby
- `<prefix>:index:<status>:<game>` the same per game (the `cardroom_active_games` metric)

A game's `game` and `events` keys expire after its idle time (waiting, active) or retention time (finished),
renewed by every write (`GameStore.ttl_of`); the indexes drop an expired game when they next meet it.

Flask-free: the RQ worker imports it too.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, cast

import redis

log = logging.getLogger(__name__)

STATUSES = ("waiting", "active", "finished")

# One atomic step: compare the version, write the record, append the events, renew the game's lifetime (ARGV[4]
# seconds, README "Limits and lifetimes"), publish (shared/API.md versions). Nothing is half-written: Lua scripts
# run whole or not at all.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
redis.call('PUBLISH', KEYS[3], ARGV[2])
return 1
"""


class VersionConflict(Exception):
    """The game's version moved on since it was read: someone else's write won."""


class GameNotFound(Exception):
    """No game with that id (never created, or expired)."""


@dataclass
class SeatRecord:
    """One seat: `kind` "human" or "ai"; a human seat is open until `token_hash` is set."""

    kind: str
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None

    @property
    def is_open(self) -> bool:
        """True for a human seat nobody has taken yet."""
        return self.kind == "human" and self.token_hash is None


@dataclass
class GameRecord:
    """A game as stored: metadata, seats and the engine state (`engine` game module's `dump_state` output).

    `ai_delays_since` maps a seat (its number as a string: a JSON key) to the Unix time in seconds at which the
    AI delay it has at this version began (service/turns.py `ai_delays_since`), e.g. `{"1": 1764500000.25}`;
    records stored before the field existed load with `{}`, which schedules from the time of reading.
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
    decoded: Any = field(default=None, init=False, repr=False, compare=False)
    """The engine state `state` decodes to, kept by `engine_state` (never stored; `dataclasses.replace` drops it)."""
    views: dict[int | None, dict[str, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The API view of this version per seat (None: spectator), built once (service/views.py `game_view`)."""
    read_at: float | None = field(default=None, init=False, repr=False, compare=False)
    """Monotonic time at which the latest read that found this version began (`GameStore.load`); None: never read."""

    def engine_state(self) -> Any:
        """The game module's state object for `state`, decoded at most once per record.

        Decoding is the costly part of reading a game (~5 ms for an 8-seat Talmut table), and one request reads the
        state several times (the view, whose turn it is, the AI turns due): they all share this one decode. Engine
        states are immutable, so sharing is safe.
        """
        if self.decoded is None:
            from engine import GAMES

            self.decoded = GAMES[self.game].load_state(self.state)
        return self.decoded

    def to_json(self) -> str:
        """The stored JSON text."""
        data = {name: getattr(self, name) for name in _stored_fields(GameRecord)}
        data["seats"] = [seat.__dict__ for seat in self.seats]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: bytes | str) -> GameRecord:
        """Inverse of `to_json`.

        Keys that are not fields of this version are ignored: during a rolling deploy, processes of two versions
        read each other's records.
        """
        data = json.loads(text)
        data["seats"] = [SeatRecord(**_known(SeatRecord, seat)) for seat in data["seats"]]
        return cls(**_known(cls, data))

    def open_seats(self) -> list[int]:
        """Seat numbers of the human seats not taken yet."""
        return [number for number, seat in enumerate(self.seats) if seat.is_open]


@functools.cache
def _stored_fields(record_type: type) -> tuple[str, ...]:
    return tuple(item.name for item in fields(record_type) if item.init)


def _known(record_type: type, data: dict[str, Any]) -> dict[str, Any]:
    names = _stored_fields(record_type)
    return {key: value for key, value in data.items() if key in names}


def hash_token(token: str) -> str:
    """The stored form of a player token: hex SHA-256 (the token itself is never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_for_token(record: GameRecord, token: str) -> int | None:
    """The seat whose token this is, compared in constant time; None when it matches no seat."""
    presented = hash_token(token)
    found = None
    for number, seat in enumerate(record.seats):
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, presented):
            found = number
    return found


class GameStore:
    """Reads and writes games under one key prefix. `client` is a bytes (not decoding) redis-py client.

    Every write renews the lifetime of the game's keys: `idle_ttl_seconds` while it is waiting or active,
    `retention_seconds` once finished (defaults: `service.config.lifetimes()`, from the environment).
    """

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        idle_ttl_seconds: int | None = None,
        retention_seconds: int | None = None,
    ) -> None:
        from service.config import lifetimes

        defaults = lifetimes()
        self.client = client
        self.prefix = prefix
        self.idle_ttl_seconds = idle_ttl_seconds or defaults["GAME_IDLE_TTL_SECONDS"]
        self.retention_seconds = retention_seconds or defaults["GAME_RETENTION_SECONDS"]
        self._compare_and_set = client.register_script(_COMPARE_AND_SET)

    def ttl_of(self, record: GameRecord) -> int:
        """Seconds the keys of `record` live after this write: the retention time once finished, else the idle time."""
        return self.retention_seconds if record.status == "finished" else self.idle_ttl_seconds

    def _key(self, game_id: str, part: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{part}"

    def channel(self, game_id: str) -> str:
        """The pub/sub channel on which each new version of the game is published."""
        return self._key(game_id, "version")

    def create(self, record: GameRecord, events: Sequence[dict[str, Any]] = ()) -> None:
        """Store a new game at `record.version`.

        Raises:
            VersionConflict: a game with that id exists already.
        """
        key = self._key(record.game_id, "game")
        with self.client.pipeline() as pipe:
            pipe.hsetnx(key, "version", record.version)
            pipe.hset(key, "record", record.to_json())
            pipe.expire(key, self.ttl_of(record))
            if events:
                pipe.rpush(self._key(record.game_id, "events"), *[json.dumps(e) for e in events])
                pipe.expire(self._key(record.game_id, "events"), self.ttl_of(record))
            created, *_ = pipe.execute()
        if not created:
            raise VersionConflict(record.game_id)
        self._index(record)

    def load(self, game_id: str, known: GameRecord | None = None) -> GameRecord:
        """The game's current record; `known`, a record of it read before, is returned if it is still current.

        Raises:
            GameNotFound: no such game.
        """
        started = time.monotonic()
        version, text = self.client.hmget(self._key(game_id, "game"), ["version", "record"])
        if text is None:
            raise GameNotFound(game_id)
        record = known if known is not None and known.version == int(cast(bytes, version)) else None
        if record is None:
            record = GameRecord.from_json(text)  # a new version (else: skip decoding it again, service/cache.py)
        record.read_at = started if record.read_at is None else max(record.read_at, started)
        return record

    def version(self, game_id: str) -> int | None:
        """The game's current version, or None for no such game."""
        value = self.client.hget(self._key(game_id, "game"), "version")
        return None if value is None else int(value)

    def save(self, record: GameRecord, expected_version: int, events: Sequence[dict[str, Any]]) -> None:
        """Write `record` (whose version must be `expected_version + 1`) and append `events`, atomically.

        Raises:
            VersionConflict: the stored version is not `expected_version`; nothing was written.
        """
        keys = [self._key(record.game_id, "game"), self._key(record.game_id, "events"), self.channel(record.game_id)]
        args = [
            str(expected_version), str(record.version), record.to_json(), str(self.ttl_of(record)),
            *[json.dumps(e) for e in events],
        ]
        if not self._compare_and_set(keys=keys, args=args):
            raise VersionConflict(record.game_id)
        try:
            self._index(record)
        except redis.RedisError:  # the write is stored: a stale index entry heals itself (`listing`)
            log.warning("game %s: index not updated", record.game_id, exc_info=True)

    def _index(self, record: GameRecord) -> None:
        # After the write, not inside it: the index keys live in another hash slot. A stale entry is harmless
        # because the lobby re-reads each record.
        with self.client.pipeline(transaction=False) as pipe:
            for status in STATUSES:
                # by status (the lobby), and by status and game (`cardroom_active_games`, service/metrics.py)
                for index in (f"{self.prefix}:index:{status}", f"{self.prefix}:index:{status}:{record.game}"):
                    if status == record.status:
                        pipe.zadd(index, {record.game_id: record.created_at})
                    else:
                        pipe.zrem(index, record.game_id)
            pipe.execute()

    def events(self, game_id: str) -> list[dict[str, Any]]:
        """All stored events of the game, oldest first."""
        return [json.loads(item) for item in self.client.lrange(self._key(game_id, "events"), 0, -1)]

    def listing(self, status: str, offset: int, limit: int) -> Iterator[GameRecord]:
        """Records of games with `status`, newest first, skipping `offset` (games that expired are skipped)."""
        index = f"{self.prefix}:index:{status}"
        position = offset
        while True:
            ids = cast(list[bytes], self.client.zrevrange(index, position, position + limit - 1))
            if not ids:
                return
            for game_id in ids:
                try:
                    record = self.load(game_id.decode())
                except GameNotFound:
                    self.forget(game_id.decode())  # expired: the index heals itself
                    position -= 1
                    continue
                if record.status != status:  # an index write lost to an outage: put it right
                    self._index(record)
                    position -= 1
                    continue
                yield record
            position += len(ids)

    def forget(self, game_id: str) -> None:
        """Drop a game that expired from every index (the lobby's and the per-game ones of the metrics)."""
        from engine import GAMES

        indexes = [f"{self.prefix}:index:{status}" for status in STATUSES]
        indexes += [f"{self.prefix}:index:{status}:{game}" for status in STATUSES for game in GAMES]
        with self.client.pipeline(transaction=False) as pipe:
            for index in indexes:
                pipe.zrem(index, game_id)
            pipe.execute()

    def active_game_ids(self) -> list[str]:
        """Ids of the games the index lists as active (some may have expired since: `load` tells)."""
        ids = cast(list[bytes], self.client.zrange(f"{self.prefix}:index:active", 0, -1))
        return [game_id.decode() for game_id in ids]

    def revive_key(self, game_id: str, version: int, seat: int) -> str:
        """Counter of how often an AI turn was enqueued again (service/turns.py `revive_ai_turns`)."""
        return self._key(game_id, f"revived:{version}:{seat}")

    def _idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        return self._key(game_id, f"idem:{seat}:" + hashlib.sha256(key.encode()).hexdigest())

    def reserve_response(
        self, game_id: str, seat: int, key: str, fingerprint: str, ttl_seconds: int = 60
    ) -> dict[str, Any] | None:
        """Claim `seat`'s `Idempotency-Key` for the request `fingerprint` before applying it; None: claimed now.

        Otherwise the key's record: the first response (`body` set), or `body` None while that request runs. A
        claim lasts `ttl_seconds` (a request whose process died frees its key then); the response, once kept,
        lasts `IDEMPOTENCY_TTL_SECONDS` (service/idempotency.py).
        """
        name = self._idempotency_key(game_id, seat, key)
        claim = json.dumps({"request": fingerprint, "status": None, "body": None})
        if self.client.set(name, claim, nx=True, ex=ttl_seconds):
            return None
        text = self.client.get(name)
        return None if text is None else json.loads(text)

    def release_response(self, game_id: str, seat: int, key: str) -> None:
        """Drop the claim of a request that applied nothing (it was rejected), so the key can be used again."""
        self.client.delete(self._idempotency_key(game_id, seat, key))

    def remember_response(
        self, game_id: str, seat: int, key: str, response: dict[str, Any], ttl_seconds: int
    ) -> None:
        """Keep the first response to `seat`'s `Idempotency-Key` for `ttl_seconds` (replacing its claim)."""
        self.client.set(self._idempotency_key(game_id, seat, key), json.dumps(response), ex=ttl_seconds)
