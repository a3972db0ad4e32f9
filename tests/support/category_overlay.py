"""A new category module and an edited registry, installed over the real package for one process.

Why: ``tests/docs/test_adding_a_category.py`` follows docs/adding-a-category.md literally (its
module, its registration lines) without writing into the checkout. The module is loaded from a
temporary file under the name its registration imports; the edited ``registry.py`` is loaded
from another and its categories replace the real registry's in place (every module shares that
one dict), in the edited order.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TAXONOMY = "explaincheck.core.taxonomy"


def load(name: str, path: Path) -> ModuleType:
    """Import ``path`` as module ``name`` (kept in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def install(module: str, module_path: Path, registry_path: Path) -> dict:
    """Install category module ``module`` (e.g. "dead_end") and the edited registry; returns the
    real registry's categories as they were, for ``restore``."""
    from explaincheck.core.taxonomy import registry

    load(f"{TAXONOMY}.{module}", module_path)
    edited = load(f"{TAXONOMY}._edited_registry", registry_path)
    before = dict(registry.CATEGORIES)
    registry.CATEGORIES.clear()
    registry.CATEGORIES.update(edited.CATEGORIES)
    return before


def restore(module: str, before: dict) -> None:
    """Undo ``install``."""
    from explaincheck.core.taxonomy import registry

    registry.CATEGORIES.clear()
    registry.CATEGORIES.update(before)
    for name in (f"{TAXONOMY}.{module}", f"{TAXONOMY}._edited_registry"):
        sys.modules.pop(name, None)
