"""The Results tab over hand-made rows: the "N of M shown" label follows every filter and the
search, a huge reply is capped (and shown in full on request), the export says what it wrote."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.workspace.presentation.long_text import SHOWN_CHARS, broken_lines, capped
from explaincheck.gui.views.report_view import export_summary


def rows(count: int = 12) -> list[dict]:
    llms = ("local:gemma3-270m", "random", "oracle")
    return [
        {
            "environment": "frozen_lake",
            "llm": llms[i % 3],
            "category": "satisfy" if i % 2 else "bottleneck",
            "selection": "prioritized",
            "verdict": "fail" if i % 4 == 0 else "pass",
            "states": [i],
            "delta": 0.1 * i,
            "repeat": 0,
            "prompt": f"prompt {i}",
            "reply": f"reply number {i}" + (" needle" if i in (3, 7) else ""),
            "reason": "",
        }
        for i in range(count)
    ]


def count_text(panel) -> str:
    return panel.count.text()


def test_count_label_follows_filters_failures_and_search(qtbot, window):
    panel = window.results_view.executions
    window.results.add(rows(12))
    panel._refresh_filters()
    assert count_text(panel).startswith("12 of 12 shown")
    panel.set_filter("llm", "local:gemma3-270m")
    assert panel.proxy.rowCount() == 4
    assert count_text(panel).startswith("4 of 12 shown")
    panel.set_filter("llm", "")
    panel.set_filter("category", "satisfy")
    assert count_text(panel).startswith("6 of 12 shown")
    panel.failures.click()  # fails at 0, 4, 8: all bottleneck
    assert count_text(panel).startswith("0 of 12 shown")
    panel.failures.click()
    panel.set_filter("category", "")
    panel.search.setText("needle")  # debounced: the label follows when the search applies
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == 2, timeout=3000)
    assert count_text(panel).startswith("2 of 12 shown")
    panel.search.clear()
    qtbot.waitUntil(lambda: count_text(panel).startswith("12 of 12"), timeout=3000)


def test_verdict_filter_lists_uncertain_and_failures_only_leaves_it_out(qtbot, window):
    panel = window.results_view.executions
    made = rows(8)
    made[1]["verdict"] = made[3]["verdict"] = "uncertain"
    window.results.add(made)
    panel._refresh_filters()
    box = panel.filters["verdict"]
    listed = [box.itemData(i) for i in range(box.count())]
    assert listed == ["", "fail", "pass", "uncertain"]
    panel.set_filter("verdict", "uncertain")
    assert count_text(panel).startswith("2 of 8 shown")
    panel.set_filter("verdict", "")
    panel.failures.click()  # an uncertain verdict is not a failure
    assert count_text(panel).startswith("2 of 8 shown")  # fails at 0 and 4


def test_huge_one_line_reply_is_capped_and_offered_in_full(qtbot, window, tmp_path):
    panel = window.results_view.executions
    huge = "x" * 2_000_000
    row = dict(rows(1)[0], reply=huge, verdict="invalid")
    window.results.add([row])
    window.show_tab("results")
    panel.select_row(0)
    shown = panel.detail.reply.toPlainText()
    assert len(shown) < SHOWN_CHARS + 200
    assert "2,000,000" in shown and "left out" in shown
    assert panel.detail.full_reply_button.isVisibleTo(panel.detail)
    dialog = panel.detail.show_full_reply()
    assert dialog is not None and dialog.full_text == huge
    assert max(len(line) for line in dialog.view.toPlainText().split("\n")) == 1000
    target = tmp_path / "reply.txt"
    dialog.save(str(target))
    assert target.read_text() == huge
    dialog.close()
    # a short reply is shown as it is, without the button
    window.results.add([dict(rows(2)[1], reply="short answer")])
    panel.select_row(1)
    assert panel.detail.reply.toPlainText() == "short answer"
    assert not panel.detail.full_reply_button.isVisibleTo(panel.detail)


def test_capped_keeps_short_text_and_elides_long_lines():
    assert capped("a\nb") == capped("a\nb")
    assert capped("a\nb").text == "a\nb" and not capped("a\nb").shortened
    long_line = "start" + "y" * 10_000 + "end"
    result = capped(long_line, line_limit=100)
    assert result.shortened and result.text.startswith("start") and "end [" not in result.text
    assert "end" in result.text.split("…")[-2] + result.text.split("…")[-1]
    many = "\n".join("line" for _ in range(20_000))
    assert len(capped(many, limit=500).text) < 600
    assert broken_lines("ab" * 5, width=4).split("\n") == ["abab", "abab", "ab"]


def test_export_summary_counts_every_file(tmp_path):
    files = [tmp_path / f"figure{i}.png" for i in range(4)] + [tmp_path / "report.html"]
    text = export_summary(files, tmp_path)
    assert text.startswith(f"Exported 5 files to {tmp_path}")
    assert "report.html" in text
    assert export_summary([Path("a.csv")], "out") == "Exported 1 file to out: a.csv"
    assert "Nothing" in export_summary([], "out")


def test_the_panel_shows_the_workspace_and_forwards_to_it(qtbot, window):
    """A filter set in the bar is the workspace's; the case the workspace chooses is the one
    shown in full (and the window's case_selected gets it); cleared rows clear the detail."""
    panel = window.results_view.executions
    workspace = window.results.workspace
    window.results.add(rows(6))
    panel._refresh_filters()
    panel.set_filter("verdict", "fail")
    assert workspace.filters.equals == {"verdict": "fail"}
    assert panel.proxy.rowCount() == workspace.shown_count == 2  # fails at 0 and 4
    seen: list[object] = []
    window.results_view.case_selected.connect(seen.append)
    panel.select_row(1)
    chosen = workspace.chosen_case
    assert chosen is not None and chosen.verdict == "fail" and seen == [chosen]
    assert panel.detail.header.text().startswith(f"FAIL · {chosen.llm}")
    workspace.choose(workspace.executions[3])
    assert panel.detail.prompt.toPlainText() == "prompt 3"
    workspace.set_equal("verdict", "")  # no widget asked: the bar and the table follow
    assert panel.filters["verdict"].currentData() == ""
    assert panel.proxy.rowCount() == 6 and count_text(panel).startswith("6 of 6 shown")
    workspace.set_failures_only(True)
    assert panel.failures.isChecked() and panel.proxy.rowCount() == 2
    workspace.set_failures_only(False)
    window.results.clear()
    assert workspace.chosen_case is None
    assert panel.detail.prompt.toPlainText() == "" and panel.detail.row is None
