"""Plugin packages installed for one subprocess, as ``pip install`` would install them.

``plugin_package/`` is an outside plugin package (explaincheck-ferrylab: a category, a backend
and an environment), written as a lab would write one. ``install`` puts a ``dist-info`` folder
(METADATA and the ``entry_points.txt`` of a pyproject's entry points: what pip writes) into a
site folder; ``run_explaincheck`` runs the command line with site folders on PYTHONPATH (the
registries read entry points when they are imported, so a plugin needs a fresh process). The
same code can be installed under another distribution name, so that a test can make a results
file with a plugin and read it where that plugin is missing, whether or not the suite itself
runs with explaincheck-ferrylab installed (``pip install -e tests/support/plugin_package``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent / "plugin_package"
# its entry points (as its pyproject.toml declares them), to install its code under other names
ENTRY_POINTS = {
    "explaincheck.categories": {"within_k": "explaincheck_ferrylab.category:WithinMoves"},
    "explaincheck.backends": {"first": "explaincheck_ferrylab.backend:KIND"},
    "explaincheck.environments": {"ferry": "explaincheck_ferrylab:ENVIRONMENTS"},
}
# the line a results file made with it as explaincheck-gonelab 2.0 gets where that is missing
GONE = (
    "environment 'explaincheck-gonelab/ferry' comes from the plugin package explaincheck-gonelab"
    " 2.0, which is not installed here: pip install 'explaincheck-gonelab==2.0'"
)


def package_project() -> dict[str, Any]:
    """The ``[project]`` table of the plugin package's pyproject.toml."""
    return tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def write_dist_info(site: Path, name: str, version: str, groups: dict[str, dict[str, str]]) -> Path:
    """A ``NAME-VERSION.dist-info`` folder in ``site`` declaring the entry points ``groups``
    (group -> entry point name -> ``module:attribute``)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    sections = [
        f"[{group}]\n" + "".join(f"{entry} = {target}\n" for entry, target in points.items())
        for group, points in groups.items()
    ]
    info.joinpath("entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
    return info


def install(
    site: Path,
    name: str | None = None,
    version: str | None = None,
    groups: dict[str, dict[str, str]] | None = None,
) -> Path:
    """The plugin package's entry points (or ``groups``) under its name and version (or
    ``name``/``version``), installed in ``site``; its code is found on PYTHONPATH
    (``plugin_environ``)."""
    project = package_project()
    write_dist_info(
        site,
        name or project["name"],
        version or project["version"],
        groups if groups is not None else project["entry-points"],
    )
    return site


def plugin_environ(*sites: Path) -> dict[str, str]:
    """The environment of a subprocess with ``sites`` (and the plugin package's code) first on
    PYTHONPATH, so their dist-info folders are installed plugins."""
    paths = [*map(str, sites), str(PACKAGE), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def run_explaincheck(*args: str, sites: tuple[Path, ...] = ()) -> subprocess.CompletedProcess:
    """``explaincheck ARGS`` in a fresh process with the plugins installed in ``sites``."""
    command = [sys.executable, "-m", "explaincheck.core.cli.main", *args]
    return subprocess.run(
        command, capture_output=True, text=True, env=plugin_environ(*sites), timeout=600
    )


def run_python(code: str, sites: tuple[Path, ...] = ()) -> subprocess.CompletedProcess:
    """``python -c CODE`` in a fresh process with the plugins installed in ``sites``."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=plugin_environ(*sites),
        timeout=600,
    )
