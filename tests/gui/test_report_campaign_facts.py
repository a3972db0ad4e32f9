"""The Report tab's report is the one ``explaincheck report --db`` makes of the same file: with
the campaign facts and the LLM settings, in the tab's export as in the CLI's."""

from __future__ import annotations

import pytest
from gui_helpers import wait_for
from test_app import run_cli


@pytest.fixture(scope="module")
def report_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "results.sqlite"
    run = "run --env frozen_lake --llm random --llm oracle --budget 2 --categories satisfy,safer"
    result = run_cli(*run.split(), "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


def test_the_tab_report_and_its_html_export_are_the_cli_report(
    report_db, qtbot, qloop, window, tmp_path
):
    from explaincheck.core.analysis.report import build_report, render_text
    from explaincheck.core.store import Store, results_frame

    window.open_database(str(report_db))
    window.show_tab("report")
    view = window.report_view
    wait_for(qtbot, lambda: view.ready and view.report is not None, 60)
    with Store.open(report_db, readonly=True) as store:
        cli = build_report(results_frame(report_db), campaigns=store.campaigns())
    assert render_text(view.report) == render_text(cli)
    keys = [section.key for section in view.report.sections]
    assert keys == [section.key for section in cli.sections]
    summary = view.summary.text()
    future = qloop.create_task(view.export("html", str(tmp_path / "out")))
    wait_for(qtbot, future.done, 30)
    written = future.result()
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    for fact in ("Campaign facts", "LLMs and their settings", "satisfy rule", "goal / unsafe"):
        assert fact in html, fact
    # the export says what it wrote under the summary, which stays
    assert view.summary.text() == summary and "executions" in summary
    assert view.export_line.isVisible() and "report.html" in view.export_line.text()
    assert any(p.name == "report.html" for p in written)
