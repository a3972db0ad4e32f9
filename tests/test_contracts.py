"""The import contracts of pyproject.toml ([tool.importlinter]) hold for this checkout.

import-linter runs in a fresh interpreter whose only path to ``explaincheck`` is a mirror of this
checkout (tests/support/package_mirror.py), so it reads these files, not an installed copy.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

from support.package_mirror import PYPROJECT, mirror

LINT = """
import sys
from importlinter.cli import lint_imports

sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))
"""


def run_linter(tmp_path, config=PYPROJECT):
    env = {**os.environ, "PYTHONPATH": str(mirror(tmp_path / "mirror")), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", LINT, str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )


def test_every_import_contract_is_kept(tmp_path):
    run = run_linter(tmp_path)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in output, output
    # An empty graph would keep every contract: the whole tree must have been read.
    analysed = int(re.search(r"Analyzed (\d+) files", output).group(1))
    assert analysed > 100, output


def test_the_linter_reports_a_broken_contract(tmp_path):
    """The same set-up fails when a contract is broken: here, the layers upside down."""
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "layers")
    upside_down = [f'"{layer}"' for layer in reversed(layers["layers"])]
    text = (
        "[tool.importlinter]\n"
        'root_packages = ["explaincheck"]\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "upside down"\ntype = "layers"\n'
        f"layers = [{', '.join(upside_down)}]\n"
    )
    config_file = tmp_path / "upside-down.toml"
    config_file.write_text(text)
    run = run_linter(tmp_path, config_file)
    assert run.returncode == 1
    assert "upside down BROKEN" in run.stdout
    assert "explaincheck.gui is not allowed to import explaincheck.core.cli" in run.stdout
