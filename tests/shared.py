"""The team's shared folder, where a checkout has one: more executable cases, and the originals of the rules and
the contract that docs/ copies (docs/rules/<game>.md, docs/API.md).

`CARDROOM_SHARED` names it; unset, the folder `shared` beside the repository. A clone alone has none: the tests
that use it then run on the repository's own files only (tests/cases), or say that there is nothing to compare.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CARDROOM_SHARED", REPO.parent / "shared"))
