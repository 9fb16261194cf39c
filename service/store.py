"""GameStore: every game's record, events, tokens and idempotency keys in Redis.

Keys share one hash tag per game (`<prefix>:{<game_id>}:...`) so the atomic write stays legal on a Cluster:
- `<prefix>:{<id>}:game`   hash: `version` (int), `record` (the JSON `GameRecord`) and `seen:<seat>`, the Unix time
  of the seat's last authenticated request (presence, `touch_seen`): one HGETALL reads the record and its presence
- `<prefix>:{<id>}:events` list: one JSON object per event, oldest first
- `<prefix>:{<id>}:idem:<sha256 of the token's hash and the key>`  a player's `Idempotency-Key`: claimed by the
  write that applies its request (in the same step), then the request's first response, with a TTL
- `<prefix>:{<id>}:version` pub/sub channel: the new version, published by every write (service/dispatcher.py);
  on a Redis Cluster a sharded channel (SPUBLISH), served by the primary of the game's slot
- `<prefix>:index:...` the lobby's indexes, which span games (service/lobby_index.py)

A game's `game` and `events` keys expire after its idle time (waiting, active) or retention time (finished),
renewed by the writes (`GameStore.ttl_of`; a move only once per hundredth of that time, `GameStore.save`). Every
write re-scores the game in the indexes (`GameStore.lobby`) but a move that leaves an active game active (the bulk
of them: its entries were written when it became active).

Every Lua script (service/store_scripts.py) and MULTI touches the keys of one game only, so one hash slot
(`script_keys` lists them, tests check their slots). The indexes and the metrics are written by commands of their
own, never in the same script or transaction as a game's keys.

Flask-free: the RQ worker imports it too.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, cast

import redis
from redis.cluster import RedisCluster

from service.config import lifetimes
from service.lobby_index import LobbyIndexes
from service.records import SEEN, GameRecord, Status, game_key, stored_record
from service.redis_clients import STORE_ERRORS, is_cluster
from service.refusals import Refusal
from service.store_scripts import script_sources

log = logging.getLogger(__name__)


RENEW_FRACTION = 0.01
"""A move renews its game's lifetime when the last renewal is this fraction of it old (`GameStore.save`)."""


class KeyClaim(NamedTuple):
    """A request's `Idempotency-Key` claimed by the write that applies the request (`GameStore.save`).

    `name` is its Redis key (`GameStore.idempotency_key`), `text` what it holds until the first response is kept
    (service/idempotency.py), `seconds` how long the claim lasts if that never happens (a process that died).
    """

    name: str
    text: str
    seconds: int


class VersionConflict(Refusal):
    """The game's version moved on since it was read: someone else's write won (409 `version_conflict`).

    Raised with the game's id; its `message` is the same for every game.
    """

    status = 409
    error = "version_conflict"

    @property
    def message(self) -> str:
        """What the client does next."""
        return "the game changed meanwhile: read it again and retry"


class ClockRanOut(VersionConflict):
    """The mover's clock ran out before its write landed: the next version is its timeout's (service/clocks.py).

    A version check like any other (409 `version_conflict`): the timeout job scheduled at the deadline runs up to
    about a second late (RQ's scheduler keeps whole seconds), and a move in that second must not win the race.
    """

    @property
    def message(self) -> str:
        """Why the move was not applied, and what the client does next."""
        return "your clock ran out before this move: the timeout is applied instead; read the game again"


class GameNotFound(Refusal):
    """No game with that id (never created, or expired): 404 `game_not_found`, raised with the game's id."""

    status = 404
    error = "game_not_found"

    @property
    def message(self) -> str:
        """The id asked for."""
        return f"no game {self}"


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
        self._create = client.register_script(scripts["create"])
        self._compare_and_set = client.register_script(scripts["compare_and_set"])
        self._compare_and_delete = client.register_script(scripts["compare_and_delete"])
        self._touch_seen = client.register_script(scripts["touch_seen"])
        self.lobby = LobbyIndexes(client, prefix, self.ttl_of)
        """The lobby's indexes of the games under `prefix`."""

    def ttl_of(self, record: GameRecord) -> int:
        """Seconds the keys of `record` live after this write: the retention time once finished, else the idle time."""
        return self.retention_seconds if record.status == Status.FINISHED else self.idle_ttl_seconds

    def _key(self, game_id: str, part: str) -> str:
        return game_key(self.prefix, game_id, part)

    def channel(self, game_id: str) -> str:
        """The pub/sub channel on which each new version of the game is published."""
        return self._key(game_id, "version")

    def script_keys(self, game_id: str) -> dict[str, list[str]]:
        """The keys each Lua script of the store gets for `game_id`, by script name (all in the game's hash slot)."""
        keys = [self._key(game_id, part) for part in ("game", "events", "version")]
        return {"create": keys[:2], "compare_and_set": keys, "compare_and_delete": keys, "touch_seen": keys[:1]}

    def create(self, record: GameRecord, events: Sequence[dict[str, Any]] = ()) -> None:
        """Store a new game at `record.version`, setting its `written_at` to now.

        Raises:
            VersionConflict: a game with that id exists already.
        """
        record.written_at = record.renewed_at = time.time()
        key = self._key(record.game_id, "game")
        args: list[str | int] = [record.version, record.to_json(), self.ttl_of(record)]
        args += [json.dumps(event) for event in events]
        if not self._create(keys=self.script_keys(record.game_id)["create"], args=args):
            raise VersionConflict(record.game_id)
        try:
            self.lobby.index(record)
        except STORE_ERRORS:
            # e.g. memory ran out between the two writes: take the game back (deleting is allowed when Redis is
            # full) so that the error means "nothing was changed"
            with contextlib.suppress(*STORE_ERRORS):
                self.client.delete(key, self._key(record.game_id, "events"))
                self.lobby.forget(record.game_id)
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

    LOAD_BATCH = 200
    """Games read per round trip by `load_each`: a batch's hashes are a few hundred KB."""

    def load_each(self, game_ids: Sequence[str]) -> Iterator[tuple[str, Callable[[], GameRecord]]]:
        """Each of `game_ids` with a function returning its record as `load` would, `LOAD_BATCH` games a round trip.

        The games are read one pipelined batch at a time: the next batch once the caller has taken this one's. The
        function decodes only when called, and raises there what `load` raises (GameNotFound: no such game; KeyError,
        TypeError, ValueError: a record this version cannot read), so one bad record stops nothing else. The worker's
        sweep reads every active game this way (worker/sweeper.py): one HGETALL round trip each was most of its time.
        """
        for start in range(0, len(game_ids), self.LOAD_BATCH):
            batch = game_ids[start : start + self.LOAD_BATCH]
            started = time.monotonic()
            with self.client.pipeline(transaction=False) as pipe:
                for game_id in batch:
                    pipe.hgetall(self._key(game_id, "game"))
                hashes = pipe.execute()
            for game_id, game_hash in zip(batch, hashes, strict=True):
                yield game_id, functools.partial(self._found, game_id, game_hash, None, started)

    @staticmethod
    def _found(game_id: str, game_hash: dict[bytes, bytes], known: GameRecord | None, started: float) -> GameRecord:
        """The record of a game's hash read from monotonic time `started` on (`load`)."""
        record = stored_record(game_hash, known)
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
        seen: tuple[int, float] | None = None,
    ) -> None:
        """Write `record` (whose version must be `expected_version + 1`) and append `events`, atomically.

        `seen` is `(seat, Unix time)` of the player whose request this move is: its presence (`touch_seen`) is
        written in the same command as the record, and `record.last_seen` shows it.

        Sets `record.written_at` to now, and `record.read_at` as a read begun when the write was sent would.
        `deadline` (Unix seconds) is the mover's clock's at `expected_version`: compared with Redis's clock (`TIME`)
        in the same step, one clock for every web process, so a move is refused however late it is in that step.

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
        (`LobbyIndexes.prune`).

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
            f"{SEEN.decode()}{seen[0]}" if seen else "", repr(seen[1]) if seen else "",
            *[json.dumps(e) for e in events],
        ]
        started = time.monotonic()
        if self.wait_replicas:
            written = self._write_and_wait(keys, args)
        else:
            written = self._compare_and_set(keys=keys, args=args)
        if written == -1:
            raise ClockRanOut(record.game_id)
        if not written:
            raise VersionConflict(record.game_id)
        record.read_at = started  # Redis held it from then on, as after a read begun then (service/cache.py)
        if seen:
            record.last_seen = {**record.last_seen, seen[0]: seen[1]}
        if previous_status == record.status == Status.ACTIVE:
            return
        try:
            self.lobby.index(record)
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
        self.lobby.forget(game_id)

    def touch_seen(self, record: GameRecord, seat: int, now: float, every_seconds: float) -> bool:
        """Record that `seat` of `record`'s game made a request at `now` (Unix time); True when written.

        Not written when the seat's last one is less than `every_seconds` old, nor once the game is gone. Kept in
        the game's hash (`seen:<seat>`), it lives as long as the game; when written, `record.last_seen` shows it.
        """
        keys = self.script_keys(record.game_id)["touch_seen"]
        written = bool(self._touch_seen(keys=keys, args=[f"{SEEN.decode()}{seat}", repr(now), every_seconds]))
        if written:
            record.last_seen = {**record.last_seen, seat: now}
        return written

    def forget_seen(self, game_id: str, seat: int) -> None:
        """Drop `seat`'s presence (its player left the seat: whoever takes it next has not been seen)."""
        self.client.hdel(self._key(game_id, "game"), f"{SEEN.decode()}{seat}")

    def check_writable(self) -> None:
        """Write one short-lived key: raises redis.exceptions.OutOfMemoryError when Redis is full (`/readyz`)."""
        self.client.set(f"{self.prefix}:writable", 1, ex=60)

    def events(self, game_id: str) -> list[dict[str, Any]]:
        """All stored events of the game, oldest first."""
        return [json.loads(item) for item in self.client.lrange(self._key(game_id, "events"), 0, -1)]

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
