"""The README as a newcomer runs it: the two commands are the ones CI and users run, on a fresh machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
# A virtualenv inside the commands: Debian's and Ubuntu's system Python refuse `pip install` outside one
# (externally-managed-environment, PEP 668).
VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_ci_runs_the_readme_test_command():
    ci_commands = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if "pytest" in line
                   and not line.startswith("#")]
    assert ci_commands == [VENV + "pip install -e '.[test]' && python -m pytest"]
    assert f"```sh\n{ci_commands[0]}\n```" in README
    assert f"```sh\n{VENV}pip install . && cardroom serve\n```" in README


def test_the_quick_start_says_what_a_fresh_debian_needs_and_how_long_the_suite_takes():
    quick_start = section("Quick start")
    assert "python3-venv" in quick_start
    assert re.search(r"takes about \d+.\d+ minutes on 2 cores", quick_start)


def test_card_codes_are_explained():
    """Issue 20 §11: ranks, suits, `10` as two characters, `C` in both decks, Talmut's card values."""
    cards = section("Cards")
    for text in ("`10H`", "`QS`", "`S H D C`", "`O C E B`", "two characters", "clubs", "copas", "sota", "caballo",
                 "rey", "worth"):
        assert text in cards, text


def test_the_curl_walkthrough_pretty_prints_every_answer():
    commands = re.findall(r"```sh\n(curl .*?)```", section("Play with curl"), re.DOTALL)
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
