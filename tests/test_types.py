"""mypy finds no type errors in core/ and gui/ (configuration: [tool.mypy] in pyproject.toml).

mypy reads a mirror of this checkout (tests/support/package_mirror.py), because the flat
repository only becomes ``explaincheck.core`` / ``explaincheck.gui`` through setup.py's mapping.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from mypy import api
from support.package_mirror import PYPROJECT, REPO, mirror


def checkout_key() -> str:
    return hashlib.sha256(str(REPO).encode()).hexdigest()[:12]


def test_core_and_gui_type_check(monkeypatch):
    # One mirror and cache per checkout, so a second run re-checks only the changed files.
    place = Path(tempfile.gettempdir()) / f"explaincheck-mypy-{checkout_key()}"
    root = mirror(place / "mirror")
    monkeypatch.chdir(root)  # mypy looks for -p packages from the working folder
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(PYPROJECT),
            "--cache-dir",
            str(place / "cache"),
            "--no-error-summary",
            "--show-error-codes",
            "-p",
            "explaincheck.core",
            "-p",
            "explaincheck.gui",
        ]
    )
    # Name the checkout's files, not the mirror's, so the message can be followed.
    errors = stdout.replace("explaincheck/core/", "core/").replace("explaincheck/gui/", "gui/")
    assert status == 0, f"mypy ({REPO}):\n{errors}{stderr}"
    assert stderr == ""
