"""The Campaign panel: categories that do not apply are greyed out with the reason, the Ollama
host check lists models from a (stand-in) server, results of a command-line run can be browsed."""

from __future__ import annotations

import subprocess
import sys

from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt


def test_not_applicable_categories_are_greyed_out(qtbot, window):
    open_env(qtbot, window, "water_jug")  # no bottleneck states (paper section 6.1)
    view = window.campaign_view
    wait_for(qtbot, lambda: bool(view.category_box.reasons), 60)
    for category in ("bottleneck", "subset_bottleneck", "which_bottleneck"):
        item = view.category_items[category]
        assert item.isDisabled(), category
        assert item.toolTip(0), category
        assert "not applicable" in item.text(0)
    assert not view.category_items["satisfy"].isDisabled()
    assert "bottleneck" not in view.category_box.selected_categories()
    # and applicable again for a model with bottlenecks
    open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: not view.category_items["bottleneck"].isDisabled(), 60)


def test_ollama_host_check_lists_models(qtbot, window):
    from support.ollama_standin import Script, StandinOllama

    with StandinOllama({"gemma3:1b": Script(), "qwen3:4b": Script()}) as server:
        view = window.campaign_view
        view.host.setText(server.url)
        view.llm_box.check_host()
        wait_for(qtbot, lambda: view.check_button.isEnabled(), 30)
    specs = [view.llms.item(i).data(Qt.ItemDataRole.UserRole) for i in range(view.llms.count())]
    assert f"ollama:gemma3:1b@{server.url}" in specs
    assert f"ollama:qwen3:4b@{server.url}" in specs
    assert view.host_status.text().startswith("✓")


def test_ollama_host_check_reports_no_server(qtbot, window):
    view = window.campaign_view
    view.host.setText("http://127.0.0.1:9")  # discard port: nothing listens
    view.llm_box.check_host()
    wait_for(qtbot, lambda: view.check_button.isEnabled(), 30)
    assert view.host_status.text().startswith("✗")


def test_results_of_a_command_line_run_can_be_browsed(qtbot, window, tmp_path):
    db = tmp_path / "cli.sqlite"
    command = [
        sys.executable,
        "-m",
        "explaincheck.gui.launcher",
        "run",
        "--env",
        "frozen_lake",
        "--llm",
        "random",
        "--llm",
        "oracle",
        "--categories",
        "satisfy,best_action",
        "--budget",
        "2",
        "--db",
        str(db),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    task = window.open_database(str(db))
    wait_for(qtbot, task.done, 60)
    rows = window.results.rows
    assert len(rows) == 8  # 2 categories x 2 cases x 2 LLMs
    assert {r["llm"] for r in rows} == {"random", "oracle"}
    # the database names its environment: the window opens it to show the oracle values
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 60)
    panel = window.results_view.executions
    panel.select_row(0)
    assert "V =" in panel.detail.oracle.toPlainText()


def test_one_click_clears_a_group_holding_a_category_that_does_not_apply(qtbot, window):
    """water_jug: which_bottleneck (Mode) does not apply; the Mode group reads ticked, and one
    click clears the two that can be chosen (Qt's auto-tristate took two)."""
    open_env(qtbot, window, "water_jug")
    box = window.campaign_view.category_box
    wait_for(qtbot, lambda: bool(box.reasons), 60)
    mode = next(g for g in box.groups if g.text(0).startswith("Mode"))
    children = [mode.child(i) for i in range(mode.childCount())]
    assert any(c.isDisabled() for c in children) and not all(c.isDisabled() for c in children)
    chosen = [c for c in children if not c.isDisabled()]
    for c in chosen:  # tick what can be chosen, as a default campaign may leave safer out
        c.setCheckState(0, Qt.CheckState.Checked)
    assert mode.checkState(0) == Qt.CheckState.Checked
    mode.setCheckState(0, Qt.CheckState.Unchecked)  # what one click does to a ticked group
    assert all(c.checkState(0) == Qt.CheckState.Unchecked for c in chosen)
    assert mode.checkState(0) == Qt.CheckState.Unchecked
    assert not {"more_promising", "safer"} & set(box.selected_categories())
    chosen[0].setCheckState(0, Qt.CheckState.Checked)
    assert mode.checkState(0) == Qt.CheckState.PartiallyChecked
