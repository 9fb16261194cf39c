"""The Flask app factory."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask

from service import config, cors, docs, errors, guide, http_metrics, limits, logs, ratelimit, redis_clients
from service.cache import RecordCache
from service.dispatcher import Dispatcher
from service.eviction import check_eviction_policy
from service.extensions import CardroomApi, CardroomFlask, JSONProvider, Services
from service.matchmaking import Matchmaker
from service.redis_clients import STORE_ERRORS
from service.routes import (  # noqa: F401 claim, export, games, seats, webhooks: imported for their routes
    claim,
    export,
    game_blueprint,
    games,
    health,
    matches,
    metrics,
    rules,
    seats,
    web,
    webhooks,
)
from service.scheduling import Queues
from service.schemas.actions import register_action_components
from service.schemas.clock import ClockSchema
from service.store import GameStore
from service.turns import make_queue

log = logging.getLogger(__name__)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings from the environment, then `test_config`'s overrides.

    Per process, one client of the game state (`REDIS_CLUSTER_URL`'s cluster or `REDIS_URL`'s Redis) shared by the
    store, the rate limits and the game metrics; one of each RQ queue Redis (`RQ_REDIS_URL`, which may list several; the
    same client as the game state's when both are `REDIS_URL`); and the one pub/sub connection of the process's
    `Dispatcher` (the clients waiting for a new version), on the game state's Redis. None connects here: the app starts
    while a Redis or every node of the cluster is down, and answers 503 `store_unavailable` until it answers.

    Raises:
        UnsafeEviction: a Redis's `maxmemory-policy` may evict keys and `REDIS_EVICTION_ALLOWED` is not set.
    """
    app = CardroomFlask("cardroom")
    app.json = JSONProvider(app)
    app.config.update(config.from_environment())
    if test_config:
        app.config.update(test_config)
    api = CardroomApi(app)
    register_action_components(api.spec)
    api.spec.components.schema("ClockOptions", schema=ClockSchema)  # `options.clock` of CreateGame
    # `games`, `seats`, `claim`, `export` and `webhooks` put their routes on the one games blueprint when imported: one
    # `games` tag
    for blueprint in (rules.blp, game_blueprint.blp, matches.blp, health.blp, metrics.blp):
        api.register_blueprint(blueprint)
    docs.init_app(app)
    guide.init_app(app)
    cors.init_app(app)
    app.register_blueprint(web.blp)  # the browser table: pages, not API operations, so not in the spec
    errors.register(app)
    logs.init_app(app)
    limits.init_app(app)  # before the rate limits: a request refused here costs Redis nothing
    http_metrics.init_app(app)
    settings = app.config
    state = redis_clients.game_client(settings)
    store = GameStore(
        state, settings["KEY_PREFIX"], settings["GAME_IDLE_TTL_SECONDS"], settings["GAME_RETENTION_SECONDS"],
        settings["REDIS_WAIT_REPLICAS"], settings["REDIS_WAIT_TIMEOUT_MS"],
    )
    queues = Queues(make_queue(client, settings["RQ_QUEUE"]) for client in redis_clients.queue_clients(settings, state))
    try:
        clients = [store.client, *(queue.connection for queue in queues)]
        for client in {id(client): client for client in clients}.values():
            check_eviction_policy(client, settings["REDIS_EVICTION_ALLOWED"])  # raises UnsafeEviction
    except STORE_ERRORS:  # not reachable now: `/readyz` checks it again on every probe
        log.warning("Redis unreachable at start-up: its maxmemory-policy is checked once it answers")
    app.extensions["ratelimit"] = ratelimit.init_app(app, store.client, settings["KEY_PREFIX"])
    dispatcher = Dispatcher(redis_clients.pubsub_client(settings), store.channel, settings["MAX_WAITERS"])
    app.extensions["cardroom"] = Services(
        store=store,
        records=RecordCache(store, dispatcher),
        queues=queues,
        dispatcher=dispatcher,
        matchmaker=Matchmaker.configured(store, settings),
    )
    return app
