"""service/cache.py: the clients woken by one move share one read; other games never wait for it."""

from __future__ import annotations

import threading
import time

from service.cache import RecordCache
from service.store import GameStore
from tests.service.conftest import Api

HANG_GUARD_SECONDS = 30


def test_waiters_of_one_game_share_one_read_and_other_games_do_not_wait(api: Api, monkeypatch) -> None:
    first, _ = api.create_humans()
    second, _ = api.create_humans()
    store: GameStore = api.services.store
    cache = RecordCache(store)
    version = api.view(first).json["version"]
    reads: list[str] = []
    release = threading.Event()
    real_load = GameStore.load

    def slow_load(self, game_id, known=None):  # the read of `first` holds until released
        reads.append(game_id)
        if game_id == first:
            assert release.wait(HANG_GUARD_SECONDS)
        return real_load(self, game_id, known)

    monkeypatch.setattr(GameStore, "load", slow_load)
    results = []
    woken = [threading.Thread(target=lambda: results.append(cache.load(first, at_least=version))) for _ in range(20)]
    for thread in woken:
        thread.start()
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not reads and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cache.load(second).game_id == second  # another game is read while the first one's read is held
    release.set()
    for thread in woken:
        thread.join(HANG_GUARD_SECONDS)
    assert reads == [first, second]  # one read of the first game for its 20 waiters
    assert len(results) == 20 and all(record is results[0] and record.version == version for record in results)
