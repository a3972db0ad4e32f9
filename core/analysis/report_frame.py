"""The results of a database read for a report: only what the report uses, held once.

Why not ``store.results_frame``: it keeps every stored text, and a reasoning model's thinking
(tens of KB a row), the prompts and the valuations made a report of 9,600 rows take 1.4 GB
while no table reads them. ``iter_executions(lean=True)`` reads those columns as empty and
replies only as far as a report quotes them (in SQL), and decodes each distinct JSON text once
(schema, options and grading repeat from row to row), so the rows share those values.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explaincheck.core.store import Store, result_dict, rows_frame

if TYPE_CHECKING:
    import pandas as pd


def report_frame(db_path: str | Path) -> pd.DataFrame:
    """``results_frame`` of ``db_path`` as a report needs it (prompt, thinking and valuations
    empty, replies cut at ``store.LEAN_REPLY_CHARS``, equal JSON values shared)."""
    with Store.open(db_path, readonly=True) as store:
        return rows_frame(result_dict(row) for row in store.iter_executions(lean=True))
