"""Opening a results file tested on another model opens that model, as it was tested, so the
graph and the inspector show the model the Results and Report tabs speak of (issue 50: the old
model stayed while the Report showed the new file's results)."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from test_app import run_cli


@pytest.fixture(scope="module")
def river_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("other_model") / "river.sqlite"
    run = "run --env wolf_goat_cabbage --llm random --budget 1 --categories satisfy,best_action"
    result = run_cli(*run.split(), "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


def test_a_file_of_another_model_opens_its_model(river_db, qtbot, window):
    open_env(qtbot, window, "frozen_lake")
    window.open_database(str(river_db))
    wait_for(qtbot, lambda: len(window.results.rows) > 0, 60)
    wait_for(
        qtbot,
        lambda: (
            window.model.environment.id == "wolf_goat_cabbage"
            and window.model.oracle is not None
            and window.graph.ready
        ),
        120,
    )
    row = window.results.executions[0]
    assert window.model.oracle.model.content_hash == row.model_hash  # as it was tested
    assert window.graph.oracle is window.model.oracle
    said = window.statusBar().currentMessage()
    assert (
        said
        == "Opened wolf_goat_cabbage, the model river.sqlite was tested on (Frozen Lake was open)"
    )
    # the same file again: its model is open, nothing is rebuilt
    before = window.model.oracle
    task = window.open_database(str(river_db))
    wait_for(qtbot, task.done, 60)
    wait_for(qtbot, lambda: window.tasks.idle and not window.model.busy, 60)
    assert window.model.oracle is before
