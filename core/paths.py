"""Where explaincheck finds its data folders and keeps its caches.

The built-in ``environments/`` and ``resources/`` folders sit next to ``core/`` in a source
checkout (editable install), inside the installed ``explaincheck`` package otherwise, and next to
the executable in a PyInstaller bundle. ``EXPLAINCHECK_DATA`` overrides all of them;
``EXPLAINCHECK_ENVIRONMENTS`` names another environments folder alone (a folder of one's own
environments, or a copy with a new one: every environment there is a built-in for that process).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


def data_root() -> Path:
    """The folder that holds ``environments/`` and ``resources/``."""
    override = os.environ.get("EXPLAINCHECK_DATA")
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    here = Path(__file__).resolve().parent
    checkout = here.parent  # core/ sits next to environments/ in a checkout
    if (checkout / "environments").is_dir():
        return checkout
    import explaincheck  # installed wheel: data folders are packages beside core

    return Path(next(iter(explaincheck.__path__)))


def environments_dir() -> Path:
    override = os.environ.get("EXPLAINCHECK_ENVIRONMENTS")
    return Path(override) if override else data_root() / "environments"


def resources_dir() -> Path:
    return data_root() / "resources"


def cache_dir() -> Path:
    """Per-user cache for oracle results; ``EXPLAINCHECK_CACHE`` overrides it (tests do)."""
    override = os.environ.get("EXPLAINCHECK_CACHE")
    base = (
        Path(override)
        if override
        else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "explaincheck"
    )
    # A read-only cache is warned about where it is written (``cache_files``).
    with contextlib.suppress(OSError):
        base.mkdir(parents=True, exist_ok=True)
    return base


def models_dir() -> Path:
    """Per-user folder for LLM model files fetched on first use (SmolLM2's GGUF file); apart
    from the oracle cache so that a test session's private cache does not fetch it again;
    ``EXPLAINCHECK_MODELS`` overrides it."""
    override = os.environ.get("EXPLAINCHECK_MODELS")
    if override:
        return Path(override)
    return (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "explaincheck" / "models"
    )
