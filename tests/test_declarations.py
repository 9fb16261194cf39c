"""A game's facts are declared once, and one left out is a type error (issue 40): mypy over copies of the toy game
(tests/toy_game/), each with one fact removed, finds each one missing; the copy with all of them passes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy_game"
FACTS = {
    "rules": ("__init__.py", "    rules=rules,\n"),
    "players": ("__init__.py", "    players=players.PLAYERS,\n"),
    "rematch_rotates": ("__init__.py", "    rematch_rotates=True,"),
    "state_schema": ("__init__.py", "    state_schema=None,"),
    "easy": ("players.py", "easy=easy, "),
    "search": ("players.py", "search=SEARCH, "),
    "easy_reads_history": ("players.py", ", easy_reads_history=False"),
    "hard_moves": ("players.py", ", hard_moves=2_000"),
    "TITLE": ("rules.py", 'TITLE = "Toy"\n'),
}
"""Each fact: the file of the toy game that states it, and the text that does."""


def copy_without(target: Path, fact: str | None) -> None:
    shutil.copytree(TOY, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in target.glob("*.py"):
        path.write_text(path.read_text().replace("tests.toy_game", target.name))
    if fact is not None:
        name, text = FACTS[fact]
        source = (target / name).read_text()
        assert text in source, (fact, text)
        (target / name).write_text(re.sub(r" *#.*$", "", source.replace(text, ""), count=0, flags=re.M))


def test_each_fact_left_out_of_the_toy_game_is_a_type_error(tmp_path: Path) -> None:
    copy_without(tmp_path / "toy_whole", None)
    for fact in FACTS:
        copy_without(tmp_path / f"toy_without_{fact}", fact)
    copies = sorted(path.name for path in tmp_path.iterdir())
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), *copies],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(REPO)},
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert not [line for line in errors if line.startswith("toy_whole")], checked.stdout
    for fact in FACTS:
        # a missing argument names the fact; a rules module without TITLE is no `Game`
        said = [line for line in errors if line.startswith(f"toy_without_{fact}/")]
        assert any(f'argument "{fact}"' in line or "incompatible type Module" in line for line in said), said


def test_cardroom_games_names_packages_that_declare_a_game(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.games import BUILT_IN, by_id, declared_in
    from tests import toy_game

    assert declared_in("") == () and declared_in(" tests.toy_game ,") == (toy_game.GAME,)
    assert list(by_id((*BUILT_IN, toy_game.GAME))) == ["durak", "svoi_koziri", "tadmur", "talmut", "toy"]
    with pytest.raises(AttributeError, match="GAME"):
        declared_in("tests.toy_game.rules")
    not_a_game = types.ModuleType("not_a_game")
    not_a_game.GAME = toy_game.rules  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "not_a_game", not_a_game)
    with pytest.raises(TypeError, match="not_a_game.GAME is a module, not a GameDeclaration"):
        declared_in("not_a_game")
    with pytest.raises(ValueError, match="two games are declared as 'toy'"):
        by_id((toy_game.GAME, toy_game.GAME))
