"""A read-only table of plain text cells, columns fitted to their contents (Workbench pages)."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QWidget


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
