"""The model as the command line or a results file gives it: constants and goal/unsafe labels
(``gui --const --goal --unsafe``; the file's campaign), Enter in a label box, PRISM names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gui_helpers import wait_for
from test_app import run_cli

MODELS = Path(__file__).parents[1] / "models"


@pytest.fixture(scope="module")
def target_db(tmp_path_factory):
    """A campaign on a PRISM file whose goal label is "target", not "goal"."""
    folder = tmp_path_factory.mktemp("target")
    model = folder / "no_goal.prism"
    shutil.copy(MODELS / "no_goal.prism", model)
    db = folder / "results.sqlite"
    run = f"run --env {model} --goal target --llm oracle --budget 2 --categories satisfy"
    result = run_cli(*run.split(), "--db", str(db))
    assert result.returncode == 0, result.stderr
    return model, db


def test_command_line_constants_and_labels_open_the_model(qtbot, window):
    window.start(
        env=str(MODELS / "gambler.prism"),
        model={"constants": "N=3", "goal_label": "", "unsafe_label": ""},
    )
    wait_for(qtbot, lambda: window.model.oracle is not None, 120)
    assert "N=3" in window.model.constants and window.errors == []
    assert window.model_view.constants.text() == window.model.constants


def test_a_results_file_opens_its_model_with_its_labels(target_db, qtbot, window):
    model, db = target_db
    window.open_database(str(db))
    wait_for(qtbot, lambda: window.model.oracle is not None, 120)
    assert window.model.goal_label == "target"
    assert window.model_view.goal.currentText() == "target"
    rows = window.results.rows
    assert rows and all(window.results_view.executions._oracle_for(r) for r in rows)
    # the Results table names the file, the tooltip has the whole path
    table = window.results_view.executions.model
    index = table.index(0, 0)
    assert table.data(index) == "no_goal"
    assert table.data(index, 3) == str(model)  # ToolTipRole
    box = window.results_view.executions.filters["environment"]
    assert box.itemText(1) == "no_goal" and box.itemData(1) == str(model)


def test_enter_in_a_label_box_builds_again(target_db, qtbot, window):
    from PySide6.QtCore import Qt

    model, _db = target_db
    window.model.open_spec(str(model), goal_label="target")
    wait_for(qtbot, lambda: window.model.oracle is not None, 120)
    first = window.model.oracle
    box = window.model_view.unsafe
    box.setFocus()
    box.lineEdit().setText("target")
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)
    wait_for(qtbot, lambda: window.model.oracle not in (None, first), 120)
    assert window.model.unsafe_label == "target"


def test_environment_names_in_the_table():
    from explaincheck.gui.adapters.results_model import environment_name

    assert environment_name("frozen_lake") == "frozen_lake"
    assert environment_name("/home/a/models/gambler.prism") == "gambler"
    assert environment_name("/home/a/dice/model.prism") == "dice"
    assert environment_name("C:\\models\\lift.prism") == "lift"
    assert environment_name(None) == ""
