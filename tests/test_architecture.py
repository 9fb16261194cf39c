"""Layering (STYLE.md §2): engine imports no I/O library and nothing of service or worker; service never worker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import engine
import service.app  # noqa: F401  every module that declares a refusal
from engine.errors import GameError
from service.errors import STATUS_OF_GAME_ERROR
from service.refusals import Refusal

REPO = Path(__file__).resolve().parents[1]


def all_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *all_subclasses(sub)}
    return found


def declared_refusals() -> set[type[Refusal]]:
    """Every refusal the service declares (service/refusals.py), each in the module that raises it."""
    return all_subclasses(Refusal)


def test_import_contracts_hold():
    lint = subprocess.run(["lint-imports", "--config", str(REPO / "pyproject.toml")], cwd=REPO,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_importing_the_engine_loads_no_io_library():
    code = ("import sys, engine, engine.ai; "
            "print(sorted(m for m in ('flask', 'redis', 'rq', 'marshmallow', 'flask_smorest') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_every_game_error_has_an_http_status():
    assert all_subclasses(GameError) == set(STATUS_OF_GAME_ERROR)
    assert engine.GameError is GameError


def test_the_code_type_checks():
    """mypy over engine/, service/ and worker/: among other things it holds the search to its input type, a seat's
    `SeatView` and redacted history, never a game state (engine/ai/search.py; issue 7)."""
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "engine", "service", "worker"], cwd=REPO, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
