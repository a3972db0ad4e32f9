"""The Campaign tab on a 1366x768 laptop: Budget and Selection in view without scrolling, the
three Mode categories told apart, and the wheel changes only a focused box."""

from __future__ import annotations

from gui_helpers import open_env, wait_for
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

LAPTOP = (1366, 740)


def _laptop_campaign(qtbot, window):
    window.resize(*LAPTOP)
    open_env(qtbot, window, "frozen_lake")
    window.show_tab("campaign")
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is window.model.oracle, 60)
    qtbot.wait(50)
    return view


def _wheel(widget, notches: int = -1) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(widget.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_budget_and_selection_are_in_view_without_scrolling(qtbot, window):
    view = _laptop_campaign(qtbot, window)
    scroll = view.findChild(QScrollArea)
    assert scroll.verticalScrollBar().value() == 0
    viewport = scroll.viewport()
    for box in (view.budget, view.selection, view.repeat, view.wording):
        top_left = box.mapTo(viewport, box.rect().topLeft())
        bottom_right = box.mapTo(viewport, box.rect().bottomRight())
        assert viewport.rect().contains(top_left) and viewport.rect().contains(bottom_right), box


def test_the_three_mode_categories_read_apart(qtbot, window):
    view = _laptop_campaign(qtbot, window)
    tree = view.categories
    assert tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    shown = []
    for category_id in ("more_promising", "safer", "which_bottleneck"):
        item = view.category_items[category_id]
        width = tree.visualItemRect(item).width() - 24  # less the check box
        text = tree.fontMetrics().elidedText(item.text(0), tree.textElideMode(), width)
        assert text.endswith(f"{category_id[-8:]})"), text  # the end, with the id, stays
        shown.append(text)
    assert len({text[-12:] for text in shown}) == 3


def test_the_wheel_changes_only_a_focused_box(qtbot, window):
    view = _laptop_campaign(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    view.host.setFocus()
    before = view.budget.value()
    selection = view.selection.currentIndex()
    _wheel(view.budget)
    _wheel(view.selection)
    assert view.budget.value() == before and view.selection.currentIndex() == selection
    view.budget.setFocus()
    qtbot.waitUntil(view.budget.hasFocus, timeout=5000)
    _wheel(view.budget)
    assert view.budget.value() == before - 1
