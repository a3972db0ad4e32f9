"""Refuse a results file that holds schema objects explaincheck did not create.

A shared file is data, but SQLite runs its triggers on our writes: a planted ``AFTER INSERT``
trigger that deletes rows would empty a campaign while ``run`` reports it finished. Views,
extra tables and indexes are refused too: the file should hold exactly the tool's own schema, so
what a report reads is what the runner wrote. SQLite's own objects (``sqlite_*``) are allowed.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from explaincheck.core.errors import ExplaincheckError

# Tables made on first use rather than with the file (so not in ``schema.full_schema``): the
# behavioural probes' ``factor_behaviour`` (``schema.PROBE_TABLE``, written by ``probes.py``).
EXTENSION_OBJECTS = frozenset({("table", "factor_behaviour")})


@functools.cache
def own_objects(schema: tuple[str, ...]) -> frozenset[tuple[str, str]]:
    """(type, name) of every object the schema statements create, read from a scratch file."""
    memory = sqlite3.connect(":memory:")
    try:
        for statement in ";".join(schema).split(";"):
            if statement.strip():
                memory.execute(statement)
        return frozenset(memory.execute("SELECT type, name FROM sqlite_master").fetchall())
    finally:
        memory.close()


def foreign_objects(db: sqlite3.Connection, schema: Sequence[str]) -> list[tuple[str, str]]:
    """(type, name) of the objects in ``db`` that ``schema`` does not create, sorted."""
    own = own_objects(tuple(schema)) | EXTENSION_OBJECTS
    found = db.execute("SELECT type, name FROM sqlite_master").fetchall()
    return sorted(
        (kind, name)
        for kind, name in found
        if (kind, name) not in own and not name.startswith("sqlite_")
    )


def refuse_foreign(
    db: sqlite3.Connection, path: Path, schema: Sequence[str], error: type[ExplaincheckError]
) -> None:
    """Raise ``error`` with one line naming the foreign objects and how to remove them."""
    foreign = foreign_objects(db, schema)
    if not foreign:
        return
    named = ", ".join(f"{kind} {name!r}" for kind, name in foreign[:5])
    more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
    kind, name = foreign[0]
    raise error(
        f"{path} holds schema objects explaincheck did not create ({named}{more}); a trigger or"
        " view could change the results as they are written, so the file is not written to:"
        f" remove them (sqlite3 {path} 'DROP {kind.upper()} \"{name}\"') or run into a new --db"
    )
