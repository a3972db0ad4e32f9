"""Headless Chromium (Debian's ``chromium`` package) for tests that must see what a browser
does with a page after its scripts ran, not what a parser reads in the file."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--virtual-time-budget=10000",  # let the page's async unpacking finish before the dump
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def needs_chromium() -> pytest.MarkDecorator:
    """Skip where Chromium is missing, except under CI (``CI=true``), where ``.ci/run``
    installs it: there a missing browser fails the test instead of hiding it."""
    missing = chromium() is None and os.environ.get("CI") != "true"
    return pytest.mark.skipif(missing, reason="needs Debian's chromium (.ci/run installs it)")


def run_chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    """Chromium on ``url`` with a fresh profile folder; ``extra``: --dump-dom, --screenshot=..."""
    binary = chromium()
    assert binary, "chromium is not installed (apt-get install chromium)"
    return subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={profile}", *extra, url],
        capture_output=True,
        text=True,
        timeout=120,
    )
