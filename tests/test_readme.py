"""The README as a newcomer runs it: a front door of at most 150 lines whose two commands are the ones CI and users
run, on a fresh machine, and whose every link leads to a file of the clone (issue 42). tests/e2e/test_readme_game.py
plays its first game and its bot against a running server; tests/test_docs.py checks the guide it links to."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
GETTING_STARTED = (REPO / "docs" / "getting-started.md").read_text()
# A virtualenv inside the commands: Debian's and Ubuntu's system Python refuse `pip install` outside one
# (externally-managed-environment, PEP 668).
VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def section(title: str, text: str = README) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_a_front_door_whose_links_stay_in_the_clone():
    assert len(README.splitlines()) <= 150
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert len(links) >= 20
    local = [link.split("#")[0] for link in links if not link.startswith(("http://", "https://"))]
    assert [link for link in local if not (REPO / link).is_file()] == []
    assert all(not link.startswith("..") for link in local)


OUTSIDE = "../" "shared"  # written apart, so that this file is no finding of its own


def test_nothing_in_the_repository_refers_to_a_folder_outside_it():
    """Issue 42: `grep -r "\\.\\./shared"` finds nothing; the tests that use the team's shared folder, where a checkout
    has one, find it through tests/shared.py (`CARDROOM_SHARED`)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    naming = set()
    for name in tracked:
        path = REPO / name
        if path.is_file() and path.suffix not in {".png", ".svg", ".ico"}:
            if OUTSIDE in path.read_text(encoding="utf-8", errors="replace"):
                naming.add(name)
    assert naming == set()


def test_ci_runs_the_readme_test_command():
    ci_commands = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if "pytest" in line
                   and not line.startswith("#")]
    assert ci_commands == [VENV + "pip install -e '.[test]' && python -m pytest"]
    for text in (README, GETTING_STARTED):
        assert f"```sh\n{ci_commands[0]}\n```" in text
        assert f"```sh\n{VENV}pip install . && cardroom serve\n```" in text


def test_the_quick_start_says_what_a_fresh_debian_needs_and_how_long_the_suite_takes():
    quick_start = section("Quick start")
    assert "python3-venv" in quick_start
    assert re.search(r"takes about \d+.\d+ minutes on 2 cores", quick_start)


def test_the_curl_walkthrough_pretty_prints_every_answer():
    for text in (README, GETTING_STARTED):
        commands = re.findall(r"```sh\n(curl .*?)```", section("Play with curl", text), re.DOTALL)
        assert len(commands) >= 5
        for command in commands:
            if "/stream" in command:  # Server-Sent Events, not one JSON document
                continue
            assert command.rstrip().endswith("| jq"), command


def test_the_bot_example_answers_help_with_its_usage():
    """`python examples/bot.py --help` prints how to call it: it took `--help` for the server's URL and failed with a
    requests traceback."""
    done = subprocess.run([sys.executable, str(REPO / "examples" / "bot.py"), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: bot.py [-h] [server]")
