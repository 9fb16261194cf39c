"""Liveness and readiness probes."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields

from service.eviction import check_eviction_policy
from service.extensions import Blueprint

blp = Blueprint("health", __name__, url_prefix="", description="Probes")


class StatusSchema(Schema):
    """A probe's answer."""

    status = fields.String(required=True, metadata={"example": "ok"})


@blp.route("/healthz")
class Health(MethodView):
    """Liveness."""

    @blp.doc(operationId="checkLiveness")
    @blp.response(200, StatusSchema)
    def get(self):  # type: ignore[no-untyped-def]
        """The process is up (does not touch Redis).

        For a liveness probe: it fails only when the process cannot answer at all.
        """
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.doc(operationId="checkReadiness")
    @blp.response(200, StatusSchema)
    @blp.alt_response(503, schema="Error", description="store_unavailable, store_full")
    def get(self):  # type: ignore[no-untyped-def]
        """Redis answers, may not evict game keys, and takes writes: the service can take requests.

        For a readiness probe: 503 `store_unavailable` when the game state's Redis (or any node of its cluster) or
        a queue Redis (any that `RQ_REDIS_URL` lists) is unreachable or its `maxmemory-policy` may evict keys (unless
        `REDIS_EVICTION_ALLOWED`), 503 `store_full` when the game state's Redis is out of memory.
        """
        services = current_app.extensions["cardroom"]
        allowed = current_app.config["REDIS_EVICTION_ALLOWED"]
        check_eviction_policy(services.store.client, allowed)
        for queue in services.queues:
            if queue.connection is not services.store.client:
                check_eviction_policy(queue.connection, allowed)
        services.store.check_writable()
        return {"status": "ok"}
