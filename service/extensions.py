"""The flask-smorest `Api` subclass that adds `error` to every error body, and its error schema."""

from __future__ import annotations

import marshmallow as ma
from flask_smorest import Api

from service.errors import DEFAULT_ERROR_CODES, envelope


class ErrorSchema(ma.Schema):
    """An error body (shared/API.md "Actions and errors")."""

    code = ma.fields.Integer(metadata={"description": "HTTP status code"})
    status = ma.fields.String(metadata={"description": "HTTP status name"})
    error = ma.fields.String(metadata={"description": "stable machine-readable code, e.g. illegal_action"})
    message = ma.fields.String(metadata={"description": "what went wrong, for a person"})
    errors = ma.fields.Dict(metadata={"description": "per-field validation errors, for invalid_request"})


class CardroomApi(Api):
    """flask-smorest's Api with the Cardroom error envelope: every HTTP error carries `error` and `message`."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error):  # type: ignore[no-untyped-def]
        """Render an HTTP error (from `abort(status, message=..., error=...)`, routing or webargs)."""
        data = getattr(error, "data", None) or {}
        code = data.get("error") or DEFAULT_ERROR_CODES.get(error.code, "internal_error" if error.code >= 500 else "error")
        message = data.get("message") or error.description
        extra = {}
        if "errors" in data or "messages" in data:
            extra["errors"] = data.get("errors", data.get("messages"))
        return envelope(error.code, code, message, **extra), error.code, data.get("headers", {})
