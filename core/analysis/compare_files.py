"""Writing a comparison's files whole: a temporary file beside the target, then a rename.

Why not ``cache_files.write_atomic``: that one gives up with a warning (a cache is optional);
a comparison the user asked for must fail loudly, so the ``OSError`` reaches the command. It is
``atomic_files``' writer, so the file gets the umask's mode like every file the user asked for.
"""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.atomic_files import write_atomically


def write_text_atomic(path: Path, text: str) -> Path:
    """``text`` at ``path`` (UTF-8), never half-written; the folder is made if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, lambda stream: stream.write(text), binary=False, newline="")
