"""Every file the project writes for the user (exports, reports, merge output, campaign files,
model files) is made under a temporary name beside it and renamed into place at the end.

Why: a command killed midway (Ctrl-C, an out-of-memory kill, a full disk) must never leave a
truncated file under the final name that looks whole: a reader would trust 570 of 9,936 lines, or
a 0-byte Parquet file. ``os.replace`` within one folder is atomic, so the final name holds the
old file or the whole new one. Unlike ``cache_files.write_atomic`` (a cache may quietly fail),
errors here are raised: the user asked for this file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

TEMPORARY_SUFFIX = ".writing"  # what a killed writer leaves beside the target (never the target)


@contextlib.contextmanager
def temporary_beside(path: str | Path, *, suffix: str = TEMPORARY_SUFFIX) -> Iterator[Path]:
    """A fresh temporary path in ``path``'s folder; renamed to ``path`` when the block ends
    without an error, removed otherwise. For writers that want a path (pyarrow, SQLite)."""
    path = Path(path)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        _keep_mode(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(
    path: str | Path,
    write: Callable[..., object],
    *,
    binary: bool,
    newline: str | None = None,
    **options: Any,
) -> Path:
    """``path`` written whole through ``write(stream)`` (a text stream in UTF-8 unless
    ``binary``; ``newline`` as ``open`` takes it), under a temporary name renamed at the end."""
    path = Path(path)
    with temporary_beside(path) as temporary:
        if binary:
            with open(temporary, "wb") as stream:
                write(stream, **options)
        else:
            with open(temporary, "w", encoding="utf-8", newline=newline) as stream:
                write(stream, **options)
    return path


def write_text_atomically(path: str | Path, text: str) -> Path:
    return write_atomically(path, lambda stream: stream.write(text), binary=False)


def write_bytes_atomically(path: str | Path, data: bytes) -> Path:
    return write_atomically(path, lambda stream: stream.write(data), binary=True)


def _keep_mode(temporary: Path) -> None:
    """mkstemp makes a private file (0600); a user's export gets the usual umask mode."""
    mask = os.umask(0o022)
    os.umask(mask)
    with contextlib.suppress(OSError):
        os.chmod(temporary, 0o666 & ~mask)
