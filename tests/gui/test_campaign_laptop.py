"""The Campaign tab on a 1366x768 laptop: Budget and Selection in view without scrolling, the
category names read whole (wrapped, never elided), and the wheel changes only a focused box."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

LAPTOP = (1366, 740)
SMALL = (1280, 670)  # 1280x720 less a title bar and a desktop panel


def _laptop_campaign(qtbot, window, size=LAPTOP):
    window.resize(*size)
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


@pytest.mark.parametrize("size", [LAPTOP, SMALL], ids=["1366", "1280"])
def test_every_category_name_is_read_whole(qtbot, window, size):
    """Each category's name, id and mark wrap to the room the tree has: never elided (issue
    50: "Best action...est_action)", "Which state..._promising)" at 1366 px, worse at 1280)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    view = _laptop_campaign(qtbot, window, size)
    tree = view.categories
    style, metrics = tree.style(), tree.fontMetrics()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1
    cut = []
    for category_id, item in view.category_items.items():
        index = tree.indexFromItem(item)
        option = QStyleOptionViewItem()
        tree.itemDelegate().initStyleOption(option, index)
        option.rect = tree.visualRect(index)
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, tree)
        room.adjust(margin, 0, -margin, 0)
        flags = Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft
        needed = metrics.boundingRect(room.x(), 0, room.width(), 10_000, flags, item.text(0))
        assert category_id in item.text(0)
        if needed.height() > room.height() or needed.width() > room.width():
            cut.append((item.text(0), needed.size().toTuple(), room.size().toTuple()))
    assert not cut, cut
    assert tree.textElideMode() == Qt.TextElideMode.ElideNone
    # and the tree itself whole in the page: no sideways scrolling hides its right edge
    page = view.findChild(QScrollArea)
    assert page.horizontalScrollBar().maximum() == 0
    right = tree.mapTo(page.viewport(), tree.rect().topRight()).x()
    assert right < page.viewport().width(), (right, page.viewport().width())


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
