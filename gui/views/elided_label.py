"""A one-line label that elides what does not fit (the graph's status line, the Results count)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class ElidedLabel(QLabel):
    """A one-line label that shows as much of its text as fits, ending in "…"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self._full = ""

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text if text else "")
        self._elide()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, self.width())
        QLabel.setText(self, shown)

    def sizeHint(self) -> QSize:
        """As wide as the whole text: what the label asks for when there is room."""
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def minimumSizeHint(self) -> QSize:
        """A few characters wide, whatever the text: an elided label never widens the window
        (QLabel's own hint is its text's width, which an elided text would keep)."""
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().horizontalAdvance("Mmmm…"), hint.height())
