"""The browser table in real Chromium (Debian's `/usr/bin/chromium`, or `CHROMIUM_PATH`) through Playwright, against
one real server for the session: gunicorn with the production config and an RQ worker (tests/e2e/stack.py).

Every page a test opens must log no console error and throw no exception. Screenshots go to
`test-artifacts/screenshots/` (README "The browser table").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chromium import CHROMIUM, MISSING
from tests.e2e.stack import Stack, start_stack, stop_stack

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


@pytest.fixture(scope="session")
def server() -> Iterator[Stack]:
    running = start_stack(label="browser")
    try:
        yield running
    finally:
        stop_stack(running)


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
