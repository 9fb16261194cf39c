"""The guide (mkdocs.yml, docs/) as a reader gets it: built with `mkdocs build --strict` from the repository alone.

Issue 42: every `error` the service can send is on the errors page, every path of the spec in the guide, each
game's rules page holds the very text `/rules/{game}` shows, the copies of the shared specifications are the
originals, and the built site loads nothing from another host and is served at `/guide/`.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from engine import GAMES
from service.app import create_app
from service.errors import DEFAULT_ERROR_CODES, STATUS_OF_GAME_ERROR
from service.routes.rules import describe
from service.routes.web import STATIC
from tests.shared import SHARED
from tests.test_architecture import declared_refusals

REPO = Path(__file__).resolve().parents[1]
SPEC = json.loads((REPO / "openapi" / "openapi.json").read_text())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide built with --strict into a temporary directory (a warning, e.g. a broken link, fails it)."""
    out = tmp_path_factory.mktemp("guide") / "site"
    environment = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # Material's notice about MkDocs 2.0, not a finding
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                           capture_output=True, text=True, timeout=300, env=environment)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


class TextOf(HTMLParser):
    """The text of an HTML document, its `<article>`'s only when it has one, whitespace collapsed."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0  # inside <script> or <style>
        self.in_article = 0
        self.article_parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.skipping += tag in ("script", "style")
        self.in_article += tag == "article"

    def handle_endtag(self, tag: str) -> None:
        self.skipping -= tag in ("script", "style")
        self.in_article -= tag == "article"

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)
            if self.in_article:
                self.article_parts.append(data)

    @classmethod
    def of(cls, html: str) -> str:
        parser = cls()
        parser.feed(html)
        parts = parser.article_parts or parser.parts
        # the permalink marks (¶) mkdocs adds to headings are not the text
        return " ".join(" ".join(parts).replace("¶", " ").split())


def page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8")


def emitted_error_codes() -> set[str]:
    """Every `error` the service can answer: engine errors, the refusals (service/refusals.py), the defaults of
    service/errors.py, and each literal the code passes as `error=`, to `envelope(status, code, ...)`, as an
    `"error"` key or as the fallback."""
    codes = {error.error_code for error in STATUS_OF_GAME_ERROR}
    codes |= {refusal.error for refusal in declared_refusals()} | set(DEFAULT_ERROR_CODES.values())
    for path in (REPO / "service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            literals: list[ast.expr] = []
            if isinstance(node, ast.Call):
                literals += [keyword.value for keyword in node.keywords if keyword.arg == "error"]
                if getattr(node.func, "id", None) == "envelope" and len(node.args) > 1:
                    literals.append(node.args[1])
            elif isinstance(node, ast.Dict):
                literals += [value for key, value in zip(node.keys, node.values, strict=True)
                             if isinstance(key, ast.Constant) and key.value == "error"]
            elif isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "fallback"
                                                      for target in node.targets):
                literals += [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
            codes |= {literal.value for literal in literals
                      if isinstance(literal, ast.Constant) and isinstance(literal.value, str)}
    return codes


def test_card_codes_are_explained():
    """Issue 20 §11: ranks, suits, `10` as two characters, `C` in both decks, Talmut's card values."""
    playing = (REPO / "docs" / "playing.md").read_text()
    cards = playing.split("\n## Cards\n", 1)[1].split("\n## ", 1)[0]
    for text in ("`10H`", "`QS`", "`S H D C`", "`O C E B`", "two characters", "clubs", "copas", "sota", "caballo",
                 "rey", "worth"):
        assert text in cards, text


def test_the_error_codes_found_in_the_code_are_the_known_ones():
    """The scan finds what service/errors.py and the handlers send (else it would find nothing and prove nothing)."""
    assert emitted_error_codes() >= {"illegal_action", "game_not_found", "version_conflict", "server_busy",
                                     "store_unavailable", "store_full", "precondition_failed", "rate_limited",
                                     "idempotency_key_reused", "internal_error", "error", "unauthorized"}


def test_every_error_code_is_on_the_errors_page(site: Path):
    contract = (REPO / "docs" / "API.md").read_text()
    table = contract.split("\n## Actions and errors\n", 1)[1].split("\n## ", 1)[0]
    in_contract = set(re.findall(r"`([a-z_]+)`", table.split("| status |", 1)[1].split("\n\n", 1)[0]))
    html = page(site, "errors")
    on_page = set(re.findall(r"<code>([a-z_]+)</code>", html))
    assert in_contract <= emitted_error_codes() | {"error"}, in_contract - emitted_error_codes()
    assert emitted_error_codes() | in_contract <= on_page, (emitted_error_codes() | in_contract) - on_page


def test_every_path_of_the_spec_is_in_the_guide(site: Path):
    text = TextOf.of(page(site, "playing"))
    assert [path for path in SPEC["paths"] if path not in text] == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_s_rules_page_holds_the_text_rules_game_shows(site: Path, game: str):
    """The players' rules of the guide are the file the browser's /rules/{game} loads (service/routes/web.py
    STATIC), included at build time: the two cannot differ."""
    source = (STATIC / "rules" / game / "en.html").read_text(encoding="utf-8")
    text = TextOf.of(page(site, f"games/{game}"))
    assert TextOf.of(source) in text
    assert len(TextOf.of(source)) > 1000  # the whole page of rules, not a title
    # each card of the rules keeps its code, which the guide's stylesheet shows (docs/stylesheets/cards.css)
    assert re.findall(r'data-card="(\w+)"', source) == re.findall(r'data-card="(\w+)"', page(site, f"games/{game}"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_rules_entry_names_the_specification_in_the_repository(site: Path, game: str):
    specification = describe(game)["rules"]
    assert specification == f"docs/rules/{game}.md" and (REPO / specification).is_file()
    assert (site / "rules" / game / "index.html").is_file()


@pytest.mark.parametrize("copy, original", [(f"docs/rules/{game}.md", f"rules/{game}.md") for game in sorted(GAMES)]
                         + [("docs/API.md", "API.md")])
def test_the_specifications_in_docs_are_the_shared_ones(copy: str, original: str):
    """docs/ keeps the team's specifications so that a clone stands alone; where the shared folder is beside it,
    each copy must be its original, byte for byte (copy it again after the original changes)."""
    if not SHARED.is_dir():
        pytest.skip(f"no shared folder at {SHARED} (CARDROOM_SHARED): a clone alone has only the copies")
    assert (REPO / copy).read_bytes() == (SHARED / original).read_bytes()


def test_the_reference_renders_the_docstrings_of_the_engine_protocol_and_the_ai_levels(site: Path):
    engine = TextOf.of(page(site, "reference/engine"))
    assert "Something that happened, in past tense" in engine  # engine.protocol.Event
    ai = TextOf.of(page(site, "reference/ai"))
    assert "The action the AI of level plays from view" in ai  # engine.players.choose_action
    assert "Level random : uniform over the legal actions" in ai


def test_the_api_reference_embeds_the_committed_spec(site: Path):
    assert json.loads((site / "reference" / "openapi.json").read_text()) == SPEC
    assert 'src="openapi.json"' not in page(site, "reference/openapi")  # replaced by the Swagger UI frame
    assert list(site.rglob("swagger-ui-bundle.js"))


def test_the_site_loads_nothing_from_another_host(site: Path):
    """Scripts, styles, fonts, images and frames all come from the site itself: /guide/ works with no network."""
    remote = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)="(?:https?:)?//', re.IGNORECASE)
    pages = list(site.rglob("*.html"))
    assert len(pages) > 20
    assert {str(path.relative_to(site)): remote.findall(path.read_text(encoding="utf-8")) for path in pages
            if remote.search(path.read_text(encoding="utf-8"))} == {}
    styles = "".join(path.read_text(encoding="utf-8") for path in site.rglob("*.css"))
    assert re.findall(r"@import\s+url\([\"']?https?:", styles) == []


def test_the_alerts_are_prometheus_rules_on_the_metrics_the_service_exports(tmp_path: Path):
    metrics = (REPO / "docs" / "operations" / "metrics.md").read_text()
    exported = set(re.findall(r"^\| `(cardroom_\w+)`", metrics, re.MULTILINE))
    rules = re.search(r"\n## Alerts\n.*?```yaml\n(.*?)```", metrics, re.DOTALL).group(1)
    expressions = [rule["expr"] for group in yaml.safe_load(rules)["groups"] for rule in group["rules"]]
    assert len(expressions) >= 5
    used = {re.sub(r"_bucket$", "", name) for expr in expressions for name in re.findall(r"cardroom_\w+", expr)}
    assert used <= exported, used - exported
    promtool = shutil.which("promtool")
    if promtool is None:  # .ci/run installs it (Debian's prometheus); without it the check above stands alone
        pytest.skip("promtool not installed: `apt-get install prometheus` (its promtool) checks the rules")
    (tmp_path / "rules.yml").write_text(rules)
    checked = subprocess.run([promtool, "check", "rules", str(tmp_path / "rules.yml")], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_server_serves_the_built_guide_at_guide(site: Path):
    prefix = f"test-guide-{uuid.uuid4().hex[:8]}"
    app = create_app({"REDIS_URL": os.environ["REDIS_URL"], "KEY_PREFIX": prefix, "RQ_QUEUE": prefix, "TESTING": True,
                      "RATE_LIMIT_ENABLED": False, "GUIDE_DIR": str(site)})
    try:
        client = app.test_client()
        for url, name in [("/guide/", "index.html"), ("/guide/playing/", "playing/index.html"),
                          ("/guide/reference/openapi.json", "reference/openapi.json")]:
            with client.get(url) as answer:
                assert (answer.status_code, answer.data) == (200, (site / name).read_bytes()), url
        with client.get("/guide/errors") as answer:
            assert (answer.status_code, answer.headers["Location"]) == (308, "/guide/errors/")
    finally:
        app.extensions["cardroom"].store.client.close()
