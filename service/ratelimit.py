"""Rate limits per client address and per player token, shared through Redis (docs/operations/limits.md).

Fixed windows (`RATE_LIMIT_PER_ADDRESS`, `RATE_LIMIT_PER_TOKEN`, in the `limits` package's syntax, e.g.
"20/second;600/minute"); the token's count is keyed by its hash, never the token itself. Each process counts its
own requests at once and adds them to the shared counts in Redis (under `<KEY_PREFIX>:ratelimit:`) in batches,
every `SYNC_SECONDS`, in one pipelined round trip that also tells it the total of every process and pod: a check
costs no round trip of its own, is exact for this process's requests and lags by about `SYNC_SECONDS` for the
others'. A counter is shared only once this process holds `SHARE_FRACTION` of the limit's amount in hits of it
(`share_at`, at least 1): each process may hold back that much in a window, so N processes let a client spread
over them reach the limit plus N hundredths of it before a refusal (20 processes: 1.2 times the limit), and a
player at human pace, against limits of thousands a second, costs Redis no command. Probes and `/metrics` are not
limited. Over a limit: 429 `rate_limited` with `Retry-After`, the seconds until the breached window ends.
"""

from __future__ import annotations

import logging
import math
import threading
import time

import redis
from flask import Flask, request
from flask_smorest import abort
from limits import RateLimitItem, parse_many

from service.auth import bearer_token
from service.extensions import UNLIMITED_PATHS
from service.http_metrics import RATE_LIMITED
from service.records import hash_token
from service.redis_clients import STORE_ERRORS

log = logging.getLogger(__name__)

SYNC_SECONDS = 0.05
"""How often a process adds its counts to the shared ones in Redis (and reads every process's total back)."""
IDLE_SYNCS = 100
"""After this many syncs in a row with nothing to share (5 s), the sync stops until the next hit."""
SHARE_FRACTION = 0.01
"""The share of a limit's amount a process counts alone before it adds the hits to the shared count."""


class SharedCounts:
    """Fixed-window request counters of one process, added to Redis's shared counters in batches.

    `client` is the Redis to share them in, `prefix` the key prefix (`<prefix>:ratelimit:<counter>`). Thread- and
    greenlet-safe; the background sync starts with the first hit, in the process that serves requests.
    """

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._lock = threading.Lock()
        # counter -> (hits not yet in Redis, window length in s, window end as Unix time, hits worth sharing)
        self._pending: dict[str, tuple[int, int, float, int]] = {}
        self._due: set[str] = set()  # the counters of `_pending` with `share_at` hits or more
        self._purged_at = 0.0  # when counters whose window ended were last dropped from `_pending`
        # counter -> (every process's count at the last sync, window end)
        self._totals: dict[str, tuple[int, float]] = {}
        self._syncer: threading.Thread | None = None

    def hit(self, counter: str, seconds: int, window_end: float, share_at: int = 1) -> int:
        """Count one request on `counter` (a window of `seconds` ending at Unix time `window_end`); its count now.

        The hits are added to Redis's count at a sync once there are at least `share_at` of them.
        """
        with self._lock:
            hits = self._pending.get(counter, (0,))[0] + 1
            self._pending[counter] = (hits, seconds, window_end, share_at)
            if hits >= share_at:
                self._due.add(counter)
            if self._syncer is None:
                self._syncer = threading.Thread(target=self._sync_forever, name="cardroom-ratelimit", daemon=True)
                self._syncer.start()
            return self._totals.get(counter, (0, window_end))[0] + hits

    def sync(self, now: float | None = None) -> None:
        """Add this process's hits worth sharing to Redis in one round trip and learn every process's totals.

        Counters whose window has ended by `now` (Unix time) are forgotten with the hits they held back (looked for
        at most once a second: each look walks every held-back counter).

        Raises:
            redis.RedisError: Redis is unreachable (the hits are kept and added at the next sync).
        """
        now = time.time() if now is None else now
        with self._lock:
            batch = {counter: self._pending.pop(counter) for counter in self._due}
            self._due = set()
            if now - self._purged_at >= 1.0:  # once a second: a walk over every held-back counter
                self._pending = {counter: pending for counter, pending in self._pending.items() if pending[2] >= now}
                self._purged_at = now
            fresh = {counter for counter in batch if counter not in self._totals}  # not in Redis from this process
        replies: list[int] = []
        if batch:
            try:
                with self.client.pipeline(transaction=False) as pipe:
                    totals_at = []  # where each counter's INCRBY, whose answer is its total, is in the pipeline
                    for counter, (hits, seconds, _, _) in batch.items():
                        name = f"{self.prefix}:ratelimit:{counter}"
                        totals_at.append(len(pipe))
                        pipe.incrby(name, hits)
                        if counter in fresh:
                            # once per window and process, at its first sync: the name holds its window, so the
                            # lifetime given then outlasts the window and every process's hits in it
                            pipe.expire(name, seconds + 1)
                    answers = pipe.execute()
                    replies = [answers[position] for position in totals_at]
            except STORE_ERRORS:
                with self._lock:
                    for counter, (hits, seconds, end, share_at) in batch.items():
                        self._pending[counter] = (self._pending.get(counter, (0,))[0] + hits, seconds, end, share_at)
                        self._due.add(counter)
                raise
        with self._lock:
            for (counter, (_, _, end, _)), total in zip(batch.items(), replies, strict=True):
                self._totals[counter] = (total, end)
            for counter in [name for name, (_, end) in self._totals.items() if end < now]:
                del self._totals[counter]

    def _sync_forever(self) -> None:
        # Stops after IDLE_SYNCS rounds without hits (the next hit starts it again): an idle app costs nothing.
        idle, failing = 0, False
        while True:
            time.sleep(SYNC_SECONDS)
            with self._lock:
                idle = 0 if self._due else idle + 1
                if idle >= IDLE_SYNCS:
                    self._syncer = None  # under the lock: a hit from now on starts a new one
                    return
            try:
                self.sync()
                if failing:
                    log.warning("rate limit counts are shared again")
                failing = False
            except STORE_ERRORS as error:
                if not failing:  # once per outage, not every 50 ms
                    log.warning("rate limit counts not shared (%s): judged on this process's counts", error)
                failing = True


def init_app(app: Flask, client: redis.Redis, prefix: str) -> SharedCounts | None:
    """Check both limits before every request of `app` (unless `RATE_LIMIT_ENABLED` is off); returns the counters."""
    if not app.config["RATE_LIMIT_ENABLED"]:
        return None
    per_address = [_terms(limit) for limit in parse_many(app.config["RATE_LIMIT_PER_ADDRESS"])]
    per_token = [_terms(limit) for limit in parse_many(app.config["RATE_LIMIT_PER_TOKEN"])]
    counts = SharedCounts(client, prefix)

    @app.before_request
    def check_rate_limits() -> None:
        if request.path in UNLIMITED_PATHS:
            return
        limits = [(f"address:{request.remote_addr}", limit) for limit in per_address]
        token = bearer_token()
        if token:
            limits += [(f"token:{hash_token(token)}", limit) for limit in per_token]
        now = time.time()
        for who, (limit, amount, seconds, name, share_at) in limits:
            window = int(now // seconds)
            if counts.hit(f"{who}:{name}:{window}", seconds, (window + 1) * seconds, share_at) > amount:
                RATE_LIMITED.labels(who.partition(":")[0]).inc()
                abort(429, message=f"too many requests: at most {limit}; retry later", error="rate_limited",
                      headers={"Retry-After": str(max(1, math.ceil((window + 1) * seconds - now)))})

    return counts


def _terms(limit: RateLimitItem) -> tuple[RateLimitItem, int, int, str, int]:
    """A limit, its amount, its window in seconds, its counter's name after the client's, and its `share_at`.

    `share_at` is `SHARE_FRACTION` of the amount, at least 1: 20 under `2000/second`, 1 under `20/second`.
    """
    seconds = limit.get_expiry()
    share_at = max(1, int(limit.amount * SHARE_FRACTION))
    return limit, limit.amount, seconds, f"{limit.amount}/{seconds}", share_at
