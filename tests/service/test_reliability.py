"""Reliability and security properties of the service on the real Redis (issue 8).

Idempotency keys, the human-vs-AI race, revived AI turns, limits (body size, rate limits, long-poll cap,
paging, names), game lifetimes, tokens and request ids. Each test fails when its property breaks.
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import os
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from engine import GAMES
from service import turns
from service.app import create_app
from service.records import GameRecord
from service.redis_clients import redis_client
from service.store import GameNotFound
from service.turns import ai_job_id, pending_ai, play
from tests.service.conftest import Api, delete_test_keys
from worker.sweeper import sweep


@pytest.fixture
def make_api(redis_connection: redis.Redis) -> Iterator[Any]:
    """Apps with test settings (e.g. a low rate limit), each on its own key prefix, cleaned up afterwards."""
    prefixes: list[str] = []

    def make(**config: Any) -> Api:
        prefix = config.pop("KEY_PREFIX", None) or f"test-{uuid.uuid4().hex[:12]}"
        prefixes.append(prefix)
        app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix,
                          "TESTING": True, **config})
        return Api(app, redis_connection)

    yield make
    for prefix in set(prefixes):
        delete_test_keys(redis_connection, prefix)


def ai_game(api: Api) -> tuple[str, str, dict[str, Any]]:
    """A Durak game of a human (seat 0) and an `easy` AI, played until the AI is due; its job waits in the queue."""
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = api.view(game_id, token).json
    while 1 not in view["to_act"]:
        view = api.act(game_id, token, next(a for a in view["legal_actions"] if a["type"] != "resign")).json
    return game_id, token, view


# --- idempotency -------------------------------------------------------------------------------------------------

def test_a_repeated_idempotency_key_returns_the_first_response_and_applies_nothing(api: Api) -> None:
    game_id, tokens = api.create_humans()
    view = api.view(game_id, tokens[0]).json
    seat = view["to_act"][0]
    action = next(a for a in api.legal(game_id, tokens[seat]) if a["type"] != "resign")
    first = api.act(game_id, tokens[seat], action, **{"Idempotency-Key": "move-1"})
    assert first.status_code == 200
    again = api.act(game_id, tokens[seat], action, **{"Idempotency-Key": "move-1"})
    assert (again.status_code, again.json) == (200, first.json)
    assert api.view(game_id).json["version"] == view["version"] + 1
    other = api.act(game_id, tokens[seat], {"type": "resign"}, **{"Idempotency-Key": "move-1"})
    assert (other.status_code, other.json["error"]) == (422, "idempotency_key_reused")
    assert api.view(game_id).json["version"] == view["version"] + 1


def test_idempotency_keys_are_scoped_per_seat(api: Api) -> None:
    """shared/API.md: one seat's key never blocks another's (issue 15 §6: seat 0's move got 422 after seat 1's)."""
    game_id, tokens = api.create_humans()
    attacker = api.view(game_id).json["to_act"][0]
    defender = 1 - attacker
    attack = next(a for a in api.legal(game_id, tokens[attacker]) if a["type"] == "attack")
    assert api.act(game_id, tokens[attacker], attack, **{"Idempotency-Key": "move-1"}).status_code == 200
    version = api.view(game_id).json["version"]
    answer = next(a for a in api.legal(game_id, tokens[defender]) if a["type"] != "resign")
    second = api.act(game_id, tokens[defender], answer, **{"Idempotency-Key": "move-1"})
    assert second.status_code == 200, second.json
    assert (second.json["you"], second.json["version"]) == (defender, version + 1)
    # and each seat's repeat still replays its own first response
    again = api.act(game_id, tokens[defender], answer, **{"Idempotency-Key": "move-1"})
    assert (again.status_code, again.json["version"]) == (200, version + 1)


def test_idempotency_keys_expire_after_the_configured_time(make_api: Any) -> None:
    api = make_api(IDEMPOTENCY_TTL_SECONDS=1)
    game_id, tokens = api.create_humans()
    seat = api.view(game_id).json["to_act"][0]
    action = next(a for a in api.legal(game_id, tokens[seat]) if a["type"] != "resign")
    assert api.act(game_id, tokens[seat], action, **{"Idempotency-Key": "k"}).status_code == 200
    # one SCAN call for the whole keyspace: the 1 s TTL would run out while paging through a busy shared Redis
    keys = list(api.connection.scan_iter(match=f"{api.services.store.prefix}:*idem:*", count=1_000_000))
    assert len(keys) == 1 and 0 < api.connection.ttl(keys[0]) <= 1
    time.sleep(1.2)
    # the key is forgotten: the same key with another body is a new request, not idempotency_key_reused
    other = api.act(game_id, tokens[0], {"type": "resign"}, **{"Idempotency-Key": "k"})
    assert other.status_code == 200, other.json


def test_concurrent_repeats_of_an_idempotency_key_apply_once(api: Api) -> None:
    """A repeat that arrives while the first is being applied must not apply it again (the key is claimed first)."""
    game_id, tokens = api.create_humans()
    seat = api.view(game_id).json["to_act"][0]
    version = api.view(game_id).json["version"]
    barrier = threading.Barrier(8)
    results: list[tuple[int, str | None]] = []

    def post() -> None:
        client = api.app.test_client()
        barrier.wait()
        response = client.post(f"/v1/games/{game_id}/actions", json={"type": "resign"},
                               headers={"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": "same"})
        results.append((response.status_code, None if response.status_code == 200 else response.json["error"]))

    threads = [threading.Thread(target=post) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # each repeat gets the first response, or (while it is being applied) 409 version_conflict: never an answer
    # computed again against the changed game (here 409 game_finished)
    assert (200, None) in results and set(results) <= {(200, None), (409, "version_conflict")}, results
    assert api.view(game_id).json["version"] == version + 1


# --- races and AI turns ------------------------------------------------------------------------------------------

def test_a_record_with_fields_this_version_does_not_know_still_loads(api: Api) -> None:
    """Rolling deploys: web and worker processes of two versions share one Redis, so a record may hold a field that
    an older version wrote and this one dropped (`ai_failures`), or one a newer version added. Both are ignored."""
    game_id, tokens = api.create_humans()
    record = api.services.store.load(game_id)
    stored = json.loads(record.to_json())
    loaded = GameRecord.from_json(json.dumps({**stored, "ai_failures": {}, "from_a_later_version": [1]}))
    assert loaded == record and loaded.to_json() == record.to_json()
    assert "ai_failures" not in stored
    stored["seats"][1]["avatar"] = "cat.png"  # a seat field a later version might add
    loaded = GameRecord.from_json(json.dumps(stored))
    assert loaded == record


def spoil_record(store: Any, game_id: str) -> None:
    """Store a record of `game_id` this version cannot read: its seats list is no list."""
    key = store._key(game_id, "game")
    store.client.hset(key, "record", json.dumps({**json.loads(store.client.hget(key, "record")), "seats": 7}))


def test_the_sweep_goes_past_a_record_it_cannot_read(make_api: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """worker/sweeper.py: one unreadable record (here a seats list that is no list) is logged and skipped; the
    sweep still revives the other games' lost AI turns instead of raising out of the worker's maintenance."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")  # the sweep's, read like the worker's from the environment
    api = make_api(AI_JOB_STALE_SECONDS=1)
    broken, _ = api.create_humans()
    spoil_record(api.services.store, broken)
    game_id, _, view = ai_game(api)
    queue = api.services.queues[0]
    Job.fetch(ai_job_id(game_id, view["version"], 1), queue.connection, queue.serializer).delete()
    time.sleep(1.1)  # a missing job is lost once its version is AI_JOB_STALE_SECONDS old
    assert sweep(api.services.store, queue, interval=1.0) == [(game_id, 1)]
    assert broken in api.services.store.lobby.active_game_ids()  # unreadable is not expired: it stays listed


def pipelined_batches(store: Any, monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """The sizes of the pipelines of game reads (HGETALLs only) `store`'s client executes from now on, in order."""
    sizes: list[int] = []
    with store.client.pipeline(transaction=False) as pipe:
        kind = type(pipe)
    real = kind.execute

    def execute(pipe, *args, **kwargs):  # type: ignore[no-untyped-def]
        if pipe.command_stack and all(args[0] == "HGETALL" for args, _ in pipe.command_stack):
            sizes.append(len(pipe.command_stack))
        return real(pipe, *args, **kwargs)

    monkeypatch.setattr(kind, "execute", execute)
    return sizes


def test_load_each_reads_the_games_in_pipelined_batches_one_batch_at_a_time(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`GameStore.load_each`: every game's record as `load` reads it, `LOAD_BATCH` HGETALLs to a round trip, the
    next batch read only once the caller took this one's; a missing game raises GameNotFound when loaded."""
    store = api.services.store
    monkeypatch.setattr(type(store), "LOAD_BATCH", 2)
    ids = [api.create_humans()[0] for _ in range(5)]
    sizes = pipelined_batches(store, monkeypatch)
    each = store.load_each([*ids, "no-such-game"])
    first = [next(each), next(each)]
    assert sizes == [2]  # the second batch not read yet
    rest = list(each)
    assert sizes == [2, 2, 2]
    assert [game_id for game_id, _ in first + rest] == [*ids, "no-such-game"]
    assert all(load().text == store.load(game_id).text for game_id, load in (first + rest)[:5])
    with pytest.raises(GameNotFound):
        rest[-1][1]()


def test_the_sweep_reads_the_games_in_batches_past_an_expired_and_an_unreadable_one(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """worker/sweeper.py: the active games are read `LOAD_BATCH` to a round trip, never one by one, also past an
    unreadable record in the middle batch; a game gone from Redis leaves the lobby's index, the unreadable one stays,
    and the AI turn of a game in the last batch is still revived."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")
    store, queue = api.services.store, api.services.queues[0]
    monkeypatch.setattr(type(store), "LOAD_BATCH", 2)
    gone, _ = api.create_humans()
    api.create_humans()
    broken, _ = api.create_humans()
    api.create_humans()
    game_id, _, view = ai_game(api)
    Job.fetch(ai_job_id(game_id, view["version"], 1), queue.connection, queue.serializer).delete()
    store.client.delete(store._key(gone, "game"))
    spoil_record(store, broken)
    active = store.lobby.active_game_ids()
    assert len(active) == 5 and active.index(broken) in (2, 3)  # in the middle batch
    sizes = pipelined_batches(store, monkeypatch)
    time.sleep(1.1)  # a missing job is lost once its version is AI_JOB_STALE_SECONDS old
    assert sweep(store, queue, interval=1.0) == [(game_id, 1)]
    assert sizes == [2, 2, 1]  # the games' reads: 5 in 3 round trips
    assert gone not in store.lobby.active_game_ids() and broken in store.lobby.active_game_ids()


def swept_games(api: Api) -> dict[str, tuple[str, str]]:
    """One active game of each kind by what the sweep may find in it: name -> (game id, seat 0's token)."""
    humans, tokens = api.create_humans()
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}],
                         options={"clock": {"turn_seconds": 600}}).json
    assert api.request("POST", f"/v1/games/{created['game_id']}/seats", json={"name": "Bob"}).status_code == 201
    with_ai = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5).json
    talmut, talmut_tokens = api.create_humans(game="talmut", seats=3)  # a resigned seat goes to the AI (§3.17)
    return {"humans": (humans, tokens[0]), "clocked": (created["game_id"], created["player_token"]),
            "with_ai": (with_ai["game_id"], with_ai["player_token"]), "talmut": (talmut, talmut_tokens[0])}


def test_between_full_sweeps_the_sweep_reads_only_games_it_may_revive_a_turn_in(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """worker/sweeper.py: a game of human seats without a clock has no AI turn or timeout to revive. The sweep reads
    it once per FULL_SWEEP_SECONDS, with every active game, and not in the sweeps between; a game with a clock, an
    AI seat, or rules that hand seats to an AI is read every time; a finished game leaves the sweep's index."""
    store, queue = api.services.store, api.services.queues[0]
    games = {name: game_id for name, (game_id, _) in swept_games(api).items()}
    assert set(store.lobby.active_game_ids()) == set(games.values())
    assert set(store.lobby.swept_game_ids()) == {games["clocked"], games["with_ai"], games["talmut"]}
    sizes = pipelined_batches(store, monkeypatch)
    sweep(store, queue, interval=0.2)  # the first sweep of this key prefix: a full one
    assert sizes == [4]
    time.sleep(0.25)  # the interval's lock expired; the full sweep's holds for FULL_SWEEP_SECONDS
    sweep(store, queue, interval=0.2)
    assert sizes == [4, 3]
    game_id, token = swept_games(api)["clocked"]
    assert api.act(game_id, token, {"type": "resign"}).status_code == 200
    assert game_id not in store.lobby.swept_game_ids()


def test_a_game_put_back_in_the_sweeps_index_after_it_ended_is_dropped_by_the_next_sweep(api: Api) -> None:
    """A full sweep adds what it read while active; a game that ended meanwhile (its own index write took it out
    first), or whose write taking it out was lost, is in the index again: the next sweep reads it and drops it."""
    store, queue = api.services.store, api.services.queues[0]
    sweep(store, queue, interval=0.2)  # the full sweep first
    game_id, token = swept_games(api)["clocked"]
    assert api.act(game_id, token, {"type": "resign"}).status_code == 200
    store.client.zadd(store.lobby.swept_key, {game_id: time.time() + 3600})
    time.sleep(0.25)
    sweep(store, queue, interval=0.2)
    assert game_id not in store.lobby.swept_game_ids()


def test_a_full_sweep_is_not_begun_again_within_the_minute_however_it_ended(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A full sweep marks itself when it begins: one still running when the next interval comes (more games than an
    interval reads), or cut short by Redis, is not begun again at every interval; the next sweeps read the index."""
    store, queue = api.services.store, api.services.queues[0]
    swept_games(api)
    failing = iter([redis.ConnectionError("lost")])

    def revive_or_fail(*args: Any) -> None:
        error = next(failing, None)
        if error is not None:
            raise error

    monkeypatch.setattr("worker.sweeper.revive_timeouts", revive_or_fail)
    sizes = pipelined_batches(store, monkeypatch)
    with pytest.raises(redis.ConnectionError):
        sweep(store, queue, interval=0.2)
    time.sleep(0.25)
    sweep(store, queue, interval=0.2)
    assert sizes == [4, 3]  # the full sweep, cut short; then the index only


def test_a_full_sweep_indexes_again_an_ai_game_whose_index_write_was_lost(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An AI game missing from the sweep's index (its write lost to an outage, or it started before the index
    existed) is not looked at between full sweeps; the next full sweep revives its lost turn and indexes it."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")
    store, queue = api.services.store, api.services.queues[0]
    sweep(store, queue, interval=0.2)  # a full sweep first: the next ones look at the index only
    game_id, _, view = ai_game(api)
    Job.fetch(ai_job_id(game_id, view["version"], 1), queue.connection, queue.serializer).delete()
    store.client.zrem(store.lobby.swept_key, game_id)
    time.sleep(1.1)  # a missing job is lost once its version is AI_JOB_STALE_SECONDS old
    assert sweep(store, queue, interval=0.2) == []
    store.client.delete(f"{store.prefix}:sweep-lock:full:0")  # FULL_SWEEP_SECONDS passed
    time.sleep(0.25)
    assert sweep(store, queue, interval=0.2) == [(game_id, 1)]
    assert game_id in store.lobby.swept_game_ids()


def test_a_human_move_racing_an_ai_move_on_the_same_version_one_wins(api: Api) -> None:
    """The AI's move (worker path, `turns.play`) and the human's resign, both at version v: exactly one applies."""
    for _ in range(6):
        race_once(api)


def race_once(api: Api) -> None:
    game_id, token, view = ai_game(api)
    store = api.services.store
    record = store.load(game_id)
    game = GAMES["durak"]
    ai_move = next(a for a in game.legal_actions(game.load_state(record.state), 1) if a["type"] != "resign")
    barrier = threading.Barrier(2)
    outcome: dict[str, Any] = {}

    def ai() -> None:
        barrier.wait()
        try:
            play(store, api.services.queues, record, 1, ai_move)
            outcome["ai"] = "won"
        except Exception as error:  # noqa: BLE001 - the loser's error is the point
            outcome["ai"] = type(error).__name__

    def human() -> None:
        client = api.app.test_client()
        barrier.wait()
        outcome["human"] = client.post(
            f"/v1/games/{game_id}/actions", json={"type": "resign"},
            headers={"Authorization": f"Bearer {token}", "If-Match": f'"{view["version"]}"'},
        ).status_code

    threads = [threading.Thread(target=ai), threading.Thread(target=human)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [outcome["ai"] == "won", outcome["human"] == 200]
    assert winners.count(True) == 1, outcome
    assert outcome["ai"] in ("won", "VersionConflict") and outcome["human"] in (200, 409, 412), outcome
    assert store.version(game_id) == view["version"] + 1
    written = [event["type"] for event in store.events(game_id) if event["version"] == view["version"] + 1]
    assert ("resigned" in written) == (outcome["human"] == 200), written  # the winner's events only


def test_a_lost_ai_job_is_enqueued_again_when_the_game_is_viewed(make_api: Any) -> None:
    """An AI turn whose job vanished (never enqueued, or deleted) is pending while its version is younger than
    AI_JOB_STALE_SECONDS (its writer may be about to enqueue it), then revived by the next view and played once."""
    api = make_api(AI_JOB_STALE_SECONDS=1)
    game_id, token, view = ai_game(api)
    queue = api.services.queues[0]
    job_id = ai_job_id(game_id, view["version"], 1)
    Job.fetch(job_id, queue.connection, queue.serializer).delete()
    assert api.view(game_id, token).json["pending_ai"] == [1]
    assert job_id not in queue.job_ids, "revived before its writer could have enqueued it"
    time.sleep(1.1)
    assert pending_ai(api.services.queues, api.services.store.load(game_id), 1) == []
    assert api.view(game_id, token).json["pending_ai"] == [1]  # the view enqueued it again
    Job.fetch(job_id, queue.connection, queue.serializer)
    api.run_ai()
    assert api.services.store.version(game_id) > view["version"]


@pytest.mark.parametrize("looker", ["views", "sweep"])
def test_a_version_read_between_its_write_and_its_enqueue_is_not_revived(  # type: ignore[no-untyped-def]
    api: Api, monkeypatch, caplog, looker: str
) -> None:
    """`turns.play` stores the move, then enqueues the next AI turn (`wake_ai`). Views (many, as heavy pollers
    send) or a sweep that read the new version in between find its job missing: that is no lost turn. None of
    them revives it (no warning, no revive counted) and the views list the seat as pending; the turn is then
    enqueued once, by its writer, and played."""
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5).json
    game_id, token = created["game_id"], created["player_token"]
    api.run_ai()  # the AI leads: the game waits for the human now
    store, queue = api.services.store, api.services.queues[0]
    wake_ai = turns.wake_ai
    in_window: list[int] = []

    def look_then_wake(store_: Any, queue_: Any, record: GameRecord) -> None:
        if not in_window and turns.ai_seats_to_act(record) == [1]:
            in_window.append(record.version)
            if looker == "views":
                assert [api.view(game_id).json["pending_ai"] for _ in range(10)] == [[1]] * 10
            else:
                assert sweep(store, queue, interval=1.0) == []
        wake_ai(store_, queue_, record)

    monkeypatch.setattr(turns, "wake_ai", look_then_wake)
    caplog.set_level(logging.WARNING, logger="service.turns")
    view = api.view(game_id, token).json
    while 1 not in view["to_act"]:
        view = api.act(game_id, token, next(a for a in view["legal_actions"] if a["type"] != "resign")).json
    assert in_window == [view["version"]] and view["version"] > 2
    assert api.connection.get(store.revive_key(game_id, view["version"], 1)) is None, "a revive was counted"
    assert [r.getMessage() for r in caplog.records if "enqueued again" in r.getMessage()] == []
    assert queue.job_ids == [ai_job_id(game_id, view["version"], 1)]
    api.run_ai()
    assert store.version(game_id) > view["version"]


def test_many_views_of_a_lost_ai_turn_at_once_revive_it_once(make_api: Any) -> None:
    """Heavy polling: views that find the same lost job at the same moment enqueue it again once (the revive's
    Redis lock) and count one revive."""
    api = make_api(AI_JOB_STALE_SECONDS=1)
    game_id, token, view = ai_game(api)
    queue = api.services.queues[0]
    job_id = ai_job_id(game_id, view["version"], 1)
    Job.fetch(job_id, queue.connection, queue.serializer).delete()
    time.sleep(1.1)
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def look() -> None:
        client = api.app.test_client()
        barrier.wait()
        statuses.append(client.get(f"/v1/games/{game_id}").status_code)

    threads = [threading.Thread(target=look) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert int(api.connection.get(api.services.store.revive_key(game_id, view["version"], 1))) == 1
    assert queue.job_ids == [job_id]
    assert statuses == [200] * 8


def test_a_job_taken_by_a_worker_that_died_before_starting_it_is_revived(make_api: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A worker that dies between taking a job and starting it (SIGKILL, or Redis gone right after the dequeue)
    leaves it `queued` in RQ's intermediate list, in no queue: once AI_JOB_STALE_SECONDS old it is no longer
    pending, the sweep enqueues it again, and the turn is played once."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")  # the sweep's, read like the worker's from the environment
    api = make_api(AI_JOB_STALE_SECONDS=1)
    game_id, token, view = ai_game(api)
    queue, store = api.services.queues[0], api.services.store
    job_id = ai_job_id(game_id, view["version"], 1)
    # what RQ's dequeue does (BLMOVE into the intermediate list); then the worker dies
    assert api.connection.lmove(queue.key, queue.intermediate_queue_key) == job_id.encode()
    assert Job.fetch(job_id, queue.connection, queue.serializer).get_status() == "queued"
    record = store.load(game_id)
    assert pending_ai(api.services.queues, record, 1) == [1]  # just taken: a live worker may be about to start it
    time.sleep(1.1)
    assert pending_ai(api.services.queues, record, 1) == [], "a job nobody will run counts as pending"
    assert sweep(store, queue, interval=1.0) == [(game_id, 1)]
    assert job_id.encode() not in api.connection.lrange(queue.intermediate_queue_key, 0, -1)
    api.run_ai()
    assert store.version(game_id) > view["version"]
    versions = [event["version"] for event in store.events(game_id)]
    assert versions == sorted(versions) and set(versions) == set(range(1, versions[-1] + 1))


def test_a_scheduled_job_nobody_moved_to_the_queue_is_revived(make_api: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Talmut AI draw scheduled after the match pause (talmut.md §3.18) waits for RQ's scheduler; if the worker
    holding the scheduler's lock died, no scheduler may run for minutes. A job AI_JOB_STALE_SECONDS past its due
    time is not pending any more, and the sweep enqueues it now."""
    monkeypatch.setenv("AI_JOB_STALE_SECONDS", "1")
    api = make_api(AI_JOB_STALE_SECONDS=1)
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "random"}]
    created = api.create(seats, game="talmut", seed=3, options={"match_pause_ms": 200})
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = created.json
    # play until seat 2's draw waits for the human, who may match seat 1's discard (after the human's own discard
    # only AI seats may match, so seat 1 does not wait)
    while (view["state"]["turn"], view["state"]["phase"]) != (2, "draw"):
        move = next(a for a in view["legal_actions"] if a["type"] not in ("resign", "match", "call"))
        view = api.act(game_id, token, move).json
        api.run_ai(with_scheduler=False)
        view = api.view(game_id, token).json
    queue, store = api.services.queues[0], api.services.store
    scheduled = ScheduledJobRegistry(queue=queue)
    job_id = ai_job_id(game_id, view["version"], 2)
    assert scheduled.get_job_ids() == [job_id]
    record = store.load(game_id)
    due = scheduled.get_scheduled_time(job_id).timestamp()
    assert pending_ai(api.services.queues, record, 1) == [2]
    time.sleep(max(0.0, due + 1.1 - time.time()))  # and no scheduler runs
    assert pending_ai(api.services.queues, record, 1) == [], "a job no scheduler moves counts as pending"
    assert sweep(store, queue, interval=1.0) == [(game_id, 2)]
    api.run_ai(with_scheduler=False)
    assert store.version(game_id) > view["version"]


def test_a_redis_failure_after_the_write_still_answers_the_stored_move(make_api: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The move is stored, then enqueueing the AI fails: 200 with the new version (not a 503 "nothing was
    changed"), and the AI turn is revived later."""
    api = make_api(AI_JOB_STALE_SECONDS=1)
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], seed=5)
    game_id, token = created.json["game_id"], created.json["player_token"]
    view = api.view(game_id, token).json
    if 1 in view["to_act"]:
        api.run_ai()
        view = api.view(game_id, token).json

    def broken(*args: Any, **kwargs: Any) -> None:
        raise redis.ConnectionError("Redis went away")

    monkeypatch.setattr(api.services.queues[0], "enqueue", broken)
    while True:
        move = next(a for a in view["legal_actions"] if a["type"] != "resign")
        played = api.act(game_id, token, move)
        assert played.status_code == 200, played.json
        assert played.json["version"] == view["version"] + 1
        view = played.json
        if 1 in view["to_act"]:
            break
    monkeypatch.undo()
    time.sleep(1.1)  # the version is AI_JOB_STALE_SECONDS old: its job is lost, not about to be enqueued
    assert api.view(game_id, token).json["pending_ai"] == [1]
    api.run_ai()
    assert api.services.store.version(game_id) > view["version"]


# --- limits ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/v1/games", "/v1/games/{game_id}/seats", "/v1/games/{game_id}/actions"])
def test_a_body_over_the_size_limit_is_413(api: Api, path: str) -> None:
    created = api.create([{"kind": "human"}, {"kind": "human"}]).json
    body = {"type": "attack", "name": "x" * (api.app.config["MAX_CONTENT_LENGTH"] + 1)}
    response = api.request("POST", path.format(game_id=created["game_id"]), created["player_token"], json=body)
    assert (response.status_code, response.json["error"]) == (413, "payload_too_large")


def test_rate_limit_per_address_is_429_with_retry_after_and_counted_in_redis(make_api: Any) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    first, second = (make_api(KEY_PREFIX=prefix, RATE_LIMIT_PER_ADDRESS="5/minute") for _ in range(2))
    statuses = [api.client.get("/v1/games").status_code for api in (first, second, first, second, first)]
    assert statuses == [200] * 5  # two apps (two processes) share one count in Redis...
    for api in (first, second):  # (each adds its counts every 50 ms: here at once)
        api.app.extensions["ratelimit"].sync()
    limited = second.client.get("/v1/rules")
    assert (limited.status_code, limited.json["error"]) == (429, "rate_limited")  # ...so the sixth is over
    assert 1 <= int(limited.headers["Retry-After"]) <= 61
    assert first.client.get("/healthz").status_code == 200  # probes are never limited
    for api in (first, second):
        api.app.extensions["ratelimit"].sync()
    keys = list(first.connection.scan_iter(match=f"{prefix}:ratelimit:*"))
    assert [int(first.connection.get(key)) for key in keys] == [6]  # the refused request counts too


def test_rate_limit_per_token_counts_each_token_apart(make_api: Any) -> None:
    api = make_api(RATE_LIMIT_PER_TOKEN="3/minute")
    game_id, tokens = api.create_humans()
    assert [api.view(game_id, tokens[0]).status_code for _ in range(3)] == [200] * 3
    limited = api.view(game_id, tokens[0])
    assert (limited.status_code, limited.json["error"]) == (429, "rate_limited") and limited.headers["Retry-After"]
    assert api.view(game_id, tokens[1]).status_code == 200  # another token has its own count
    assert api.view(game_id).status_code == 200  # and a spectator is limited by address only
    api.app.extensions["ratelimit"].sync()
    keys = list(api.connection.scan_iter(match=f"{api.services.store.prefix}:ratelimit:token:*"))
    assert len(keys) == 2 and not any(tokens[0].encode() in key for key in keys)


def test_long_poll_wait_is_capped(make_api: Any) -> None:
    api = make_api(LONG_POLL_MAX_SECONDS=0.3)
    game_id, tokens = api.create_humans()
    version = api.view(game_id).json["version"]
    started = time.monotonic()
    response = api.request("GET", f"/v1/games/{game_id}?after_version={version}&wait=30")
    assert response.status_code == 304 and time.monotonic() - started < 2
    over = api.request("GET", f"/v1/games/{game_id}?after_version={version}&wait=31")
    assert (over.status_code, over.json["error"]) == (422, "invalid_request")


def test_the_lobby_pages_with_a_maximum_page_size(api: Api) -> None:
    ids = {api.create([{"kind": "human"}, {"kind": "human"}]).json["game_id"] for _ in range(5)}
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = api.request("GET", f"/v1/games?limit=2&offset={offset}").json
        assert len(page["games"]) <= 2
        seen += [game["game_id"] for game in page["games"]]
        offset = page["next_offset"]
    assert sorted(seen) == sorted(ids)
    assert api.request("GET", "/v1/games?limit=100").status_code == 200
    too_many = api.request("GET", "/v1/games?limit=101")
    assert (too_many.status_code, too_many.json["error"]) == (422, "invalid_request")


NAME_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)


@pytest.fixture(scope="module")
def names_api() -> Iterator[Api]:
    """One app for every example of the names property (no function-scoped fixture under @given, STYLE.md §5)."""
    prefix = f"test-names-{uuid.uuid4().hex[:8]}"
    connection = redis_client(os.environ["REDIS_URL"])
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True})
    yield Api(app, connection)
    delete_test_keys(connection, prefix)
    app.extensions["cardroom"].store.client.close()


@NAME_SETTINGS
@given(name=st.one_of(
    st.text(max_size=45),
    st.text(alphabet=st.characters(codec=None, categories=["Cs", "Cc", "Cf", "So", "Zs"]), min_size=1, max_size=5),
    st.sampled_from(["\ud800", "a\x00b", " ", "\u202e", "👩‍👩‍👧 Zoë", "x" * 41, "x" * 40, "\U0010ffff"]),
))
def test_any_name_is_accepted_as_sent_or_rejected_with_422(names_api: Api, name: str) -> None:
    api = names_api
    created = api.create([{"kind": "human", "name": name}, {"kind": "human"}])
    assert created.status_code in (201, 422), created.get_data(as_text=True)
    joined = api.request("POST", "/v1/games", json={"game": "durak", "seats": [{"kind": "human"}, {"kind": "human"}]})
    game_id = joined.json["game_id"]
    seat = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": name})
    assert seat.status_code == created.status_code, (created.json, seat.json)
    if seat.status_code == 201:  # kept exactly as sent, and printable: valid UTF-8 for every client
        assert 1 <= len(name) <= 40 and name.strip()
        assert not any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in name), ascii(name)
        name.encode("utf-8")
        assert seat.json["seats"][1]["name"] == name == api.view(game_id).json["seats"][1]["name"]
        assert created.json["seats"][0]["name"] == name
    else:
        assert seat.json["error"] == "invalid_request"
        assert len(name) > 40 or not name.strip() or any(
            0xD800 <= ord(c) <= 0xDFFF or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or unicodedata.category(c) == "Cf"
            for c in name
        ), name


# --- lifetime ----------------------------------------------------------------------------------------------------

def test_every_game_key_has_a_lifetime_renewed_by_writes(make_api: Any) -> None:
    api = make_api(GAME_IDLE_TTL_SECONDS=1000, GAME_RETENTION_SECONDS=100)
    game_id, tokens = api.create_humans()
    prefix = api.services.store.prefix

    def ttls() -> dict[bytes, int]:
        return {key: api.connection.ttl(key) for key in api.connection.scan_iter(match=f"{prefix}:{{{game_id}}}:*")}

    assert ttls() and all(900 < ttl <= 1000 for ttl in ttls().values()), ttls()
    api.act(game_id, tokens[0], {"type": "resign"})
    assert ttls() and all(0 < ttl <= 100 for key, ttl in ttls().items() if b":idem:" not in key), ttls()


def test_an_expired_game_is_404_and_leaves_the_lobby(make_api: Any) -> None:
    api = make_api(GAME_IDLE_TTL_SECONDS=1)
    old = api.create([{"kind": "human"}, {"kind": "human"}]).json["game_id"]
    time.sleep(1.3)
    live = {api.create([{"kind": "human"}, {"kind": "human"}]).json["game_id"] for _ in range(3)}
    gone = api.view(old)
    assert (gone.status_code, gone.json["error"]) == (404, "game_not_found")
    listed = [game["game_id"] for game in api.request("GET", "/v1/games?limit=3").json["games"]]
    assert sorted(listed) == sorted(live)
    assert api.services.store.lobby.prune() == 2  # the worker's sweep: the lobby's index and durak's
    assert api.connection.zscore(f"{api.services.store.prefix}:index:waiting", old) is None


def test_a_game_indexed_under_a_later_status_than_its_own_leaves_that_index(api: Api) -> None:
    """A write moves a game only out of the indexes of earlier statuses; an entry under a later one (an index write
    that outlived a lost game write, a failover) is dropped by the first page that finds it."""
    store = api.services.store
    game_id, tokens = api.create_humans()
    indexes = [store.lobby.index_key(status, game) for status in ("waiting", "active", "finished")
               for game in (None, "durak")]

    def indexed() -> list[bool]:
        return [api.connection.zscore(index, game_id) is not None for index in indexes]

    assert indexed() == [False, False, True, True, False, False]
    api.connection.zadd(store.lobby.index_key("finished"), {game_id: time.time() + 60})
    finished = api.request("GET", "/v1/games?status=finished").json
    assert finished == {"games": [], "next_offset": None}
    assert indexed() == [False, False, True, True, False, False]
    api.act(game_id, tokens[0], {"type": "resign"})
    assert indexed() == [False, False, False, False, True, True]


def test_the_lobby_lists_every_live_game_after_expired_ones(make_api: Any) -> None:
    """Paging goes past games that expired (and games whose index entry is stale) without skipping a live one."""
    api = make_api(GAME_IDLE_TTL_SECONDS=1)
    store = api.services.store
    doomed = [api.create([{"kind": "human"}, {"kind": "human"}]).json["game_id"] for _ in range(3)]
    for game_id in doomed:
        api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"})
    store.idle_ttl_seconds = 60
    live = [api.create([{"kind": "human"}, {"kind": "human"}]).json["game_id"] for _ in range(3)]
    for game_id in live:
        api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"})
    # the index entry of one live game says it expired (its index write lost): the sweep scores it again
    api.connection.zadd(store.lobby.index_key("active"), {live[1]: time.time() - 1})
    time.sleep(1.3)
    store.lobby.prune()
    pages = []
    offset: int | None = 0
    while offset is not None:
        page = api.request("GET", f"/v1/games?status=active&limit=1&offset={offset}").json
        pages += [game["game_id"] for game in page["games"]]
        offset = page["next_offset"]
    assert sorted(pages) == sorted(live) and not set(doomed) & set(pages)


# --- tokens and request ids --------------------------------------------------------------------------------------

def test_tokens_are_random_128_bit_or_more_and_stored_only_as_a_hash(api: Api) -> None:
    game_id, tokens = api.create_humans()
    more = [api.create([{"kind": "human"}, {"kind": "human"}]).json["player_token"] for _ in range(20)]
    for token in tokens + more:
        assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) >= 16
    assert len(set(tokens + more)) == len(tokens + more)
    stored = b"".join(api.connection.dump(key) or b"" for key in api.connection.scan_iter(
        match=f"{api.services.store.prefix}:*"))
    assert all(token.encode() not in stored for token in tokens)
    import hashlib

    assert hashlib.sha256(tokens[0].encode()).hexdigest().encode() in api.connection.hget(
        f"{api.services.store.prefix}:{{{game_id}}}:game", "record")


def test_tokens_are_compared_in_constant_time(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    game_id, tokens = api.create_humans()
    calls.clear()
    assert api.view(game_id, tokens[1]).json["you"] == 1
    assert len(calls) == 2, "every seat's hash compared with compare_digest, whatever matched"
    assert api.view(game_id, "x" * 43).status_code == 401


def test_tokens_never_appear_in_views_events_lobby_or_headers(api: Api) -> None:
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    game_id, token = created.json["game_id"], created.json["player_token"]
    joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"})
    tokens = [token, joined.json["player_token"]]
    api.act(game_id, tokens[0], {"type": "resign"}, **{"Idempotency-Key": "r"})
    responses = [
        api.view(game_id, tokens[0]), api.view(game_id, tokens[1]), api.view(game_id),
        api.request("GET", f"/v1/games/{game_id}/events", tokens[0]), api.request("GET", "/v1/games?status=finished"),
        api.act(game_id, tokens[1], {"type": "resign"}),
    ]
    for response in [created, joined, *responses]:
        text = response.get_data(as_text=True)
        headers = str(list(response.headers.items()))
        body_tokens = {response.json.get("player_token")} if response.status_code == 201 else set()
        for secret in set(tokens) - body_tokens:
            assert secret not in text and secret not in headers, response.request.path
    assert created.headers["Location"] == f"/v1/games/{game_id}"


def test_request_ids_are_returned_and_a_well_formed_client_id_is_kept(api: Api) -> None:
    fresh = api.client.get("/v1/rules")
    assert len(fresh.headers["X-Request-ID"]) == 32
    assert api.client.get("/v1/rules", headers={"X-Request-ID": "abc-123.x:y"}).headers["X-Request-ID"] == "abc-123.x:y"
    for bad in ("has space", "x" * 129, "quote\"", "tab\there"):
        replaced = api.client.get("/v1/games/nope", headers={"X-Request-ID": bad}).headers["X-Request-ID"]
        assert replaced != bad and len(replaced) == 32
