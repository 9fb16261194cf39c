"""GameStore: every game's record, events, tokens and idempotency keys in Redis.

Keys share one hash tag per game (`<prefix>:{<game_id>}:...`) so the atomic write stays legal on a Cluster:
- `<prefix>:{<id>}:game`   hash: `version` (int), `record` (the JSON `GameRecord`) and `seen:<seat>`, the Unix time
  of the seat's last authenticated request (presence, `touch_seen`): one HGETALL reads the record and its presence
- `<prefix>:{<id>}:events` list: one JSON object per event, oldest first
- `<prefix>:{<id>}:idem:<sha256 of the token's hash and the key>`  a player's `Idempotency-Key`: claimed by the
  write that applies its request (in the same step), then the request's first response, with a TTL
- `<prefix>:{<id>}:version` pub/sub channel: the new version, published by every write (service/dispatcher.py);
  on a Redis Cluster a sharded channel (SPUBLISH), served by the primary of the game's slot
- `<prefix>:index:<status>` sorted set of public game ids, each scored by the Unix time its keys expire, for the lobby
- `<prefix>:index:<status>:<game>` the same per game (the lobby's `game` filter, `cardroom_active_games`)
- `<prefix>:index:<status>:private`, `<prefix>:index:<status>:<game>:private` the same for private games, which the
  lobby never reads (the sweep and the metrics read both)

A game's `game` and `events` keys expire after its idle time (waiting, active) or retention time (finished),
renewed by the writes (`GameStore.ttl_of`; a move only once per hundredth of that time, `GameStore.save`). Every
write re-scores the game in the indexes but a move that leaves an active game active (the bulk of them: its entries
were written when it became active).
Scored by expiry, the indexes keep the most recently written (an active game: started) games first and the expired
ones last, below the current time: a lobby page stops there without reading them, and the worker's sweep drops
them (`prune_indexes`), or scores them again from their keys' lifetime when they live on (a long active game).

Every Lua script and MULTI touches the keys of one game only, so one hash slot (`script_keys` lists them, tests check
their slots). The indexes, which span games, and the metrics are written by commands of their own, never in the
same script or transaction as a game's keys: on a Redis Cluster each index key lives in the slot its name hashes to.

Flask-free: the RQ worker imports it too.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, NamedTuple, cast

import redis
from redis.cluster import RedisCluster

from service.config import lifetimes
from service.redis_clients import STORE_ERRORS, is_cluster

log = logging.getLogger(__name__)


class Status(StrEnum):
    """A game's status (docs/API.md "Game lifecycle"): stored and sent as its string value."""

    WAITING = "waiting"  # some human seat is open
    ACTIVE = "active"
    FINISHED = "finished"


STATUSES = tuple(Status)

# One atomic step: compare the version, and Redis's clock with the mover's deadline (ARGV[5], Unix seconds, or ''),
# write the record, append the events, claim the request's Idempotency-Key (KEYS[4] holds ARGV[6] for ARGV[7]
# seconds; none when ARGV[6] is ''), renew the game's lifetime (ARGV[4] seconds, docs/operations/limits.md
# "Lifetimes", or '': `GameStore.save` renewed it a moment ago; its presence lives in the same hash), publish
# (docs/API.md versions). Nothing is half-written: Lua scripts run whole or not at all. `{publish}` is PUBLISH, or
# SPUBLISH on a Redis Cluster. 0: another version; -1: the deadline passed.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return 0 end
if ARGV[5] ~= '' then
  local now = redis.call('TIME')
  if tonumber(now[1]) + tonumber(now[2]) / 1000000 >= tonumber(ARGV[5]) then return -1 end
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
if #ARGV >= 8 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 8)) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[7]) end
if ARGV[4] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
redis.call('{publish}', KEYS[3], ARGV[2])
return 1
"""

# Delete a game only if it is still at the version its deleter read (a seat taken meanwhile keeps it alive). The
# version after it is published so that every waiter wakes at once, reads, and finds no game.
_COMPARE_AND_DELETE = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('{publish}', KEYS[3], tonumber(ARGV[1]) + 1)
return 1
"""

# Presence (the game hash's field ARGV[1]): at most one write per seat per ARGV[3] seconds, whichever process
# serves the seat's requests; none once the game is gone (a write would make a hash of presence alone, for ever).
_TOUCH_SEEN = """
local stored = redis.call('HMGET', KEYS[1], 'version', ARGV[1])
if not stored[1] then return 0 end
if stored[2] and tonumber(ARGV[2]) - tonumber(stored[2]) < tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


RENEW_FRACTION = 0.01
"""A move renews its game's lifetime when the last renewal is this fraction of it old (`GameStore.save`)."""

_SEEN = b"seen:"
"""The prefix of a seat's presence field in the game's hash (`GameStore.touch_seen`)."""


class KeyClaim(NamedTuple):
    """A request's `Idempotency-Key` claimed by the write that applies the request (`GameStore.save`).

    `name` is its Redis key (`GameStore.idempotency_key`), `text` what it holds until the first response is kept
    (service/idempotency.py), `seconds` how long the claim lasts if that never happens (a process that died).
    """

    name: str
    text: str
    seconds: int


class VersionConflict(Exception):
    """The game's version moved on since it was read: someone else's write won."""


class ClockRanOut(VersionConflict):
    """The mover's clock ran out before its write landed: the next version is its timeout's (service/clocks.py).

    A version check like any other (409 `version_conflict`): the timeout job scheduled at the deadline runs up to
    about a second late (RQ's scheduler keeps whole seconds), and a move in that second must not win the race.
    """


class GameNotFound(Exception):
    """No game with that id (never created, or expired)."""


class UnsafeEviction(Exception):
    """Redis's `maxmemory-policy` may evict game keys (docs/operations/production.md): `check_eviction_policy`."""


SAFE_EVICTION_POLICY = "noeviction"


def check_eviction_policy(client: redis.Redis, allowed: bool) -> str:
    """Redis's `maxmemory-policy` (from INFO, which managed services that hide CONFIG still answer).

    On a Redis Cluster (`client` a `RedisCluster`) every node's: the first unsafe one, else `noeviction`.

    Every policy but `noeviction` may evict game keys when memory runs out, the `volatile-*` ones too (every key
    of a game has a lifetime), and a game would then vanish without a trace, seconds after its 201.

    Raises:
        UnsafeEviction: the policy is not `noeviction` and `allowed` (`REDIS_EVICTION_ALLOWED`) is false.
        redis.RedisError: Redis did not answer.
    """
    if is_cluster(client):  # every node, replicas too: one may be promoted
        infos = list(client.info("memory", target_nodes=RedisCluster.ALL_NODES).values())
    else:
        infos = [client.info("memory")]
    policies = {info.get("maxmemory_policy", SAFE_EVICTION_POLICY) for info in infos}
    policy = next((name for name in sorted(policies) if name != SAFE_EVICTION_POLICY), SAFE_EVICTION_POLICY)
    if policy != SAFE_EVICTION_POLICY and not allowed:
        raise UnsafeEviction(
            f"Redis's maxmemory-policy is {policy}: when memory runs out it may evict game keys and games would "
            f"silently vanish. Set maxmemory-policy {SAFE_EVICTION_POLICY} (docs/operations/production.md), or "
            "REDIS_EVICTION_ALLOWED=1 to run anyway."
        )
    return policy


@dataclass
class SeatRecord:
    """One seat: `kind` "human" or "ai"; a human seat is open until `token_hash` is set.

    `invite_hash` is the hash of the invitation code that seated the player of a private game: it is given back
    to the game's unused codes if that player leaves before the game starts.

    `webhook` is the seat's your-turn webhook, `{"url", "secret", "holder"}` (service/webhooks.py): `holder` is the
    `token_hash` that registered it, and it is live only while that token holds the seat. The secret is stored as
    given (it signs every delivery) and never shown in a view.
    """

    kind: str
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    invite_hash: str | None = None
    webhook: dict[str, str] | None = None

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
    """Monotonic time at which the latest read that found this version began (`GameStore.load`); None: never read."""
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
            from engine import GAMES

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


def _stored_record(game_hash: dict[bytes, bytes], known: GameRecord | None) -> GameRecord | None:
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
    record.last_seen = {int(name[len(_SEEN):]): float(moment) for name, moment in game_hash.items()
                        if name.startswith(_SEEN)}
    return record


def index_key(prefix: str, status: str, game: str | None = None, private: bool = False) -> str:
    """`<prefix>:index:<status>[:<game>][:private]`: the games with `status` (and of `game`), public or private."""
    key = f"{prefix}:index:{status}" if game is None else f"{prefix}:index:{status}:{game}"
    return key + ":private" if private else key


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


def script_sources(sharded: bool) -> dict[str, str]:
    """The store's Lua scripts by name, publishing with SPUBLISH when `sharded` (a Redis Cluster), else PUBLISH."""
    publish = "SPUBLISH" if sharded else "PUBLISH"
    return {
        "compare_and_set": _COMPARE_AND_SET.format(publish=publish),
        "compare_and_delete": _COMPARE_AND_DELETE.format(publish=publish),
        "touch_seen": _TOUCH_SEEN,
    }


def unreplicated_key(prefix: str) -> str:
    """Counter of the writes `REDIS_WAIT_REPLICAS` replicas did not acknowledge in time (`GameStore.save`)."""
    return f"{prefix}:metrics:unreplicated_writes"


class GameStore:
    """Reads and writes games under one key prefix. `client` is a bytes (not decoding) redis-py client.

    `client` is a `redis.Redis` or a `redis.cluster.RedisCluster` (then every game's channel is a sharded one).
    Every write renews the lifetime of the game's keys: `idle_ttl_seconds` while it is waiting or active,
    `retention_seconds` once finished (defaults: `service.config.lifetimes()`, from the environment).
    `wait_replicas` > 0 makes `save` wait, up to `wait_timeout_ms`, until that many replicas hold the write
    (`REDIS_WAIT_REPLICAS`, `REDIS_WAIT_TIMEOUT_MS`).
    """

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        idle_ttl_seconds: int | None = None,
        retention_seconds: int | None = None,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 100,
    ) -> None:
        defaults = lifetimes()
        self.client = client
        self.prefix = prefix
        self.idle_ttl_seconds = idle_ttl_seconds or defaults["GAME_IDLE_TTL_SECONDS"]
        self.retention_seconds = retention_seconds or defaults["GAME_RETENTION_SECONDS"]
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        self.sharded = is_cluster(client)
        scripts = script_sources(self.sharded)
        self._compare_and_set = client.register_script(scripts["compare_and_set"])
        self._compare_and_delete = client.register_script(scripts["compare_and_delete"])
        self._touch_seen = client.register_script(scripts["touch_seen"])

    def ttl_of(self, record: GameRecord) -> int:
        """Seconds the keys of `record` live after this write: the retention time once finished, else the idle time."""
        return self.retention_seconds if record.status == Status.FINISHED else self.idle_ttl_seconds

    def _key(self, game_id: str, part: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{part}"

    def channel(self, game_id: str) -> str:
        """The pub/sub channel on which each new version of the game is published."""
        return self._key(game_id, "version")

    def script_keys(self, game_id: str) -> dict[str, list[str]]:
        """The keys each Lua script of the store gets for `game_id`, by script name (all in the game's hash slot)."""
        keys = [self._key(game_id, part) for part in ("game", "events", "version")]
        return {"compare_and_set": keys, "compare_and_delete": keys, "touch_seen": keys[:1]}

    def create(self, record: GameRecord, events: Sequence[dict[str, Any]] = ()) -> None:
        """Store a new game at `record.version`, setting its `written_at` to now.

        Raises:
            VersionConflict: a game with that id exists already.
        """
        record.written_at = record.renewed_at = time.time()
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
        try:
            self._index(record)
        except STORE_ERRORS:
            # e.g. memory ran out between the two writes: take the game back (deleting is allowed when Redis is
            # full) so that the error means "nothing was changed"
            with contextlib.suppress(*STORE_ERRORS):
                self.client.delete(key, self._key(record.game_id, "events"))
                self.forget(record.game_id)
            raise

    def load(self, game_id: str, known: GameRecord | None = None) -> GameRecord:
        """The game's current record; `known`, a record of it read or stored before, is returned if it is still current.

        Current means Redis holds `known`'s very text (its version is in it), not only its version: after a failover
        lost a write, another write may have stored a different record at the same version. One command (HGETALL)
        reads the record with its presence (`GameRecord.last_seen`, set on `known` too).

        Raises:
            GameNotFound: no such game.
        """
        started = time.monotonic()
        return self._found(game_id, cast(dict[bytes, bytes], self.client.hgetall(self._key(game_id, "game"))),
                           known, started)

    @staticmethod
    def _found(game_id: str, game_hash: dict[bytes, bytes], known: GameRecord | None, started: float) -> GameRecord:
        """The record of a game's hash read from monotonic time `started` on (`load`)."""
        record = _stored_record(game_hash, known)
        if record is None:
            raise GameNotFound(game_id)
        record.read_at = started if record.read_at is None else max(record.read_at, started)
        return record

    def version(self, game_id: str) -> int | None:
        """The game's current version, or None for no such game."""
        value = self.client.hget(self._key(game_id, "game"), "version")
        return None if value is None else int(value)

    def save(
        self,
        record: GameRecord,
        expected_version: int,
        events: Sequence[dict[str, Any]],
        deadline: float | None = None,
        previous_status: str | None = None,
        claim: KeyClaim | None = None,
    ) -> None:
        """Write `record` (whose version must be `expected_version + 1`) and append `events`, atomically.

        Sets `record.written_at` to now. `deadline` (Unix seconds)
        is the mover's clock's at `expected_version`: compared with Redis's clock (`TIME`) in the same step, one
        clock for every web process, so a move is refused however late it is in that step.

        The game's keys live `ttl_of(record)` seconds from the latest write that renewed them: every write that
        changes the status (or whose `previous_status` is unknown), and a move at least `RENEW_FRACTION` of that
        time after the last renewal. So a game lives at least 99% of its idle time (retention time) after its last
        write, and a move's step sends no EXPIRE (two commands) but once per 1.7 hours of a 7-day idle time.

        `claim` is written in the same step as the move it applies: a repeat of the request that read the game
        before it loses the version check, and one that reads it after finds the claim (`load_with_response`).

        `previous_status` is the status at `expected_version` (None: unknown). A game that was active and stays
        active keeps its index entries as they are: they were written when it became active, and a move rewriting
        them (four commands) would only move its expiry score on. The lobby lists active games by the time they
        started, and the worker's sweep scores a game that outlives its entry again from its keys' lifetime
        (`prune_indexes`).

        Raises:
            ClockRanOut: Redis's clock is at or past `deadline`; nothing was written.
            VersionConflict: the stored version is not `expected_version`; nothing was written.
        """
        record.written_at = time.time()
        ttl = self.ttl_of(record)
        # two EXPIREs a move saved: renewed when the lifetime changes (a status change) and once per hundredth of it
        renew = previous_status != record.status or record.written_at - record.renewed_at >= ttl * RENEW_FRACTION
        if renew:
            record.renewed_at = record.written_at
        keys = self.script_keys(record.game_id)["compare_and_set"] + ([claim.name] if claim else [])
        args = [
            str(expected_version), str(record.version), record.to_json(), str(ttl) if renew else "",
            "" if deadline is None else repr(deadline), claim.text if claim else "", str(claim.seconds if claim else 0),
            *[json.dumps(e) for e in events],
        ]
        if self.wait_replicas:
            written = self._write_and_wait(keys, args)
        else:
            written = self._compare_and_set(keys=keys, args=args)
        if written == -1:
            raise ClockRanOut(record.game_id)
        if not written:
            raise VersionConflict(record.game_id)
        if previous_status == record.status == Status.ACTIVE:
            return
        try:
            self._index(record)
        except STORE_ERRORS:  # the write is stored: a stale index entry heals itself (`listing`)
            log.warning("game %s: index not updated", record.game_id, exc_info=True)

    def _write_and_wait(self, keys: list[str], args: list[str]) -> int:
        """The compare-and-set, then `WAIT wait_replicas wait_timeout_ms` on the same connection; the script's answer.

        WAIT counts the replicas that hold the writes of its own connection, so both go in one pipeline: on a
        cluster, one of the client of the node that holds the game's slot (after a MOVED, the slot map is read
        again and the write tried once more). Replicas that do not acknowledge in time do not undo the write, which
        is stored on the primary: the move is answered as usual, logged and counted (`unreplicated_key`).
        """
        try:
            written, replicas = self._pipelined_write_and_wait(keys, args)
        except redis.exceptions.MovedError:  # a failover or a resharding moved the slot: read the slot map again
            cast(RedisCluster, self.client).nodes_manager.initialize()
            written, replicas = self._pipelined_write_and_wait(keys, args)
        if written == 1 and replicas < self.wait_replicas:
            log.warning("a write of %s reached %s of %s replicas within %s ms", keys[0], replicas,
                        self.wait_replicas, self.wait_timeout_ms)
            with contextlib.suppress(*STORE_ERRORS):
                self.client.incr(unreplicated_key(self.prefix))
        return int(written)

    def _pipelined_write_and_wait(self, keys: list[str], args: list[str]) -> tuple[int, int]:
        node = self.client
        if self.sharded:
            cluster = cast(RedisCluster, self.client)
            node = cluster.get_redis_connection(cluster.get_node_from_key(keys[0]))
        with node.pipeline(transaction=False) as pipe:
            self._compare_and_set(keys=keys, args=args, client=pipe)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
            written, replicas = pipe.execute()
        return written, replicas

    def delete(self, game_id: str, expected_version: int) -> None:
        """Delete the game (its record, events and presence) if it is still at `expected_version`.

        Its waiting clients are woken (they then find no game). The indexes drop it when they next meet it.

        Raises:
            VersionConflict: the stored version is not `expected_version`; nothing was deleted.
        """
        keys = self.script_keys(game_id)["compare_and_delete"]
        if not self._compare_and_delete(keys=keys, args=[str(expected_version)]):
            raise VersionConflict(game_id)
        self.forget(game_id)

    def touch_seen(self, record: GameRecord, seat: int, now: float, every_seconds: float) -> bool:
        """Record that `seat` of `record`'s game made a request at `now` (Unix time); True when written.

        Not written when the seat's last one is less than `every_seconds` old, nor once the game is gone. Kept in
        the game's hash (`seen:<seat>`), it lives as long as the game; when written, `record.last_seen` shows it.
        """
        keys = self.script_keys(record.game_id)["touch_seen"]
        written = bool(self._touch_seen(keys=keys, args=[f"{_SEEN.decode()}{seat}", repr(now), every_seconds]))
        if written:
            record.last_seen = {**record.last_seen, seat: now}
        return written

    def forget_seen(self, game_id: str, seat: int) -> None:
        """Drop `seat`'s presence (its player left the seat: whoever takes it next has not been seen)."""
        self.client.hdel(self._key(game_id, "game"), f"{_SEEN.decode()}{seat}")

    def index_key(self, status: str, game: str | None = None, private: bool = False) -> str:
        """The sorted set of the public (or `private`) games with `status` (and of `game`), scored by expiry time."""
        return index_key(self.prefix, status, game, private)

    def _all_indexes(self) -> list[str]:
        from engine import GAMES

        return [self.index_key(status, game, private)
                for status in STATUSES for game in (None, *GAMES) for private in (False, True)]

    def _index(self, record: GameRecord, stale: str | None = None) -> None:
        # After the write, not inside it: the index keys live in another hash slot. A stale entry is harmless
        # because the lobby re-reads each record, and the sweep re-scores it from the game's own lifetime.
        expires = time.time() + self.ttl_of(record)
        private = record.visibility == "private"  # set at creation, never changed: one family of indexes
        # A status only moves on (waiting, active, finished): the game is in no index of a later status than its
        # own, but for an index write that outlived a lost write (a failover): `stale`, the index `listing` found it in
        earlier = {*STATUSES[:STATUSES.index(Status(record.status))], *([stale] if stale else [])} - {record.status}
        with self.client.pipeline(transaction=False) as pipe:
            for status in (*sorted(earlier), record.status):
                for index in (self.index_key(status, None, private), self.index_key(status, record.game, private)):
                    if status == record.status:
                        pipe.zadd(index, {record.game_id: expires})
                    else:
                        pipe.zrem(index, record.game_id)
            pipe.execute()

    def prune_indexes(self, batch: int = 500) -> int:
        """Drop expired games from every index, at most `batch` per index; returns how many entries were dropped.

        An entry past its score is checked against its game's remaining lifetime first: a game whose index write
        was lost (an outage right after the move) lives on, and is scored again from its own TTL.
        """
        now = time.time()
        dropped = 0
        for index in self._all_indexes():
            ids = cast(list[bytes], self.client.zrangebyscore(index, "-inf", now, start=0, num=batch))
            if not ids:
                continue
            with self.client.pipeline(transaction=False) as pipe:
                for game_id in ids:
                    pipe.pttl(self._key(game_id.decode(), "game"))
                lifetimes = pipe.execute()
            gone = [game_id for game_id, left in zip(ids, lifetimes, strict=True) if left < 0]
            alive = {game_id: now + left / 1000 for game_id, left in zip(ids, lifetimes, strict=True) if left >= 0}
            with self.client.pipeline(transaction=False) as pipe:
                if gone:
                    pipe.zrem(index, *gone)
                if alive:
                    pipe.zadd(index, alive)
                pipe.execute()
            dropped += len(gone)
        return dropped

    def check_writable(self) -> None:
        """Write one short-lived key: raises redis.exceptions.OutOfMemoryError when Redis is full (`/readyz`)."""
        self.client.set(f"{self.prefix}:writable", 1, ex=60)

    def events(self, game_id: str) -> list[dict[str, Any]]:
        """All stored events of the game, oldest first."""
        return [json.loads(item) for item in self.client.lrange(self._key(game_id, "events"), 0, -1)]

    def listing(
        self, status: str, game: str | None, offset: int, limit: int,
        known: Callable[[str], GameRecord | None] = lambda game_id: None,
    ) -> tuple[list[GameRecord], bool]:
        """Up to `limit` records of games with `status` (and of `game`) after the first `offset`; more to come?

        `known(game_id)` is a record of the game read before (service/cache.py), used instead of decoding the
        stored one again when it is still current.

        Most recently written first (an active game: most recently started, `save`). O(limit) whatever the number
        of games or the offset: one range by rank of the index (O(log n) in Redis) and one pipelined read of the
        records (with their presence, as `load`) per `limit + 1` entries. It stops at the first entry past its
        expiry time, as all below it are too. An entry whose game is gone (expired since) or
        has another status (an index write lost to an outage) is put right and skipped. Private games are in
        indexes of their own, never read here (docs/API.md: a private game is never listed).
        """
        index = self.index_key(status, game)
        now = time.time()
        records: list[GameRecord] = []
        position = offset
        while len(records) <= limit:
            entries = cast(list[tuple[bytes, float]],
                           self.client.zrevrange(index, position, position + limit, withscores=True))
            live = [game_id.decode() for game_id, expires in entries if expires > now]
            with self.client.pipeline(transaction=False) as pipe:
                for game_id in live:
                    pipe.hgetall(self._key(game_id, "game"))
                stored = pipe.execute()
            for game_id, game_hash in zip(live, stored, strict=True):
                record = _stored_record(game_hash, known(game_id))
                if record is None:
                    self.forget(game_id)  # expired a moment ago
                elif record.status != status:
                    self._index(record, stale=status)
                else:
                    records.append(record)
                    continue
                position -= 1  # the entry left this index
            if len(live) < len(entries) or len(entries) <= limit:
                break  # past the live entries, or the end of the index
            position += len(entries)
        return records[:limit], len(records) > limit

    def forget(self, game_id: str) -> None:
        """Drop a game that expired from every index (the lobby's and the per-game ones of the metrics)."""
        with self.client.pipeline(transaction=False) as pipe:
            for index in self._all_indexes():
                pipe.zrem(index, game_id)
            pipe.execute()

    def active_game_ids(self) -> list[str]:
        """Ids of the active games, public and private, not expired by the indexes (`load` tells if one just did)."""
        now = time.time()
        with self.client.pipeline(transaction=False) as pipe:
            for private in (False, True):
                pipe.zrangebyscore(self.index_key(Status.ACTIVE, None, private), now, "+inf")
            public, private_ids = pipe.execute()
        return list(dict.fromkeys(game_id.decode() for game_id in [*public, *private_ids]))

    def count(self, name: str) -> int:
        """Add one to the counter `name` (e.g. a `revive_key`), kept for the idle time; the new count."""
        with self.client.pipeline() as pipe:
            pipe.incr(name)
            pipe.expire(name, self.idle_ttl_seconds)
            count, _ = pipe.execute()
        return int(count)

    def revive_key(self, game_id: str, version: int, seat: int) -> str:
        """Counter of how often an AI turn was enqueued again (service/turns.py `revive_ai_turns`)."""
        return self._key(game_id, f"revived:{version}:{seat}")

    def webhook_key(self, game_id: str, seat: int) -> str:
        """The key of `seat`'s latest webhook delivery in game `game_id` (service/webhooks.py `record_delivery`)."""
        return self._key(game_id, f"webhook:{seat}")

    def timeout_revive_key(self, game_id: str, version: int, seat: int) -> str:
        """Counter of how often a clock's timeout was scheduled again (worker/timeouts.py `revive_timeouts`)."""
        return self._key(game_id, f"timeout-revived:{version}:{seat}")

    def idempotency_key(self, game_id: str, token_hash: str, key: str) -> str:
        """The Redis key of `key`, an `Idempotency-Key` sent with the token whose hash is `token_hash`, in the game.

        Scoped by the token, which holds one seat (`seat_for_hash`): known before the game is read, so that
        `load_with_response` reads it with the record, and a seat's next player never meets the last one's keys.
        """
        return self._key(game_id, "idem:" + hashlib.sha256(f"{token_hash}:{key}".encode()).hexdigest())

    def load_with_response(
        self, game_id: str, name: str, known: GameRecord | None = None
    ) -> tuple[GameRecord, dict[str, Any] | None]:
        """`load`, and what the `Idempotency-Key` `name` holds (None: nothing), in one round trip.

        The record is read first: a request applied by a write after that read is found by the second read, the
        write having claimed its key in the same step (`save`).

        Raises:
            GameNotFound: no such game.
        """
        started = time.monotonic()
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(self._key(game_id, "game"))
            pipe.get(name)
            game_hash, remembered = pipe.execute()
        record = self._found(game_id, game_hash, known, started)
        return record, None if remembered is None else json.loads(remembered)

    def remember_response(self, name: str, response: dict[str, Any], ttl_seconds: int) -> None:
        """Keep the first response to the `Idempotency-Key` `name` for `ttl_seconds` (replacing its claim)."""
        self.client.set(name, json.dumps(response), ex=ttl_seconds)
