"""A per-process cache of the latest record of each game, so the clients woken by one move share one read.

A record is immutable for its version: the cache never serves a stale version, it only saves decoding (and, with
views memoised on the record, `service/views.py`) what this process read already. Every read still asks Redis for
the game's current version and record in one round trip; the record's JSON is decoded only when its version is
new to this process. A read for at least a known version (a waiter woken by a published version) costs no round
trip when the cache holds it, and concurrent reads of the same game wait for one another instead of all reading.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict

from service.store import GameRecord, GameStore

LOCK_STRIPES = 64


class RecordCache:
    """The last `size` games read by this process, newest use last."""

    def __init__(self, store: GameStore, size: int = 4096) -> None:
        self.store = store
        self.size = size
        self._records: OrderedDict[str, GameRecord] = OrderedDict()
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    def load(self, game_id: str, at_least: int | None = None) -> GameRecord:
        """The game's current record (`at_least`: any record of at least that version, e.g. one just published).

        Raises:
            GameNotFound: no such game.
            redis.RedisError: Redis is unreachable.
        """
        cached = self._records.get(game_id)
        if at_least is not None and cached is not None and cached.version >= at_least:
            return cached
        with self._locks[zlib.crc32(game_id.encode()) % LOCK_STRIPES]:
            cached = self._records.get(game_id)
            if at_least is not None and cached is not None and cached.version >= at_least:
                return cached  # read by a concurrent request while this one waited for the lock
            record = self.store.load(game_id, cached)
            self._keep(record)
            return record

    def _keep(self, record: GameRecord) -> None:
        self._records[record.game_id] = record
        self._records.move_to_end(record.game_id)
        while len(self._records) > self.size:
            self._records.popitem(last=False)
