"""A results file made with a plugin package, opened where that package is missing: the rows
show as stored, and the status bar names the package and the version to install (issue 53)."""

from __future__ import annotations

from gui_helpers import wait_for
from support.plugin_site import ENTRY_POINTS, GONE, install, run_explaincheck


def test_opening_a_file_made_with_a_missing_plugin_names_the_package(qtbot, window, tmp_path):
    # made in another process, where the package is installed (as a dist-info on its path)
    site = install(tmp_path / "site", "explaincheck-gonelab", "2.0", ENTRY_POINTS)
    db = tmp_path / "made_with_plugin.sqlite"
    done = run_explaincheck(
        "run", "--env", "explaincheck-gonelab/ferry", "--llm", "explaincheck-gonelab/first",
        "--categories", "explaincheck-gonelab/within_k", "--budget", "2", "--db", str(db),
        sites=(site,),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    window.open_database(str(db))
    wait_for(qtbot, lambda: GONE in window.errors)
    assert len(window.results.executions) == 2  # the rows are read as stored
    assert window.statusBar().currentMessage() == f"{db}: {GONE}"
    assert window.model.environment is None  # its model cannot open here: nothing half-opened
