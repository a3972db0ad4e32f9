"""The window's results as Qt signals: a thin adapter over the Qt-free ``ResultsWorkspace``
(``core/workspace/presentation/results/``), which holds the rows (``StoredExecution``s, from a
results file or arriving live), the filters and the chosen case.

The Results tab shows the workspace's executions; the Report, Teach, the side-by-side pairs and
the measured rates read ``rows`` (the ``results --json`` dicts). A file is read on a worker
thread; live rows come from the campaign runner's records one by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.store.records import ExecutionRecord, StoredExecution
from explaincheck.core.workspace.presentation.results.rows import (
    read_executions,
    row_dict,
    same_model,
)
from explaincheck.core.workspace.presentation.results.workspace import ResultsWorkspace
from explaincheck.gui.support.tasks import in_thread

if TYPE_CHECKING:
    import pandas as pd

    from explaincheck.core.campaign.regrade import RegradeSummary

__all__ = ["ResultsData", "read_rows", "rows_frame", "same_model"]


def read_rows(db_path: str) -> list[dict[str, Any]]:
    """All executions of a database as ``results --json`` dicts (blocking)."""
    return [row_dict(e) for e in read_executions(db_path)]


def rows_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Shown rows as the DataFrame ``results_frame`` gives for a file (worker thread)."""
    from explaincheck.core.store import rows_frame as frame_of

    return frame_of(rows)


class ResultsData(QObject):
    """The workspace's events as signals; ``workspace`` is the state (rows, filters, case)."""

    reset = Signal()
    rows_added = Signal(int, int)  # first index, count
    filters_changed = Signal(object)  # ResultsFilters
    chosen = Signal(object)  # the StoredExecution shown in full, or None
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = ResultsWorkspace(offload=in_thread)
        workspace = self.workspace
        workspace.reset.connect(self.reset.emit)
        workspace.added.connect(self.rows_added.emit)
        workspace.filtered.connect(self.filters_changed.emit)
        workspace.chosen.connect(self.chosen.emit)

    @property
    def executions(self) -> list[StoredExecution]:
        """The rows, as the Results tab shows them."""
        return self.workspace.executions

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The rows as ``results --json`` dicts (for the readers that build tables)."""
        return self.workspace.row_dicts()

    @property
    def db_path(self) -> str | None:
        return self.workspace.db_path

    @db_path.setter
    def db_path(self, path: str | None) -> None:
        """The file the rows belong to, named without reading it (its rows are set apart)."""
        self.workspace.db_path = path

    async def load(self, db_path: str) -> None:
        """Replace the rows by the contents of a database (SQLite read off the GUI thread)."""
        await self.workspace.load(db_path)

    async def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> RegradeSummary:
        """Grade the stored replies of the open database again (worker thread, no LLM asked),
        then reload its rows so every view shows the new verdicts."""
        return await self.workspace.regrade(satisfy_rule, satisfy_tolerance)

    def clear(self, db_path: str | None = None) -> None:
        self.workspace.clear(db_path)

    def add(self, rows: Iterable[ExecutionRecord | Mapping[str, Any]]) -> None:
        """Rows arriving live: the runner's records (dict rows are joined the same way)."""
        self.workspace.append(rows)

    def llms(self) -> list[str]:
        return self.workspace.llms()

    def environments(self) -> list[str]:
        return self.workspace.environments()
