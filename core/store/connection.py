"""Opening a results file: create, check and migrate it, or open it read-only; and the
``Connection`` every table's owner writes through (one-line errors, transactions, JSON text).

A file is refused in one line naming it when it is not ours, newer than this version, empty,
damaged or not writable; SQLite's own errors never reach the user as a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import JsonInputError, parse
from explaincheck.core.store import schema
from explaincheck.core.store.objects import refuse_foreign

# An older file up to this size is read through a migrated copy in memory (reading writes
# nothing); a larger one must be migrated by a run first.
MIGRATE_IN_MEMORY_UP_TO = 1 << 30


class StoreError(ExplaincheckError):
    """The file is not a results database this version can read."""


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; a nested use is a savepoint inside the outer
    transaction, so a write that fails there (a reply the database refuses) takes back only its
    own statements while the outer batch goes on (the runner commits several executions at once).
    """

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self._outer = False

    def __enter__(self) -> sqlite3.Connection:
        self._outer = not self._db.in_transaction
        self._db.execute("BEGIN IMMEDIATE" if self._outer else "SAVEPOINT nested")
        return self._db

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._outer:
            self._db.execute("ROLLBACK" if exc_type else "COMMIT")
        elif exc_type:
            self._db.execute("ROLLBACK TO nested")
            self._db.execute("RELEASE nested")
        else:
            self._db.execute("RELEASE nested")


class Connection:
    """An open results file as the table owners share it: the SQLite connection and its path,
    for the one-line errors that name the file."""

    def __init__(self, path: Path, db: sqlite3.Connection):
        self.path = path
        self.db = db

    def transaction(self) -> Transaction:
        return Transaction(self.db)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Like ``reading`` for a write: a damaged table (corrupt pages) or a failing disk is
        one line naming the file, never a traceback."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.OperationalError as error:
            raise StoreError(f"cannot write to {self.path}: {error}") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(damage_text(self.path, error)) from None

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """SQLite errors while reading become one clear line naming the file; misuse (another
        thread's or a closed connection) is a bug in the caller, never called damage."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.DatabaseError as error:
            raise StoreError(damage_text(self.path, error)) from None

    def json(self, text: object, where: str, name: str) -> Any:
        """A stored JSON text decoded; anything else is damage, named by row and column."""
        if not isinstance(text, str):
            raise StoreError(f"{self.path} is damaged: {where} has no JSON text in {name!r}")
        try:  # the one reader's bounds (depth); NaN kept: files of earlier versions hold it
            return parse(text, where, constants=True)
        except JsonInputError:
            raise StoreError(
                f"{self.path} is damaged: {where} has malformed JSON in {name!r}"
            ) from None


def open_database(path: Path, *, create: bool, readonly: bool) -> sqlite3.Connection:
    """A checked connection to ``path`` (created or migrated unless ``readonly``); see
    ``Store.open``."""
    if not path.exists() and (readonly or not create):
        raise StoreError(f"no results database at {path}")
    _check_target(path)
    if readonly:
        return open_readonly(path)
    check_writable(path)
    try:
        db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.DatabaseError as error:
        raise StoreError(f"cannot open {path}: {error}") from None
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        _prepare_retrying(db, path)
    except sqlite3.OperationalError as error:
        db.close()
        raise StoreError(f"cannot open {path}: {error}") from None
    except sqlite3.DatabaseError as error:
        db.close()
        raise StoreError(f"{path} is not a results database ({error})") from None
    except StoreError:
        db.close()
        raise
    return db


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection, checked; ``immutable=1`` when ``mode=ro`` cannot open (a WAL
    file in a folder where its ``-shm`` index cannot be created)."""
    target = quote(str(path.resolve()))
    error: sqlite3.DatabaseError | None = None
    for flags in ("mode=ro", "immutable=1"):
        try:
            db = sqlite3.connect(f"file:{target}?{flags}", uri=True, isolation_level=None)
        except sqlite3.OperationalError as failure:
            error = failure
            continue
        try:
            db.execute("PRAGMA busy_timeout = 10000")
            db = _current_schema(db, path)
            _check_existing(db, path, writable=False)
            return db
        except sqlite3.OperationalError as failure:  # cannot open the WAL index: next flags
            db.close()
            error = failure
        except sqlite3.DatabaseError as failure:
            db.close()
            raise StoreError(damage_text(path, failure)) from None
        except StoreError:
            db.close()
            raise
    raise StoreError(f"cannot read {path} ({error})")


def _current_schema(db: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    """``db``, or for a file of an older schema a migrated copy in memory: reading commands
    and the window browse an old file as it is, and never write it (the file is migrated when
    a campaign next writes into it). Beyond ``MIGRATE_IN_MEMORY_UP_TO`` bytes, the one line
    that says how to migrate it."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    ours = db.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
    if not ours or not 0 < version < schema.SCHEMA_VERSION:
        return db
    if path.stat().st_size > MIGRATE_IN_MEMORY_UP_TO:
        raise StoreError(
            f"{path} uses the older results schema v{version}: run a campaign into it once"
            " ('explaincheck run ... --db' it) to migrate it"
        )
    copy = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.backup(copy)
        _migrate(copy, path, version)
    except BaseException:
        copy.close()
        raise
    db.close()
    return copy


def _check_target(path: Path) -> None:
    """A folder, a device or a missing folder where a results file should be: one line."""
    if path.exists() and path.is_dir():
        raise StoreError(f"{path} is a folder, not a results database")
    if path.exists() and not path.is_file():
        raise StoreError(
            f"{path} is not a regular file (a device, pipe or socket): give a file for --db"
        )
    if path.parent and not path.parent.exists():
        raise StoreError(f"folder {path.parent} does not exist")


def check_writable(path: Path) -> None:
    """A clear line for a file or folder we may not write (a folder, a missing folder,
    read-only, immutable); a run asks before it plans, so a refused file is its only line."""
    _check_target(path)
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(
            f"cannot write to {path}: the file is read-only"
            " (reading commands such as 'explaincheck results' can still open it)"
        )
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(folder, os.W_OK):
        raise StoreError(
            f"cannot write to {path}: its folder {folder} is read-only"
            " (reading commands such as 'explaincheck results' can still open it)"
        )


def damage_text(path: Path, error: sqlite3.DatabaseError) -> str:
    """The one line for a SQLite error on ``path``: locked or unreadable, not ours, or damaged."""
    if isinstance(error, sqlite3.OperationalError):  # locked, I/O, read-only: not damage
        return f"cannot read {path}: {error}"
    if "not a database" in str(error):
        return f"{path} is not a results database ({error})"
    return f"{path} is damaged ({error}): restore a copy or run the campaign into a new --db"


def _prepare_retrying(db: sqlite3.Connection, path: Path, attempts: int = 6) -> None:
    """``_prepare``, tried again when SQLite says "locked" without waiting: switching a new
    file to WAL, or opening one while another process does, can fail at once instead of going
    through the busy timeout (two ``run``s starting on one new file)."""
    for attempt in range(attempts):
        try:
            _prepare(db, path)
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.05 * 2**attempt)


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Create a new database, or check (and migrate) an existing one.

    Creation is one ``BEGIN IMMEDIATE`` transaction that looks again for tables after taking
    the write lock, so two processes creating the same new file never both create it."""
    if _is_new(db):
        db.execute("PRAGMA journal_mode = WAL")  # outside a transaction, as SQLite requires
        db.execute("BEGIN IMMEDIATE")
        try:
            if _is_new(db):
                for statement in ";".join(schema.full_schema()).split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # a failed ROLLBACK must not hide the cause
                db.execute("ROLLBACK")
            raise
    _check_existing(db, path, writable=True)
    _set_wal(db)


def _is_new(db: sqlite3.Connection) -> bool:
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    tables = db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    return application_id == 0 and tables == 0


def _check_existing(db: sqlite3.Connection, path: Path, *, writable: bool) -> None:
    """Refuse a foreign, newer, empty or damaged file; migrate an older one when writable."""
    if _is_new(db):
        raise StoreError(f"{path} is empty: no results have been stored in it")
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if application_id != schema.APPLICATION_ID:
        raise StoreError(f"{path} is not an explaincheck results database")
    if version > schema.SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer explaincheck (results schema v{version}; this"
            f" version reads up to v{schema.SCHEMA_VERSION}): upgrade explaincheck to open it"
        )
    if version < schema.SCHEMA_VERSION:
        if not writable:
            raise StoreError(
                f"{path} uses the older results schema v{version}: open it once with"
                " 'explaincheck run' (or the GUI) to migrate it"
            )
        _migrate(db, path, version)
    _check_tables(db, path)
    if writable:  # a planted trigger would run on our writes (reads run none)
        refuse_foreign(db, path, schema.full_schema(), StoreError)


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Every table and column of the schema present, with its declared type."""
    for table, expected in schema.expected_tables().items():
        found = {row[1]: row[2] for row in db.execute(f"PRAGMA table_info({table})")}
        if not found:
            raise StoreError(f"{path} is damaged: the table {table!r} is missing")
        for column, kind in expected:
            if column not in found:
                raise StoreError(f"{path} is damaged: {table}.{column} is missing")
            if found[column].upper() != kind.upper():
                raise StoreError(
                    f"{path} is damaged: {table}.{column} has type {found[column] or 'none'!r},"
                    f" expected {kind!r}"
                )


def _migrate(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring an older file up to the current schema, one version at a time, atomically."""
    steps = list(range(version, schema.SCHEMA_VERSION))
    if any(step not in schema.MIGRATIONS for step in steps):
        raise StoreError(
            f"{path} uses results schema v{version}, which this version cannot migrate"
            f" (it reads v{schema.SCHEMA_VERSION}): re-run the campaign into a new --db"
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        for step in steps:
            table, first = schema.MIGRATIONS_IF_TABLE.get(step, ("", ""))
            if (
                table
                and db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
                ).fetchone()
            ):
                db.execute(first)
            for statement in schema.MIGRATIONS[step].split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
        db.execute("COMMIT")
    except sqlite3.DatabaseError as error:
        db.execute("ROLLBACK")
        if "duplicate column" in str(error) or "already exists" in str(error):
            # a later schema's tables under an older version number: said as what it is, not
            # as SQLite's "duplicate column name: wording"
            raise StoreError(
                f"{path} is marked as results schema v{version}, but its tables are of a later"
                f" version (this explaincheck reads v{schema.SCHEMA_VERSION}): its schema"
                " version was changed; restore a copy or run the campaign into a new --db"
            ) from None
        raise


def _set_wal(db: sqlite3.Connection) -> None:
    # WAL: readers (the GUI, ``explaincheck results``) never block the running campaign.
    # synchronous=NORMAL: a commit survives the process being killed (not a power cut).
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
