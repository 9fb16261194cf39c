"""The lobby's indexes: sorted sets of game ids by status (and game), each scored by the Unix time its keys expire.

- `<prefix>:index:<status>` the public games with `status`, for the lobby (`GET /v1/games`)
- `<prefix>:index:<status>:<game>` the same per game (the lobby's `game` filter, `cardroom_active_games`)
- `<prefix>:index:<status>:private`, `<prefix>:index:<status>:<game>:private` the same for private games, which the
  lobby never reads (the sweep and the metrics read both)
- `<prefix>:index:swept` the active games, public and private, in which the worker's sweep may find a turn to
  revive (`swept`): an AI seat, a clock, or rules that hand a seat to an AI during play

Scored by expiry, the indexes keep the most recently written (an active game: started) games first and the expired
ones last, below the current time: a lobby page stops there without reading them, and the worker's sweep drops
them (`LobbyIndexes.prune`), or scores them again from their keys' lifetime when they live on (a long active game).
The indexes span games, so they are written by commands of their own, after a game's write and never in its
script or transaction: on a Redis Cluster each index key lives in the slot its name hashes to.

Flask-free: the worker's sweep prunes them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from typing import cast

import redis

from engine import GAMES
from engine.protocol import capabilities
from service.records import STATUSES, GameRecord, Status, game_key, stored_record


def index_key(prefix: str, status: str, game: str | None = None, private: bool = False) -> str:
    """`<prefix>:index:<status>[:<game>][:private]`: the games with `status` (and of `game`), public or private."""
    key = f"{prefix}:index:{status}" if game is None else f"{prefix}:index:{status}:{game}"
    return key + ":private" if private else key


def swept(record: GameRecord) -> bool:
    """Whether the worker's sweep looks at `record`'s game while it is active (worker/sweeper.py).

    It revives AI turns whose job is gone and clocks' timeouts whose job is gone: a game with an AI seat or a clock
    may have one, and so may a game whose rules hand a seat to an AI during play (a resigned Talmut seat, talmut.md
    §3.17). A game of human seats without a clock has none: at 5,000 players those were all the sweep's reads.
    """
    return (record.clock is not None or any(seat.kind == "ai" for seat in record.seats)
            or capabilities(GAMES[record.game]).hands_seats_to_ai)


class LobbyIndexes:
    """The indexes of the games under one key prefix (`GameStore.lobby`); `client` a bytes redis-py client.

    `ttl_of(record)` is how many seconds the keys of `record` live after its write (`GameStore.ttl_of`): its score.
    """

    def __init__(self, client: redis.Redis, prefix: str, ttl_of: Callable[[GameRecord], int]) -> None:
        self.client = client
        self.prefix = prefix
        self.ttl_of = ttl_of

    def index_key(self, status: str, game: str | None = None, private: bool = False) -> str:
        """The sorted set of the public (or `private`) games with `status` (and of `game`), scored by expiry time."""
        return index_key(self.prefix, status, game, private)

    @property
    def swept_key(self) -> str:
        """The sorted set of the active games the sweep looks at (`swept`), scored by expiry time."""
        return f"{self.prefix}:index:swept"

    def _all(self) -> list[str]:
        return [
            self.index_key(status, game, private)
            for status in STATUSES
            for game in (None, *GAMES)
            for private in (False, True)
        ] + [self.swept_key]

    def index(self, record: GameRecord, stale: str | None = None) -> None:
        """Put `record`'s game in the indexes of its status, out of those of earlier statuses (and of `stale`).

        Raises:
            redis.RedisError: Redis did not answer; the game's own keys are as they were written.
        """
        # After the write, not inside it: the index keys live in another hash slot. A stale entry is harmless
        # because the lobby re-reads each record, and the sweep re-scores it from the game's own lifetime.
        expires = time.time() + self.ttl_of(record)
        private = record.visibility == "private"  # set at creation, never changed: one family of indexes
        # A status only moves on (waiting, active, finished): the game is in no index of a later status than its
        # own, but for an index write that outlived a lost write (a failover): `stale`, the index `listing` found it in
        earlier = {*STATUSES[: STATUSES.index(Status(record.status))], *([stale] if stale else [])} - {record.status}
        with self.client.pipeline(transaction=False) as pipe:
            for status in (*sorted(earlier), record.status):
                for index in (self.index_key(status, None, private), self.index_key(status, record.game, private)):
                    if status == record.status:
                        pipe.zadd(index, {record.game_id: expires})
                    else:
                        pipe.zrem(index, record.game_id)
            if self.swept_entry(record) is not None:
                pipe.zadd(self.swept_key, {record.game_id: expires})
            elif Status.ACTIVE in earlier:
                pipe.zrem(self.swept_key, record.game_id)
            pipe.execute()

    def swept_entry(self, record: GameRecord) -> float | None:
        """The score of `record`'s game in the sweep's index (its keys' expiry time), or None: it belongs not there.

        It belongs there while it is active and `swept`.
        """
        return time.time() + self.ttl_of(record) if record.status == Status.ACTIVE and swept(record) else None

    def correct_swept(self, add: Mapping[str, float], drop: Collection[str]) -> None:
        """Put the games of `add` (id -> score, `swept_entry`) in the sweep's index and take those of `drop` out.

        The sweep does this with what it read (worker/sweeper.py): a game whose index write was lost to an outage,
        or that started before the index existed, is looked at again, and one that ended while a sweep put it back,
        or whose write that took it out was lost, is left alone again.
        """
        with self.client.pipeline(transaction=False) as pipe:
            if add:
                pipe.zadd(self.swept_key, dict(add))
            if drop:
                pipe.zrem(self.swept_key, *drop)
            pipe.execute()

    def prune(self, batch: int = 500) -> int:
        """Drop expired games from every index, at most `batch` per index; returns how many entries were dropped.

        An entry past its score is checked against its game's remaining lifetime first: a game whose index write
        was lost (an outage right after the move) lives on, and is scored again from its own TTL.
        """
        now = time.time()
        dropped = 0
        for index in self._all():
            ids = cast(list[bytes], self.client.zrangebyscore(index, "-inf", now, start=0, num=batch))
            if not ids:
                continue
            with self.client.pipeline(transaction=False) as pipe:
                for game_id in ids:
                    pipe.pttl(game_key(self.prefix, game_id.decode(), "game"))
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

    def listing(
        self,
        status: str,
        game: str | None,
        offset: int,
        limit: int,
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
            entries = cast(
                list[tuple[bytes, float]], self.client.zrevrange(index, position, position + limit, withscores=True)
            )
            live = [game_id.decode() for game_id, expires in entries if expires > now]
            with self.client.pipeline(transaction=False) as pipe:
                for game_id in live:
                    pipe.hgetall(game_key(self.prefix, game_id, "game"))
                stored = pipe.execute()
            for game_id, game_hash in zip(live, stored, strict=True):
                record = stored_record(game_hash, known(game_id))
                if record is None:
                    self.forget(game_id)  # expired a moment ago
                elif record.status != status:
                    self.index(record, stale=status)
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
            for index in self._all():
                pipe.zrem(index, game_id)
            pipe.execute()

    def swept_game_ids(self) -> list[str]:
        """Ids of the active games the sweep looks at (`swept`), not expired by the index."""
        ids = cast(list[bytes], self.client.zrangebyscore(self.swept_key, time.time(), "+inf"))
        return [game_id.decode() for game_id in ids]

    def active_game_ids(self) -> list[str]:
        """Ids of the active games, public and private, not expired by the indexes (`load` tells if one just did)."""
        now = time.time()
        with self.client.pipeline(transaction=False) as pipe:
            for private in (False, True):
                pipe.zrangebyscore(self.index_key(Status.ACTIVE, None, private), now, "+inf")
            public, private_ids = pipe.execute()
        return list(dict.fromkeys(game_id.decode() for game_id in [*public, *private_ids]))
