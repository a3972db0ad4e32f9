"""Which controls of a window are cut: outside the window, clipped by a parent, squeezed below
what they need to be read, or pushed into a toolbar's overflow menu (issue 39: the Graph tab's
Colour box showed only its label at 1366 px and Layout was missing, while the window as a whole
fitted). Controls inside a scrolled area count as shown: the user scrolls to them."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QRadioButton,
    QToolBar,
    QWidget,
)

CONTROLS = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox, QLabel)


def _name(widget: QWidget) -> str:
    text = ""
    for getter in ("text", "currentText", "placeholderText"):
        value = getattr(widget, getter, None)
        if callable(value):
            text = value() or text
            if text:
                break
    return f"{type(widget).__name__}({text[:30]!r})"


def _scrolled(widget: QWidget, top: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, QAbstractScrollArea | QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _clipped(widget: QWidget, top: QWidget) -> QWidget | None:
    """The first ancestor (up to ``top``) whose area does not hold the whole widget."""
    rect = QRect(QPoint(0, 0), widget.size())
    child: QWidget = widget
    parent = widget.parentWidget()
    while parent is not None:
        rect.translate(child.pos())
        if not parent.rect().contains(rect):
            return parent
        if parent is top:
            return None
        child, parent = parent, parent.parentWidget()
    return None


def cut_controls(top: QWidget) -> list[str]:
    """Each control of ``top`` that a user cannot see whole and read, with why."""
    problems = []
    for toolbar in top.findChildren(QToolBar):
        if not toolbar.isVisible():
            continue
        for action in toolbar.actions():
            widget = toolbar.widgetForAction(action)
            if action.isVisible() and widget is not None and not widget.isVisible():
                problems.append(f"{_name(widget)}: in the toolbar's overflow menu")
    for widget in top.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or not widget.isVisible():
            continue
        if isinstance(widget, QLabel) and not widget.text().strip():
            continue
        if _scrolled(widget, top):
            continue
        parent = _clipped(widget, top)
        if parent is not None:
            problems.append(f"{_name(widget)}: cut by {type(parent).__name__}")
            continue
        if isinstance(widget, QLabel) and (widget.wordWrap() or type(widget).__name__ != "QLabel"):
            continue  # wraps, or elides with the whole text in its tooltip
        needed = _readable_width(widget)
        if widget.width() < needed:
            problems.append(f"{_name(widget)}: {widget.width()} px wide, its text needs {needed}")
    return problems


def _readable_width(widget: QWidget) -> int:
    """The width at which the control's words show whole (a label's text, a button's, a
    combo's current entry beside its arrow, a field's placeholder)."""
    metrics = widget.fontMetrics()
    if isinstance(widget, QComboBox):
        return metrics.horizontalAdvance(widget.currentText()) + 24
    if isinstance(widget, QLineEdit):
        return metrics.horizontalAdvance(widget.text() or widget.placeholderText()) + 8
    if isinstance(widget, QCheckBox | QRadioButton):  # its hint: the box and the words
        return widget.sizeHint().width()
    if isinstance(widget, QAbstractButton):  # a push button's hint has the style's 80 px floor
        return metrics.horizontalAdvance(widget.text().replace("&", "")) + 6
    if isinstance(widget, QLabel):
        return metrics.horizontalAdvance(widget.text()) - 1
    return 0
