"""Headless Chromium (Debian's `chromium` package, or `CHROMIUM_PATH`) driven by Playwright, never a browser
Playwright downloads.

One Playwright runs for the whole test session (the `chromium_browser` fixture of tests/conftest.py): Playwright's
sync API keeps its event loop running in the main thread while it is open, so a second `sync_playwright()` in the
same process fails ("using Playwright Sync API inside the asyncio loop"). The browser table's tests
(tests/browser) and the docs/CORS tests (tests/e2e/test_browser.py) each open their own contexts on it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]
MISSING = f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH"


def launched_chromium() -> Iterator[Any]:
    """Yield one launched Playwright `Browser`, closed with its Playwright afterwards; skips without Chromium."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()
