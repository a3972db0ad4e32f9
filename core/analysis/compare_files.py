"""Writing a comparison's files whole: a temporary file beside the target, then a rename.

Why not ``cache_files.write_atomic``: that one gives up with a warning (a cache is optional);
a comparison the user asked for must fail loudly, so the ``OSError`` reaches the command.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> Path:
    """``text`` at ``path`` (UTF-8), never half-written; the folder is made if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path
