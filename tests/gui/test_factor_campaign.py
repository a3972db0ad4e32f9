"""The Campaign tab offers ``factors`` on request (with its cost) and a behavioural check; a run
with both stores the probes, and the Results tab's factor panel shows their marks."""

from __future__ import annotations

from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt


def test_factors_can_be_ticked_and_the_behavioural_check_recorded(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    item = view.category_items["factors"]
    wait_for(qtbot, lambda: "extra model checks" in item.text(0), 60)
    assert not item.isDisabled()
    assert item.checkState(0) == Qt.CheckState.Unchecked  # never asked by default
    # frozen_lake: slippery ice and four holes are model factors: 2 * 5 + 1 model checks
    assert "11 extra model checks" in item.text(0)
    assert "cached" in item.toolTip(0)
    assert "one extra question per factor" in view.behavioural.toolTip().lower()
    item.setCheckState(0, Qt.CheckState.Checked)
    assert "factors" in view.category_box.selected_categories()

    for i in range(view.llms.count()):
        spec = view.llms.item(i).data(Qt.ItemDataRole.UserRole)
        view.llm_box.set_llm_checked(spec, spec == "oracle")
    view.category_box.set_categories(["factors"])
    view.budget.setValue(2)
    view.selection.setCurrentIndex(view.selection.findData("prioritized"))
    view.behavioural.setChecked(True)
    db = tmp_path / "results.sqlite"
    view.database.setText(str(db))
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: window.campaigns.running or bool(window.results.rows), 60)
    wait_for(qtbot, lambda: not window.campaigns.running and window.tasks.idle, 300)
    rows = window.results.rows
    assert rows and {r["category"] for r in rows} == {"factors"}
    assert all(r["verdict"] == "pass" for r in rows)

    window.show_tab("results")
    executions = window.results_view.executions
    executions.select_row(0)
    panel = window.results_view.factor_panel
    wait_for(qtbot, lambda: panel.picture is not None, 60)
    assert executions.detail.factor_box.isVisibleTo(executions.detail)
    assert panel.picture.asked and "recorded" in panel.title.text()
    behaviour = {panel.table.item(r, 4).text() for r in range(panel.table.rowCount())}
    assert behaviour <= {"changes", "keeps"} and behaviour
    # selecting the slip factor lights the states where A* changes on the main graph
    panel.select_factor("slippery_ice")
    wait_for(qtbot, lambda: panel.shown is not None, 120)
    assert panel.shown.changed
    lit = {s for s, node in window.graph.node_items.items() if node.highlighted}
    assert lit == set(panel.shown.changed) & set(window.graph.node_items)


def test_the_behavioural_choice_survives_a_new_window(qtbot, qloop, settings):
    from explaincheck.gui.main_window import MainWindow

    first = MainWindow(settings)
    qtbot.addWidget(first)
    assert not first.campaign_view.behavioural.isChecked()  # opt-in
    first.campaign_view.behavioural.setChecked(True)
    first.close()
    second = MainWindow(settings)
    qtbot.addWidget(second)
    assert second.campaign_view.behavioural.isChecked()
    second.close()
