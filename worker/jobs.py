"""The RQ job that plays one AI seat's turn, through the same write path as a human move."""

from __future__ import annotations

import random
import time

from rq import get_current_job

from engine.ai import choose_action
from service.metrics import observe_ai_decision
from service.store import GameNotFound, GameStore, VersionConflict
from service.turns import make_queue, play
from service.views import ai_seat_view


def play_ai_turn(key_prefix: str, game_id: str, expected_version: int, seat: int) -> str:
    """Play `seat`'s move in game `game_id` (under `key_prefix`) if it is still at `expected_version`.

    The move is computed from the seat's view only (`ai_seat_view`), then applied with the same version check
    as a human move, which also enqueues the next AI turn. Returns "played", or "stale" when the game moved on
    (another write won, or it is no longer this seat's turn), "passed" when the seat was listed only for actions
    nobody waits for and chose none (talmut.md §4.1), or "gone" for an expired game.
    """
    job = get_current_job()
    assert job is not None, "play_ai_turn runs inside an RQ job"
    store = GameStore(job.connection, key_prefix)
    try:
        record = store.load(game_id)
    except GameNotFound:
        return "gone"
    if record.version != expected_version or record.status != "active":
        return "stale"
    view = ai_seat_view(record, seat)
    if not view["legal_actions"]:
        return "stale"
    level = record.seats[seat].level or "random"
    started = time.perf_counter()
    action = choose_action(view, level, random.Random(f"{game_id}:{expected_version}:{seat}"))
    observe_ai_decision(store.client, key_prefix, record.game, level, time.perf_counter() - started)
    if action is None:
        return "passed"
    try:
        play(store, make_queue(store, job.origin), record, seat, action)
    except VersionConflict:
        return "stale"
    return "played"

