"""The analysis view of a results file: the ``results --json`` columns (the contract scripts
read) and the pandas frame every report and the GUI's tables are built from."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.store.facade import Store

if TYPE_CHECKING:
    import pandas as pd

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
    "cached_prompt_tokens",
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
