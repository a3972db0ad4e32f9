"""On-disk oracle cache keyed by (file content hash, constants, labels, method).

One JSON file per key under ``paths.cache_dir()/oracle``; a reload of an unchanged model is
instant. A corrupt or outdated entry is ignored and recomputed, never trusted.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from explaincheck.core.oracle.serialization import from_cache, to_cache
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.paths import cache_dir


def _entry(key: str) -> Path:
    folder = cache_dir() / "oracle"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{key}.json"


def load(key: str) -> OracleResult | None:
    path = _entry(key)
    if not path.exists():
        return None
    try:
        return from_cache(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError):
        return None


def store(key: str, result: OracleResult) -> None:
    path = _entry(key)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(to_cache(result), stream)
    os.replace(temporary, path)  # atomic: readers never see half a file
