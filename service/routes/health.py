"""Liveness and readiness probes."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

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
    @blp.alt_response(503, schema="Error", description="store_unavailable")
    def get(self):  # type: ignore[no-untyped-def]
        """Redis answers: the service can take requests.

        For a readiness probe: 503 `store_unavailable` while Redis is unreachable.
        """
        current_app.extensions["cardroom"].store.client.ping()  # unreachable: 503 store_unavailable
        return {"status": "ok"}
