"""`/guide/`: the documentation site (mkdocs.yml), served once `mkdocs build` has written it to `GUIDE_DIR`.

The built site is static files that ask nothing of another host (no web fonts; Swagger UI and search from pinned
packages), so the guide works on a machine with no network, as `/docs` does. Until it is built, `/guide/` answers
404 `not_found` saying how to build it. Like `/docs/assets/`, it is outside the spec: pages, not API operations.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, abort, redirect, request, send_from_directory
from werkzeug.security import safe_join
from werkzeug.wrappers import Response

URL = "/guide/"


def init_app(app: Flask) -> None:
    """Serve `GUIDE_DIR` under `URL`: a directory's `index.html` for the directory (mkdocs' page URLs)."""

    def guide(path: str) -> Response:
        root = Path(app.config["GUIDE_DIR"]).resolve()
        if not (root / "index.html").is_file():
            abort(404, description=f"the guide is not built: run `mkdocs build` in the clone (GUIDE_DIR={root})")
        found = safe_join(str(root), path)
        if found is None:  # a path that leaves the site
            abort(404)
        if Path(found).is_dir():
            if path and not path.endswith("/"):  # the page's relative links need the slash
                return redirect(f"{request.path}/", code=308)
            path = f"{path}index.html"
        # no caching past a rebuild of the guide: it changes with the clone, not with a release
        return send_from_directory(root, path, max_age=0)

    app.add_url_rule(URL, "guide", guide, defaults={"path": ""})
    app.add_url_rule(f"{URL}<path:path>", "guide", guide)
