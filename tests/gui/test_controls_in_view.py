"""At 1366x768 and at 1280x720 with both side panels open, every control of every tab is whole
and readable (``layout_check.cut_controls``), not only the window's size."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from layout_check import cut_controls

LAPTOP = (1366, 740)  # 1366x768 less a desktop panel
SMALL = (1280, 670)  # 1280x720 less a title bar and a desktop panel (issue 39)
SIZES = pytest.mark.parametrize("size", [LAPTOP, SMALL], ids=["1366", "1280"])


@SIZES
@pytest.mark.parametrize("tab", ["graph", "campaign", "teach", "workbench"])
def test_every_control_of_a_tab_is_whole(qtbot, window, tab, size):
    open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: window.graph.ready, 60)
    window.resize(*size)
    assert (window.width(), window.height()) == size
    window.show_tab(tab)
    if tab == "teach":
        wait_for(qtbot, lambda: window.teach_view.ready, 60)
    qtbot.wait(100)
    page = window.tabs.currentWidget()
    problems = cut_controls(page)
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    from test_app import run_cli

    db = tmp_path_factory.mktemp("controls") / "results.sqlite"
    run = "run --env frozen_lake --llm random --llm oracle --budget 2 --selection both"
    result = run_cli(*run.split(), "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


@SIZES
@pytest.mark.parametrize("tab", ["results", "report"])
def test_the_results_and_report_tabs_are_whole(qtbot, window, small_db, tab, size):
    from PySide6.QtWidgets import QScrollArea, QWidget

    open_env(qtbot, window, "frozen_lake")
    window.open_database(str(small_db))
    wait_for(qtbot, lambda: len(window.results.rows) > 0 and window.tasks.idle, 60)
    window.resize(*size)
    assert (window.width(), window.height()) == size
    window.show_tab(tab)
    if tab == "results":
        assert window.results_view.executions.select_first_failure()
    else:
        wait_for(qtbot, lambda: window.report_view.ready, 120)
    qtbot.wait(200)
    page = window.tabs.currentWidget()
    problems = cut_controls(page)
    assert not problems, "\n".join(problems)
    if tab == "report":  # the figures are drawn to the tab's width: no sideways scrolling
        scroll = page.findChild(QScrollArea)
        while isinstance(scroll.parentWidget(), QWidget) and scroll.parentWidget() is not page:
            outer = scroll.parentWidget()
            while outer is not page and not isinstance(outer, QScrollArea):
                outer = outer.parentWidget()
            if outer is page:
                break
            scroll = outer
        assert scroll.horizontalScrollBar().maximum() == 0
