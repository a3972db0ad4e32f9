"""This checkout as an importable ``explaincheck`` folder, for tools that read source files.

The repository is flat (``core/`` installs as ``explaincheck.core``, ``gui/`` as
``explaincheck.gui``; setup.py), and the editable install maps the names with an import hook that
import-linter's grimp and mypy cannot follow. A temporary ``explaincheck/`` folder with the
package's own ``__init__.py`` (a regular package, as installed) and ``core`` and ``gui`` symlinks
gives them the real layout, over the files of this checkout whatever is installed.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = REPO / "pyproject.toml"
MAPPED = {"core": REPO / "core", "gui": REPO / "gui"}
TOP_INIT = REPO / "packaging" / "top" / "explaincheck" / "__init__.py"  # setup.py's TOP


def mirror(root: Path) -> Path:
    """Create ``root/explaincheck/{core,gui}`` pointing at this checkout; returns ``root``."""
    package = root / "explaincheck"
    package.mkdir(parents=True, exist_ok=True)
    init = package / "__init__.py"
    if not init.is_symlink():
        init.symlink_to(TOP_INIT)
    for name, folder in MAPPED.items():
        link = package / name
        if not link.is_symlink():
            link.symlink_to(folder, target_is_directory=True)
    return root
