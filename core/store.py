"""The result store: one SQLite file per campaign database, one row per executed test case.

Why SQLite (stdlib) in WAL mode with a commit per execution: a campaign against slow LLMs may run
for hours and be killed at any moment; every graded execution must survive that, and the same
command run again must continue where it stopped (finished executions kept, ``error`` ones
retried, nothing duplicated). Everything is JSON text or plain columns, never pickle, so a shared
results file cannot run code when opened. The reply cache lives in the same file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import ERROR

if TYPE_CHECKING:
    import pandas as pd

# ``PRAGMA application_id`` marks our files ("EXCK"); ``PRAGMA user_version`` is the schema version.
APPLICATION_ID = 0x4558434B
SCHEMA_VERSION = 2

_SCHEMA_V1 = """
CREATE TABLE campaigns (
    id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL,
    settings TEXT NOT NULL,
    environment TEXT NOT NULL,
    model_path TEXT NOT NULL,
    model_hash TEXT NOT NULL,
    constants TEXT NOT NULL,
    planned INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE executions (
    id INTEGER PRIMARY KEY,
    exec_key TEXT NOT NULL UNIQUE,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    environment TEXT NOT NULL,
    model_hash TEXT NOT NULL,
    llm TEXT NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    category TEXT NOT NULL,
    dimension TEXT NOT NULL,
    selection TEXT NOT NULL,
    case_index INTEGER NOT NULL,
    case_key TEXT NOT NULL,
    positive INTEGER,
    states TEXT NOT NULL,
    valuations TEXT NOT NULL,
    delta REAL NOT NULL,
    repeat INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    schema TEXT NOT NULL,
    options TEXT NOT NULL,
    reply TEXT,
    thinking TEXT NOT NULL DEFAULT '',
    answer TEXT,
    expected TEXT,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    abs_error REAL,
    grading TEXT NOT NULL,
    latency REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cached INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE INDEX executions_by_verdict ON executions(verdict);
CREATE INDEX executions_by_category ON executions(category);
CREATE TABLE replies (
    backend TEXT NOT NULL,
    host TEXT NOT NULL,
    model TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    options TEXT NOT NULL,
    text TEXT NOT NULL,
    thinking TEXT NOT NULL,
    latency REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created_at TEXT NOT NULL,
    PRIMARY KEY (backend, host, model, request_hash)
);
"""

# Migrations from version N to N+1 (SQL run inside one transaction); a new file runs them all
# after ``_SCHEMA_V1``.
# v2: ``wording`` (which phrasing of the question) and ``family`` (the key of the case a
# metamorphic variant came from, else the case's own key), read from ``case_key``
# (``TestCase.key``: ``...~w1~m:swap``) as virtual columns, so no writer has to fill them and
# rows stored before v2 get wording 0 and their own key as family.
_WORDING_MARK, _VARIANT_MARK = "~w", "~m:"
MIGRATIONS: dict[int, str] = {
    1: f"""
    ALTER TABLE executions ADD COLUMN wording INTEGER GENERATED ALWAYS AS (
        CASE WHEN instr(case_key, '{_WORDING_MARK}') > 0
        THEN CAST(substr(case_key, instr(case_key, '{_WORDING_MARK}') + 2) AS INTEGER)
        ELSE 0 END) VIRTUAL;
    ALTER TABLE executions ADD COLUMN family TEXT GENERATED ALWAYS AS (
        CASE WHEN instr(case_key, '{_VARIANT_MARK}') > 0
        THEN substr(case_key, 1, instr(case_key, '{_VARIANT_MARK}') - 1)
        ELSE case_key END) VIRTUAL
    """
}

# Columns of ``executions`` that hold JSON text, decoded when rows are read back.
_JSON_COLUMNS = ("states", "valuations", "schema", "options", "answer", "expected", "grading")


def now() -> str:
    """UTC timestamp as ISO text (sortable, readable in any SQLite browser)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def to_json(value: Any) -> str:
    """Canonical JSON (sorted keys) so equal values give equal text and equal hashes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class ExecutionRecord:
    """One graded (or failed) execution, exactly as stored."""

    exec_key: str
    campaign_id: int
    environment: str
    model_hash: str
    llm: str
    category: str
    dimension: str
    selection: str
    case_index: int
    case_key: str
    positive: bool | None
    states: list[int]
    valuations: list[dict[str, Any]]
    delta: float
    repeat: int
    prompt: str
    schema: dict[str, Any]
    options: dict[str, Any]
    reply: str | None
    verdict: str
    reason: str
    grading: dict[str, Any]
    started_at: str
    finished_at: str
    thinking: str = ""
    answer: Any = None
    expected: Any = None
    abs_error: float | None = None
    host: str = ""
    latency: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached: bool = False
    error: str | None = None
    attempts: int = 1


_RECORD_FIELDS = tuple(f.name for f in fields(ExecutionRecord))
# Insert, or replace a stored ``error`` row by its retry; a finished row is never overwritten.
_INSERT_EXECUTION = (
    f"INSERT INTO executions ({', '.join(_RECORD_FIELDS)})"
    f" VALUES ({', '.join(f':{c}' for c in _RECORD_FIELDS)})"
    " ON CONFLICT(exec_key) DO UPDATE SET"
    f" {', '.join(f'{c} = excluded.{c}' for c in _RECORD_FIELDS if c != 'exec_key')}"
    f" WHERE executions.verdict = '{ERROR}'"
)


@dataclass(frozen=True)
class CachedReply:
    """A reply in the cache: what one backend/host/model answered to one exact request."""

    backend: str
    host: str
    model: str
    request_hash: str
    options: dict[str, Any]
    text: str
    thinking: str = ""
    latency: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class CampaignRow:
    """A campaign as stored (settings as JSON)."""

    id: int
    identity: str
    settings: dict[str, Any]
    environment: str
    model_hash: str
    planned: int
    status: str
    created_at: str
    updated_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class StoreError(ExplaincheckError):
    """The file is not a results database this version can read."""


class Store:
    """An open results database. Single-threaded: use it from one thread (the event loop's)."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self._db = connection

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Store:
        """Open (and create or migrate) a results database; refuse anything we cannot read."""
        path = Path(path)
        if not path.exists() and not create:
            raise StoreError(f"no results database at {path}")
        if path.exists() and path.is_dir():
            raise StoreError(f"{path} is a folder, not a results database")
        if path.parent and not path.parent.exists():
            raise StoreError(f"folder {path.parent} does not exist")
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 10000")
            _prepare(db, path)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path} is not a results database ({error})") from None
        return cls(path, db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- campaigns ----------------------------------------------------------------------------

    def begin_campaign(
        self,
        *,
        identity: str,
        settings: dict[str, Any],
        environment: str,
        model_path: str,
        model_hash: str,
        constants: str,
        planned: int,
    ) -> int:
        """The id of this campaign (the same id when the same campaign is resumed)."""
        row = self._db.execute(
            "SELECT id FROM campaigns WHERE identity = ?", (identity,)
        ).fetchone()
        stamp = now()
        with self._transaction():
            if row:
                self._db.execute(
                    "UPDATE campaigns SET updated_at = ?, status = 'running', planned = ? "
                    "WHERE id = ?",
                    (stamp, planned, row[0]),
                )
                return int(row[0])
            cursor = self._db.execute(
                "INSERT INTO campaigns (identity, settings, environment, model_path, model_hash,"
                " constants, planned, created_at, updated_at, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')",
                (
                    identity,
                    to_json(settings),
                    environment,
                    model_path,
                    model_hash,
                    constants,
                    planned,
                    stamp,
                    stamp,
                ),
            )
            return int(cursor.lastrowid)

    def end_campaign(self, campaign_id: int, status: str) -> None:
        """Mark a campaign ``finished``, ``cancelled`` or ``incomplete``."""
        with self._transaction():
            self._db.execute(
                "UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ?",
                (status, now(), campaign_id),
            )

    def campaigns(self) -> list[CampaignRow]:
        rows = self._db.execute(
            "SELECT id, identity, settings, environment, model_hash, planned, status, created_at,"
            " updated_at FROM campaigns ORDER BY id"
        ).fetchall()
        return [
            CampaignRow(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6], r[7], r[8])
            for r in rows
        ]

    # -- executions ---------------------------------------------------------------------------

    def stored(self) -> dict[str, tuple[str, int]]:
        """exec_key -> (verdict, attempts) of every stored execution (what resume skips)."""
        rows = self._db.execute("SELECT exec_key, verdict, attempts FROM executions")
        return {key: (verdict, attempts) for key, verdict, attempts in rows}

    def record(self, record: ExecutionRecord, reply: CachedReply | None = None) -> None:
        """Store one execution (and the reply it came from) in one committed transaction.

        A stored ``error`` row is replaced by its retry; a finished row is never overwritten."""
        values = {name: getattr(record, name) for name in _RECORD_FIELDS}  # shallow: fast
        for name in _JSON_COLUMNS:
            if values[name] is not None or name not in ("answer", "expected"):
                values[name] = to_json(values[name])
        values["positive"] = None if record.positive is None else int(record.positive)
        values["cached"] = int(record.cached)
        try:
            self._write_record(values, reply)
        except sqlite3.OperationalError as error:  # disk full, read-only file, locked too long
            raise StoreError(f"cannot write to {self.path}: {error}") from None

    def _write_record(self, values: dict[str, Any], reply: CachedReply | None) -> None:
        with self._transaction():
            if reply is not None:
                self._put_reply(reply)
            self._db.execute(_INSERT_EXECUTION, values)

    def update_grade(
        self,
        row_id: int,
        *,
        verdict: str,
        reason: str,
        answer: Any,
        expected: Any,
        abs_error: float | None,
        grading: dict[str, Any],
    ) -> None:
        """Replace the grade of a stored execution (re-grading without the LLM)."""
        self._db.execute(
            "UPDATE executions SET verdict = ?, reason = ?, answer = ?, expected = ?,"
            " abs_error = ?, grading = ? WHERE id = ?",
            (
                verdict,
                reason,
                None if answer is None else to_json(answer),
                None if expected is None else to_json(expected),
                abs_error,
                to_json(grading),
                row_id,
            ),
        )

    def transaction(self) -> _Transaction:
        """Group several writes (e.g. a whole re-grade) into one commit."""
        return self._transaction()

    def executions(
        self,
        *,
        verdict: str | None = None,
        category: str | None = None,
        campaign_id: int | None = None,
    ) -> list[dict[str, Any]]:
        """Stored executions as dicts (JSON columns decoded), oldest first."""
        return list(
            self.iter_executions(verdict=verdict, category=category, campaign_id=campaign_id)
        )

    def iter_executions(
        self,
        *,
        verdict: str | None = None,
        category: str | None = None,
        campaign_id: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        clauses, params = [], []
        for column, value in (
            ("verdict", verdict),
            ("category", category),
            ("campaign_id", campaign_id),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        cursor = self._db.execute(f"SELECT * FROM executions{where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            yield _decode(dict(zip(names, row, strict=True)))

    def count(self, verdict: str | None = None) -> int:
        if verdict is None:
            return self._db.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
        return self._db.execute(
            "SELECT COUNT(*) FROM executions WHERE verdict = ?", (verdict,)
        ).fetchone()[0]

    # -- reply cache --------------------------------------------------------------------------

    def cached_reply(
        self, backend: str, hosts: Iterable[str], model: str, request_hash: str
    ) -> CachedReply | None:
        """A reply to exactly this request from any of ``hosts`` (oldest first), if stored."""
        hosts = list(hosts)
        marks = ", ".join("?" for _ in hosts)
        row = self._db.execute(
            "SELECT backend, host, model, request_hash, options, text, thinking, latency,"
            " prompt_tokens, completion_tokens FROM replies WHERE backend = ? AND model = ?"
            f" AND request_hash = ? AND host IN ({marks}) ORDER BY created_at LIMIT 1",
            (backend, model, request_hash, *hosts),
        ).fetchone()
        if row is None:
            return None
        return CachedReply(*row[:4], json.loads(row[4]), *row[5:])

    def _put_reply(self, reply: CachedReply) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO replies (backend, host, model, request_hash, options, text,"
            " thinking, latency, prompt_tokens, completion_tokens, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                reply.backend,
                reply.host,
                reply.model,
                reply.request_hash,
                to_json(reply.options),
                reply.text,
                reply.thinking,
                reply.latency,
                reply.prompt_tokens,
                reply.completion_tokens,
                now(),
            ),
        )

    # -- helpers ------------------------------------------------------------------------------

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (nested uses join the outer transaction)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self._outer = False

    def __enter__(self) -> sqlite3.Connection:
        self._outer = not self._db.in_transaction
        if self._outer:
            self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if not self._outer:
            return
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Create a new database, or check (and migrate) an existing one."""
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    if application_id == 0 and tables == 0:
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(
            f"BEGIN IMMEDIATE; {_SCHEMA_V1}; {';'.join(MIGRATIONS.values())};"
            f" PRAGMA application_id = {APPLICATION_ID};"
            f" PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        )
        _set_wal(db)
        return
    if application_id != APPLICATION_ID:
        raise StoreError(f"{path} is not an explaincheck results database")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer explaincheck (results schema v{version}; this"
            f" version reads up to v{SCHEMA_VERSION}): upgrade explaincheck to open it"
        )
    if version < SCHEMA_VERSION:
        _migrate(db, path, version)
    _set_wal(db)


def _migrate(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring an older file up to the current schema, one version at a time, atomically."""
    steps = list(range(version, SCHEMA_VERSION))
    if any(step not in MIGRATIONS for step in steps):
        raise StoreError(
            f"{path} uses results schema v{version}, which this version cannot migrate"
            f" (it reads v{SCHEMA_VERSION}): re-run the campaign into a new --db"
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        for step in steps:
            for statement in MIGRATIONS[step].split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except sqlite3.DatabaseError:
        db.execute("ROLLBACK")
        raise


def _set_wal(db: sqlite3.Connection) -> None:
    # WAL: readers (the GUI, ``explaincheck results``) never block the running campaign.
    # synchronous=NORMAL: a commit survives the process being killed (not a power cut).
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for name in _JSON_COLUMNS:
        if row.get(name) is not None:
            row[name] = json.loads(row[name])
    if row.get("positive") is not None:
        row["positive"] = bool(row["positive"])
    row["cached"] = bool(row.get("cached"))
    return row


# -- analysis view ----------------------------------------------------------------------------

# Columns of ``results --json`` (DESIGN.md), in this order, then the extra ones.
RESULT_COLUMNS = (
    "environment",
    "llm",
    "category",
    "selection",
    "repeat",
    "states",
    "delta",
    "prompt",
    "reply",
    "answer",
    "expected",
    "verdict",
    "reason",
)
EXTRA_COLUMNS = (
    "abs_error",
    "dimension",
    "latency",
    "thinking",
    "host",
    "case_index",
    "case_key",
    "positive",
    "valuations",
    "schema",
    "options",
    "grading",
    "prompt_tokens",
    "completion_tokens",
    "cached",
    "error",
    "attempts",
    "started_at",
    "finished_at",
    "campaign_id",
    "model_hash",
    "id",
    "wording",
    "family",
)


def result_dict(row: dict[str, Any]) -> dict[str, Any]:
    """One execution in the ``results --json`` shape (contract columns first)."""
    return {name: row.get(name) for name in (*RESULT_COLUMNS, *EXTRA_COLUMNS)}


def results_frame(
    db_path: str | Path, *, filter_row: Callable[[dict[str, Any]], bool] | None = None
) -> pd.DataFrame:
    """All executions of a results database as a pandas DataFrame, one row per execution.

    Holds every ``results --json`` column plus abs_error, dimension, latency, thinking and the
    rest of the stored fields; JSON columns are decoded (``states`` is a list of ids)."""
    import pandas as pd

    with Store.open(db_path, create=False) as store:
        rows = [result_dict(r) for r in store.iter_executions() if not filter_row or filter_row(r)]
    frame = pd.DataFrame(rows, columns=[*RESULT_COLUMNS, *EXTRA_COLUMNS])
    for column in ("delta", "abs_error", "latency"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    return frame
