"""The Flask app factory."""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask

from service import config, cors, docs, errors, http_metrics, limits, logs, ratelimit
from service.cache import RecordCache
from service.dispatcher import Dispatcher
from service.extensions import CardroomApi, JSONProvider, Services
from service.routes import games, health, metrics, rules, web
from service.schemas.actions import register_action_components
from service.schemas.clock import ClockSchema
from service.store import GameStore, check_eviction_policy
from service.turns import make_queue

log = logging.getLogger(__name__)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings from the environment, then `test_config`'s overrides.

    One Redis connection pool per process, shared by the store, the rate limits and the RQ queue, plus the one
    pub/sub connection of the process's `Dispatcher` (the clients waiting for a new version).

    Raises:
        UnsafeEviction: Redis's `maxmemory-policy` may evict game keys and `REDIS_EVICTION_ALLOWED` is not set.
    """
    app = Flask("cardroom")
    app.json = JSONProvider(app)
    app.config.update(config.from_environment())
    if test_config:
        app.config.update(test_config)
    api = CardroomApi(app)
    register_action_components(api.spec)
    api.spec.components.schema("ClockOptions", schema=ClockSchema)  # `options.clock` of CreateGame
    for blueprint in (rules.blp, games.blp, health.blp, metrics.blp):
        api.register_blueprint(blueprint)
    docs.init_app(app)
    cors.init_app(app)
    app.register_blueprint(web.blp)  # the browser table: pages, not API operations, so not in the spec
    errors.register(app)
    logs.init_app(app)
    limits.init_app(app)  # before the rate limits: a request refused here costs Redis nothing
    http_metrics.init_app(app)
    store = GameStore(
        config.redis_client(app.config["REDIS_URL"]), app.config["KEY_PREFIX"],
        app.config["GAME_IDLE_TTL_SECONDS"], app.config["GAME_RETENTION_SECONDS"],
    )
    try:
        check_eviction_policy(store.client, app.config["REDIS_EVICTION_ALLOWED"])  # raises UnsafeEviction
    except redis.RedisError:  # not reachable now: `/readyz` checks it again on every probe
        log.warning("Redis unreachable at start-up: its maxmemory-policy is checked once it answers")
    app.extensions["ratelimit"] = ratelimit.init_app(app, store.client, app.config["KEY_PREFIX"])
    app.extensions["cardroom"] = Services(
        store=store,
        records=RecordCache(store),
        queue=make_queue(store, app.config["RQ_QUEUE"]),
        dispatcher=Dispatcher(
            config.pubsub_client(app.config["REDIS_URL"]), store.channel, app.config["MAX_WAITERS"]
        ),
    )
    return app
