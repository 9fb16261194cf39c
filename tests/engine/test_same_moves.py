"""The same seed gives the same AI moves (issue 40): every level of every game, as recorded in `same_moves.json`.

tests/engine/record_same_moves.py recorded, for seeded positions of each game (Talmut at 3 seats), the move of
`random`, `easy` and `medium` for every seat to act and of `hard` at two positions per game, through
`engine.ai.choose_action` at the default budgets. The search levels are a function of the view and the seed: their
budgets are counted in work (iterations and moves applied, engine/ai/search.py `default_budget`), and the recording
played the same moves under two `PYTHONHASHSEED`s. Their wall-time caps are the one thing a loaded machine could
change, so here they are raised to a hang guard (`SAFETY_SECONDS`). A change meant to make the AI play
differently records the file anew and says which moves changed; a restructuring changes none.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.ai import search
from tests.engine.record_same_moves import RECORDED, TABLES, cases, play

RECORDS: list[dict[str, Any]] = json.loads(RECORDED.read_text())


@pytest.fixture(autouse=True)
def default_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The levels' default budgets, without tests/conftest.py's tiny cap (put back after each test)."""
    monkeypatch.setattr(search, "_cap", None)


def test_the_recording_holds_every_case() -> None:
    assert [{name: value for name, value in record.items() if name != "action"} for record in RECORDS] == list(cases())
    assert {record["level"] for record in RECORDS} == {"random", "easy", "medium", "hard"}
    assert all(sum(record["game"] == game_id and record["level"] == "hard" and record["action"] is not None
                   for record in RECORDS) == 2 for game_id, _ in TABLES)


@pytest.mark.parametrize("game_id", [game_id for game_id, _ in TABLES])
def test_every_level_plays_the_recorded_moves(game_id: str) -> None:
    records = [record for record in RECORDS if record["game"] == game_id]
    assert [play(record) for record in records] == [record["action"] for record in records]
