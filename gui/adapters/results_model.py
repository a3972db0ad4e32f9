"""Qt item models over the executions: the table (over ``ResultsWorkspace``'s executions, the
filtering its rule), and the side-by-side pairing (over the dict rows)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from explaincheck.core.store.records import StoredExecution
from explaincheck.core.workspace.presentation.results.rows import (
    answer_text,
    cell_text,
    environment_name,
    sort_key,
    states_text,
)
from explaincheck.gui.adapters.results_data import ResultsData

__all__ = [
    "COLUMNS",
    "VERDICT_COLOURS",
    "PairsModel",
    "ResultsFilter",
    "ResultsTableModel",
    "disagree",
    "environment_name",  # read here by older callers; core's
    "pair_key",
    "paired_rows",
    "states_text",
]

VERDICT_COLOURS = {
    "pass": QColor("#d4f0e2"),
    "fail": QColor("#f8d3c5"),
    "invalid": QColor("#fbe5b6"),
    "error": QColor("#dddddd"),
    "uncertain": QColor("#dcd6f0"),  # the oracle's intervals cannot decide it (not scored)
}

# (header, row key) of the table columns
COLUMNS = (
    ("Environment", "environment"),
    ("LLM", "llm"),
    ("Category", "category"),
    ("Selection", "selection"),
    ("State(s)", "states"),
    ("δ", "delta"),
    ("Rep.", "repeat"),
    ("Verdict", "verdict"),
    ("Reason", "reason"),
)

Index = QModelIndex | QPersistentModelIndex


class ResultsTableModel(QAbstractTableModel):
    """One row per execution, straight over the workspace's ``executions`` (no copy)."""

    def __init__(self, data: ResultsData) -> None:
        super().__init__()
        self.results = data
        self.workspace = data.workspace
        data.reset.connect(self._reset)
        data.rows_added.connect(self._added)

    def _reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def _added(self, first: int, count: int) -> None:
        self.beginInsertRows(QModelIndex(), first, first + count - 1)
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.workspace.executions)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def row(self, index: int) -> StoredExecution:
        return self.workspace.executions[index]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.workspace.executions[index.row()]
        key = COLUMNS[index.column()][1]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(row, key)
        if role == Qt.ItemDataRole.UserRole:
            return sort_key(row, key)
        if role == Qt.ItemDataRole.ToolTipRole and key == "environment":
            return row.environment
        if role == Qt.ItemDataRole.ToolTipRole:  # whole, however narrow its column
            return cell_text(row, key)
        if role == Qt.ItemDataRole.BackgroundRole and key == "verdict":
            colour = VERDICT_COLOURS.get(row.verdict)
            return QBrush(colour) if colour else None
        if role == Qt.ItemDataRole.ForegroundRole and key == "verdict":
            return QBrush(QColor("#111111"))
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("delta", "repeat"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        return None


class ResultsFilter(QSortFilterProxyModel):
    """The table as the workspace's filters show it, sortable: which rows show is
    ``ResultsWorkspace.accepts``'s; a change of the filters re-filters."""

    def __init__(self, data: ResultsData) -> None:
        super().__init__()
        self.workspace = data.workspace
        self.setSortRole(Qt.ItemDataRole.UserRole)
        data.filters_changed.connect(lambda _filters: self._refilter())

    def _refilter(self) -> None:
        """Re-filter (Qt >= 6.9 has an explicit API for this; ``invalidateFilter`` is
        deprecated there)."""
        direction = getattr(QSortFilterProxyModel, "Direction", None)
        if hasattr(self, "beginFilterChange") and direction is not None:
            self.beginFilterChange()
            self.endFilterChange(direction.Rows)
        else:  # pragma: no cover - older Qt
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        return self.workspace.accepts(source_row)

    def source_row(self, proxy_row: int) -> int:
        return self.mapToSource(self.index(proxy_row, 0)).row()

    def shown(self) -> list[StoredExecution]:
        """The shown rows in the table's order (sorted as the user sorted them)."""
        rows = self.workspace.executions
        return [rows[self.source_row(i)] for i in range(self.rowCount())]


def pair_key(row: dict[str, Any]) -> tuple:
    return (
        row.get("environment"),
        row.get("category"),
        row.get("selection"),
        row.get("case_key") or states_text(row.get("states")),
        row.get("repeat"),
    )


def paired_rows(rows: list[dict[str, Any]], llm_a: str, llm_b: str) -> list[tuple[dict, dict]]:
    """Executions of the same test case by two LLMs; disagreements (different verdicts or
    answers) first, then by δ, hardest first."""
    by_llm: dict[str, dict[tuple, dict]] = defaultdict(dict)
    for row in rows:
        if row.get("llm") in (llm_a, llm_b):
            by_llm[str(row.get("llm"))][pair_key(row)] = row
    pairs = [(a, by_llm[llm_b][key]) for key, a in by_llm[llm_a].items() if key in by_llm[llm_b]]

    def order(pair: tuple[dict, dict]) -> tuple:
        a, b = pair
        return (not disagree(a, b), -(a.get("delta") or 0.0), str(a.get("category")))

    return sorted(pairs, key=order)


def disagree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("verdict") != b.get("verdict") or a.get("answer") != b.get("answer")


class PairsModel(QAbstractTableModel):
    """Side-by-side rows: the case, then each LLM's verdict and answer."""

    HEADERS = (
        "Category",
        "Selection",
        "State(s)",
        "δ",
        "Verdict A",
        "Answer A",
        "Verdict B",
        "Answer B",
    )

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[tuple[dict, dict]] = []

    def set_pairs(self, pairs: list[tuple[dict, dict]]) -> None:
        self.beginResetModel()
        self.pairs = pairs
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.pairs)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        a, b = self.pairs[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            values = (
                a.get("category"),
                a.get("selection"),
                states_text(a.get("states")),
                f"{a.get('delta') or 0:.3f}",
                a.get("verdict"),
                answer_text(a.get("answer")),
                b.get("verdict"),
                answer_text(b.get("answer")),
            )
            return "" if values[column] is None else str(values[column])
        if role == Qt.ItemDataRole.BackgroundRole:
            if column in (4, 6):
                row = a if column == 4 else b
                colour = VERDICT_COLOURS.get(str(row.get("verdict")))
                return QBrush(colour) if colour else None
            if disagree(a, b):
                return QBrush(QColor(255, 240, 200, 120))
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None
