"""The Report tab while it computes ("Computing…" where the figures will be, not "No results
yet") and with a self-check file (shown as a self-check first: no Table 1 of no cases, the
Self-check box in view without scrolling), issue 50 points 2 and 3."""

from __future__ import annotations

import asyncio

import pytest
from gui_helpers import wait_for
from test_app import run_cli

LAPTOP = (1366, 740)  # 1366x768 less a desktop panel


@pytest.fixture(scope="module")
def campaign_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report_tab") / "results.sqlite"
    run = "run --env frozen_lake --llm random --llm oracle --budget 2"
    result = run_cli(*run.split(), "--categories", "satisfy,best_action", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


@pytest.fixture(scope="module")
def selfcheck_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report_tab") / "self.sqlite"
    result = run_cli("selfcheck", "--env", "frozen_lake", "--llm", "noisy:0.3", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


def test_the_figures_say_computing_while_the_report_is_computed(campaign_db, qtbot, window):
    view = window.report_view
    assert view.heatmap.placeholder.text().startswith("No results yet")  # nothing open
    gate = asyncio.Event()
    offload = view.workspace._offload

    async def held_back(function, *args):  # the report's computation waits for the test
        await gate.wait()
        return await offload(function, *args)

    view.workspace._offload = held_back
    window.show_tab("report")
    window.open_database(str(campaign_db))
    wait_for(qtbot, lambda: view.summary.text() == "Computing the report…", 60)
    for panel in (view.heatmap, view.difficulty):
        assert panel.placeholder.isVisible() and panel.placeholder.text() == "Computing…"
    gate.set()
    wait_for(qtbot, lambda: view.ready and view.heatmap.canvas is not None, 120)
    assert not view.heatmap.placeholder.isVisible() and view.heatmap.isVisible()
    assert not view.campaign_free.isVisible() and view.policy_place == "bottom"


def test_a_self_check_file_is_shown_as_a_self_check_first(selfcheck_db, qtbot, window):
    from PySide6.QtCore import QPoint

    window.resize(*LAPTOP)
    window.show_tab("report")
    window.open_database(str(selfcheck_db))  # no model open: the file's opens with it
    view = window.report_view
    box = view.policy_loss.selfcheck
    wait_for(qtbot, lambda: view.ready and view.report is not None and not box.isHidden(), 120)
    qtbot.wait(50)
    assert view.campaign_free.isVisible() and "self-check" in view.campaign_free.text()
    assert not view.heatmap.isVisible() and not view.difficulty.isVisible()
    assert not any(b.isVisible() for b, *_ in view.tables.values())
    assert view.report.figures == {} and view.report.sections == []
    assert view.policy_place == "top"
    # the whole self-check table in view, the page not scrolled
    viewport = view.scroll_area.viewport()
    top = box.view.mapTo(viewport, QPoint(0, 0)).y()
    assert view.scroll_area.verticalScrollBar().value() == 0
    assert top >= 0 and top + box.view.height() <= viewport.height(), (top, viewport.height())
    figures = {box.model.index(r, 0).data() for r in range(box.model.rowCount())}
    assert {"say–do agreement", "accuracy: own policy", "value loss of its policy"} <= figures


@pytest.mark.parametrize("size", [LAPTOP, (1280, 670)], ids=["1366", "1280"])
def test_a_figure_that_can_fit_its_panel_does_not_scroll_sideways(campaign_db, qtbot, window, size):
    """The figures are scaled to the width the report gives them once its scroll bar is
    there: a small Table 1 (two categories, two LLMs) at 1366 or 1280 with both docks shows
    whole, with no sideways bar (a guessed margin left 6 to 14 pixels to scroll)."""
    window.resize(*size)
    window.show_tab("report")
    window.open_database(str(campaign_db))
    view = window.report_view
    wait_for(qtbot, lambda: view.ready and view.heatmap.canvas is not None, 120)
    qtbot.wait(100)
    assert window.model_dock.isVisible() and window.inspector_dock.isVisible()
    for panel in (view.heatmap, view.difficulty):
        room = panel.holder.viewport().width()
        assert panel.holder.horizontalScrollBar().maximum() == 0, (panel.canvas.width(), room)
