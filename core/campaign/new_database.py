"""A results file that a failed ``run`` created is removed again, so a refused model or a typo
in ``--llm`` leaves no empty database behind (the next run would take it for a real one)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def discard_if_unused(path: str | Path) -> Iterator[None]:
    """Around everything a run does with ``path``: if the file did not exist before and the run
    fails before any campaign is stored in it, remove it (and its WAL files)."""
    path = Path(path)
    existed = path.exists() or path.is_symlink()
    try:
        yield
    except BaseException:
        if not existed and _unused(path):
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):
                    Path(f"{path}{suffix}").unlink()
        raise


def _unused(path: Path) -> bool:
    """No campaign and no execution in ``path`` (a file another process has begun a campaign
    in, or one that cannot be read, is left alone)."""
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            for table in ("campaigns", "executions"):
                if table in tables and db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                    return False
    except sqlite3.Error:
        return False
    return True
