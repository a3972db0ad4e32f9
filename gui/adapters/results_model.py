"""Qt item models over the executions: the table, its filters, and the side-by-side pairing."""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from explaincheck.gui.adapters.results_data import ResultsData

VERDICT_COLOURS = {
    "pass": QColor("#d4f0e2"),
    "fail": QColor("#f8d3c5"),
    "invalid": QColor("#fbe5b6"),
    "error": QColor("#dddddd"),
    "uncertain": QColor("#dcd6f0"),  # the oracle's intervals cannot decide it (not scored)
}
NOT_PASSED = ("fail", "invalid")

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


def states_text(states: Any) -> str:
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


def cell_text(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if key == "environment":
        return environment_name(value)
    if key == "states":
        return states_text(value)
    if key == "delta":
        return "" if value is None else f"{float(value):.3f}"
    if value is None:
        return ""
    text = str(value)
    return text if len(text) <= 200 else text[:200] + "…"


class ResultsTableModel(QAbstractTableModel):
    """One row per execution, straight over ``ResultsData.rows`` (no copy)."""

    def __init__(self, data: ResultsData) -> None:
        super().__init__()
        self.results = data
        data.reset.connect(self._reset)
        data.rows_added.connect(self._added)

    def _reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def _added(self, first: int, count: int) -> None:
        self.beginInsertRows(QModelIndex(), first, first + count - 1)
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.results.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def row(self, index: int) -> dict[str, Any]:
        return self.results.rows[index]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.results.rows[index.row()]
        key = COLUMNS[index.column()][1]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(row, key)
        if role == Qt.ItemDataRole.UserRole:  # sort key
            value = row.get(key)
            if key == "delta":
                return float(value) if value is not None else -1.0
            if key == "states":
                return states_text(value)
            return "" if value is None else value
        if role == Qt.ItemDataRole.ToolTipRole and key == "environment":
            return str(row.get(key) or "")
        if role == Qt.ItemDataRole.BackgroundRole and key == "verdict":
            colour = VERDICT_COLOURS.get(str(row.get("verdict")))
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
    """Filters by column values, 'failures only' and a text search over prompt/reply/reason."""

    SEARCHED = ("prompt", "reply", "reason", "thinking", "category", "llm", "environment")

    def __init__(self) -> None:
        super().__init__()
        self.equals: dict[str, str] = {}  # key -> required value ("" = any)
        self.failures_only = False
        self.text = ""
        self.setSortRole(Qt.ItemDataRole.UserRole)

    def _refilter(self, change: Any) -> None:
        """Apply ``change`` to the filter state and re-filter (Qt >= 6.9 has an explicit API
        for this; ``invalidateFilter`` is deprecated there)."""
        direction = getattr(QSortFilterProxyModel, "Direction", None)
        if hasattr(self, "beginFilterChange") and direction is not None:
            self.beginFilterChange()
            change()
            self.endFilterChange(direction.Rows)
        else:  # pragma: no cover - older Qt
            change()
            self.invalidateFilter()

    def set_equals(self, key: str, value: str) -> None:
        self._refilter(lambda: self.equals.__setitem__(key, value))

    def set_failures_only(self, on: bool) -> None:
        self._refilter(lambda: setattr(self, "failures_only", on))

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "text", text.strip().lower()))

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, ResultsTableModel)
        row = model.row(source_row)
        for key, value in self.equals.items():
            if value and str(row.get(key)) != value:
                return False
        if self.failures_only and row.get("verdict") not in NOT_PASSED:
            return False
        if self.text:
            haystack = [str(row.get(k) or "") for k in self.SEARCHED]
            haystack.append(states_text(row.get("states")))
            if not any(self.text in h.lower() for h in haystack):
                return False
        return True

    def source_row(self, proxy_row: int) -> int:
        return self.mapToSource(self.index(proxy_row, 0)).row()


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
                _answer_text(a.get("answer")),
                b.get("verdict"),
                _answer_text(b.get("answer")),
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


def _answer_text(answer: Any) -> str:
    if answer is None:
        return "—"
    if isinstance(answer, list):
        return " > ".join(str(a) for a in answer)
    if isinstance(answer, dict):
        return ", ".join(f"{k}: {v}" for k, v in answer.items())
    return str(answer)
