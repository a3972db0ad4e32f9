"""The selection rules in the window (docs/method.md §4): the State inspector marks do-nothing
actions, the Campaign tab marks categories that measure nothing and offers to keep do-nothing
actions, the Report tab can leave reading cases out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gui_helpers import wait_for

from explaincheck.core.environments.generic import generic_environment

CORRIDOR = Path(__file__).resolve().parents[1] / "models" / "corridor.prism"


def open_corridor(qtbot, window):
    window.model.open_environment(generic_environment(CORRIDOR, constants="TARGET=4"))
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 120)
    return window.model.oracle


def test_corridor_marks_do_nothing_and_degenerate_categories(qtbot, window):
    oracle = open_corridor(qtbot, window)
    inspector = window.inspector
    moving = next(s for s in oracle.states if s.q)
    inspector.show_state(moving.id)
    assert inspector.fields["do_nothing"].text().startswith("wait: every outcome is this state")
    top = [inspector.successors.topLevelItem(i).text(0) for i in range(3)]
    assert "wait (do-nothing)" in top and "left" in top
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is oracle, 60)
    promising = view.category_items["more_promising"]
    assert "measures nothing here" in promising.text(0)
    assert "reading cases" in promising.toolTip(0)
    assert "measures nothing" not in view.category_items["best_action"].text(0)
    assert not view.setup().keep_do_nothing
    view.keep_do_nothing.setChecked(True)
    assert view.setup().keep_do_nothing and view.choices()["keep_do_nothing"] is True


def test_report_tab_leaves_reading_cases_out(qtbot, window, tmp_path):
    db = tmp_path / "c.sqlite"
    command = [sys.executable, "-m", "explaincheck.gui.launcher", "run", "--env", str(CORRIDOR)]
    command += ["--const", "TARGET=4", "--llm", "random", "--categories", "all", "--db", str(db)]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    task = window.open_database(str(db))
    wait_for(qtbot, task.done, 60)
    window.show_tab("report")
    report = window.report_view
    wait_for(qtbot, lambda: report.ready and report.report is not None, 120)
    box, _view, model, _note = report.tables["reading_share"]
    assert not box.isHidden() and model.rowCount() == 1
    cells = [str(model.index(0, c).data()) for c in range(model.columnCount())]
    assert "1.00" in cells  # every more_promising pair holds the trap
    report.exclude_reading.setChecked(True)
    wait_for(qtbot, lambda: report.ready and "left out" in report.tables["table1"][3].text(), 120)
