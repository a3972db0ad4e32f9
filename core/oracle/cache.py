"""On-disk oracle cache keyed by (file content hash, constants, labels, method).

One file per key under ``paths.cache_dir()/oracle``: JSON for ordinary results, ``.npz`` for
large (columnar) ones, whose per-state facts are numpy arrays that load in seconds even at 10^6
states. The ``.npz`` is read with ``allow_pickle=False`` and holds the result's other fields as
JSON text, so neither file can run code when read. A corrupt or outdated entry is ignored and
recomputed, never trusted. numpy is imported where a columnar entry is read or written: a small
result travels without it, and ``explaincheck oracle`` on a small model never loads it.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from explaincheck.core.cache_files import write_atomic
from explaincheck.core.oracle.serialization import from_cache, to_cache
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.paths import cache_dir

META = "__meta__"  # the npz member with the JSON of everything but the columns
# Part of every key: results computed before ill-formed models were refused are not trusted.
CHECKS = "wellformed-1"


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
        CHECKS,
        *_property_part(request),
    ):
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def _property_part(request: OracleRequest) -> tuple[str, ...]:
    """The property's part of the key: none for Pmax=? [F goal] (so ``--goal X`` and
    ``--property 'Pmax=? [F X]'`` share an entry, and every older entry stays valid)."""
    prop = request.property
    if prop is None or prop.reaches_goal:
        return ()
    return ("property", prop.key())


def _entry(key: str, suffix: str = ".json") -> Path:
    return cache_dir() / "oracle" / f"{key}{suffix}"


def load(key: str) -> OracleResult | None:
    found = load_npz(_entry(key, ".npz"))  # None when absent
    if found is not None:
        return found
    path = _entry(key)
    try:
        return from_cache(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError, OSError):  # absent, unreadable or corrupt
        return None


def load_npz(path: Path) -> OracleResult | None:
    """A columnar entry, or None when it is corrupt, outdated or holds pickled objects."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive[META]))
            meta["columns"] = {name: archive[name] for name in archive.files if name != META}
        return from_cache(meta)
    except (ValueError, KeyError, TypeError, OSError, zipfile.BadZipFile, EOFError):
        return None


def write_columns(folder: Path, data: dict) -> None:
    """A columnar result's plain data (``to_cache``) as one ``.npy`` file per column and the
    rest as JSON, in ``folder``: how the oracle's child hands a large result to its parent,
    which maps the files instead of receiving a pickled copy (``read_columns``)."""
    import numpy as np

    columns = data.pop("columns")
    names = list(columns)
    for index, name in enumerate(names):
        np.save(folder / f"{index}.npy", np.asarray(columns[name]), allow_pickle=False)
    (folder / META).write_text(json.dumps({"names": names, "meta": data}), encoding="utf-8")


def read_columns(folder: Path) -> dict:
    """``write_columns``' data back, each column memory-mapped read-only (pages are read
    when touched; the files may be removed at once: a mapping keeps its file)."""
    import numpy as np

    found = json.loads((folder / META).read_text(encoding="utf-8"))
    data = found["meta"]
    data["columns"] = {
        name: np.load(folder / f"{index}.npy", mmap_mode="r", allow_pickle=False)
        for index, name in enumerate(found["names"])
    }
    return data


def store(key: str, result: OracleResult) -> None:
    data = to_cache(result)
    if "columns" in data:
        store_npz(_entry(key, ".npz"), data)
        return
    write_atomic(_entry(key), lambda stream: json.dump(data, stream))


def store_npz(path: Path, data: dict) -> None:
    """Columns as arrays, the rest as one JSON string; written whole, then renamed."""
    import numpy as np

    columns = data.pop("columns")
    save: Any = np.savez  # numpy's stubs read ``**arrays`` as its keyword arguments
    write_atomic(
        path,
        lambda stream: save(stream, **columns, **{META: np.array(json.dumps(data))}),
        binary=True,
        suffix=".npz.tmp",
    )
