"""The browser table in real Chromium (Debian's `/usr/bin/chromium`, or `CHROMIUM_PATH`) through Playwright, against
one real `cardroom serve` for the session, as a new user starts it (README "Quick start": its own embedded Redis,
gunicorn with the production config and an RQ worker).

Every page a test opens must log no console error and throw no exception. Screenshots go to
`test-artifacts/screenshots/` (README "The browser table").
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.chromium import CHROMIUM, MISSING
from tests.e2e.stack import free_port

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test here `e2e` and `browser`; skip them, saying why, only when there is no Chromium."""
    missing = not Path(CHROMIUM).is_file()
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.browser)
            if missing:
                item.add_marker(pytest.mark.skip(reason=MISSING))


START_SECONDS = 120.0
"""Hang guard: `cardroom serve` answers within a few seconds here (Redis, then gunicorn importing the app)."""


@dataclass
class Served:
    """A running `cardroom serve` and where its output goes."""

    base_url: str
    process: subprocess.Popen[bytes]
    log: Path


KEPT_LOGS: list[Path] = []
"""Server logs kept because a test failed, named in the summary (a line printed at the fixture's teardown is
captured as the last test's output and lost when that test passed)."""


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say where each kept server log is."""
    for log in KEPT_LOGS:
        terminalreporter.write_line(f"tests/browser: a test failed; the server's log is kept at {log}")


@pytest.fixture(scope="session")
def server(request: pytest.FixtureRequest) -> Iterator[Served]:
    """`cardroom serve` without `REDIS_URL` on a free port, its data in a temporary folder; Ctrl-C'd afterwards.

    The folder is removed unless a test failed: then its `serve.log` (the server's, the worker's and Redis's
    output) stays, and pytest's terminal summary names it, to tell whether the server, the AI's worker or the page
    stalled.
    """
    data = Path(tempfile.mkdtemp(prefix="cardroom-browser-"))
    port = free_port()
    environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    with open(data / "serve.log", "wb") as log:  # a file, never a pipe nobody reads: its access log would block
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data / "data")],
            env=environment, process_group=0, stdout=log, stderr=subprocess.STDOUT,
        )
    served = Served(f"http://127.0.0.1:{port}", process, data / "serve.log")
    try:
        deadline = time.monotonic() + START_SECONDS
        while not ready(served.base_url):
            assert process.poll() is None and time.monotonic() < deadline, served.log.read_text()[-3000:]
            time.sleep(0.2)
        yield served
    finally:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C, as in a terminal
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if request.session.testsfailed:
            KEPT_LOGS.append(served.log)
        else:
            shutil.rmtree(data, ignore_errors=True)


def ready(base_url: str) -> bool:
    """Whether the server answers `/readyz` with 200."""
    try:
        return requests.get(f"{base_url}/readyz", timeout=5).status_code == 200
    except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still importing the app
        return False


class Console:
    """The console errors and uncaught exceptions of every page of a context."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page) -> None:  # noqa: ANN001 - playwright's Page
        page.on("console", lambda message: self.errors.append(f"{page.url}: {message.text}")
                if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: uncaught {error}"))


@pytest.fixture
def new_page(chromium_browser, server):  # noqa: ANN001, ANN201
    """`new_page(width=1440, lang="en")`: a page in a fresh context (its own storage, as another browser has)."""
    contexts = []
    console = Console()

    def make(width: int = 1440, height: int = 900, locale: str = "en-US"):  # noqa: ANN202
        context = chromium_browser.new_context(viewport={"width": width, "height": height}, locale=locale,
                                      base_url=server.base_url)
        context.set_default_timeout(60_000)  # a hang guard: a move and the AI's answer take well under a second
        contexts.append(context)
        page = context.new_page()
        console.watch(page)
        return page

    yield make
    for context in contexts:
        context.close()
    assert console.errors == []


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
