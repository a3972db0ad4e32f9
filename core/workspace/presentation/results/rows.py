"""The Results tab's rows are ``StoredExecution``s: read from a results file as the store reads
them back, or made from the runner's live ``ExecutionRecord``s, so both join the same list.

A live record has no row id yet (``id`` 0 until the file is read again) and its ``wording`` and
``family`` are read from ``case_key`` as the store's generated columns read them. Readers that
build tables from many rows (the Report, Teach, the side-by-side pairs) take the rows as
``results --json`` dicts: ``row_dict`` is that view of one execution.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from explaincheck.core.store.frame import result_dict
from explaincheck.core.store.records import (
    RECORD_FIELDS,
    STORED_FIELDS,
    ExecutionRecord,
    StoredExecution,
)
from explaincheck.core.taxonomy.metamorphic import key_parts

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult

Row = StoredExecution | Mapping[str, Any]  # a shown row, or a dict row of a reader's table
# The views name the row type from here: they never import the store (views-use-controllers).
__all__ = [
    "Row",
    "StoredExecution",
    "answer_text",
    "as_dict",
    "cell_text",
    "environment_name",
    "execution_of",
    "field",
    "read_executions",
    "row_dict",
    "same_model",
    "sort_key",
    "states_text",
]

# What a field a hand-made or older dict row leaves out (or holds as None) becomes; the fields
# not named here may be None in a record.
_MISSING: dict[str, Callable[[], Any]] = {
    **dict.fromkeys(
        (
            "exec_key",
            "environment",
            "model_hash",
            "llm",
            "category",
            "dimension",
            "selection",
            "case_key",
            "prompt",
            "verdict",
            "reason",
            "started_at",
            "finished_at",
            "thinking",
            "host",
            "output_mode",
            "family",
        ),
        str,
    ),
    **dict.fromkeys(("campaign_id", "case_index", "repeat", "id", "wording"), int),
    "attempts": lambda: 1,
    "delta": float,
    "cached": bool,
    "states": list,
    "valuations": list,
    "schema": dict,
    "options": dict,
    "grading": dict,
}


def field(row: Row, name: str) -> Any:
    """One value of a row, a record's attribute or a dict's key (None when it has none)."""
    if isinstance(row, Mapping):
        return row.get(name)
    return getattr(row, name, None)


def execution_of(row: ExecutionRecord | Mapping[str, Any]) -> StoredExecution:
    """A row of the tab: a ``StoredExecution`` as it is; a live ``ExecutionRecord`` with the
    ``wording`` and ``family`` its case key gives (``id`` 0: not read back yet); a dict row
    (``results --json``'s shape, possibly partial) with the missing fields empty."""
    if isinstance(row, StoredExecution):
        return row
    if isinstance(row, ExecutionRecord):
        values = {name: getattr(row, name) for name in RECORD_FIELDS}
    else:
        values = {name: row.get(name) for name in STORED_FIELDS}
        for name, empty in _MISSING.items():
            if values.get(name) is None:
                values[name] = empty()
        values["states"] = [int(s) for s in values["states"]]
    parts = key_parts(str(values["case_key"]))
    if not isinstance(row, Mapping) or row.get("wording") is None:
        values["wording"] = parts["wording"]
    if not isinstance(row, Mapping) or not row.get("family"):
        values["family"] = parts["origin"] or values["case_key"]
    return StoredExecution(**values)


def row_dict(execution: StoredExecution) -> dict[str, Any]:
    """One execution in the ``results --json`` shape (the dict readers' and ``rows_frame``'s)."""
    return result_dict({name: getattr(execution, name) for name in STORED_FIELDS})


def as_dict(row: Row) -> dict[str, Any]:
    """A row as a dict (an execution as ``row_dict`` gives it, a dict row copied)."""
    return row_dict(row) if isinstance(row, StoredExecution) else dict(row)


def read_executions(db_path: str) -> list[StoredExecution]:
    """Every execution of a results file, oldest first (blocking: a worker thread's job). A
    file of an older schema is read through a migrated copy and left as it is."""
    from explaincheck.core.store import Store

    with Store.open(db_path, readonly=True) as store:
        return store.stored_executions()


def same_model(row: Row, oracle: OracleResult | None) -> bool:
    """Whether a row was graded on the open model: its ``model_hash`` is the open oracle's
    content hash (file bytes, constants, labels, method), as the store records it. Two files
    both called ``model.prism`` differ here."""
    return oracle is not None and field(row, "model_hash") == oracle.model.content_hash


def states_text(states: Any) -> str:
    """A case's state ids as the table shows them: ``3, 7``."""
    if isinstance(states, list | tuple):
        return ", ".join(str(s) for s in states)
    return "" if states is None else str(states)


def environment_name(value: Any) -> str:
    """A PRISM file's name (its stem; the folder's for a folder's model.prism), a built-in's id
    as it is: the table shows names, the tooltip the full path."""
    text = "" if value is None else str(value)
    if "/" not in text and "\\" not in text and not text.endswith(".prism"):
        return text
    path = PurePath(text.replace("\\", "/"))
    return path.parent.name if path.stem == "model" and path.parent.name else path.stem


CELL_CHARS = 200  # a table cell shows at most this much of a long value


def cell_text(row: Row, key: str) -> str:
    """The table's text of one column of a row."""
    value = field(row, key)
    if key == "environment":
        return environment_name(value)
    if key == "states":
        return states_text(value)
    if key == "delta":
        return "" if value is None else f"{float(value):.3f}"
    if value is None:
        return ""
    text = str(value)
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS] + "…"


def sort_key(row: Row, key: str) -> Any:
    """What the table sorts a column by (δ as a number, states as their text)."""
    value = field(row, key)
    if key == "delta":
        return float(value) if value is not None else -1.0
    if key == "states":
        return states_text(value)
    return "" if value is None else value


def answer_text(answer: Any) -> str:
    """A parsed answer in one line: a ranking as ``a > b``, a dict as ``key: value``."""
    if answer is None:
        return "—"
    if isinstance(answer, list):
        return " > ".join(str(a) for a in answer)
    if isinstance(answer, dict):
        return ", ".join(f"{k}: {v}" for k, v in answer.items())
    return str(answer)
