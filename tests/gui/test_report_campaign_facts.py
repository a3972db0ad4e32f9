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
    # safer asked for where it repeats more_promising: Table 1's note carries a caveat
    run = "run --env water_jug --llm random --budget 2 --categories safer"
    result = run_cli(*run.split(), "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


def test_the_tab_report_and_its_html_export_are_the_cli_report(
    report_db, qtbot, qloop, window, tmp_path
):
    from explaincheck.core.analysis.report import build_report
    from explaincheck.core.store import Store, results_frame
    from explaincheck.gui.views.report_view import FIGURES, TABLES

    window.open_database(str(report_db))
    window.show_tab("report")
    view = window.report_view
    wait_for(qtbot, lambda: view.ready and view.report is not None, 60)
    with Store.open(report_db, readonly=True) as store:
        cli = build_report(results_frame(report_db), campaigns=store.campaigns())
    # the tab computes what it shows, and what it shows is the CLI's
    shown = {section.key: section for section in view.report.sections}
    assert set(shown) == set(TABLES) and set(view.report.figures) == set(FIGURES)
    for section in cli.sections:
        if section.key in shown:
            tab = shown[section.key]
            assert (tab.title, tab.note) == (section.title, section.note)
            assert tab.table.equals(section.table), section.key
    assert view.report.summary == cli.summary
    # the Table 1 note keeps the category caveats of the campaigns
    note = shown["table1"].note
    assert "Note — safer in water_jug: every run ends in the goal or in an unsafe state" in note
    assert view.tables["table1"][3].text() == note
    summary = view.summary.text()
    future = qloop.create_task(view.export("html", str(tmp_path / "out")))
    wait_for(qtbot, future.done, 30)
    written = future.result()
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    for fact in ("Campaign facts", "LLMs and their settings", "satisfy rule", "goal / unsafe"):
        assert fact in html, fact
    # the export is the whole report, as the CLI writes it, not the tab's parts
    assert html.count("<h2") == sum(1 for s in cli.sections if "html" in s.formats)
    # the export says what it wrote under the summary, which stays
    assert view.summary.text() == summary and "executions" in summary
    assert view.export_line.isVisible() and "report.html" in view.export_line.text()
    assert any(p.name == "report.html" for p in written)
