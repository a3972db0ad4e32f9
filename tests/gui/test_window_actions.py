"""The window's "Re-grade results…" and "Save wording as environment folder…" actions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gui_helpers import wait_for

CHAIN = Path(__file__).parents[1] / "models" / "chain.prism"


@pytest.fixture
def stored(tmp_path):
    """A real results file, from the CLI in its own process (it runs its own event loop)."""
    db = tmp_path / "r.sqlite"
    run = "run --env frozen_lake --llm random --categories satisfy --budget 10 --selection random"
    command = [sys.executable, "-m", "explaincheck.gui.launcher", *run.split(), "--db", str(db)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    return db


def test_regrade_changes_the_shown_verdicts_without_asking_again(qtbot, stored, window):
    db = stored
    assert not window.commands.regrade.isEnabled()  # no results file yet
    window.open_database(str(db))
    wait_for(qtbot, lambda: window.results.db_path == str(db) and window.tasks.idle, 30)
    assert window.commands.regrade.isEnabled()
    before = {r["id"]: (r["verdict"], r["reply"]) for r in window.results.rows}
    fails = sum(verdict == "fail" for verdict, _ in before.values())
    assert fails > 0

    task = window.regrading.regrade("absolute", 1.0)
    wait_for(qtbot, lambda: task.done() and window.tasks.idle, 60)
    after = {r["id"]: (r["verdict"], r["reply"]) for r in window.results.rows}
    assert after.keys() == before.keys()
    for row_id, (verdict, reply) in after.items():
        assert reply == before[row_id][1]
        assert verdict == ("pass" if before[row_id][0] in ("pass", "fail") else before[row_id][0])
    assert f"{fails} changed verdict" in window.statusBar().currentMessage()
    assert window.commands.regrade.isEnabled()


def test_save_wording_writes_a_folder_that_opens_as_an_environment(qtbot, window, tmp_path):
    model = tmp_path / "bare" / "chain.prism"
    model.parent.mkdir()
    model.write_text(CHAIN.read_text())
    window.model.open_spec(str(model))
    wait_for(qtbot, lambda: window.model.oracle is not None and window.tasks.idle, 120)
    assert window.commands.save_wording.isEnabled()

    folder = tmp_path / "chain_env"
    task = window.wording.save_wording(str(folder))
    wait_for(qtbot, lambda: task.done(), 30)
    assert (folder / "environment.toml").is_file()
    assert (folder / "model.prism").read_text() == CHAIN.read_text()
    assert "Saved" in window.statusBar().currentMessage()

    # A second save into the same folder is refused with one line, nothing overwritten.
    toml = (folder / "environment.toml").read_text()
    task = window.wording.save_wording(str(folder))
    wait_for(qtbot, lambda: task.done(), 30)
    assert "already exists" in window.statusBar().currentMessage()
    assert window.errors and "already exists" in window.errors[-1]
    assert (folder / "environment.toml").read_text() == toml

    # The saved folder opens as an environment, which has its wording already.
    window.model.open_spec(str(folder / "model.prism"))
    wait_for(
        qtbot,
        lambda: (
            window.model.environment is not None
            and window.model.environment.folder is not None
            and window.tasks.idle
        ),
        120,
    )
    assert window.model.environment.title == "chain"
    wait_for(qtbot, lambda: not window.commands.save_wording.isEnabled(), 30)
