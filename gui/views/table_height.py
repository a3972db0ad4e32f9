"""A read-only table as tall as its rows, up to a cap: a table view's own size hint left
150 px of white under the one row of a value-loss table (issue 50), and the Report tab's
boxes stack, so every pixel a table does not need pushes the next box down."""

from __future__ import annotations

from PySide6.QtWidgets import QTableView


def fit_rows(view: QTableView, cap: int) -> None:
    """Fix ``view``'s height to its header and rows (rows sized to their contents); a taller
    table stops at ``cap`` and scrolls."""
    view.resizeRowsToContents()
    rows = view.verticalHeader().length() + view.horizontalHeader().height()
    view.setFixedHeight(min(cap, rows + 2 * view.frameWidth() + 2))
