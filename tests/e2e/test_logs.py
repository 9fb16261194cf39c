"""Logs of the e2e stack: JSON lines with request ids, and no player token anywhere (issue 8).

The stack's gunicorn (both processes) and RQ worker write to files; after games with tokens in every kind of
request (good, wrong, malformed), the files hold no token, every gunicorn line is a JSON object, and each access
line carries the request id that the response returned in `X-Request-ID`.
"""

from __future__ import annotations

import json
import time

import pytest
import requests

from tests.e2e.stack import Stack

pytestmark = pytest.mark.e2e


def test_logs_are_json_with_request_ids_and_never_hold_a_token(stack: Stack) -> None:
    url = stack.base_url
    tokens: list[str] = []
    request_ids: list[str] = []

    def send(method: str, path: str, token: str | None = None, **kwargs) -> requests.Response:  # type: ignore[no-untyped-def]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kwargs.pop("headers", {}))
        response = requests.request(method, url + path, headers=headers, timeout=20, **kwargs)
        request_ids.append(response.headers["X-Request-ID"])
        return response

    seats = [{"kind": "human"}, {"kind": "ai", "level": "easy"}]
    created = send("POST", "/v1/games", json={"game": "durak", "seats": seats})
    game_id, token = created.json()["game_id"], created.json()["player_token"]
    tokens.append(token)
    lobby = send("POST", "/v1/games", json={"game": "durak", "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
    tokens.append(lobby["player_token"])
    tokens.append(send("POST", f"/v1/games/{lobby['game_id']}/seats", json={"name": "Bob"}).json()["player_token"])
    send("GET", f"/v1/games/{game_id}?after_version=1&wait=2", token)
    send("GET", f"/v1/games/{game_id}/events", token)
    send("POST", f"/v1/games/{game_id}/actions", token, json={"type": "attack", "card": "nope"})
    send("POST", f"/v1/games/{game_id}/actions", token[::-1], json={"type": "resign"})  # a wrong token
    send("POST", f"/v1/games/{lobby['game_id']}/actions", token, json={"type": "resign"})  # another game's
    send("POST", f"/v1/games/{game_id}/actions", token, data=b"{not json", headers={"Content-Type": "application/json"})
    send("POST", f"/v1/games/{game_id}/actions", token, json={"type": "resign"})
    mine = requests.get(url + "/v1/rules", headers={"X-Request-ID": "client-chosen-42"}, timeout=10)
    assert mine.headers["X-Request-ID"] == "client-chosen-42"
    time.sleep(0.5)  # let gunicorn flush its access lines

    logs = stack.log_text(tail_chars=10**8)
    for secret in tokens + [token[::-1]]:
        assert secret not in logs, "a player token reached the logs"
    lines = [line for line in stack.logs["gunicorn"].read_text().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line a JSON object
    logged_ids = {entry.get("request_id") for entry in entries if entry.get("logger") == "gunicorn.access"}
    assert set(request_ids) | {"client-chosen-42"} <= logged_ids
