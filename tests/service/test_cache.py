"""service/cache.py: the clients woken by one move share one read; other games never wait for it."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from service.app import create_app
from service.cache import RecordCache
from service.records import GameRecord
from service.store import GameStore, VersionConflict
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


def test_a_lobby_page_asked_again_decodes_only_the_games_that_moved(api: Api, monkeypatch) -> None:
    """The lobby reuses the records this process holds: a page read twice decodes nothing the second time, a game
    this process moved is listed at its new version without a decode (the move's record is kept), and a game
    another process moved meanwhile is decoded again and listed at its new version."""
    game_ids = [api.create_humans()[0] for _ in range(3)]
    moved, tokens = api.create_humans()
    decoded: list[str] = []
    from_json = GameRecord.from_json

    def counting(text):  # type: ignore[no-untyped-def]
        record = from_json(text)
        decoded.append(record.game_id)
        return record

    monkeypatch.setattr(GameRecord, "from_json", staticmethod(counting))
    first = api.request("GET", "/v1/games?status=active").json["games"]
    assert sorted(game["game_id"] for game in first) == sorted([*game_ids, moved])
    decoded.clear()
    assert api.request("GET", "/v1/games?status=active").json["games"] == first
    assert decoded == []
    other = Api(create_app({name: api.app.config[name] for name in ("REDIS_URL", "KEY_PREFIX", "RQ_QUEUE", "TESTING")}),
                api.connection)  # another web process of the same games
    try:
        for mover, expected in ((api, []), (other, [moved])):
            seat = mover.view(moved, tokens[0]).json["to_act"][0]
            view = mover.view(moved, tokens[seat]).json
            assert mover.act(moved, tokens[seat], view["legal_actions"][0]).status_code == 200
            decoded.clear()
            listed = {game["game_id"]: game["version"]
                      for game in api.request("GET", "/v1/games?status=active").json["games"]}
            assert decoded == expected and listed[moved] == view["version"] + 1
    finally:
        other.services.store.client.close()



def test_a_kept_record_is_not_returned_once_redis_holds_another_record_of_its_version(api: Api) -> None:
    """A process keeps a record it stored (worker/jobs.py `play_ai_turn`); a failover loses that write and another
    write takes its version with a different record. The cache then returns the stored record, not the kept one."""
    game_id, _ = api.create_humans()
    store: GameStore = api.services.store
    cache = RecordCache(store)
    record = store.load(game_id)
    kept = dataclasses.replace(record, version=record.version + 1, clock={"by": "the lost write"})
    kept.to_json()  # its text, as `GameStore.save` writes it
    cache.keep(kept)
    store.save(dataclasses.replace(record, version=record.version + 1, clock={"by": "the stored write"}),
               record.version, [])
    assert cache.load(game_id).clock == {"by": "the stored write"}


def test_creating_a_game_whose_id_exists_changes_nothing_of_it(api: Api) -> None:
    """A quick match's table has a chosen id (service/matchmaking.py): a second creator of it must not overwrite the
    first game's record nor add to its events (`GameStore.create` wrote both before refusing)."""
    game_id, _ = api.create_humans()
    store: GameStore = api.services.store
    record, events = store.load(game_id), store.events(game_id)
    again = dataclasses.replace(record, options={"by": "the second creator"})
    with pytest.raises(VersionConflict):
        store.create(again, [{"version": 1, "type": "created", "by": "the second creator"}])
    assert store.load(game_id).options == record.options
    assert store.events(game_id) == events
