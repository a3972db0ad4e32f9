"""A read-only table of plain text cells, columns fitted to their contents (Workbench pages)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)


def read_only_table(headers: list[str], parent: QWidget | None = None) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    return table


def fill_row(table: QTableWidget, row: int, cells: list[str]) -> list[QTableWidgetItem]:
    """Put ``cells`` in ``row`` as plain items (never rich text)."""
    items = []
    for column, text in enumerate(cells):
        item = QTableWidgetItem(text)
        table.setItem(row, column, item)
        items.append(item)
    return items


def wrap_last_column(table: QTableWidget) -> None:
    """The last column takes the width left and wraps its text there; the others fit their
    contents. The rows grow with the wrapped text whenever the width changes, so a long cell
    never needs a sideways scroll (the Bellman page's sums, issue 50)."""
    header = table.horizontalHeader()
    for column in range(table.columnCount() - 1):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(table.columnCount() - 1, QHeaderView.ResizeMode.Stretch)
    table.setWordWrap(True)
    table.setTextElideMode(Qt.TextElideMode.ElideNone)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    header.sectionResized.connect(lambda *_: table.resizeRowsToContents())
    table.viewport().installEventFilter(_RowsFollowWidth(table))


class _RowsFollowWidth(QObject):
    """Fits the rows to their wrapped text again once the table has its new width (a stretched
    column is resized without a ``sectionResized`` when its table is resized)."""

    def __init__(self, table: QTableWidget) -> None:
        super().__init__(table)
        self.table = table

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.table.resizeRowsToContents)  # dropped with it
        return False
