"""On-disk oracle cache keyed by (file content hash, constants, labels, method).

One file per key under ``paths.cache_dir()/oracle``: JSON for ordinary results, ``.npz`` for
large (columnar) ones, whose per-state facts are numpy arrays that load in seconds even at 10^6
states. The ``.npz`` is read with ``allow_pickle=False`` and holds the result's other fields as
JSON text, so neither file can run code when read. A corrupt or outdated entry is ignored and
recomputed, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from explaincheck.core.oracle.serialization import from_cache, to_cache
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.paths import cache_dir

META = "__meta__"  # the npz member with the JSON of everything but the columns


def request_hash(request: OracleRequest) -> str:
    """Identity of a request for the cache: file content, constants, labels and method."""
    content = Path(request.model_path).read_bytes()
    digest = hashlib.sha256(content)
    for part in (
        request.constants,
        request.goal_label,
        request.unsafe_label,
        request.method,
        str(request.exact_state_limit),
    ):
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def _entry(key: str, suffix: str = ".json") -> Path:
    folder = cache_dir() / "oracle"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{key}{suffix}"


def load(key: str) -> OracleResult | None:
    columnar = _entry(key, ".npz")
    if columnar.exists():
        found = load_npz(columnar)
        if found is not None:
            return found
    path = _entry(key)
    if not path.exists():
        return None
    try:
        return from_cache(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError):
        return None


def load_npz(path: Path) -> OracleResult | None:
    """A columnar entry, or None when it is corrupt, outdated or holds pickled objects."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive[META]))
            meta["columns"] = {name: archive[name] for name in archive.files if name != META}
        return from_cache(meta)
    except (ValueError, KeyError, TypeError, OSError, zipfile.BadZipFile, EOFError):
        return None


def store(key: str, result: OracleResult) -> None:
    data = to_cache(result)
    if "columns" in data:
        store_npz(_entry(key, ".npz"), data)
        return
    path = _entry(key)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(data, stream)
    os.replace(temporary, path)  # atomic: readers never see half a file


def store_npz(path: Path, data: dict) -> None:
    """Columns as arrays, the rest as one JSON string; written whole, then renamed."""
    columns = data.pop("columns")
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    with os.fdopen(handle, "wb") as stream:
        save: Any = np.savez  # numpy's stubs read ``**arrays`` as its keyword arguments
        save(stream, **columns, **{META: np.array(json.dumps(data))})
    os.replace(temporary, path)
