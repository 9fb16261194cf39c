"""Headless Chromium (Debian's `chromium` package) driven by Playwright, never a browser Playwright downloads.

The same binary and launch arguments as the browser table's tests (tests/browser/conftest.py).

A test that needs it skips only when the binary is missing, and says how to get it (`.ci/run` installs it).
Every request to an address off the loopback range is aborted and recorded, so a page that would need the network
shows it as it would on an air-gapped machine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # the browser table's tests use the same Chromium

# Playwright's waits, in milliseconds: hang guards (a page here loads in well under a second).
TIMEOUT_MS = 30_000


def chromium_binary() -> str:
    """The path of Debian's chromium (or `CHROMIUM_PATH`); skips the test when it is not installed."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH")
    return CHROMIUM


def is_loopback(url: str) -> bool:
    """Whether `url` names a host on the loopback range (127.0.0.0/8, ::1, localhost), or is no network URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        return True  # data:, blob:, about: never leave the machine
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Browser:
    """One Chromium context; `blocked` lists every non-loopback URL a page asked for (each aborted)."""

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        self.context = context
        self.blocked: list[str] = []
        context.set_default_timeout(TIMEOUT_MS)
        context.route(lambda url: not is_loopback(url), self._block)

    def _block(self, route) -> None:  # type: ignore[no-untyped-def]
        self.blocked.append(route.request.url)
        route.abort("internetdisconnected")

    def new_page(self):  # type: ignore[no-untyped-def]
        return self.context.new_page()


@contextmanager
def chromium() -> Iterator[Browser]:
    """A fresh headless Chromium with one context, closed on exit."""
    executable = chromium_binary()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context()
            yield Browser(context)
            context.close()
        finally:
            browser.close()
