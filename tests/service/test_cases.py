"""Play every executable case through the HTTP API: the repository's own (tests/cases/*.json) and, where the checkout
has the team's shared folder (tests/shared.py), its cases (`CARDROOM_CASES`, default its cases/; format in its
README).

Both run through the same runner. New files are picked up without code changes;
a case for a game that does not exist yet is skipped with that reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES
from tests.shared import SHARED

REPO = Path(__file__).resolve().parents[2]
SHARED_CASES = Path(os.environ.get("CARDROOM_CASES", SHARED / "cases"))
CASE_FILES = sorted(SHARED_CASES.glob("*.json")) + sorted((REPO / "tests" / "cases").glob("*.json"))


def matches(actual: Any, expected: Any) -> bool:
    """`expected` equals `actual`, except that an expected object only needs its own keys to match."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and matches(actual[key], value) for key, value in expected.items()
        )
    return actual == expected


def includes(state: Any, key: str, value: Any) -> bool:
    """Somewhere in `state`, at any depth, `key` holds a value that `matches` `value`."""
    if isinstance(state, dict):
        if key in state and matches(state[key], value):
            return True
        return any(includes(item, key, value) for item in state.values())
    if isinstance(state, list):
        return any(includes(item, key, value) for item in state)
    return False


def canonical(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda path: path.stem)
def test_case(api, path: Path) -> None:
    play_case(api, path)


def play_case(api: Any, path: Path) -> None:
    """Play the case in `path` through `api` (tests/service/conftest.py `Api`, or any object with its `create`,
    `request`, `view` and `act`, whose answers have `status_code` and `json`), checking every step."""
    case = json.loads(path.read_text())
    if case["game"] not in GAMES:
        pytest.skip(f"game {case['game']!r} is not implemented yet")
    body: dict[str, Any] = {"options": case.get("options", {})}
    if "deck" in case:
        body["deck"] = case["deck"]
    seats = [{"kind": "human", "name": f"Seat {number}"} for number in range(case["seats"])]
    created = api.create(seats, game=case["game"], **body)
    assert created.status_code == 201, created.json
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    for number in range(1, case["seats"]):
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": f"Seat {number}"})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["player_token"])

    for index, step in enumerate(case["steps"]):
        where = f"{case['id']} step {index}: {step}"
        token = tokens[step["seat"]]
        if "action" in step:
            before = api.view(game_id).json["version"]
            response = api.act(game_id, token, step["action"])
            if "expect_error" in step:
                assert response.status_code >= 400 and response.json["error"] == step["expect_error"], (
                    where, response.json)
                assert api.view(game_id).json["version"] == before, where
            else:
                assert response.status_code < 300, (where, response.json)
            continue
        view = api.view(game_id, token).json
        legal = canonical(view["legal_actions"])
        for action in step.get("legal_includes", []):
            assert json.dumps(action, sort_keys=True) in legal, (where, view["legal_actions"])
        for action in step.get("legal_excludes", []):
            assert json.dumps(action, sort_keys=True) not in legal, (where, view["legal_actions"])
        if "legal_exact" in step:
            assert legal == canonical(step["legal_exact"]), (where, view["legal_actions"])
        for key, value in step.get("state_includes", {}).items():
            assert includes(view["state"], key, value), (where, key, view["state"])
        if "to_act" in step:
            assert view["to_act"] == step["to_act"], where
        if "status" in step:
            assert view["status"] == step["status"], where

    if "result" in case:
        result = api.view(game_id).json["result"]
        assert result is not None, case["id"]
        for key, value in case["result"].items():
            assert result[key] == value, (case["id"], key, result)
