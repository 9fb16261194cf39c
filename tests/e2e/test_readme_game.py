"""A first game as the README tells a newcomer to play it, against a running server (issue 42: a fresh clone
followed from the README alone reaches a finished game against the AI): its curl walkthrough in a shell, then its
bot in Python, each to `finished`."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.stack import REPO, Stack

pytestmark = pytest.mark.e2e

README = (REPO / "README.md").read_text()
URL = "http://127.0.0.1:8000"


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_curl_walkthrough_plays_a_game_to_its_end(stack: Stack, tmp_path: Path) -> None:
    """Every command as written (the server's address aside), in order, in one shell; the example move `6H` is
    replaced by the first of the seat's own `legal_actions`, as the README says to do, when the seat must act."""
    commands = [command.replace(URL, stack.base_url) for command in
                re.findall(r"```sh\n(.*?)```", section("Play with curl"), re.DOTALL)]
    create, keep, view, move, wait, resign = commands
    assert '{"type": "attack", "card": "6H"}' in move and "after_version=2" in wait and '"resign"' in resign

    def run(command: str) -> dict:
        script = command if command == create else f"{keep}\n{command}"  # each shell sets $GAME and $TOKEN anew
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else {}

    created = run(create)
    assert (created["status"], created["you"]) == ("active", 0)
    seen = run(view)
    if seen["legal_actions"]:
        first = next(action for action in seen["legal_actions"] if action["type"] != "resign")
        moved = run(move.replace('{"type": "attack", "card": "6H"}', json.dumps(first)))
        assert moved["version"] > seen["version"]
    after = run(wait.replace("after_version=2", f"after_version={seen['version']}"))
    assert after == {} or after["version"] > seen["version"]  # {}: the 304 of nothing new yet
    finished = run(resign)
    assert (finished["status"], finished["result"]["losers"]) == ("finished", [0])


def test_the_bot_in_python_plays_a_game_to_its_end(stack: Stack) -> None:
    example = re.search(r"```python\n(.*?)```", section("A bot in Python"), re.DOTALL).group(1)
    printed: dict = {}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(example.replace(URL, stack.base_url), "README.md", "exec"), printed)
    result = printed["view"]["result"]
    assert printed["view"]["status"] == "finished" and str(result) in output.getvalue()
    assert sorted(result["winners"] + result["losers"]) == [0, 1] or result["draw"]
