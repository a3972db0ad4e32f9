"""A read-only Qt table model over a pandas DataFrame (report tables)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


def _label(value: Any) -> str:
    if isinstance(value, tuple):
        return " / ".join(str(v) for v in value if str(v))
    return str(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:  # NaN
            return "–"
        if value and abs(value) < 1e-3:
            return f"{value:.3g}"
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)


class FrameModel(QAbstractTableModel):
    """Index levels become leading columns; MultiIndex headers are joined with ' / '."""

    def __init__(self, frame: Any = None) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.cells: list[list[str]] = []
        if frame is not None:
            self.set_frame(frame)

    def set_frame(self, frame: Any) -> None:
        """Show ``frame`` (None empties the table)."""
        self.beginResetModel()
        if frame is None:
            self.headers, self.cells = [], []
            self.endResetModel()
            return
        flat = frame
        names = [n for n in frame.index.names if n is not None]
        if names:
            flat = frame.reset_index()
        self.headers = [_label(c) for c in flat.columns]
        self.cells = [[_cell(v) for v in row] for row in flat.itertuples(index=False, name=None)]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.cells)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.isValid() and role == Qt.ItemDataRole.DisplayRole:
            return self.cells[index.row()][index.column()]
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None
