"""A layout that lines its widgets up left to right and starts a new line when the next one would
not fit: a bar of controls that stays whole in a narrow pane instead of squeezing each control
below what its words need (the Teach and Workbench graphs are a third of the window wide).

Items keep their size hints; an item given ``stretch`` in ``add`` takes what is left of its line,
one given ``own_line`` a line of its own (a status line whose length changes must not move the
controls from line to line, nor the view below up and down).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 8) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._stretch: set[int] = set()  # ids of the items that take their line's rest
        self._own_line: set[int] = set()  # ids of the items alone on their line
        self.setSpacing(spacing)

    # -- what QLayout asks ----------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def add(self, widget: QWidget, stretch: bool = False, own_line: bool = False) -> None:
        """Add ``widget``; ``stretch``: it widens to fill the rest of its line; ``own_line``: it
        is alone on its line, as wide as the layout."""
        self.addChildWidget(widget)
        item = QWidgetItem(widget)
        self._items.append(item)
        if stretch or own_line:
            self._stretch.add(id(item))
        if own_line:
            self._own_line.add(id(item))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        item = self._items.pop(index)
        self._stretch.discard(id(item))
        return item

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """As wide as the widest item: anything wider wraps."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    # -- placing ---------------------------------------------------------------------------
    def _shown(self) -> list[QLayoutItem]:
        shown = []
        for item in self._items:
            widget = item.widget()
            if widget is None or not widget.isHidden():
                shown.append(item)
        return shown

    def _lines(self, width: int) -> list[list[QLayoutItem]]:
        lines: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._shown():
            alone = id(item) in self._own_line
            wide = width if alone else min(item.sizeHint().width(), width)
            if lines[-1] and (alone or used + self.spacing() + wide > width):
                lines.append([])
                used = 0
            used += (self.spacing() if lines[-1] else 0) + wide
            lines[-1].append(item)
            if alone:
                lines.append([])
                used = 0
        return [line for line in lines if line]

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        y = area.y()
        for line in self._lines(area.width()):
            height = max(item.sizeHint().height() for item in line)
            widths = [min(item.sizeHint().width(), area.width()) for item in line]
            rest = area.width() - sum(widths) - self.spacing() * (len(line) - 1)
            stretching = [k for k, item in enumerate(line) if id(item) in self._stretch]
            for k in stretching:
                widths[k] += max(rest, 0) // len(stretching)
            x = area.x()
            for item, wide in zip(line, widths, strict=True):
                if move:
                    top = y + (height - item.sizeHint().height()) // 2
                    item.setGeometry(QRect(QPoint(x, top), QSize(wide, item.sizeHint().height())))
                x += wide + self.spacing()
            y += height + self.spacing()
        return y - self.spacing() - rect.y() + margins.bottom()
