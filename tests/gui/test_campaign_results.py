"""A campaign run from the Campaign view with the random and oracle answerers: rows appear live,
a failing row shows its prompt, reply and verdict and highlights its state; the report builds
and exports; untrusted reply text is shown literally."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt

CATEGORIES = ["satisfy", "bottleneck", "best_action"]


def configure(window, db, budget: int = 4) -> None:
    view = window.campaign_view
    for i in range(view.llms.count()):
        spec = view.llms.item(i).data(Qt.ItemDataRole.UserRole)
        view.llm_box.set_llm_checked(spec, spec in ("random", "oracle"))
    wait_for_applicability(window)
    view.category_box.set_categories(CATEGORIES)
    view.budget.setValue(budget)
    view.selection.setCurrentIndex(view.selection.findData("both"))
    view.database.setText(str(db))


def wait_for_applicability(window) -> None:
    # the category check boxes are updated off the GUI thread after the oracle is built
    from PySide6.QtWidgets import QApplication

    for _ in range(200):
        if window.campaign_view.category_box.reasons or window.tasks.idle:
            break
        QApplication.processEvents()


@pytest.fixture
def campaign_window(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: window.tasks.idle, 30)
    db = tmp_path / "results.sqlite"
    configure(window, db)
    seen: list[int] = []
    window.results.rows_added.connect(lambda first, count: seen.append(first + count))
    qtbot.mouseClick(window.campaign_view.run_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: window.campaigns.running or bool(window.results.rows), 30)
    wait_for(qtbot, lambda: not window.campaigns.running and window.tasks.idle, 180)
    window.seen_counts = seen
    return window, db


def test_rows_appear_live_and_match_the_database(qtbot, campaign_window):
    window, db = campaign_window
    rows = window.results.rows
    assert rows, "the campaign produced no rows"
    assert len(window.seen_counts) >= 2, "rows should arrive one by one while running"
    assert {r["llm"] for r in rows} == {"random", "oracle"}
    assert {r["category"] for r in rows} == set(CATEGORIES)
    assert all(r["verdict"] == "pass" for r in rows if r["llm"] == "oracle")
    # the table shows them all, and the progress reached the total
    assert window.results_view.executions.proxy.rowCount() == len(rows)
    progress = window.campaign_view.progress
    assert progress.value() == progress.maximum() == len(rows)
    # the per-LLM ETA followed the run: every LLM's executions were counted down to none
    assert window.campaign_run.clock.eta is not None and set(
        window.campaign_run.clock.eta.paces
    ) == {"random", "oracle"}
    assert (
        all(p.remaining == 0 for p in window.campaign_run.clock.eta.paces.values())
        and window.campaign_run.clock.eta.eta() == 0.0
    )
    from explaincheck.core.store import results_frame

    assert len(results_frame(db)) == len(rows)


def test_failing_row_shows_its_case_and_highlights_the_state(qtbot, campaign_window):
    window, _db = campaign_window
    panel = window.results_view.executions
    panel.failures.click()
    assert panel.proxy.rowCount() > 0, "random should fail some cases"
    window.show_tab("results")
    panel.select_row(0)
    row = panel.detail.row
    assert row is not None and row["verdict"] in ("fail", "invalid")
    assert panel.detail.prompt.toPlainText() == row["prompt"]
    assert panel.detail.reply.toPlainText() == str(row["reply"])
    assert panel.detail.header.text().startswith(row["verdict"].upper())
    assert "expected" in panel.detail.answers.toPlainText()
    assert "V =" in panel.detail.oracle.toPlainText()
    states = [int(s) for s in row["states"]]
    highlighted = {i for i, n in window.graph.node_items.items() if n.highlighted}
    assert highlighted == set(states)
    assert window.inspector.facts is not None and window.inspector.facts.id == states[0]
    # filters and search
    panel.failures.click()
    panel.set_filter("llm", "oracle")
    assert panel.proxy.rowCount() == sum(1 for r in window.results.rows if r["llm"] == "oracle")
    panel.set_filter("llm", "")
    panel.workspace.set_text("no such text anywhere 12345")
    assert panel.proxy.rowCount() == 0
    panel.workspace.set_text("")


def test_side_by_side_puts_disagreements_first(qtbot, campaign_window):
    window, _db = campaign_window
    compare = window.results_view.compare
    compare.llm_a.setCurrentText("oracle")
    compare.llm_b.setCurrentText("random")
    pairs = compare.model.pairs
    assert pairs
    flags = [a["verdict"] != b["verdict"] or a["answer"] != b["answer"] for a, b in pairs]
    assert flags == sorted(flags, reverse=True)
    assert flags[0]


def test_report_builds_and_exports(qtbot, campaign_window, tmp_path):
    window, _db = campaign_window
    window.show_tab("report")
    report = window.report_view
    wait_for(qtbot, lambda: report.ready and report.report is not None, 120)
    assert report.heatmap.canvas is not None and report.difficulty.canvas is not None
    model = report.tables["table1"][2]
    assert model.rowCount() == 2  # frozen_lake x {oracle, random}
    # small cells are marked and their intervals and case counts are shown beside
    box, _view, intervals, note = report.tables["table1_intervals"]
    assert not box.isHidden() and intervals.rowCount() == 2
    shown = [str(intervals.index(0, c).data()) for c in range(intervals.columnCount())]
    assert any("[" in text and "n=" in text for text in shown), shown
    assert "Wilson" in note.text()
    out = tmp_path / "export"
    for kind in ("png", "svg", "csv", "html"):
        task = window.tasks.start(report.export(kind, str(out)), "export")
        wait_for(qtbot, task.done, 60)
        assert task.result(), kind
    names = {p.name for p in out.iterdir()}
    assert {"table1_heatmap.png", "difficulty.svg", "report.html", "table1.csv"} <= names


def test_opening_the_database_again_shows_the_same_rows(qtbot, campaign_window):
    window, db = campaign_window
    count = len(window.results.rows)
    window.results.clear()
    task = window.open_database(str(db))
    wait_for(qtbot, task.done, 30)
    assert len(window.results.rows) == count


def test_teach_view_steps_through_a_state(qtbot, campaign_window):
    window, _db = campaign_window
    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("bottleneck"))
    wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 30)
    (bottleneck,) = window.model.oracle.bottlenecks
    teach.show_state(bottleneck)
    assert teach.lesson.case.states == (bottleneck,)
    assert "bottleneck" in teach.question_card.body.text().lower()
    teach.reveal()
    assert "Bottleneck:" in teach.oracle_card.body.text()
    assert teach.lesson.path and bottleneck in teach.lesson.path
    assert any(item.on_path for item in teach.graph.node_items.values())
    teach.llm.setCurrentIndex(teach.llm.findData("oracle"))
    teach.reveal()
    wait_for(qtbot, lambda: "Verdict" in teach.reply_card.body.text(), 30)
    assert "PASS" in teach.reply_card.body.text()


def test_untrusted_reply_is_shown_literally(qtbot, qloop):
    from explaincheck.gui.support.safe_text import tooltip
    from explaincheck.gui.views.case_detail import CaseDetail

    nasty = '<img src="file:///etc/passwd"><b>bold</b><script>alert(1)</script>'
    detail = CaseDetail()
    qtbot.addWidget(detail)
    row = {
        "verdict": "fail",
        "llm": "<i>llm</i>",
        "category": "satisfy",
        "selection": "random",
        "states": [1],
        "delta": 0.5,
        "repeat": 0,
        "prompt": "question",
        "reply": nasty,
        "reason": nasty,
        "answer": None,
        "expected": {"probability": 0.5},
    }
    detail.show_row(row)
    assert detail.reply.toPlainText() == nasty
    assert detail.reason.textFormat() == Qt.TextFormat.PlainText
    assert detail.reason.text() == nasty
    assert detail.header.textFormat() == Qt.TextFormat.PlainText
    assert "<img" not in tooltip(nasty) and "&lt;img" in tooltip(nasty)
