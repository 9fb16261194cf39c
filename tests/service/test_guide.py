"""`/guide/` (service/guide.py): the built documentation site served by the app, with no network; tests/test_docs.py
serves the real build through it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def guide(api, tmp_path: Path):
    """A site as `mkdocs build` lays one out: a page per directory, as `index.html`."""
    (tmp_path / "playing").mkdir()
    (tmp_path / "index.html").write_text("<h1>home</h1>")
    (tmp_path / "playing" / "index.html").write_text("<h1>playing</h1>")
    (tmp_path / "search.json").write_text('{"docs": []}')
    api.app.config["GUIDE_DIR"] = str(tmp_path)
    return api


def get(api, path: str) -> tuple[int, str, str | None]:
    with api.request("GET", path) as answer:
        return answer.status_code, answer.get_data(as_text=True), answer.headers.get("Location")


def test_each_page_is_its_directory_s_index_and_files_are_themselves(guide):
    assert get(guide, "/guide/") == (200, "<h1>home</h1>", None)
    assert get(guide, "/guide/playing/") == (200, "<h1>playing</h1>", None)
    assert get(guide, "/guide/search.json") == (200, '{"docs": []}', None)
    # without the slash a page's relative links would resolve one level up
    status, _, location = get(guide, "/guide/playing")
    assert (status, location) == (308, "/guide/playing/")


def test_a_missing_page_or_a_path_out_of_the_site_is_404_not_found(guide, tmp_path: Path):
    (tmp_path.parent / "secret.txt").write_text("not for the guide")
    for path in ("/guide/nothing/", "/guide/nothing.html", "/guide/../secret.txt", "/guide/%2e%2e/secret.txt"):
        status, body, _ = get(guide, path)
        assert status == 404 and "not for the guide" not in body, path


def test_an_unbuilt_guide_answers_404_saying_how_to_build_it(api, tmp_path: Path):
    api.app.config["GUIDE_DIR"] = str(tmp_path / "site")
    answer = api.request("GET", "/guide/")
    assert answer.status_code == 404
    assert answer.json["error"] == "not_found" and "mkdocs build" in answer.json["message"]
