"""The per-process dispatcher (service/dispatcher.py) on the real Redis: one pub/sub connection, every waiter woken."""

from __future__ import annotations

import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from service.dispatcher import Dispatcher
from service.redis_clients import pubsub_client, redis_client

WAITERS = 40
WAIT_SECONDS = 30.0
"""A hang guard: a published version wakes its waiter within milliseconds."""


def test_waiters_arriving_together_share_one_connection_and_all_wake() -> None:
    """The first waiters of a fresh process subscribe at once: each is woken by its own game's next version.

    A burst of first subscriptions once raced inside redis-py's PubSub (each saw no connection yet and took its
    own): the pool of two ran dry (503 after 2 s) and channels subscribed on the extra connections never woke
    their waiters (every long-poll of those games ran to its full wait).
    """
    url = os.environ["REDIS_URL"]
    prefix = f"test-dispatch-{uuid.uuid4().hex[:8]}"
    publisher = redis_client(url)
    subscriber = pubsub_client({"REDIS_URL": url, "REDIS_CLUSTER_URL": None})
    dispatcher = Dispatcher(subscriber, lambda game_id: f"{prefix}:{{{game_id}}}:version", WAITERS)
    games = [f"g{n}" for n in range(WAITERS)]
    started = threading.Barrier(WAITERS + 1)
    all_subscribed = threading.Event()

    def watch_subscriptions() -> None:
        while not all_subscribed.is_set():
            watches = list(dispatcher._watches.values())
            if len(watches) == WAITERS and all(watch.state == "subscribed" for watch in watches):
                all_subscribed.set()
            threading.Event().wait(0.01)

    threading.Thread(target=watch_subscriptions, daemon=True).start()
    try:
        def wait(game_id: str) -> int | None:
            started.wait()
            return dispatcher.wait(game_id, 1, WAIT_SECONDS, read_version=lambda: 1)

        with ThreadPoolExecutor(WAITERS) as pool:
            results = [pool.submit(wait, game_id) for game_id in games]
            started.wait()
            # a published 2 wakes a waiter once it is in, subscribed and holding version 1
            assert all_subscribed.wait(WAIT_SECONDS), [
                (watch.channel, watch.state) for watch in dispatcher._watches.values() if watch.state != "subscribed"
            ]
            for game_id in games:
                publisher.publish(f"{prefix}:{{{game_id}}}:version", 2)
            assert [result.result(timeout=2 * WAIT_SECONDS) for result in results] == [2] * WAITERS
    finally:
        all_subscribed.set()  # ends the watching thread whatever happened
        dispatcher.close()
