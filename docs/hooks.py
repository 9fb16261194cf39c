"""MkDocs hooks of the documentation site (mkdocs.yml `hooks`).

The committed OpenAPI spec is published beside the API reference page, so the page's Swagger UI
(mkdocs-swagger-ui-tag) renders the very file `tests/test_openapi.py` keeps equal to what the app serves, and no
copy of it lives under docs/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "openapi" / "openapi.json"
# where the reference page (docs/reference/openapi.md) finds it: `<swagger-ui src="openapi.json"/>`
SPEC_IN_SITE = "reference/openapi.json"


def on_files(files: Files, config: Any) -> Files:
    """Add openapi/openapi.json to the site as `SPEC_IN_SITE`."""
    files.append(File.generated(config, SPEC_IN_SITE, abs_src_path=str(SPEC)))
    return files
