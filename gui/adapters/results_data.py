"""The executions the window shows: loaded from a results database and/or arriving live.

One shared list of plain row dicts (the ``results --json`` shape, see ``core.store``) feeds the
Results table, the Report and the Teach view. Loading a database reads SQLite on a worker
thread; live rows come from the campaign runner's events one by one.
"""

from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from explaincheck.gui.support.tasks import in_thread

if TYPE_CHECKING:
    import pandas as pd

    from explaincheck.core.campaign.regrade import RegradeSummary
    from explaincheck.core.oracle.types import OracleResult


def _clean(value: Any) -> Any:
    """pandas gives NaN for missing numbers; the views want None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def read_rows(db_path: str) -> list[dict[str, Any]]:
    """All executions of a database as row dicts (runs on a worker thread)."""
    from explaincheck.core.store import results_frame

    frame = results_frame(db_path)
    return [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


def rows_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Shown rows as the DataFrame ``results_frame`` gives for a file (worker thread)."""
    from explaincheck.core.store import rows_frame as frame_of

    return frame_of(rows)


def campaign_model(campaigns: list, environment: str) -> dict[str, str]:
    """The constants and goal/unsafe labels the file's last campaign on ``environment`` was
    run with ("" where it used the model's own), to open that model as it was tested."""
    for campaign in reversed(campaigns):
        if campaign.environment != environment:
            continue
        settings, extra = campaign.settings, campaign.extra or {}
        return {
            "constants": str(extra.get("constants") or settings.get("constants") or ""),
            "goal_label": str(settings.get("goal_label") or ""),
            "unsafe_label": str(settings.get("unsafe_label") or ""),
        }
    return {}


def same_model(row: dict[str, Any], oracle: OracleResult | None) -> bool:
    """Whether a stored row was graded on the open model: its ``model_hash`` is the open
    oracle's content hash (file bytes, constants, labels, method), as the store records it.
    Two files both called ``model.prism`` differ here."""
    return oracle is not None and row.get("model_hash") == oracle.model.content_hash


def row_of(record: Any) -> dict[str, Any]:
    """A runner event's execution record -> a row dict like ``read_rows`` gives."""
    from explaincheck.core.store import result_dict

    data = asdict(record) if is_dataclass(record) and not isinstance(record, type) else dict(record)
    return result_dict(data)


class ResultsData(QObject):
    """Rows plus where they came from; views listen to ``reset`` and ``rows_added``."""

    reset = Signal()
    rows_added = Signal(int, int)  # first index, count
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []
        self.db_path: str | None = None

    async def load(self, db_path: str) -> None:
        """Replace the rows by the contents of a database (SQLite read off the GUI thread)."""
        if not Path(db_path).exists():
            raise FileNotFoundError(f"no results database at {db_path}")
        rows = await in_thread(read_rows, db_path)
        self.db_path = db_path
        self.rows = rows
        self.reset.emit()

    async def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> RegradeSummary:
        """Grade the stored replies of the open database again (worker thread, no LLM asked),
        then reload its rows so every view shows the new verdicts."""
        from explaincheck.core.campaign.regrade import regrade
        from explaincheck.core.taxonomy.base import GradingSettings

        if self.db_path is None:
            raise FileNotFoundError("open a results database first")
        db_path = self.db_path
        settings = GradingSettings(satisfy_rule, satisfy_tolerance)
        summary = await in_thread(regrade, db_path, settings)
        await self.load(db_path)
        return summary

    def clear(self, db_path: str | None = None) -> None:
        self.rows = []
        self.db_path = db_path
        self.reset.emit()

    def add(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        first = len(self.rows)
        self.rows.extend(rows)
        self.rows_added.emit(first, len(rows))

    def llms(self) -> list[str]:
        return sorted({str(r.get("llm")) for r in self.rows})

    def environments(self) -> list[str]:
        return sorted({str(r.get("environment")) for r in self.rows})
