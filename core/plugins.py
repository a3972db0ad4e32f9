"""Categories, backends and environments from other installed packages, by entry point.

Why entry points: a lab adds its own question category, answerer or model as a package of its
own (``pip install explaincheck-mylab``), with no edit to this project, as Inspect AI finds its
model providers. A package declares, in its ``pyproject.toml``::

    [project.entry-points."explaincheck.categories"]
    mylab = "explaincheck_mylab:CATEGORY"       # a Category instance or class, or a list of them
    [project.entry-points."explaincheck.backends"]
    mylab = "explaincheck_mylab:KIND"           # a BackendKind, or a list of them
    [project.entry-points."explaincheck.environments"]
    mylab = "explaincheck_mylab:ENVIRONMENTS"   # a folder of environment folders (or one)

The registries (``taxonomy/registry.py``, ``backends/registry.py``, ``environments/registry.py``)
add what these give after their own. A plugin that fails to load is one warning on stderr and is
left out: a broken extra package never stops the tool. A plugin module may import the project's
modules but not the registry it extends (it is being built when the plugin loads).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType

from explaincheck.core.notices import warn_once

CATEGORIES = "explaincheck.categories"
BACKENDS = "explaincheck.backends"
ENVIRONMENTS = "explaincheck.environments"


def plugin_entries(group: str) -> list[EntryPoint]:
    """The installed entry points of ``group``, by name (so the order is the same everywhere)."""
    return sorted(entry_points(group=group), key=lambda e: e.name)


def loaded(group: str) -> list[tuple[str, object]]:
    """(entry point name, what it loads to) for every plugin of ``group`` that loads."""
    found: list[tuple[str, object]] = []
    for entry in plugin_entries(group):
        try:
            found.append((entry.name, entry.load()))
        except Exception as error:  # any import error of someone else's package: warn, go on
            warn_once(f"plugin {entry.name!r} ({group}) left out: {error}")
    return found


def plugin_objects(group: str, kind: type, make: Callable[[type], object] | None = None) -> list:
    """Every ``kind`` instance the plugins of ``group`` give: an instance, a list of them, or
    (with ``make``) a class that ``make`` instantiates. Anything else is one warning."""
    objects: list = []
    for name, value in loaded(group):
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if make is not None and isinstance(item, type) and issubclass(item, kind):
                try:
                    item = make(item)
                except Exception as error:  # an incomplete class: say what is missing
                    warn_once(f"plugin {name!r} ({group}) left out: {error}")
                    continue
            if isinstance(item, kind):
                objects.append(item)
            else:
                warn_once(f"plugin {name!r} ({group}) left out: {item!r} is not a {kind.__name__}")
    return objects


def environment_folders() -> dict[str, Path]:
    """Environment id -> folder, for every folder the ``explaincheck.environments`` plugins
    give (a folder holding an ``environment.toml`` is one environment; any other folder holds
    environment folders). A module stands for its own folder; a callable is called."""
    folders: dict[str, Path] = {}
    for name, value in loaded(ENVIRONMENTS):
        for root in _paths(value):
            candidates = [root] if (root / "environment.toml").is_file() else _children(root)
            for folder in candidates:
                folders.setdefault(folder.name, folder)
            if not candidates:
                warn_once(f"plugin {name!r} ({ENVIRONMENTS}): no environment folder in {root}")
    return folders


def _paths(value: object) -> list[Path]:
    if isinstance(value, ModuleType) and value.__file__:
        return [Path(value.__file__).parent]
    if callable(value):
        value = value()
    items: Iterable[object] = value if isinstance(value, list | tuple) else [value]
    return [Path(str(item)) for item in items]


def _children(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "environment.toml").is_file())
