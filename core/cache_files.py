"""Writing to the on-disk cache, which is only an optimisation: a read-only or full cache folder
gives one warning and the work goes on without the cache (no traceback, no leftover ``.tmp``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from explaincheck.core.notices import warn_once

_cache_warned = False


def _cannot(folder: Path, error: OSError) -> None:
    """One warning per process, however many entries fail (they all fail for the same reason)."""
    global _cache_warned
    if _cache_warned:
        return
    _cache_warned = True
    reason = error.strerror or type(error).__name__
    warn_once(f"the cache folder {folder} cannot be written ({reason}); going on without the cache")


def folder(path: Path) -> Path | None:
    """``path`` made if needed, or None (with the warning) when it cannot be made."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _cannot(path, error)
        return None
    return path


def write_atomic(
    path: Path, write: Callable[[IO], object], *, binary: bool = False, suffix: str = ".tmp"
) -> bool:
    """Write ``path`` whole through ``write(stream)`` under a temporary name, then rename it, so
    readers never see half a file; False (with the warning, the temporary removed) when the
    folder is read-only or full."""
    if folder(path.parent) is None:
        return False
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=suffix)
        with os.fdopen(
            handle, "wb" if binary else "w", encoding=None if binary else "utf-8"
        ) as stream:
            write(stream)
        os.replace(temporary, path)
        return True
    except OSError as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        _cannot(path.parent, error)
        return False
