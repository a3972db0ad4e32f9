"""The grouped repeats as a Qt table: one row per case with its k answers, whether they agree,
how many passed and the verdict's stability. The groups themselves (and "Flaky only") are the
Qt-free ``ResultsWorkspace.groups`` (``core/workspace/presentation/results/repeats.py``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from explaincheck.core.workspace.presentation.results.repeats import (
    STABILITY_MARKS,
    STABILITY_TIPS,
    RepeatGroup,
)
from explaincheck.core.workspace.presentation.results.rows import states_text

Index = QModelIndex | QPersistentModelIndex
AGREE_COLUMN, STABILITY_COLUMN = 7, 6


class RepeatGroupsModel(QAbstractTableModel):
    """Grouped rows: case, LLM, k, passed of k, stability, agreement and the k answers."""

    HEADERS = (
        "Environment",
        "LLM",
        "Category",
        "State(s)",
        "k",
        "Passed",
        "Stability",
        "Agree",
        "Answers",
    )

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[RepeatGroup] = []

    def set_groups(self, groups: list[RepeatGroup]) -> None:
        self.beginResetModel()
        self.groups = groups
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.groups)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        group = self.groups[index.row()]
        row = group.row
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            agreement = group.agreement
            values = (
                row.environment,
                row.llm,
                row.category,
                states_text(row.states),
                group.k,
                f"{group.passed}/{group.k}",
                STABILITY_MARKS.get(group.stability or "", "—"),
                "—" if agreement is None else ("yes" if agreement else "no"),
                " | ".join(group.answers),
            )
            return str(values[column])
        if role == Qt.ItemDataRole.BackgroundRole:
            if column == AGREE_COLUMN and group.agreement is False:
                return QBrush(QColor(255, 200, 160, 160))
            if column == STABILITY_COLUMN and group.flaky:
                return QBrush(QColor(255, 220, 120, 170))
        if role == Qt.ItemDataRole.ToolTipRole and column == STABILITY_COLUMN and group.stability:
            return STABILITY_TIPS[group.stability]
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None
