"""Layering (STYLE.md §2): engine imports no I/O library and nothing of service or worker; service never worker."""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import grimp

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


def test_the_store_loads_no_flask():
    """service/__init__.py: the store and its parts are Flask-free (the RQ worker imports them)."""
    code = ("import sys, service.store, service.eviction, service.refusals; "
            "print(sorted(m for m in ('flask', 'flask_smorest', 'marshmallow') if m in sys.modules))")
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


def test_every_refusal_declares_its_status_and_code():
    """Issue 40 point 3: a refusal is declared where it is raised, with the status and `error` service/errors.py
    answers it with; none is left to a table there (which would import every domain module)."""
    refusals = declared_refusals()
    assert len(refusals) >= 12
    for refusal in refusals:
        assert refusal.status in range(400, 600) and refusal.error, refusal
        assert refusal.__module__ != "service.errors", refusal


def test_the_service_and_worker_import_graph_has_no_cycle():
    """Issue 40 point 3: no circle among the modules of service/ and worker/, counting every import statement,
    those inside functions and under `TYPE_CHECKING` too (grimp, import-linter's graph)."""
    graph = grimp.build_graph("service", "worker", cache_dir=None)
    imports = {module: graph.find_modules_directly_imported_by(module) & graph.modules for module in graph.modules}
    try:
        tuple(TopologicalSorter(imports).static_order())
    except CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None


def test_every_function_level_import_says_why():
    """Issue 40 point 3: an import inside a function hides nothing: the line above it or its own says why."""
    unexplained = []
    for path in [*(REPO / "service").rglob("*.py"), *(REPO / "worker").rglob("*.py")]:
        lines = path.read_text().splitlines()
        for function in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    said = [lines[node.lineno - 1], *lines[max(0, node.lineno - 3) : node.lineno - 1]]
                    if not any("#" in line for line in said):
                        unexplained.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert unexplained == []
