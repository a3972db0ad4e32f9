"""The result store: one SQLite file per campaign database, one row per executed test case.

Why SQLite (stdlib) in WAL mode with a commit per execution: a campaign against slow LLMs may run
for hours and be killed at any moment; every graded execution must survive that, and the same
command run again must continue where it stopped (finished executions kept, ``error`` ones
retried, nothing duplicated). Everything is JSON text or plain columns, never pickle, so a shared
results file cannot run code when opened. The reply cache lives in the same file.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import json
import math
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from explaincheck.core.credentials import redact
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store_objects import refuse_foreign
from explaincheck.core.taxonomy.base import ERROR

if TYPE_CHECKING:
    import pandas as pd

# ``PRAGMA application_id`` marks our files ("EXCK"); ``PRAGMA user_version`` is the schema version.
APPLICATION_ID = 0x4558434B
SCHEMA_VERSION = 5

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

# The behavioural probes' table (core/campaign/probes.py), created on the first probe stored.
PROBE_TABLE = """CREATE TABLE IF NOT EXISTS factor_behaviour (
    llm TEXT NOT NULL, exec_key TEXT NOT NULL, probe TEXT NOT NULL, state INTEGER NOT NULL,
    prompt TEXT NOT NULL, reply TEXT, action TEXT,
    PRIMARY KEY (llm, exec_key, probe))"""


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
    """,
    # v3: ``reading`` (1: a case answered by reading its words, docs/method.md §4) and ``gap``
    # (the value difference that decides the case); NULL in rows stored before v3 (unknown).
    2: """
    ALTER TABLE executions ADD COLUMN reading INTEGER;
    ALTER TABLE executions ADD COLUMN gap REAL
    """,
    # v4: usage beyond prompt/completion tokens (reasoning tokens, of the completion) and the
    # structured-output mode a reply was asked with (json_schema, json_object, text; '' when
    # the backend has one way only). Old rows: NULL and ''.
    3: """
    ALTER TABLE executions ADD COLUMN reasoning_tokens INTEGER;
    ALTER TABLE executions ADD COLUMN output_mode TEXT NOT NULL DEFAULT '';
    ALTER TABLE replies ADD COLUMN reasoning_tokens INTEGER;
    ALTER TABLE replies ADD COLUMN output_mode TEXT NOT NULL DEFAULT ''
    """,
    # v5: an execution's key ends with the identity of the campaign that planned it
    # (``plan.campaign_key``), so a second campaign in the file never reuses the first one's
    # rows. Old rows get the identity of the campaign they are stored under, the behavioural
    # probes the key of their execution (first: they are found by the old key). A key that
    # already ends with its campaign's identity (rows copied from a newer file) is kept.
    4: """
    UPDATE executions SET exec_key = exec_key || '|' || (
        SELECT identity FROM campaigns WHERE campaigns.id = executions.campaign_id)
    WHERE EXISTS (SELECT 1 FROM campaigns WHERE campaigns.id = executions.campaign_id
        AND substr(executions.exec_key, -length(campaigns.identity) - 1) != '|' || identity)
    """,
}

# Statements of a migration step run first, and only where their table exists (the probes'
# table is made on the first probe stored, so most files have none).
MIGRATIONS_IF_TABLE: dict[int, tuple[str, str]] = {
    4: (
        "factor_behaviour",
        """UPDATE factor_behaviour SET exec_key = exec_key || '|' || (
        SELECT c.identity FROM executions e JOIN campaigns c ON c.id = e.campaign_id
        WHERE e.exec_key = factor_behaviour.exec_key)
    WHERE EXISTS (SELECT 1 FROM executions e JOIN campaigns c ON c.id = e.campaign_id
        WHERE e.exec_key = factor_behaviour.exec_key
        AND substr(e.exec_key, -length(c.identity) - 1) != '|' || c.identity)""",
    )
}

# Columns of ``executions`` that hold JSON text, decoded when rows are read back.
_JSON_COLUMNS = ("states", "valuations", "schema", "options", "answer", "expected", "grading")


# Key of the campaign settings that records which explaincheck ran the campaign.
VERSION_KEY = "explaincheck_version"


def software_version() -> str:
    """The installed explaincheck version (shown in reports next to the results)."""
    try:
        return importlib.metadata.version("explaincheck")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def now() -> str:
    """UTC timestamp as ISO text (sortable, readable in any SQLite browser)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def to_json(value: Any) -> str:
    """Canonical JSON (sorted keys) so equal values give equal text and equal hashes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# -- storable values: whatever a server sent, a row can be written ----------------------------

_INT64 = (-(2**63), 2**63 - 1)
_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """A string SQLite can store (UTF-8) and other tools read whole: lone surrogates and NUL
    characters (which end a TEXT value in C tools) become U+FFFD, and configured secrets are
    redacted (a server may echo the API key in its error)."""
    text = redact(text)
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def storable(value: Any) -> Any:
    """A column value SQLite can store: text cleaned, ints beyond INTEGER and non-finite
    floats become NULL (a token count of 1e29 or NaN latency is not a number we can keep)."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def storable_json(value: Any) -> Any:
    """A JSON-able value whose text can be stored and read back as standard JSON: strings
    cleaned, non-finite floats as null (JSON has no NaN), keys as text."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {storable_text(str(k)): storable_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable_json(v) for v in value]
    return value


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
    reading: bool | None = None  # a reading case (docs/method.md §4); None: not known
    gap: float | None = None  # the deciding value difference of the case, if it has one
    reasoning_tokens: int | None = None
    output_mode: str = ""


_RECORD_FIELDS = tuple(f.name for f in fields(ExecutionRecord))


@dataclass(frozen=True)
class StoredExecution(ExecutionRecord):
    """An execution read back (``Store.stored_executions``): the ``ExecutionRecord`` that went
    in, plus what the store adds: its row id and the ``wording`` and ``family`` it reads from
    ``case_key``. Being an ``ExecutionRecord``, it goes wherever one is taken."""

    id: int = 0
    wording: int = 0
    family: str = ""

    @property
    def record(self) -> ExecutionRecord:
        """The plain record (to store it elsewhere, e.g. ``merge``)."""
        return ExecutionRecord(**{name: getattr(self, name) for name in _RECORD_FIELDS})


_STORED_FIELDS = tuple(f.name for f in fields(StoredExecution))
# Text columns declared NOT NULL: a None is written as "".
_NOT_NULL_TEXT: tuple[str, ...] = (
    "prompt",
    "thinking",
    "verdict",
    "reason",
    "started_at",
    "finished_at",
)
_NOT_NULL_TEXT = (*_NOT_NULL_TEXT, "output_mode")  # v3
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
    reasoning_tokens: int | None = None
    output_mode: str = ""


# The reply part that ``Reply`` (core/backends/base.py), ``CachedReply`` and ``ExecutionRecord``
# share, by ``Reply``'s names (an ``ExecutionRecord`` keeps the text as ``reply``).
REPLY_FIELDS = (
    "text",
    "thinking",
    "latency",
    "prompt_tokens",
    "completion_tokens",
    "host",
    "cached",
    "reasoning_tokens",
    "output_mode",
)
_TEXT_FIELD: dict[type, str] = {ExecutionRecord: "reply"}
_T = TypeVar("_T")


def copy_reply(source: Any, target: type[_T], **rest: Any) -> _T:
    """A ``target`` (``Reply``, ``CachedReply`` or ``ExecutionRecord``) holding ``source``'s
    reply fields (those both have) plus ``rest``, which may override them: the one place a reply
    is copied between the three. ``source`` None is an execution without a reply (text None)."""
    names = {f.name for f in fields(target)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    if source is None:
        values[_TEXT_FIELD.get(target, "text")] = None
    else:
        for name in REPLY_FIELDS:
            there = _TEXT_FIELD.get(type(source), "text") if name == "text" else name
            here = _TEXT_FIELD.get(target, "text") if name == "text" else name
            if here in names and hasattr(source, there):
                values[here] = getattr(source, there)
    values.update(rest)
    return target(**values)


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
    """An open results database, used on the thread that opened it (SQLite refuses any other:
    a front end that runs a campaign on its own thread opens the store there)."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self._db = connection

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, readonly: bool = False) -> Store:
        """Open (and create or migrate) a results database; refuse anything we cannot read.

        ``readonly`` is for reading commands: the file is opened with ``mode=ro`` (or
        ``immutable=1`` when not even the WAL index can be made, e.g. in a read-only folder)
        and nothing is ever created or written, not even a schema into an empty file."""
        path = Path(path)
        if not path.exists() and (readonly or not create):
            raise StoreError(f"no results database at {path}")
        if path.exists() and path.is_dir():
            raise StoreError(f"{path} is a folder, not a results database")
        if path.exists() and not path.is_file():
            raise StoreError(
                f"{path} is not a regular file (a device, pipe or socket): give a file for --db"
            )
        if path.parent and not path.parent.exists():
            raise StoreError(f"folder {path.parent} does not exist")
        if readonly:
            return cls(path, _open_readonly(path))
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
        stamp = now()
        # Look up inside the write transaction: two runs starting the same campaign at once
        # must not both insert it.
        with self._writing(), self._transaction():
            row = self._db.execute(
                "SELECT id FROM campaigns WHERE identity = ? ORDER BY id LIMIT 1", (identity,)
            ).fetchone()
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
                    to_json({VERSION_KEY: software_version(), **settings}),
                    environment,
                    model_path,
                    model_hash,
                    constants,
                    planned,
                    stamp,
                    stamp,
                ),
            )
            assert cursor.lastrowid is not None  # set by every INSERT
            return cursor.lastrowid

    def end_campaign(self, campaign_id: int, status: str) -> None:
        """Mark a campaign ``finished``, ``cancelled`` or ``incomplete``."""
        with self._writing(), self._transaction():
            self._db.execute(
                "UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ?",
                (status, now(), campaign_id),
            )

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign of the file, oldest first (model path and constants in ``extra``)."""
        with self._reading():
            rows = self._db.execute(
                "SELECT id, identity, settings, environment, model_hash, planned, status,"
                " created_at, updated_at, model_path, constants FROM campaigns ORDER BY id"
            ).fetchall()
        campaigns = []
        for r in rows:
            settings = self._json(r[2], f"campaign {r[0]}", "settings")
            if not isinstance(settings, dict) or not all(isinstance(v, str) for v in r[3:5]):
                raise StoreError(f"{self.path} is damaged: campaign {r[0]} has malformed fields")
            extra = {"model_path": r[9], "constants": r[10]}
            campaigns.append(
                CampaignRow(r[0], r[1], settings, r[3], r[4], r[5], r[6], r[7], r[8], extra)
            )
        return campaigns

    def record_grading(self, grading: dict[str, Any], identity: str | None = None) -> None:
        """Record the grading settings now applied to a campaign's rows (the campaign of
        ``identity``, or every campaign of the file after a whole-file ``regrade``), so its facts
        name the rule its table was graded under."""
        with self._writing(), self._transaction():
            rows = self._db.execute(
                "SELECT id, settings FROM campaigns WHERE ? IS NULL OR identity = ?",
                (identity, identity),
            ).fetchall()
            for campaign_id, text in rows:
                settings = self._json(text, f"campaign {campaign_id}", "settings")
                if not isinstance(settings, dict) or settings.get("grading") == grading:
                    continue
                self._db.execute(
                    "UPDATE campaigns SET settings = ?, updated_at = ? WHERE id = ?",
                    (to_json({**settings, "grading": grading}), now(), campaign_id),
                )

    # -- executions ---------------------------------------------------------------------------

    def stored(self) -> dict[str, tuple[str, int]]:
        """exec_key -> (verdict, attempts) of every stored execution (what resume skips)."""
        with self._reading():
            rows = self._db.execute("SELECT exec_key, verdict, attempts FROM executions")
            return {key: (verdict, attempts) for key, verdict, attempts in rows}

    def record(self, record: ExecutionRecord, reply: CachedReply | None = None) -> None:
        """Store one execution (and the reply it came from) in one committed transaction.

        A stored ``error`` row is replaced by its retry; a finished row is never overwritten."""
        values = {name: getattr(record, name) for name in _RECORD_FIELDS}  # shallow: fast
        for name in _JSON_COLUMNS:
            if values[name] is not None or name not in ("answer", "expected"):
                values[name] = to_json(storable_json(values[name]))
        values["positive"] = None if record.positive is None else int(record.positive)
        values["reading"] = None if record.reading is None else int(record.reading)
        values["cached"] = int(record.cached)
        values = {name: storable(value) for name, value in values.items()}
        for name in _NOT_NULL_TEXT:
            if values[name] is None:  # NOT NULL text columns
                values[name] = ""
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
                storable_text(reason),
                None if answer is None else to_json(storable_json(answer)),
                None if expected is None else to_json(storable_json(expected)),
                storable(abs_error),
                to_json(storable_json(grading)),
                row_id,
            ),
        )

    def transaction(self) -> _Transaction:
        """Group several writes (e.g. a whole re-grade) into one commit."""
        return self._transaction()

    def executions(self, **filters: Any) -> list[dict[str, Any]]:
        """Stored executions as dicts (JSON columns decoded), oldest first; the filters of
        ``iter_executions``."""
        return list(self.iter_executions(**filters))

    def stored_executions(self, **filters: Any) -> list[StoredExecution]:
        """Stored executions as typed records, oldest first; the filters of ``iter_stored``."""
        return list(self.iter_stored(**filters))

    def iter_stored(self, **filters: Any) -> Iterator[StoredExecution]:
        """Stored executions as ``StoredExecution`` records, oldest first, for code that treats
        a row as the record it was (re-grading, merging, scripts); the filters of
        ``iter_executions`` but never ``lean`` (a record is whole). Checked as
        ``iter_executions`` checks them (a damaged row is a ``StoreError``)."""
        if filters.pop("lean", False):
            raise ValueError("a StoredExecution is read whole: lean is for the dict reader")
        for row in self.iter_executions(**filters):
            yield StoredExecution(**{name: row[name] for name in _STORED_FIELDS if name in row})

    def iter_executions(
        self,
        *,
        verdict: str | Iterable[str] | None = None,
        category: str | None = None,
        campaign_id: int | None = None,
        llm: str | Iterable[str] | None = None,
        row_id: int | None = None,
        lean: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """Stored executions as dicts, oldest first; ``verdict`` and ``llm`` take one value or
        several. The dict path is for readers that turn many rows into a table (``api.results``,
        the ``results`` command, the exports, ``rows_frame``): they want columns by name and skip a
        dataclass per row; code that treats a row as a record reads ``iter_stored``. ``lean``
        reads the long texts no report uses as empty (``LEAN_COLUMNS``) and replies
        cut at ``LEAN_REPLY_CHARS``, in SQL, and decodes each distinct JSON text once, so
        rows share equal JSON values (read them, never change them): ``api.results(lean=True)``.

        A damaged file (corrupt pages, malformed JSON, values of the wrong type) raises a
        ``StoreError`` naming the row, never a bare SQLite or JSON error."""
        clauses, params = [], []
        for column, value in (
            ("verdict", verdict),
            ("category", category),
            ("campaign_id", campaign_id),
            ("llm", llm),
            ("id", row_id),
        ):
            if value is None:
                continue
            if isinstance(value, str | int):
                clauses.append(f"{column} = ?")
                params.append(value)
            else:
                values = list(value)
                clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._reading():
            selected = _lean_columns(self._db) if lean else "*"
            cursor = self._db.execute(
                f"SELECT {selected} FROM executions{where} ORDER BY id", params
            )
            names = [d[0] for d in cursor.description]
            memo: dict[str, Any] | None = {} if lean else None
            for row in cursor:
                yield self._decode(dict(zip(names, row, strict=True)), memo)

    def count(self, verdict: str | None = None) -> int:
        with self._reading():
            if verdict is None:
                return self._db.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
            return self._db.execute(
                "SELECT COUNT(*) FROM executions WHERE verdict = ?", (verdict,)
            ).fetchone()[0]

    def _decode(self, row: dict[str, Any], memo: dict[str, Any] | None = None) -> dict[str, Any]:
        """JSON columns decoded (through ``memo``, text -> value, when given) and every value
        checked against its column's type."""
        where = f"execution {row.get('id')}"
        for name in _JSON_COLUMNS:
            text = row.get(name)
            if text is None:
                continue
            if memo is None:
                row[name] = self._json(text, where, name)
            elif text in memo:
                row[name] = memo[text]
            else:
                row[name] = memo[text] = self._json(text, where, name)
        for name, kinds in _ROW_TYPES.items():
            value = row.get(name)
            if not isinstance(value, kinds) or isinstance(value, bool):
                shown = type(value).__name__
                raise StoreError(f"{self.path} is damaged: {where} has a {shown} in {name!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in row["states"]):
            raise StoreError(f"{self.path} is damaged: {where} has malformed 'states'")
        for name in ("positive", "reading"):
            if row.get(name) is not None:
                row[name] = bool(row[name])
        row["cached"] = bool(row.get("cached"))
        return row

    def _json(self, text: object, where: str, name: str) -> Any:
        if not isinstance(text, str):
            raise StoreError(f"{self.path} is damaged: {where} has no JSON text in {name!r}")
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise StoreError(
                f"{self.path} is damaged: {where} has malformed JSON in {name!r}"
            ) from None

    # -- reply cache --------------------------------------------------------------------------

    def cached_reply(
        self, backend: str, hosts: Iterable[str], model: str, request_hash: str
    ) -> CachedReply | None:
        """A reply to exactly this request from any of ``hosts`` (oldest first), if stored."""
        hosts = list(hosts)
        marks = ", ".join("?" for _ in hosts)
        row = self._db.execute(
            "SELECT backend, host, model, request_hash, options, text, thinking, latency,"
            " prompt_tokens, completion_tokens, reasoning_tokens, output_mode FROM replies"
            " WHERE backend = ? AND model = ?"
            f" AND request_hash = ? AND host IN ({marks}) ORDER BY created_at LIMIT 1",
            (backend, model, request_hash, *hosts),
        ).fetchone()
        if row is None:
            return None
        return CachedReply(row[0], row[1], row[2], row[3], json.loads(row[4]), *row[5:])

    def iter_replies(self) -> Iterator[CachedReply]:
        """Every reply of the cache (for ``explaincheck merge``)."""
        with self._reading():
            rows = self._db.execute(
                "SELECT backend, host, model, request_hash, options, text, thinking, latency,"
                " prompt_tokens, completion_tokens, reasoning_tokens, output_mode FROM replies"
                " ORDER BY created_at"
            ).fetchall()
        for row in rows:
            options = self._json(row[4], "a cached reply", "options")
            yield CachedReply(row[0], row[1], row[2], row[3], options, *row[5:])

    def put_replies(self, replies: Iterable[CachedReply]) -> None:
        """Add replies to the cache (one already there is kept), in one transaction."""
        with self._transaction():
            for reply in replies:
                self._put_reply(reply)

    def reply_hashes(self) -> set[str]:
        """The request hashes of every stored reply (one query, so that a run asks the
        database only about requests that may be there)."""
        with self._reading():
            return {row[0] for row in self._db.execute("SELECT DISTINCT request_hash FROM replies")}

    def _put_reply(self, reply: CachedReply) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO replies (backend, host, model, request_hash, options, text,"
            " thinking, latency, prompt_tokens, completion_tokens, created_at,"
            " reasoning_tokens, output_mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            tuple(
                storable(value)
                for value in (
                    reply.backend,
                    reply.host,
                    reply.model,
                    reply.request_hash,
                    to_json(storable_json(reply.options)),
                    reply.text,
                    reply.thinking,
                    reply.latency,
                    reply.prompt_tokens,
                    reply.completion_tokens,
                    now(),
                    reply.reasoning_tokens,
                    reply.output_mode,
                )
            ),
        )

    # -- behavioural probes (table ``factor_behaviour``, core/campaign/probes.py) -----------

    def answered_probes(self, llm: str, exec_key: str) -> set[str]:
        """The probe names of one execution that already have an answered action."""
        with self._writing(), self._transaction():
            self._db.execute(PROBE_TABLE)
        with self._reading():
            rows = self._db.execute(
                "SELECT probe FROM factor_behaviour"
                " WHERE llm = ? AND exec_key = ? AND action IS NOT NULL",
                (llm, exec_key),
            )
            return {row[0] for row in rows}

    def record_probe(
        self,
        llm: str,
        exec_key: str,
        probe: str,
        state: int,
        prompt: str,
        reply: str | None,
        action: str | None,
    ) -> None:
        """Store one behavioural probe's reply (cleaned like every reply) in one commit."""
        values = [storable(v) for v in (llm, exec_key, probe, state, prompt, reply, action)]
        with self._writing(), self._transaction():
            self._db.execute(PROBE_TABLE)
            self._db.execute(
                "INSERT OR REPLACE INTO factor_behaviour VALUES (?, ?, ?, ?, ?, ?, ?)", values
            )

    # -- helpers ------------------------------------------------------------------------------

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Like ``_reading`` for a write: a damaged table (corrupt pages) or a failing disk is
        one line naming the file, never a traceback."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.OperationalError as error:
            raise StoreError(f"cannot write to {self.path}: {error}") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(_damage_text(self.path, error)) from None

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """SQLite errors while reading become one clear line naming the file; misuse (another
        thread's or a closed connection) is a bug in the caller, never called damage."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.DatabaseError as error:
            raise StoreError(_damage_text(self.path, error)) from None


class _Transaction:
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


def _open_readonly(path: Path) -> sqlite3.Connection:
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
            _check_existing(db, path, writable=False)
            return db
        except sqlite3.OperationalError as failure:  # cannot open the WAL index: next flags
            db.close()
            error = failure
        except sqlite3.DatabaseError as failure:
            db.close()
            raise StoreError(_damage_text(path, failure)) from None
        except StoreError:
            db.close()
            raise
    raise StoreError(f"cannot read {path} ({error})")


def check_writable(path: Path) -> None:
    """A clear line for a file or folder we may not write (read-only, immutable); a run asks
    before it plans, so a refused file is its only line."""
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
                schema = [_SCHEMA_V1, *(MIGRATIONS[v] for v in sorted(MIGRATIONS))]
                for statement in ";".join(schema).split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
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
    if application_id != APPLICATION_ID:
        raise StoreError(f"{path} is not an explaincheck results database")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer explaincheck (results schema v{version}; this"
            f" version reads up to v{SCHEMA_VERSION}): upgrade explaincheck to open it"
        )
    if version < SCHEMA_VERSION:
        if not writable:
            raise StoreError(
                f"{path} uses the older results schema v{version}: open it once with"
                " 'explaincheck run' (or the GUI) to migrate it"
            )
        _migrate(db, path, version)
    _check_tables(db, path)
    if writable:  # a planted trigger would run on our writes (reads run none)
        schema = [_SCHEMA_V1, *(MIGRATIONS[v] for v in sorted(MIGRATIONS))]
        refuse_foreign(db, path, schema, StoreError)


@functools.cache
def _expected_tables() -> dict[str, tuple[tuple[str, str], ...]]:
    """table -> ((column, declared type), ...) of the current schema."""
    memory = sqlite3.connect(":memory:")
    memory.executescript(_SCHEMA_V1)
    tables = {
        name: tuple((row[1], row[2]) for row in memory.execute(f"PRAGMA table_info({name})"))
        for (name,) in memory.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    memory.close()
    return tables


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Every table and column of the schema present, with its declared type."""
    for table, expected in _expected_tables().items():
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


# Read as these SQL values by ``iter_executions(lean=True)``: a reasoning model's thinking alone
# is tens of KB a row, and the prompts and valuations are never in a report.
LEAN_COLUMNS = {"prompt": "''", "thinking": "''", "valuations": "'[]'"}
LEAN_REPLY_CHARS = 256  # a report quotes at most 200 characters of a reply


def _lean_columns(db: sqlite3.Connection) -> str:
    names = [row[1] for row in db.execute("PRAGMA table_xinfo(executions)")]
    chosen = []
    for name in names:
        if name in LEAN_COLUMNS:
            chosen.append(f"{LEAN_COLUMNS[name]} AS {name}")
        elif name == "reply":
            chosen.append(f"substr(reply, 1, {LEAN_REPLY_CHARS}) AS reply")
        else:
            chosen.append(f'"{name}"')
    return ", ".join(chosen)


def _damage_text(path: Path, error: sqlite3.DatabaseError) -> str:
    if isinstance(error, sqlite3.OperationalError):  # locked, I/O, read-only: not damage
        return f"cannot read {path}: {error}"
    if "not a database" in str(error):
        return f"{path} is not a results database ({error})"
    return f"{path} is damaged ({error}): restore a copy or run the campaign into a new --db"


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
            table, first = MIGRATIONS_IF_TABLE.get(step, ("", ""))
            if (
                table
                and db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
                ).fetchone()
            ):
                db.execute(first)
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


_NUMBER = (int, float)
_OPTIONAL_NUMBER = (int, float, type(None))
_OPTIONAL_INT = (int, type(None))
_OPTIONAL_TEXT = (str, type(None))
# Python types each stored value must have when read back (SQLite keeps any type in any
# column; a hand-edited file may hold text where a number belongs).
_ROW_TYPES: dict[str, tuple[type, ...] | type] = {
    "id": int,
    "campaign_id": int,
    "case_index": int,
    "repeat": int,
    "attempts": int,
    "cached": int,
    "positive": _OPTIONAL_INT,
    "reading": _OPTIONAL_INT,
    "gap": _OPTIONAL_NUMBER,
    "prompt_tokens": _OPTIONAL_INT,
    "completion_tokens": _OPTIONAL_INT,
    "reasoning_tokens": _OPTIONAL_INT,
    "delta": _NUMBER,
    "abs_error": _OPTIONAL_NUMBER,
    "latency": _OPTIONAL_NUMBER,
    **dict.fromkeys(
        (
            "exec_key",
            "environment",
            "model_hash",
            "llm",
            "host",
            "category",
            "dimension",
            "selection",
            "case_key",
            "prompt",
            "thinking",
            "verdict",
            "reason",
            "started_at",
            "finished_at",
            "output_mode",
        ),
        str,
    ),
    "reply": _OPTIONAL_TEXT,
    "error": _OPTIONAL_TEXT,
    "states": list,
    "valuations": list,
    "schema": dict,
    "options": dict,
    "grading": dict,
}


# -- analysis view ----------------------------------------------------------------------------

# Columns of ``results --json`` (the contract scripts read), in this order, then the extras.
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
    "reading",
    "gap",
    "reasoning_tokens",
    "output_mode",
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
    with Store.open(db_path, readonly=True) as store:
        rows = [result_dict(r) for r in store.iter_executions() if not filter_row or filter_row(r)]
    return rows_frame(rows)


def rows_frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Row dicts of the ``results_frame`` shape (e.g. a window's live rows) as its DataFrame,
    with the same columns and number types."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=[*RESULT_COLUMNS, *EXTRA_COLUMNS])
    for column in ("delta", "abs_error", "latency", "gap"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    return frame
