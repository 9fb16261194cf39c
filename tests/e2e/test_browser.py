"""Cardroom in a real browser (headless Chromium, tests/e2e/browser.py) with no route off the machine."""

from __future__ import annotations

import json

import pytest
import requests

from tests.e2e.browser import chromium
from tests.e2e.stack import REPO, Stack

pytestmark = pytest.mark.e2e

METHODS = {"get", "post", "put", "patch", "delete"}


def spec_operations() -> list[tuple[str, str]]:
    spec = json.loads((REPO / "openapi" / "openapi.json").read_text())
    return [(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS]


def test_docs_show_every_operation_offline(stack: Stack) -> None:
    """Issue 20 §1: /docs works air-gapped: Swagger UI comes from the server itself, and nothing else is asked for."""
    with chromium() as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/docs", wait_until="networkidle")
        assert browser.blocked == []
        page.wait_for_selector(".opblock")
        shown = page.eval_on_selector_all(
            ".opblock",
            "blocks => blocks.map(b => [b.querySelector('.opblock-summary-method').textContent,"
            " b.querySelector('.opblock-summary-path').dataset.path])",
        )
        title = page.text_content(".info .title")
    assert sorted(map(tuple, shown)) == sorted(spec_operations())
    assert len(shown) >= 11
    assert title is not None and title.startswith("Cardroom")


def test_docs_assets_are_the_pinned_package_s(stack: Stack) -> None:
    """The page names the server's own copy of Swagger UI, the version pinned in pyproject.toml."""
    import swagger_ui_bundle

    page = requests.get(stack.base_url + "/docs", timeout=10)
    assert page.status_code == 200 and "cdn" not in page.text
    script = requests.get(stack.base_url + "/docs/assets/swagger-ui-bundle.js", timeout=10)
    assert script.status_code == 200
    assert script.content == (swagger_ui_bundle.swagger_ui_path / "swagger-ui-bundle.js").read_bytes()
    assert "swagger-ui-bundle-v2==5.31.0" in (REPO / "pyproject.toml").read_text()
