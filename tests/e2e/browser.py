"""A context of the session's headless Chromium (tests/chromium.py) with no route off the machine.

Every request to an address off the loopback range is aborted and recorded, so a page that would need the network
shows it as it would on an air-gapped machine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

# Playwright's waits, in milliseconds: hang guards (a page here loads in well under a second).
TIMEOUT_MS = 30_000


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
def offline(chromium_browser: Any) -> Iterator[Browser]:
    """A fresh context of the session's Chromium, off-machine requests blocked; closed on exit."""
    context = chromium_browser.new_context()
    try:
        yield Browser(context)
    finally:
        context.close()
