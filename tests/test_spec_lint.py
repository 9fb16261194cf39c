"""The committed spec passes the OpenAPI linters users run: Redocly's `recommended`, Spectral's `spectral:oas`.

Both come from npm, pinned in tests/lint/package.json and package-lock.json, and are installed there with `npm ci`
the first time (no install scripts, no telemetry). Zero errors and zero warnings; the few findings that are
right for this API are switched off or ignored, each with its reason, in tests/lint/.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = REPO / "tests" / "lint"
SPEC = REPO / "openapi" / "openapi.json"
QUIET = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_UPDATE_NOTIFIER": "1"}


@pytest.fixture(scope="module")
def linters() -> Path:
    """tests/lint/node_modules/.bin, installed from the lock file when missing."""
    binaries = LINT / "node_modules" / ".bin"
    if not ((binaries / "redocly").exists() and (binaries / "spectral").exists()):
        installed = subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=LINT, env=QUIET,
            capture_output=True, text=True, timeout=600,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
    return binaries


def test_redocly_recommended_finds_nothing(linters: Path) -> None:
    linted = subprocess.run(
        [str(linters / "redocly"), "lint", "--config", "redocly.yaml", "--format", "json", str(SPEC)],
        cwd=LINT, env=QUIET, capture_output=True, text=True, timeout=300,
    )
    report = json.loads(linted.stdout)
    assert [problem["message"] for problem in report["problems"]] == [], linted.stdout
    assert (report["totals"]["errors"], report["totals"]["warnings"], linted.returncode) == (0, 0, 0)


def test_spectral_oas_finds_nothing(linters: Path) -> None:
    linted = subprocess.run(
        [str(linters / "spectral"), "lint", "--ruleset", ".spectral.yaml", "--format", "json",
         "--fail-severity", "hint", str(SPEC)],
        cwd=LINT, env=QUIET, capture_output=True, text=True, timeout=300,
    )
    # the JSON report, then (on success) a sentence on the same line
    findings, _ = json.JSONDecoder().raw_decode(linted.stdout)
    assert (findings, linted.returncode) == ([], 0), linted.stdout + linted.stderr
