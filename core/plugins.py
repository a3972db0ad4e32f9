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

Why namespaced ids: what a plugin registers is known as ``DISTRIBUTION/NAME``
(``explaincheck-mylab/lost``), the distribution's normalised name (what ``pip install`` takes)
before the name the plugin declares, as Inspect AI names a package's tasks. A plugin's id can
then never equal a built-in's (built-in ids have no ``/``), a stored result names the package
that made it, and a file read where that package is missing can say what to install
(``missing_plugin``). Two things of one plugin under one id, or a name that cannot be an id, are
one line on stderr at start (``claim``), never dropped silently.

The registries (``taxonomy/registry.py``, ``backends/registry.py``, ``environments/registry.py``)
add what these give after their own. A plugin that fails to load is one warning on stderr and is
left out: a broken extra package never stops the tool. A plugin module may import the project's
modules but not the registry it extends (it is being built when the plugin loads).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import Distribution, EntryPoint, PackageNotFoundError, entry_points
from importlib.metadata import version as installed_version_of
from pathlib import Path
from types import ModuleType
from typing import Any

from explaincheck.core.notices import warn_once

CATEGORIES = "explaincheck.categories"
BACKENDS = "explaincheck.backends"
ENVIRONMENTS = "explaincheck.environments"
GROUPS = (CATEGORIES, BACKENDS, ENVIRONMENTS)
# what one thing of each group is called in messages and in a campaign's record
KIND_WORDS = {CATEGORIES: "category", BACKENDS: "backend", ENVIRONMENTS: "environment"}

SEPARATOR = "/"  # between a plugin's namespace and its name: "explaincheck-mylab/lost"
# A plugin's own name: it becomes part of command lines (``--categories a,b``, ``--llm
# PREFIX:ARG``, ``--env ID``), file names and stored keys, so no separators of those.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Source:
    """The installed distribution an entry point comes from."""

    distribution: str  # normalised name: the namespace of its ids, what ``pip install`` takes
    version: str
    location: str = ""  # where it is installed (its metadata folder), for ``explaincheck plugins``

    @property
    def named(self) -> str:
        """``explaincheck-mylab 0.1``, as messages name a package."""
        return f"{self.distribution} {self.version}"

    def record(self) -> dict[str, str]:
        """As a campaign stores it (``provenance``)."""
        return {"distribution": self.distribution, "version": self.version}


@dataclass(frozen=True)
class Claim:
    """One thing a plugin offered, and whether it was registered (``id``) or why not."""

    group: str
    source: Source
    entry: str  # the entry point's name
    name: str  # the name the plugin declared ("" when nothing loaded)
    id: str | None  # the namespaced id it is registered under; None: left out
    problem: str = ""  # why it was left out


# Every claim made while the registries were built, in order (``explaincheck plugins`` lists
# them; a registry appends through ``claim`` and ``left_out``).
CLAIMS: list[Claim] = []


def normalized(name: str) -> str:
    """A distribution name as pip compares them (PEP 503): lower case, runs of ``-_.`` -> ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def source_of(entry: EntryPoint) -> Source:
    """The distribution that declares ``entry`` (its module's top package when unknown)."""
    dist: Distribution | None = getattr(entry, "dist", None)
    if dist is None:
        return Source(normalized(entry.value.split(":")[0].split(".")[0]), "unknown")
    location = ""
    try:
        location = str(dist.locate_file(""))  # the folder its metadata is in (site-packages)
    except Exception:  # a custom Distribution without files: no location to show
        location = ""
    return Source(
        normalized(dist.metadata["Name"] or "unknown"), dist.version or "unknown", location
    )


def plugin_entries(group: str) -> list[EntryPoint]:
    """The installed entry points of ``group``, by name (so the order is the same everywhere)."""
    return sorted(entry_points(group=group), key=lambda e: (e.name, e.value))


@dataclass(frozen=True)
class Offer:
    """One object a plugin's entry point gives, with where it comes from."""

    source: Source
    entry: str
    value: Any


def loaded(group: str) -> list[tuple[EntryPoint, object]]:
    """(entry point, what it loads to) for every plugin of ``group`` that loads."""
    found: list[tuple[EntryPoint, object]] = []
    for entry in plugin_entries(group):
        try:
            found.append((entry, entry.load()))
        except Exception as error:  # any import error of someone else's package: warn, go on
            left_out(group, source_of(entry), entry.name, f"{error}")
    return found


def left_out(group: str, source: Source, entry: str, problem: str, name: str = "") -> None:
    """Record and say (one line on stderr, once) that a plugin's offer is left out."""
    CLAIMS.append(Claim(group, source, entry, name, None, problem))
    warn_once(f"plugin {entry!r} ({group}, {source.named}) left out: {problem}")


def plugin_objects(group: str, kind: type, make: Callable[[type], object] | None = None) -> list:
    """Every ``kind`` instance the plugins of ``group`` give, each as an ``Offer``: an instance,
    a list of them, or (with ``make``) a class that ``make`` instantiates. Anything else is one
    warning."""
    offers: list[Offer] = []
    for entry, value in loaded(group):
        source = source_of(entry)
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if make is not None and isinstance(item, type) and issubclass(item, kind):
                try:
                    item = make(item)
                except Exception as error:  # an incomplete class: say what is missing
                    left_out(group, source, entry.name, f"{error}")
                    continue
            if isinstance(item, kind):
                offers.append(Offer(source, entry.name, item))
            else:
                left_out(group, source, entry.name, f"{item!r} is not a {kind.__name__}")
    return offers


def claim(group: str, offer: Offer, name: object, taken: Container[str]) -> str | None:
    """The namespaced id of what ``offer`` declares as ``name`` (``DISTRIBUTION/NAME``), or
    None with one line on stderr when it cannot be registered: a name that cannot be an id, one
    that names another namespace, or an id already in ``taken`` (the registry so far: the
    built-ins and the plugins registered before it)."""
    source, what = offer.source, KIND_WORDS[group]
    own = f"{source.distribution}{SEPARATOR}"
    text = str(name)
    bare = text[len(own) :] if text.startswith(own) else text
    problem = ""
    if not _NAME.fullmatch(bare):
        problem = (
            f"{what} name {text!r} cannot be an id (a letter or digit, then letters, digits,"
            f" '_', '.' or '-'; it is registered as {own}NAME)"
        )
    identifier = own + bare
    if not problem and identifier in taken:
        first = next(
            (c for c in CLAIMS if c.group == group and c.id == identifier),
            None,
        )
        by = f" by entry point {first.entry!r}" if first else ""
        problem = f"{what} id {identifier!r} is already registered{by}"
    if problem:
        left_out(group, source, offer.entry, problem, text)
        return None
    CLAIMS.append(Claim(group, source, offer.entry, text, identifier))
    return identifier


def claims(group: str) -> list[Claim]:
    return [c for c in CLAIMS if c.group == group]


def source_of_id(identifier: str, group: str) -> Source | None:
    """The installed plugin that registered ``identifier`` in ``group`` (None: a built-in, or
    nothing installed registers it)."""
    return next((c.source for c in CLAIMS if c.group == group and c.id == identifier), None)


def namespace(identifier: object) -> str | None:
    """The distribution a plugin id names (``explaincheck-mylab/lost`` -> ``explaincheck-mylab``);
    None for a built-in's plain id."""
    text = str(identifier).strip()
    head, sep, rest = text.partition(SEPARATOR)
    return head if sep and head and rest and normalized(head) == head else None


def by_name(name: str, identifiers: Iterable[str]) -> list[str]:
    """The plugin ids whose own name is ``name`` (``lost`` -> ``explaincheck-mylab/lost``)."""
    if SEPARATOR in name:
        return []
    return [i for i in identifiers if SEPARATOR in i and i.rpartition(SEPARATOR)[2] == name]


def unique_by_name(name: str, identifiers: Iterable[str]) -> str | None:
    """The one plugin id whose own name is ``name``, for a name typed short or stored before
    ids were namespaced; None when none or several match (``ambiguous`` says which)."""
    found = by_name(name, identifiers)
    return found[0] if len(found) == 1 else None


def ambiguous(name: str, identifiers: Iterable[str], group: str) -> str | None:
    """The one line for a plugin name several installed plugins have, or None."""
    found = by_name(name, identifiers)
    if len(found) < 2:
        return None
    return (
        f"{name!r} names the {KIND_WORDS[group]} of several plugin packages"
        f" ({', '.join(found)}): give one of these ids"
    )


def installed_version(distribution: str) -> str | None:
    """The version of ``distribution`` installed here, or None."""
    try:
        return installed_version_of(distribution)
    except (PackageNotFoundError, ValueError):
        return None


def recorded_version(distribution: str, recorded: Iterable[Mapping[str, Any]]) -> str | None:
    """The version of ``distribution`` a campaign recorded (``provenance``), or None."""
    for entry in recorded:
        if isinstance(entry, Mapping) and entry.get("distribution") == distribution:
            version = entry.get("version")
            return str(version) if version else None
    return None


def install_hint(
    identifier: object, group: str, recorded: Iterable[Mapping[str, Any]] = ()
) -> str | None:
    """The one line for a plugin id (``DISTRIBUTION/NAME``) that nothing installed registers:
    the package to install, with the version a results file recorded (``recorded``: its
    campaigns' ``plugins``). None for a built-in's plain id."""
    distribution = namespace(identifier)
    if distribution is None:
        return None
    version = recorded_version(distribution, recorded)
    made = f"{distribution} {version}" if version else distribution
    installed = installed_version(distribution)
    here = (
        "which is not installed here"
        if installed is None
        else f"and {distribution} {installed} installed here does not register it"
    )
    pin = f"=={version}" if version else ""
    return (
        f"{KIND_WORDS[group]} {str(identifier)!r} comes from the plugin package {made}, {here}:"
        f" pip install '{distribution}{pin}'"
    )


def environment_offers() -> list[Offer]:
    """One ``Offer`` per environment folder the ``explaincheck.environments`` plugins give (a
    folder holding an ``environment.toml`` is one environment; any other folder holds
    environment folders; a module stands for its own folder; a callable is called), its value
    the folder."""
    offers: list[Offer] = []
    for entry, value in loaded(ENVIRONMENTS):
        source = source_of(entry)
        try:
            roots = _paths(value)
        except Exception as error:  # a callable of someone else's package that fails
            left_out(ENVIRONMENTS, source, entry.name, f"{error}")
            continue
        for root in roots:
            candidates = [root] if (root / "environment.toml").is_file() else _children(root)
            offers.extend(Offer(source, entry.name, folder) for folder in candidates)
            if not candidates:
                left_out(ENVIRONMENTS, source, entry.name, f"no environment folder in {root}")
    return offers


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
