"""The README's two commands are the ones CI and users run."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci_commands = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if "pytest" in line
                   and not line.startswith("#")]
    assert ci_commands == ["pip install -e '.[test]' && python -m pytest"]
    assert f"```sh\n{ci_commands[0]}\n```" in readme
    assert "```sh\npip install . && cardroom serve\n```" in readme
