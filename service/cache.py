"""A per-process cache of the latest record of each game, so the clients woken by one move share one read.

A record is immutable for its version: the cache never serves a stale version, it only saves decoding (and, with
views memoised on the record, `service/views.py`) what this process read already. A plain read still asks Redis
for the game's current version and record in one round trip; the record's JSON is decoded only when its version
is new to this process. A read for at least a known version (a waiter woken by a published version) costs no round
trip when the cache holds it, and the waiters of one game woken together make one read between them: the others
wait for it, while reads of other games go on. Where a version a moment old cannot mislead, a caller may take the
copy this process's subscription to the game vouches for (`vouched_copy`): no round trip either.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from service.dispatcher import Dispatcher
from service.records import GameRecord
from service.store import GameStore

JOIN_SECONDS = 5.0
"""How long a reader waits for another's read of the same game before reading itself (a read takes milliseconds;
Redis's socket timeout bounds a failing one)."""


VOUCHED_SECONDS = 10.0
"""How long after it was last known current a copy may stand for a read (`vouched_copy`): its presence
(`last_seen`, written without a new version) is then at most this much older than a read's."""


class RecordCache:
    """The last `size` games read by this process, newest use last; `dispatcher` vouches for copies (`vouched_copy`)."""

    def __init__(self, store: GameStore, dispatcher: Dispatcher | None = None, size: int = 4096) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.size = size
        self._records: OrderedDict[str, GameRecord] = OrderedDict()
        self._lock = threading.Lock()
        self._reading: dict[str, threading.Event] = {}  # game id -> set when the read under way ends

    def load(self, game_id: str, at_least: int | None = None) -> GameRecord:
        """The game's current record (`at_least`: any record of at least that version, e.g. one just published).

        Raises:
            GameNotFound: no such game.
            redis.RedisError: Redis is unreachable.
        """
        if at_least is None:
            return self._read(game_id)
        while True:
            cached = self._records.get(game_id)
            if cached is not None and cached.version >= at_least:
                return cached
            with self._lock:
                under_way = self._reading.get(game_id)
                if under_way is None:
                    self._reading[game_id] = done = threading.Event()
            if under_way is None:
                break
            under_way.wait(JOIN_SECONDS)  # another waiter of this game is reading it: look at the cache again
        try:
            return self._read(game_id)
        finally:
            with self._lock:
                del self._reading[game_id]
            done.set()

    def vouched_copy(self, game_id: str, version: int | None = None) -> GameRecord | None:
        """The game's record this process holds, if it can stand for a read of the current one without a round trip.

        It can when it was known current (read or written, `GameRecord.read_at`) less than `VOUCHED_SECONDS` ago,
        it is at `version` if one is given, and the game's subscription vouches that no later version was
        published since (`Dispatcher.vouches_for`). A later write whose message is still on its way is the one
        thing it can miss, so callers take it where that cannot mislead: a long-poll at the version its client has
        (it then waits, and the message wakes it; a copy of a later version could be older than one the client was
        shown by another process), an action that is judged again on a real read if the copy refuses it or lost the
        race (service/routes/games.py). None: read the game (`load`).
        """
        copy = self._records.get(game_id)
        if copy is None or copy.read_at is None or self.dispatcher is None:
            return None
        if (version is not None and copy.version != version) or time.monotonic() - copy.read_at >= VOUCHED_SECONDS:
            return None
        return copy if self.dispatcher.vouches_for(game_id, copy.version, copy.read_at) else None

    def load_with_response(self, game_id: str, name: str) -> tuple[GameRecord, dict[str, Any] | None]:
        """The game's current record and what its `Idempotency-Key` `name` holds (`GameStore.load_with_response`).

        Raises:
            GameNotFound: no such game.
            redis.RedisError: Redis is unreachable.
        """
        record, remembered = self.store.load_with_response(game_id, name, self._records.get(game_id))
        with self._lock:
            self._keep(record)
        return record, remembered

    def listing(self, status: str, game: str | None, offset: int, limit: int) -> tuple[list[GameRecord], bool]:
        """`GameStore.lobby.listing`, reusing the records this process holds; the records read are kept.

        A lobby page asked for again decodes nothing and builds no view again (each record keeps its views).
        """
        records, more = self.store.lobby.listing(status, game, offset, limit, self._records.get)
        with self._lock:
            for record in records:
                self._keep(record)
        return records, more

    def keep(self, record: GameRecord) -> None:
        """Hold `record`, e.g. one this process has just stored: a read of its version then decodes nothing."""
        with self._lock:
            self._keep(record)

    def _read(self, game_id: str) -> GameRecord:
        record = self.store.load(game_id, self._records.get(game_id))
        with self._lock:
            self._keep(record)
        return record

    def _keep(self, record: GameRecord) -> None:
        # under self._lock; a newer record of the game already here (a concurrent read) is not replaced
        current = self._records.get(record.game_id)
        if current is None or current.version <= record.version:
            self._records[record.game_id] = record
        self._records.move_to_end(record.game_id)
        while len(self._records) > self.size:
            self._records.popitem(last=False)
