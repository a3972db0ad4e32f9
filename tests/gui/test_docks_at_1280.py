"""At 1280 x 720 with both side panels at their narrowest (300 px) the Model panel and the State
inspector show their contents whole: neither content is wider than its panel's view (the Model
panel needed 335 px for its Property row, so its File line, buttons and fields were cut at the
right edge, with no scroll bar to reach them)."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea


def test_both_panels_fit_their_docks_at_1280(qtbot, window):
    window.resize(1280, 720)
    open_env(qtbot, window, "frozen_lake")
    window.resizeDocks(
        [window.model_dock, window.inspector_dock], [300, 300], Qt.Orientation.Horizontal
    )
    window.inspector.show_state(0)
    wait_for(qtbot, lambda: window.model_dock.width() <= 310, 10)
    for dock in (window.model_dock, window.inspector_dock):
        area = dock.widget()
        assert isinstance(area, QScrollArea)
        content = area.widget()
        assert content is not None
        need, room = content.minimumSizeHint().width(), area.viewport().width()
        assert need <= room, (dock.objectName(), need, room)


def test_at_150_percent_the_model_panel_can_be_scrolled_to_its_right_edge(
    qtbot, window, normal_size_after
):
    """At 150 % the Model panel needs more than a 300-px dock: its controls stay reachable by
    a horizontal scroll bar, never cut at the dock's edge."""
    window.resize(1280, 720)
    open_env(qtbot, window, "frozen_lake")
    window.presentation.apply(150, remember=False)
    window.resizeDocks(
        [window.model_dock, window.inspector_dock], [300, 300], Qt.Orientation.Horizontal
    )
    area = window.model_dock.widget()
    assert isinstance(area, QScrollArea)
    wait_for(qtbot, lambda: area.widget().width() > area.viewport().width(), 10)
    bar = area.horizontalScrollBar()
    assert bar.isVisible() and bar.maximum() == area.widget().width() - area.viewport().width()


@pytest.fixture
def normal_size_after():
    yield
    from explaincheck.gui.support.text_size import set_text_scale

    set_text_scale(1.0)
