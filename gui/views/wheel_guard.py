"""Spin boxes and combo boxes that take the mouse wheel only once focused.

On a scrolled page (the Campaign tab on a laptop) the wheel meant for the page would otherwise
change whatever value passes under the pointer: one notch set Budget 20 → 19. An unfocused box
hands the wheel to the scroll area around it instead; a click (or Tab) focuses it as before.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)


def _focused(widget: QWidget) -> bool:
    focus = QApplication.focusWidget()
    return widget.hasFocus() or (focus is not None and widget.isAncestorOf(focus))


def _scroll_area(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


class WheelGuard(QObject):
    """The event filter: an unfocused box's wheel goes to the page that scrolls."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if _focused(watched):
            return False
        area = _scroll_area(watched)
        if area is not None:
            QCoreApplication.sendEvent(area.viewport(), event)
        return True


_GUARD = WheelGuard()


def guard_wheel(root: QWidget) -> list[QWidget]:
    """Guard every spin box and combo box under ``root`` (returns them, for tests)."""
    boxes: list[QWidget] = [*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)]
    for box in boxes:
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        box.installEventFilter(_GUARD)
    return boxes
