"""The per-process dispatcher (service/dispatcher.py) on the real Redis: one pub/sub connection, every waiter woken."""

from __future__ import annotations

import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from service import dispatcher as dispatcher_module
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
        publisher.close()
        subscriber.close()


def test_an_idle_channel_is_given_up_after_its_linger_without_a_scan_per_message(monkeypatch) -> None:
    """A channel nobody waits on is unsubscribed once it has lingered; meanwhile its messages cost no scan each.

    Looking for channels to give up walks every subscribed channel. The reader once did it after every message, so
    each move cost a walk over all the process's games (7% of the web CPU at 2,000 players, growing with the square
    of the players); it now walks at most once per `POLL_SECONDS`.
    """
    monkeypatch.setattr(dispatcher_module, "LINGER_SECONDS", 1.0)
    poll_seconds = 0.1
    monkeypatch.setattr(dispatcher_module, "POLL_SECONDS", poll_seconds)
    url = os.environ["REDIS_URL"]
    channel = f"test-dispatch-{uuid.uuid4().hex[:8]}:{{idle}}:version"
    publisher = redis_client(url)
    subscriber = pubsub_client({"REDIS_URL": url, "REDIS_CLUSTER_URL": None})
    dispatcher = Dispatcher(subscriber, lambda _: channel, 1)
    scans = []
    give_up_idle = dispatcher._give_up_idle
    monkeypatch.setattr(dispatcher, "_give_up_idle", lambda pubsub: (scans.append(1), give_up_idle(pubsub)))
    messages = 300
    try:
        # one short wait subscribes the channel and leaves it idle
        assert dispatcher.wait("idle", 1, 0.2, read_version=lambda: 1) == 1
        assert publisher.pubsub_numsub(channel) == [(channel.encode(), 1)]
        watch = dispatcher._watches[channel.encode()]
        started, scans_before = time.monotonic(), len(scans)
        for version in range(2, messages + 2):
            publisher.publish(channel, version)
        guard = started + WAIT_SECONDS
        while watch.version != messages + 1:  # every message read (progress, not a deadline)
            assert time.monotonic() < guard, f"the reader got to version {watch.version} of {messages + 1}"
            time.sleep(0.01)
        elapsed = time.monotonic() - started
        assert len(scans) - scans_before <= elapsed / poll_seconds + 2, (len(scans) - scans_before, messages, elapsed)
        while publisher.pubsub_numsub(channel) != [(channel.encode(), 0)]:
            assert time.monotonic() < guard, "the idle channel was never given up"
            time.sleep(0.05)
    finally:
        dispatcher.close()
        publisher.close()
        subscriber.close()


def test_a_subscription_redis_ends_on_its_own_is_taken_again_and_vouches_for_nothing_meanwhile() -> None:
    """An unsubscription the dispatcher did not ask for in that state (Redis Cluster pushes one when a slot moves;
    a give-up answered after a newer SUBSCRIBE looks the same) leaves nothing reaching the channel. It was ignored:
    the watch stayed "subscribed", its waiter slept to its deadline and copies of the game were vouched for. Now
    the reader subscribes again, and the next version wakes the waiter."""
    url = os.environ["REDIS_URL"]
    channel = f"test-dispatch-{uuid.uuid4().hex[:8]}:{{lost}}:version"
    publisher = redis_client(url)
    subscriber = pubsub_client({"REDIS_URL": url, "REDIS_CLUSTER_URL": None})
    dispatcher = Dispatcher(subscriber, lambda _: channel, 2)
    try:
        with ThreadPoolExecutor(1) as pool:
            woken = pool.submit(dispatcher.wait, "lost", 1, WAIT_SECONDS, lambda: 1)
            guard = time.monotonic() + WAIT_SECONDS
            while publisher.pubsub_numsub(channel) != [(channel.encode(), 1)] or not dispatcher.vouches_for(
                    "lost", 1, time.monotonic()):
                assert time.monotonic() < guard, "never subscribed"
                time.sleep(0.01)
            seen_at, watch = time.monotonic(), dispatcher._watches[channel.encode()]
            generation = watch.generation
            with dispatcher._sending:
                dispatcher._pubsub.unsubscribe(channel)  # Redis ends the subscription behind the watch's back
            while watch.generation == generation:  # the reader saw the loss (it subscribes again at once)
                assert time.monotonic() < guard, "the lost subscription went unnoticed"
                time.sleep(0.01)
            while watch.state != "subscribed" or publisher.pubsub_numsub(channel) != [(channel.encode(), 1)]:
                assert time.monotonic() < guard, "the lost subscription was never taken again"
                time.sleep(0.01)
            assert not dispatcher.vouches_for("lost", 1, seen_at)  # a copy known before the loss stays unvouched
            publisher.publish(channel, 2)
            assert woken.result(timeout=WAIT_SECONDS) == 2
    finally:
        dispatcher.close()
        publisher.close()
        subscriber.close()
