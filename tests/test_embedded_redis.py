"""The suite's embedded Redis (tests/conftest.py, when no Redis answers on 127.0.0.1:6379) leaves nothing behind."""

from __future__ import annotations

import redis

from tests.redis_server import EmbeddedRedis


def test_the_embedded_test_redis_stops_and_removes_its_folder() -> None:
    embedded = EmbeddedRedis()
    assert redis.Redis.from_url(embedded.url).ping() and embedded.directory.is_dir()
    embedded.stop()
    assert embedded.process.poll() is not None
    assert not embedded.directory.exists(), f"{embedded.directory} left behind"
