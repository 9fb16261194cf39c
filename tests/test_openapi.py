"""The committed spec (openapi/openapi.json) equals what the app serves; regenerate with the command of
docs/development.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from service.app import create_app

SPEC = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def test_committed_spec_matches_the_app():
    app = create_app()
    served = app.test_client().get("/openapi.json").json
    app.extensions["cardroom"].store.client.close()
    assert json.loads(SPEC.read_text()) == served, (
        "openapi/openapi.json is stale: run "
        "`flask --app service.app:create_app openapi write --format=json openapi/openapi.json`"
    )


def test_spec_is_openapi_3_0_with_every_route():
    spec = json.loads(SPEC.read_text())
    assert spec["openapi"].startswith("3.0.")
    assert set(spec["paths"]) == {
        "/v1/rules", "/v1/rules/{game}", "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/seats",
        "/v1/games/{game_id}/actions", "/v1/games/{game_id}/events", "/v1/games/{game_id}/stream",
        "/v1/games/{game_id}/leave", "/v1/games/{game_id}/rematch", "/v1/games/{game_id}/claim",
        "/v1/games/{game_id}/seats/{seat}/webhook", "/v1/games/{game_id}/export",
        "/healthz", "/readyz", "/metrics", "/v1/matches",
        "/v1/matches/{ticket_id}", "/v1/matches/{ticket_id}/stream",
    }


def test_spec_validates_with_openapi_spec_validator():
    from openapi_spec_validator import OpenAPIV30SpecValidator

    errors = list(OpenAPIV30SpecValidator(json.loads(SPEC.read_text())).iter_errors())
    assert errors == []


def test_spec_documents_headers_security_and_errors():
    """shared/API.md: ETag, If-Match, Idempotency-Key, Location, Retry-After, bearer, the `error` field."""
    spec = json.loads(SPEC.read_text())
    paths, components = spec["paths"], spec["components"]
    assert components["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    assert {"code", "status", "error", "message"} <= set(components["schemas"]["Error"]["required"])
    assert "Retry-After" in components["responses"]["STORE_UNAVAILABLE"]["headers"]
    view, actions = paths["/v1/games/{game_id}"]["get"], paths["/v1/games/{game_id}/actions"]["post"]
    assert {"If-None-Match"} <= {p["name"] for p in view["parameters"] if p["in"] == "header"}
    assert {"If-Match", "Idempotency-Key"} == {p["name"] for p in actions["parameters"] if p["in"] == "header"}
    assert "ETag" in view["responses"]["200"]["headers"] and "ETag" in actions["responses"]["200"]["headers"]
    assert "Location" in paths["/v1/games"]["post"]["responses"]["201"]["headers"]
    assert actions["security"] == [{"bearer": []}]
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            assert operation["responses"]["default"] == {"$ref": "#/components/responses/DEFAULT_ERROR"}
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")) and "$ref" not in response:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (path, method, status)


def test_actions_are_a_discriminated_one_of_per_game():
    from engine import GAMES

    spec = json.loads(SPEC.read_text())
    schemas = spec["components"]["schemas"]
    for game_id, game in GAMES.items():
        name = "".join(part.capitalize() for part in game_id.split("_")) + "Action"
        union = schemas[name]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == set(game.ACTIONS)
        assert len(union["oneOf"]) == len(game.ACTIONS)
        for action_type, ref in union["discriminator"]["mapping"].items():
            variant = schemas[ref.rsplit("/", 1)[1]]
            assert variant["properties"]["type"]["enum"] == [action_type] and "type" in variant["required"]


OPERATION_IDS = {
    ("post", "/v1/games"): "createGame",
    ("get", "/v1/games"): "listGames",
    ("post", "/v1/games/{game_id}/seats"): "joinGame",
    ("get", "/v1/games/{game_id}"): "getGame",
    ("post", "/v1/games/{game_id}/actions"): "playAction",
    ("get", "/v1/games/{game_id}/events"): "listEvents",
    ("get", "/v1/games/{game_id}/stream"): "streamGame",
    ("get", "/v1/rules"): "listRules",
    ("get", "/v1/rules/{game}"): "getRules",
    ("get", "/healthz"): "checkLiveness",
    ("get", "/readyz"): "checkReadiness",
    ("get", "/metrics"): "getMetrics",
    ("post", "/v1/matches"): "createMatchTicket",
    ("get", "/v1/matches/{ticket_id}"): "getMatchTicket",
    ("delete", "/v1/matches/{ticket_id}"): "cancelMatchTicket",
    ("get", "/v1/matches/{ticket_id}/stream"): "streamMatchTicket",
    ("post", "/v1/games/{game_id}/leave"): "leaveGame",
    ("post", "/v1/games/{game_id}/rematch"): "rematchGame",
    ("get", "/v1/games/{game_id}/seats/{seat}/webhook"): "getSeatWebhook",
    ("post", "/v1/games/{game_id}/claim"): "claimGame",
}
VERBS = ("create", "list", "join", "get", "play", "check", "stream", "leave", "rematch", "claim", "export", "cancel")


def test_every_operation_has_a_short_stable_verb_first_id():
    """Issue 20 §3: generated clients name their methods after these (`@blp.doc(operationId=...)` on each route)."""
    spec = json.loads(SPEC.read_text())
    ids = {
        (method, path): operation.get("operationId")
        for path, item in spec["paths"].items() for method, operation in item.items() if method != "parameters"
    }
    assert {key: ids.get(key) for key in OPERATION_IDS} == OPERATION_IDS
    for key, operation_id in ids.items():
        assert operation_id is not None, f"{key}: no operationId"
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", operation_id) and operation_id.startswith(VERBS), key
    assert len(set(ids.values())) == len(ids)


def camel(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def test_views_are_a_one_of_per_game_discriminated_by_game():
    """Issue 20 §4: a view narrows by `game`: its `legal_actions` are that game's actions, its `state` that game's."""
    from engine import GAMES

    spec = json.loads(SPEC.read_text())
    schemas, paths = spec["components"]["schemas"], spec["paths"]
    for union, suffix in (("View", "View"), ("SeatedView", "SeatedView")):
        mapping = {game_id: f"#/components/schemas/{camel(game_id)}{suffix}" for game_id in GAMES}
        assert schemas[union]["discriminator"] == {"propertyName": "game", "mapping": mapping}
        assert schemas[union]["oneOf"] == [{"$ref": ref} for ref in mapping.values()]
        for game_id, ref in mapping.items():
            variant = schemas[ref.rsplit("/", 1)[1]]
            properties = variant["properties"]
            assert properties["game"]["enum"] == [game_id] and "game" in variant["required"]
            assert properties["legal_actions"]["items"] == {"$ref": f"#/components/schemas/{camel(game_id)}Action"}
            state = properties["state"]["anyOf"][0]
            assert state == {"$ref": f"#/components/schemas/{camel(game_id)}State"}
            assert schemas[f"{camel(game_id)}State"]["properties"]
        assert ("player_token" in schemas[f"Durak{suffix}"].get("properties", {})) is (union == "SeatedView")
    view_ref = {"$ref": "#/components/schemas/View"}
    assert paths["/v1/games/{game_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == view_ref
    created = paths["/v1/games"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert created == {"$ref": "#/components/schemas/SeatedView"}
    body = paths["/v1/games/{game_id}/actions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"anyOf": [{"$ref": f"#/components/schemas/{camel(game_id)}Action"} for game_id in GAMES]}


# How each popular client sees a 304: the guide's "Nothing new yet" (docs/playing.md) lists one line for each.
CLIENTS_OF_A_304 = ("curl", "requests", "httpx", "fetch", "axios", "openapi-python-client", "openapi-fetch",
                    "openapi-generator")


def test_a_long_poll_s_304_is_documented_as_nothing_new_yet():
    """Issue 20 §5: every client library shows a 304 its own way; the spec and the guide say it is the normal answer."""
    spec = json.loads(SPEC.read_text())
    not_modified = spec["paths"]["/v1/games/{game_id}"]["get"]["responses"]["304"]
    assert "nothing new yet" in not_modified["description"] and "content" not in not_modified
    assert set(not_modified["headers"]) == {"ETag"}
    playing = (SPEC.parents[1] / "docs" / "playing.md").read_text()
    section = playing.split("\n### Nothing new yet: 304\n", 1)[1].split("\n#", 1)[0]
    lines = {client: [line for line in section.splitlines() if line.startswith(f"- {client}:")]
             for client in CLIENTS_OF_A_304}
    assert {client: len(found) for client, found in lines.items()} == dict.fromkeys(CLIENTS_OF_A_304, 1)
    assert all("304" in found[0] or "None" in found[0] for found in lines.values())


def test_the_lifecycle_operations_have_ids_examples_and_their_error_codes():
    """Issue 18: leave and rematch, invitations and clocks are documented as a generated client needs them."""
    spec = json.loads(SPEC.read_text())
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    leave, rematch = paths["/v1/games/{game_id}/leave"]["post"], paths["/v1/games/{game_id}/rematch"]["post"]
    assert (leave["operationId"], rematch["operationId"]) == ("leaveGame", "rematchGame")
    assert "game_finished" in leave["responses"]["409"]["description"]
    assert "not_finished" in rematch["responses"]["409"]["description"]
    assert {"200", "201"} <= set(rematch["responses"])
    assert leave["responses"]["200"]["content"]["application/json"]["examples"]
    assert rematch["requestBody"]["content"]["application/json"]["example"] == {"seed": 7}
    seats = paths["/v1/games/{game_id}/seats"]["post"]
    assert "invite_required" in seats["responses"]["403"]["description"]
    assert "invite" in schemas["Join"]["properties"]
    assert schemas["CreateGame"]["properties"]["visibility"]["enum"] == ["public", "private"]
    assert schemas["CreateGame"]["properties"]["options"]["properties"]["clock"] == {
        "$ref": "#/components/schemas/ClockOptions"
    }
    assert {"turn_seconds", "bank_seconds", "increment_seconds", "on_timeout", "autoplay_limit"} == set(
        schemas["ClockOptions"]["properties"]
    )
    from engine import GAMES

    for game_id in GAMES:
        assert {"visibility", "clock", "rematch"} <= set(schemas[f"{camel(game_id)}View"]["required"])
        assert {"invite", "invites"} <= set(schemas[f"{camel(game_id)}SeatedView"]["properties"])
    assert {"last_seen", "clock"} <= set(schemas["SeatView"]["properties"])


def test_the_export_and_the_replay_are_documented_as_a_generated_client_needs_them():
    """Issue 41: the export is a schema of its own, also offered as text; `CreateGame` takes a `replay`."""
    spec = json.loads(SPEC.read_text())
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    export = paths["/v1/games/{game_id}/export"]["get"]
    assert export["operationId"] == "exportGame"
    content = export["responses"]["200"]["content"]
    assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/Export"}
    assert content["text/plain"]["schema"] == {"type": "string"}
    assert {"not_finished", "not_exportable"} <= set(export["responses"]["409"]["description"].split(", "))
    assert export["responses"]["406"]["description"] == "not_acceptable"
    assert set(schemas["Export"]["required"]) == {
        "format", "game", "options", "seats", "seed", "deck", "shuffled", "actions", "result"}
    assert schemas["CreateGame"]["properties"]["replay"] == {"$ref": "#/components/schemas/Export"} or schemas[
        "CreateGame"]["properties"]["replay"]["allOf"] == [{"$ref": "#/components/schemas/Export"}]
    create = paths["/v1/games"]["post"]
    assert "replay_mismatch" in create["responses"]["422"]["description"]


def test_the_webhook_is_registered_on_create_and_join_and_its_status_never_shows_the_secret():
    """Issue 41 point 2 (docs/api-additions.md "Your-turn webhooks")."""
    spec = json.loads(SPEC.read_text())
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    for request in ("CreateGame", "Join"):
        assert schemas[request]["properties"]["webhook"]["allOf"] == [{"$ref": "#/components/schemas/Webhook"}]
    assert set(schemas["Webhook"]["required"]) == {"url", "secret"}
    assert "webhook_not_allowed" in paths["/v1/games"]["post"]["responses"]["422"]["description"]
    assert "webhook_not_allowed" in paths["/v1/games/{game_id}/seats"]["post"]["responses"]["422"]["description"]
    status = paths["/v1/games/{game_id}/seats/{seat}/webhook"]["get"]
    assert status["security"] == [{"bearer": []}]
    assert "webhook_not_found" in status["responses"]["404"]["description"]
    assert set(schemas["WebhookStatus"]["properties"]) == {"url", "last_delivery"}


def test_the_claim_is_documented_with_its_option_its_view_block_and_its_error_codes():
    """Issue 41 point 4: `options.claim_after_seconds`, the view's `claim` and `POST /claim` (docs/api-additions.md)."""
    spec = json.loads(SPEC.read_text())
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    claim = paths["/v1/games/{game_id}/claim"]["post"]
    assert claim["security"] == [{"bearer": []}] and "requestBody" not in claim
    assert "not_your_claim" in claim["responses"]["403"]["description"]
    assert all(code in claim["responses"]["409"]["description"]
               for code in ("claim_too_early", "claim_not_allowed", "game_finished", "game_not_started"))
    option = schemas["CreateGame"]["properties"]["options"]["properties"]["claim_after_seconds"]
    assert (option["type"], option["minimum"], option["maximum"]) == ("integer", 30, 7 * 86400)
    assert set(schemas["Claim"]["properties"]) == {"after_seconds", "seats"}
    assert set(schemas["ClaimSeat"]["properties"]) == {"seat", "from"}
    from engine import GAMES

    for game_id in GAMES:
        view = schemas[f"{camel(game_id)}View"]
        assert "claim" in view["properties"] and "claim" not in view["required"]
