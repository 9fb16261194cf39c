"""What every route uses: the app's `Services`, the error envelope's `Api` subclass, JSON provider and Blueprint.

The flask-smorest `Api` subclass adds `error` to every error body (and documents its schema); the project's
`Blueprint` parses bodies with `BodyParser`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from types import FunctionType
from typing import Any

import flask_smorest
import marshmallow as ma
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_instance
from flask import Flask, current_app
from flask.json.provider import DefaultJSONProvider
from flask_smorest import Api
from marshmallow_oneofschema.one_of_schema import OneOfSchema
from webargs.core import _UNKNOWN_DEFAULT_PARAM as _UNKNOWN_DEFAULT
from webargs.flaskparser import FlaskParser

from service.cache import RecordCache
from service.dispatcher import Dispatcher
from service.errors import DEFAULT_ERROR_CODES, envelope
from service.matchmaking import Matchmaker
from service.scheduling import Queues
from service.store import GameStore

STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
RATE_LIMITED = "RATE_LIMITED"
PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
UNLIMITED_PATHS = ("/healthz", "/readyz", "/metrics")  # as service/ratelimit.py


class ErrorSchema(ma.Schema):
    """An error body (docs/API.md "Actions and errors")."""

    code = ma.fields.Integer(required=True, metadata={"description": "HTTP status code", "example": 422})
    status = ma.fields.String(
        required=True, metadata={"description": "HTTP status name", "example": "Unprocessable Entity"}
    )
    error = ma.fields.String(
        required=True,
        metadata={"description": "stable machine-readable code (docs/API.md)", "example": "illegal_action"},
    )
    message = ma.fields.String(
        required=True, metadata={"description": "what went wrong, for a person", "example": "6H does not beat 9H"}
    )
    errors = ma.fields.Dict(metadata={"description": "per-field validation errors, for invalid_request"})


def nullable_nested(converter, field, ret, **kwargs):  # type: ignore[no-untyped-def]
    """Document a nullable `Nested` field as `anyOf: [{$ref}, null]`, with a branch that admits null alone.

    apispec writes `anyOf: [{type: object, nullable: true}, {$ref}]`, whose first branch accepts any object:
    openapi-python-client then parses e.g. the view's `result` into an untyped dict instead of `Result`. The
    other common idiom, `allOf: [$ref], nullable: true`, is rejected for null by strict 3.0 validators
    (`nullable` has no effect beside a `$ref`), so real responses would not validate.
    """
    branches = ret.get("anyOf")
    if isinstance(field, ma.fields.Nested) and field.allow_none and branches and len(branches) == 2:
        loose, reference = branches
        if loose == {"type": "object", "nullable": True} and "$ref" in reference:
            ret["anyOf"] = [reference, {"type": "object", "nullable": True, "enum": [None]}]
    return {}


class OneOfConverter(OpenAPIConverter):
    """apispec's converter, documenting a marshmallow-oneofschema `OneOfSchema` as a discriminated `oneOf`.

    apispec knows no `OneOfSchema` (it would write an empty object): here each variant becomes a component of its
    own and the union `oneOf` their `$ref`s, with a discriminator on the schema's `type_field` (e.g. a view's
    `game`, an action's `type`), so generated clients get one model per variant and pick it by that field.
    """

    def schema2jsonschema(self, schema):  # type: ignore[no-untyped-def]
        """The JSON schema of `schema`: a discriminated `oneOf` for a `OneOfSchema`, else apispec's own."""
        instance = resolve_schema_instance(schema)
        if not isinstance(instance, OneOfSchema):
            return super().schema2jsonschema(schema)
        mapping = {key: self.resolve_nested_schema(variant)["$ref"] for key, variant in instance.type_schemas.items()}
        union: dict[str, Any] = {
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": instance.type_field, "mapping": mapping},
        }
        description = getattr(getattr(instance, "Meta", None), "description", None) or instance.__doc__
        if description:
            union["description"] = description.strip()
        return union


class CardroomMarshmallowPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin with the `OneOfConverter`."""

    Converter = OneOfConverter


class CardroomApi(Api):
    """flask-smorest's Api with the Cardroom error envelope: every HTTP error carries `error` and `message`."""

    ERROR_SCHEMA = ErrorSchema

    def init_app(self, app, *, spec_kwargs=None):  # type: ignore[no-untyped-def]
        """flask-smorest's setup with `OneOfConverter`, then our field converters (before any schema is converted)."""
        spec_kwargs = {"marshmallow_plugin": CardroomMarshmallowPlugin(), **(spec_kwargs or {})}
        super().init_app(app, spec_kwargs=spec_kwargs)
        self.ma_plugin.converter.add_attribute_function(nullable_nested)

    def _register_pagination_header(self):  # type: ignore[no-untyped-def]
        """Nothing: the lobby pages with `offset`/`next_offset` in the body, never flask-smorest's X-Pagination.

        flask-smorest's own would leave an unused `PaginationMetadata` schema in the spec (a lint warning).
        """

    def _register_responses(self):  # type: ignore[no-untyped-def]
        """flask-smorest's response components, plus `STORE_UNAVAILABLE` (503 with `Retry-After`)."""
        super()._register_responses()
        self.spec.components.response(STORE_UNAVAILABLE, {
            "description": "store_unavailable: Redis is unreachable, or store_full: Redis is out of memory; nothing "
            "was changed. Or server_busy (a long-poll or stream): too many clients wait in this process. Retry "
            "after `Retry-After`",
            "headers": {"Retry-After": {
                "description": "seconds to wait before retrying", "schema": {"type": "integer", "example": 1},
            }},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        })
        self.spec.components.response(RATE_LIMITED, {
            "description": "rate_limited: too many requests from this address or token; retry after `Retry-After`",
            "headers": {"Retry-After": {
                "description": "seconds until the limit's window resets", "schema": {"type": "integer", "example": 1},
            }},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        })
        self.spec.components.response(PAYLOAD_TOO_LARGE, {
            "description": "payload_too_large: the body exceeds the size limit (64 KiB by default)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        })
        self.spec.components.response(UNSUPPORTED_MEDIA_TYPE, {
            "description": "unsupported_media_type: a body not sent as `Content-Type: application/json`",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        })

    def register_blueprint(self, blp, *, parameters=None, **options):  # type: ignore[no-untyped-def]
        """Register `blp`, then document 503 `store_unavailable` on each of its operations that uses Redis.

        Every path but `/healthz` and `/v1/rules*` reads Redis (service/errors.py answers 503 when it is down).
        Also 429 `rate_limited` on every rate-limited path, and 413 and 415 on every body (service/limits.py). An
        operation that declares no `security` (`@blp.doc(security=...)`) is public: it gets `security: []`, which
        says so to linters and generators instead of leaving it unsaid. apispec has no public way to amend an
        operation, so this edits the dict `spec.to_dict()` returns, which is the spec's own.
        """
        super().register_blueprint(blp, parameters=parameters, **options)
        for path, operations in self.spec.to_dict()["paths"].items():
            if path == "/healthz" or path.startswith("/v1/rules"):
                continue
            for method, operation in operations.items():
                if method in {"get", "post", "put", "patch", "delete"}:
                    operation["responses"]["503"] = {"$ref": f"#/components/responses/{STORE_UNAVAILABLE}"}
        for path, operations in self.spec.to_dict()["paths"].items():
            for method, operation in operations.items():
                if method not in {"get", "post", "put", "patch", "delete"}:
                    continue
                operation.setdefault("security", [])
                if path not in UNLIMITED_PATHS:
                    operation["responses"]["429"] = {"$ref": f"#/components/responses/{RATE_LIMITED}"}
                if method in {"post", "put", "patch"}:
                    operation["responses"]["413"] = {"$ref": f"#/components/responses/{PAYLOAD_TOO_LARGE}"}
                    operation["responses"]["415"] = {"$ref": f"#/components/responses/{UNSUPPORTED_MEDIA_TYPE}"}

    def handle_http_exception(self, error):  # type: ignore[no-untyped-def]
        """Render an HTTP error (from `abort(status, message=..., error=...)`, routing or webargs)."""
        data = getattr(error, "data", None) or {}
        fallback = "internal_error" if error.code >= 500 else "error"
        code = data.get("error") or DEFAULT_ERROR_CODES.get(error.code, fallback)
        message = data.get("message") or error.description
        extra = {}
        if "errors" in data or "messages" in data:
            extra["errors"] = data.get("errors", data.get("messages"))
        # keep werkzeug's own headers (e.g. `Allow` of a 405, RFC 9110 §15.5.6), but not its HTML content type
        headers = {name: value for name, value in error.get_headers() if name.lower() != "content-type"}
        headers.update(data.get("headers") or {})
        return envelope(error.code, code, message, **extra), error.code, headers


class CardroomFlask(Flask):
    """Flask, asking once per function, not on every call, whether a hook or view is a coroutine function.

    Flask's `ensure_sync` inspects each before- and after-request hook and each view layer on every request (about
    twenty `inspect.iscoroutinefunction` calls per request here: 5% of a view read's CPU, issue 39). Plain functions
    are few and live as long as the app, so the answer is kept for them; a bound method (a `MethodView`'s, new with
    each request) is asked about each time, as Flask does.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synced: dict[FunctionType, Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Flask's `ensure_sync`, its answer kept per plain function."""
        if type(func) is not FunctionType:
            return super().ensure_sync(func)
        synced = self._synced.get(func)
        if synced is None:
            synced = self._synced[func] = super().ensure_sync(func)
        return synced


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider; a body nested beyond Python's recursion limit is malformed JSON, not a 500.

    About 1,000 levels (a 2 KB body) exhaust it: `request.get_json` then raises ValueError (or, silent, returns
    None) as for any malformed body.
    """

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """`json.loads`, raising ValueError for a body nested too deeply."""
        try:
            return super().loads(s, **kwargs)
        except RecursionError as exc:
            raise ValueError("the JSON body is nested too deeply") from exc


PARSED_KEPT = 1024
"""How many query strings and header values `BodyParser` remembers the arguments of, per process (then it forgets
them all and starts again)."""


def environ_key(header: str) -> str:
    """The WSGI environ key of a request header (PEP 3333): what werkzeug's `request.headers` reads it from."""
    name = header.upper().replace("-", "_")
    return name if name in {"CONTENT_TYPE", "CONTENT_LENGTH"} else f"HTTP_{name}"


class BodyParser(FlaskParser):
    """webargs' Flask parser, refusing as malformed (400 `invalid_request`) every body Python's JSON reader fails on.

    Besides malformed JSON: a body nested too deeply, or an integer of more than 4,300 digits
    (`sys.get_int_max_str_digits`), which raise RecursionError and ValueError instead of a JSON error.

    The query's and the headers' arguments are a function of the schema and the raw text it reads (the query
    string; the values of the headers it declares: webargs excludes the others), so they are loaded once per such
    text and process and then handed out as copies (up to `PARSED_KEPT` of them). A view read's
    two schemas were a quarter of its web CPU (instantiated, copied and loaded per request; issue 39). Only what
    loaded is kept: a refusal is parsed, and raised, every time.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schemas: dict[type[ma.Schema], ma.Schema] = {}
        self._parsed: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._header_keys: dict[type[ma.Schema], list[str]] = {}

    def _get_schema(self, argmap: Any, req: Any) -> ma.Schema:
        # one instance per schema class: marshmallow's load keeps no state on the instance
        if isinstance(argmap, type) and issubclass(argmap, ma.Schema):
            schema = self._schemas.get(argmap)
            if schema is None:
                schema = self._schemas[argmap] = argmap()
            return schema
        return super()._get_schema(argmap, req)

    def parse(self, argmap: Any, req: Any = None, *, location: str | None = None, **kwargs: Any) -> Any:
        """The parse of webargs, remembering what a query string or the declared headers' values loaded to."""
        key = self._memo_key(argmap, req, location, kwargs)
        if key is None:
            return super().parse(argmap, req, location=location, **kwargs)
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = super().parse(argmap, req, location=location, **kwargs)
            if len(self._parsed) >= PARSED_KEPT:
                self._parsed.clear()  # all at once: one step, whichever threads parse beside it
            self._parsed[key] = parsed
        return dict(parsed)

    def _memo_key(self, argmap: Any, req: Any, location: str | None, kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
        # only the plain case the routes use: a schema class, webargs' own `unknown` (EXCLUDE), no validators
        if not (isinstance(argmap, type) and issubclass(argmap, ma.Schema)) or kwargs.get("validate") is not None:
            return None
        if kwargs.get("unknown", _UNKNOWN_DEFAULT) is not _UNKNOWN_DEFAULT or self.unknown is not _UNKNOWN_DEFAULT:
            return None
        if location not in {"query", "headers"}:
            return None
        req = req if req is not None else self.get_default_request()
        if location == "query":
            return argmap, location, req.query_string
        keys = self._header_keys.get(argmap)
        if keys is None:
            fields = self._get_schema(argmap, req).load_fields
            keys = self._header_keys[argmap] = [environ_key(field.data_key or name) for name, field in fields.items()]
        environ = req.environ
        return argmap, location, *(environ.get(key) for key in keys)

    def _raw_load_json(self, req: Any) -> Any:
        try:
            return super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise
        except RecursionError as exc:
            raise json.JSONDecodeError("the JSON body is nested too deeply", "(body)", 0) from exc
        except ValueError as exc:
            raise json.JSONDecodeError(str(exc), "(body)", 0) from exc


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint with the `BodyParser`: use it for every route that reads a body."""

    ARGUMENTS_PARSER = BodyParser()


@dataclass
class Services:
    """One process's connections, kept in `app.extensions["cardroom"]` (service/app.py builds them).

    `store` reads and writes games, `records` caches the latest record of each game read by this process,
    `queues` are the RQ queues of AI turns, one per queue Redis (a game's on `queues.for_game(game_id)`),
    `dispatcher` wakes the clients that wait for a game's next version (or a quick-match ticket's), `matchmaker`
    keeps the quick-match tickets (`Matchmaker.configured`, as the worker's sweep builds its own).
    """

    store: GameStore
    records: RecordCache
    queues: Queues
    dispatcher: Dispatcher
    matchmaker: Matchmaker


def services() -> Services:
    """The current app's `Services`."""
    return current_app.extensions["cardroom"]
