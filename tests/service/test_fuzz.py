"""Fuzzing: schemathesis over the committed spec against the live app (WSGI), on the real Redis (issue 8).

Every operation gets generated requests, valid and invalid; the stateful run follows the spec's links (create ->
view -> play the first legal action, events) with the seat's token. Checked: no 5xx ever, and every response
matches the spec (status documented, body schema, headers such as `Allow` on 405 and `Retry-After`).
`positive_data_acceptance` is left out: a schema-valid body may still break the rules (a 422 the spec
documents, e.g. three seats for Durak).
"""

from __future__ import annotations

import os
import uuid
import zlib
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from service.app import create_app
from service.redis_clients import redis_client
from tests.service.conftest import delete_test_keys

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
PREFIX = f"test-fuzz-{uuid.uuid4().hex[:8]}"
# long-polls held 0.2 s at most (the cap, LONG_POLL_MAX_SECONDS), so generated `wait`s keep the run short
APP = create_app({
    "REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": PREFIX, "RQ_QUEUE": PREFIX, "TESTING": True,
    "LONG_POLL_MAX_SECONDS": 0.2,
})
schema = schemathesis.openapi.from_path(SPEC)
schema.app = APP  # every request, the checks' own extra ones too, goes to the app through WSGI
EXCLUDED = [positive_data_acceptance]
# derandomize: the same examples on every run (deterministic CI); raise max_examples locally to search wider
FUZZ_SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True
)
TOKENS: dict[str, str] = {}
"""game_id -> a player token of it, learnt from 201 responses, so generated requests also reach seated views."""


def teardown_module() -> None:
    delete_test_keys(redis_client(os.environ["REDIS_URL"]), PREFIX)


def _a_game() -> tuple[str, str]:
    client = APP.test_client()
    created = client.post("/v1/games", json={"game": "durak", "seats": [{"kind": "human"}, {"kind": "human"}]})
    joined = client.post(f"/v1/games/{created.json['game_id']}/seats", json={"name": "Bob"})
    return created.json["game_id"], joined.json["player_token"]


GAME_ID, TOKEN = _a_game()
# The stream never ends while its game goes on (a keep-alive comment every 15 s), so a generated request of it would
# hold the test for ever: streams are aimed at a finished game, whose stream sends its last view and ends, so its
# events are checked against the spec too (tests/e2e/test_waiting.py checks a live stream on the real server); so are
# exports, which only a finished game has.
FINISHED_ID, FINISHED_TOKEN = _a_game()
assert APP.test_client().post(f"/v1/games/{FINISHED_ID}/actions", json={"type": "resign"},
                              headers={"Authorization": f"Bearer {FINISHED_TOKEN}"}).json["status"] == "finished"


@schema.parametrize()
@FUZZ_SETTINGS
def test_no_operation_fails_or_breaks_the_spec(case) -> None:  # type: ignore[no-untyped-def]
    """Generated requests, half of those naming a game aimed at a real one with its token: no 5xx, all as specified."""
    if "game_id" in (case.path_parameters or {}) and zlib.crc32(repr(case.body).encode()) % 2 == 0:
        finished = case.path.endswith(("/stream", "/export"))
        game_id, token = (FINISHED_ID, FINISHED_TOKEN) if finished else (GAME_ID, TOKEN)
        case.path_parameters["game_id"] = game_id
        if "Authorization" in (case.headers or {}):  # a generated token becomes a real one (never adds one)
            case.headers["Authorization"] = f"Bearer {token}"
    case.call_and_validate(app=APP, excluded_checks=EXCLUDED)


class Client(schema.as_state_machine()):  # type: ignore[misc]
    """Follows the spec's links with the token of each game it created or joined."""

    def before_call(self, case) -> None:  # type: ignore[no-untyped-def]
        token = TOKENS.get((case.path_parameters or {}).get("game_id", ""))
        if token is not None and "Authorization" in (case.headers or {}):
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

    def call(self, case, **kwargs):  # type: ignore[no-untyped-def]
        return case.call(app=APP, **kwargs)

    def after_call(self, response, case) -> None:  # type: ignore[no-untyped-def]
        if response.status_code == 201:
            body = response.json()
            if body.get("player_token"):
                TOKENS[body["game_id"]] = body["player_token"]

    def validate_response(self, response, case, **kwargs) -> None:  # type: ignore[no-untyped-def]
        case.validate_response(response, excluded_checks=EXCLUDED)


def test_stateful_sequences_keep_to_the_spec() -> None:
    Client.run(settings=settings(
        max_examples=25, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck), database=None,
        derandomize=True,
    ))
