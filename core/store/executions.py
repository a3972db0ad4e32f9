"""The ``executions`` table: one row per executed test case, written in one commit with the
reply it came from, read back as dicts (tables) or ``StoredExecution`` records, every value
checked against its column's type so a hand-edited file is named as damaged, never a crash."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from explaincheck.core.store.connection import Connection, StoreError
from explaincheck.core.store.records import (
    RECORD_FIELDS,
    STORED_FIELDS,
    CachedReply,
    ExecutionRecord,
    StoredExecution,
)
from explaincheck.core.store.reply_cache import ReplyCache
from explaincheck.core.store.values import storable, storable_json, storable_text, to_json
from explaincheck.core.taxonomy.base import ERROR

# Columns of ``executions`` that hold JSON text, decoded when rows are read back.
JSON_COLUMNS = ("states", "valuations", "schema", "options", "answer", "expected", "grading")

# Text columns declared NOT NULL: a None is written as "".
_NOT_NULL_TEXT: tuple[str, ...] = (
    "prompt",
    "thinking",
    "verdict",
    "reason",
    "started_at",
    "finished_at",
    "output_mode",  # v3
)
# Insert, or replace a stored ``error`` row by its retry; a finished row is never overwritten.
_INSERT_EXECUTION = (
    f"INSERT INTO executions ({', '.join(RECORD_FIELDS)})"
    f" VALUES ({', '.join(f':{c}' for c in RECORD_FIELDS)})"
    " ON CONFLICT(exec_key) DO UPDATE SET"
    f" {', '.join(f'{c} = excluded.{c}' for c in RECORD_FIELDS if c != 'exec_key')}"
    f" WHERE executions.verdict = '{ERROR}'"
)

# Read as these SQL values by ``iter_executions(lean=True)``: a reasoning model's thinking alone
# is tens of KB a row, and the prompts and valuations are never in a report.
LEAN_COLUMNS = {"prompt": "''", "thinking": "''", "valuations": "'[]'"}
LEAN_REPLY_CHARS = 256  # a report quotes at most 200 characters of a reply

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
    "cached_prompt_tokens": _OPTIONAL_INT,
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


class ExecutionTable:
    """Reads and writes the executions of one open file; an execution's reply goes into
    ``replies`` in the same transaction."""

    def __init__(self, connection: Connection, replies: ReplyCache):
        self._connection = connection
        self._replies = replies

    def stored(self) -> dict[str, tuple[str, int]]:
        """exec_key -> (verdict, attempts) of every stored execution (what resume skips)."""
        with self._connection.reading():
            rows = self._connection.db.execute("SELECT exec_key, verdict, attempts FROM executions")
            return {key: (verdict, attempts) for key, verdict, attempts in rows}

    def record(self, record: ExecutionRecord, reply: CachedReply | None = None) -> None:
        """Store one execution (and the reply it came from) in one committed transaction.

        A stored ``error`` row is replaced by its retry; a finished row is never overwritten."""
        values = {name: getattr(record, name) for name in RECORD_FIELDS}  # shallow: fast
        for name in JSON_COLUMNS:
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
            raise StoreError(f"cannot write to {self._connection.path}: {error}") from None

    def _write_record(self, values: dict[str, Any], reply: CachedReply | None) -> None:
        with self._connection.transaction():
            if reply is not None:
                self._replies.put_reply(reply)
            self._connection.db.execute(_INSERT_EXECUTION, values)

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
        self._connection.db.execute(
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
            yield StoredExecution(**{name: row[name] for name in STORED_FIELDS if name in row})

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
        db = self._connection.db
        with self._connection.reading():
            selected = _lean_columns(db) if lean else "*"
            cursor = db.execute(f"SELECT {selected} FROM executions{where} ORDER BY id", params)
            names = [d[0] for d in cursor.description]
            memo: dict[str, Any] | None = {} if lean else None
            for row in cursor:
                yield self._decode(dict(zip(names, row, strict=True)), memo)

    def count(self, verdict: str | None = None) -> int:
        """How many executions are stored (with this verdict, when given)."""
        db = self._connection.db
        with self._connection.reading():
            if verdict is None:
                return db.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
            return db.execute(
                "SELECT COUNT(*) FROM executions WHERE verdict = ?", (verdict,)
            ).fetchone()[0]

    def counts_by_campaign(self) -> dict[int, tuple[int, int]]:
        """campaign id -> (rows stored, rows graded: not ``error``), counted in SQL."""
        db = self._connection.db
        with self._connection.reading():
            rows = db.execute(
                "SELECT campaign_id, COUNT(*), SUM(verdict != ?) FROM executions"
                " GROUP BY campaign_id",
                (ERROR,),
            ).fetchall()
        return {
            campaign: (int(stored), int(graded or 0))
            for campaign, stored, graded in rows
            if isinstance(campaign, int)
        }

    def _decode(self, row: dict[str, Any], memo: dict[str, Any] | None = None) -> dict[str, Any]:
        """JSON columns decoded (through ``memo``, text -> value, when given) and every value
        checked against its column's type."""
        path, decoded = self._connection.path, self._connection.json
        where = f"execution {row.get('id')}"
        for name in JSON_COLUMNS:
            text = row.get(name)
            if text is None:
                continue
            if memo is None:
                row[name] = decoded(text, where, name)
            elif text in memo:
                row[name] = memo[text]
            else:
                row[name] = memo[text] = decoded(text, where, name)
        for name, kinds in _ROW_TYPES.items():
            value = row.get(name)
            if not isinstance(value, kinds) or isinstance(value, bool):
                shown = type(value).__name__
                raise StoreError(f"{path} is damaged: {where} has a {shown} in {name!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in row["states"]):
            raise StoreError(f"{path} is damaged: {where} has malformed 'states'")
        for name in ("positive", "reading"):
            if row.get(name) is not None:
                row[name] = bool(row[name])
        row["cached"] = bool(row.get("cached"))
        return row


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
