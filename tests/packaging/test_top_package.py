"""``explaincheck`` is a regular package (setup.py's TOP), so a folder named ``explaincheck`` in
the working directory (a clone of this repository, a results folder) can neither replace the
installed package nor join it as a namespace portion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import explaincheck

REPO = Path(__file__).resolve().parents[2]


def test_explaincheck_is_a_regular_package():
    assert explaincheck.__file__ is not None  # a namespace package has no file
    assert Path(explaincheck.__file__).resolve() == REPO / "packaging/top/explaincheck/__init__.py"


def test_a_folder_named_explaincheck_in_the_working_directory_is_not_imported(tmp_path):
    planted = tmp_path / "explaincheck" / "core"
    planted.mkdir(parents=True)
    (planted / "__init__.py").write_text("raise SystemExit('the planted folder was imported')\n")
    code = "import explaincheck, explaincheck.core as c; print(c.__file__, explaincheck.__path__)"
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr
    core_file, package_path = found.stdout.split(" ", 1)
    assert Path(core_file).resolve() == REPO / "core" / "__init__.py"
    assert str(tmp_path) not in package_path  # not even a namespace portion
