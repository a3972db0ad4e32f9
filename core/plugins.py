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
from importlib.metadata import Distribution, EntryPoint, PackageNotFoundError, distributions
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


# Bounds on what an installed distribution declares. Its metadata is someone else's text, read
# into every command's start, stored with campaigns and shown in messages: a malformed or huge
# entry is one line and left out (``unreadable``), never a traceback, a flood of text, or a
# terminal escape. Python's own ``entry_points()`` raises on ONE malformed entry_points.txt
# anywhere on the path, so the distributions are read one at a time here.
MAX_METADATA_BYTES = 1 << 20  # a METADATA or entry_points.txt file (pip writes a few KB)
MAX_NAME_CHARS = 100  # a distribution's or an entry point's name
MAX_VERSION_CHARS = 64
MAX_TARGET_CHARS = 300  # an entry point's "module.path:attribute"
MAX_PROBLEM_CHARS = 300  # a plugin's own error message, as one line says it
_DISTRIBUTION_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")  # PEP 440's characters
_TARGET = re.compile(r"[A-Za-z_][\w.]*(\s*:\s*[A-Za-z_][\w.]*)?(\s*\[[\w\s,.-]*\])?")
_ENTRY_NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f=\[\]]+")  # printable, no "=" or brackets


def clipped(text: object, limit: int = 80) -> str:
    """``text`` for a message: its repr, cut to about ``limit`` characters."""
    shown = repr(str(text)[: limit + 1])
    return shown if len(str(text)) <= limit else shown[:-1] + "…" + shown[-1]


def one_line(text: object, limit: int = MAX_PROBLEM_CHARS) -> str:
    """Someone else's message as part of one line: line breaks joined, cut to ``limit``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


@dataclass(frozen=True)
class Entry:
    """One plugin entry point whose declaration was checked, with the distribution declaring it
    (what the registries and ``explaincheck plugins`` read instead of importlib's raw ones)."""

    group: str
    name: str
    value: str  # "module.path:attribute"
    source: Source
    point: EntryPoint

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def load(self) -> object:
        return self.point.load()


# Lines for installed distributions whose plugin declarations cannot be read, each said once.
UNREADABLE: list[str] = []
_ENTRIES: dict[str, list[Entry]] | None = None


def plugin_entries(group: str) -> list[Entry]:
    """The installed entry points of ``group`` that can be read, by name (so the order is the
    same everywhere); an unreadable one is one line on stderr (``unreadable``)."""
    global _ENTRIES
    if _ENTRIES is None:
        _ENTRIES = _read_installed()
    return list(_ENTRIES.get(group, ()))


def _read_installed() -> dict[str, list[Entry]]:
    found: dict[str, list[Entry]] = {group: [] for group in GROUPS}
    seen: set[str] = set()
    for dist in distributions():
        key = str(getattr(dist, "_normalized_name", "") or id(dist))
        if key in seen:  # the same distribution further down the path: the first one counts
            continue
        seen.add(key)
        try:
            text = _small_text(dist, "entry_points.txt")
            if text is None or not any(f"[{group}]" in text for group in GROUPS):
                continue  # declares no plugin of ours (most distributions)
            source = _checked_source(dist)
            points = list(dist.entry_points)
        except _Unreadable as problem:
            unreadable(str(problem))
            continue
        except Exception as error:  # importlib's own parser on a malformed file
            said = one_line(error)
            unreadable(f"{_where(dist)}: entry_points.txt is malformed (Python's reader: {said})")
            continue
        for point in points:
            if point.group in found:
                entry = _checked_entry(point, source)
                if entry is not None:
                    found[point.group].append(entry)
    return {group: sorted(items, key=lambda e: (e.name, e.value)) for group, items in found.items()}


class _Unreadable(Exception):
    """A distribution's plugin declarations cannot be used: its message is the one line."""


def unreadable(line: str) -> None:
    UNREADABLE.append(line)
    warn_once(f"installed package left out: {line}")


def _where(dist: Distribution) -> str:
    """The distribution's metadata folder, for a message (its name may be what is wrong)."""
    path = getattr(dist, "_path", None)
    return one_line(path, 200) if path is not None else "a distribution"


def _small_text(dist: Distribution, name: str) -> str | None:
    """The metadata file ``name`` of ``dist`` (None: it has none), refused when larger than
    ``MAX_METADATA_BYTES`` (looked at before reading where the file is on disk) or not UTF-8."""
    path = getattr(dist, "_path", None)
    if isinstance(path, Path):
        try:
            size = (path / name).stat().st_size
        except OSError:
            size = 0  # absent: read_text says so
        if size > MAX_METADATA_BYTES:
            raise _Unreadable(
                f"{_where(dist)}: {name} has {size} bytes (more than {MAX_METADATA_BYTES})"
            )
    try:
        text = dist.read_text(name)
    except UnicodeDecodeError as error:
        raise _Unreadable(
            f"{_where(dist)}: {name} is not UTF-8 text (byte {error.start})"
        ) from None
    except OSError as error:
        raise _Unreadable(f"{_where(dist)}: {name} cannot be read ({one_line(error)})") from None
    if text is not None and len(text) > MAX_METADATA_BYTES:
        raise _Unreadable(f"{_where(dist)}: {name} has more than {MAX_METADATA_BYTES} characters")
    return text


def _checked_source(dist: Distribution) -> Source:
    """The distribution's name and version as its METADATA gives them, each checked: a name
    that is not a package name (PEP 508) or a version that is not one is one line."""
    if _small_text(dist, "METADATA") is None:  # sizes checked before importlib reads them
        _small_text(dist, "PKG-INFO")
    metadata = dist.metadata
    name, version = metadata["Name"], metadata["Version"]
    if not is_distribution_name(name):
        raise _Unreadable(
            f"{_where(dist)}: its METADATA Name {clipped(name)} is not a package name (letters,"
            f" digits, '.', '_', '-'; at most {MAX_NAME_CHARS} characters)"
        )
    if not is_version(version):
        raise _Unreadable(
            f"{_where(dist)}: package {name}: its METADATA Version {clipped(version)} is not a"
            f" version (letters, digits, '.', '+', '!', '_', '-'; at most {MAX_VERSION_CHARS})"
        )
    location = ""
    try:
        location = str(dist.locate_file(""))  # the folder its metadata is in (site-packages)
    except Exception:  # a custom Distribution without files: no location to show
        location = ""
    return Source(normalized(name), version, location)


def _checked_entry(point: EntryPoint, source: Source) -> Entry | None:
    """``point`` as an ``Entry``, or None with one line when its name or target is malformed."""
    name, value, group = point.name, point.value, point.group
    problem = ""
    if len(name) > MAX_NAME_CHARS or not _ENTRY_NAME.fullmatch(name):
        problem = (
            f"entry point name {clipped(name)} is not a name (at most {MAX_NAME_CHARS}"
            " printable characters)"
        )
    elif len(value) > MAX_TARGET_CHARS or not _TARGET.fullmatch(value):
        problem = (
            f"entry point {name!r} = {clipped(value)} is not 'module.path:attribute'"
            f" (at most {MAX_TARGET_CHARS} characters)"
        )
    if problem:
        left_out(group, source, one_line(name, 40), problem)
        return None
    return Entry(group, name, value, source, point)


@dataclass(frozen=True)
class Offer:
    """One object a plugin's entry point gives, with where it comes from."""

    source: Source
    entry: str
    value: Any


def loaded(group: str) -> list[tuple[Entry, object]]:
    """(entry point, what it loads to) for every plugin of ``group`` that loads."""
    found: list[tuple[Entry, object]] = []
    for entry in plugin_entries(group):
        try:
            found.append((entry, entry.load()))
        except Exception as error:  # any import error of someone else's package: warn, go on
            left_out(group, entry.source, entry.name, one_line(error))
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
        source = entry.source
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if make is not None and isinstance(item, type) and issubclass(item, kind):
                try:
                    item = make(item)
                except Exception as error:  # an incomplete class: say what is missing
                    left_out(group, source, entry.name, one_line(error))
                    continue
            if isinstance(item, kind):
                offers.append(Offer(source, entry.name, item))
            else:
                left_out(group, source, entry.name, f"{clipped(item)} is not a {kind.__name__}")
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
    if len(bare) > MAX_NAME_CHARS or not _NAME.fullmatch(bare):
        problem = (
            f"{what} name {clipped(text)} cannot be an id (a letter or digit, then letters,"
            f" digits, '_', '.' or '-', at most {MAX_NAME_CHARS}; it is registered as {own}NAME)"
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
        left_out(group, source, offer.entry, problem, text[:MAX_NAME_CHARS])
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
    return (
        head if sep and rest and is_distribution_name(head) and normalized(head) == head else None
    )


def is_distribution_name(text: object) -> bool:
    """Whether ``text`` can name a package (PEP 508): what a message may tell to ``pip
    install``, whoever wrote the file it comes from."""
    return (
        isinstance(text, str)
        and len(text) <= MAX_NAME_CHARS
        and bool(_DISTRIBUTION_NAME.fullmatch(text))
    )


def is_version(text: object) -> bool:
    """Whether ``text`` can be a package's version (PEP 440's characters, bounded)."""
    return (
        isinstance(text, str) and len(text) <= MAX_VERSION_CHARS and bool(_VERSION.fullmatch(text))
    )


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
            return version if is_version(version) else None  # a file's text: checked
    return None


def install_hint(
    identifier: object, group: str, recorded: Iterable[Mapping[str, Any]] = ()
) -> str | None:
    """The one line for a plugin id (``DISTRIBUTION/NAME``) that nothing installed registers.
    Where a results file recorded the package that made it (``recorded``: its campaigns'
    ``plugins``), the line says what to install, at the recorded version; an id typed or stored
    without such a record names no package to install (``sat/x`` is a typo far more often than
    a package called ``sat``). None for a built-in's plain id."""
    distribution = namespace(identifier)
    if distribution is None:
        return None
    what = f"{KIND_WORDS[group]} {str(identifier)!r}"
    installed = installed_version(distribution)
    if not any(isinstance(e, Mapping) and e.get("distribution") == distribution for e in recorded):
        here = (
            f"no package {distribution} is installed"
            if installed is None
            else f"{distribution} {installed} does not register it"
        )
        listed = "explaincheck plugins lists them"
        return f"no installed plugin package registers {what} ({here}; {listed})"
    version = recorded_version(distribution, recorded)
    made = f"{distribution} {version}" if version else distribution
    here = (
        "which is not installed here"
        if installed is None
        else f"and {distribution} {installed} installed here does not register it"
    )
    pin = f"=={version}" if version else ""
    return f"{what} comes from the plugin package {made}, {here}: pip install '{distribution}{pin}'"


def environment_offers() -> list[Offer]:
    """One ``Offer`` per environment folder the ``explaincheck.environments`` plugins give (a
    folder holding an ``environment.toml`` is one environment; any other folder holds
    environment folders; a module stands for its own folder; a callable is called), its value
    the folder."""
    offers: list[Offer] = []
    for entry, value in loaded(ENVIRONMENTS):
        source = entry.source
        try:
            roots = _paths(value)
        except Exception as error:  # a callable of someone else's package that fails
            left_out(ENVIRONMENTS, source, entry.name, one_line(error))
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
