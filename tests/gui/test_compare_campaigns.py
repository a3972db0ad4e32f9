"""Results › Compare campaigns…: two real results files, the gate's table, a discordant case a
click away with both replies and the oracle's answer; the repeats grouping's Flaky only."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtWidgets import QMenu

from explaincheck.core.cli.main import main
from explaincheck.gui.views.compare_campaigns_dialog import CompareCampaignsDialog

RUN = "run --env frozen_lake --categories satisfy,safer --budget 12 --seed 0"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gui_compare")
    for llm, name in (("oracle", "base"), ("noisy:0.5", "new")):
        assert main([*RUN.split(), "--llm", llm, "--db", str(folder / f"{name}.sqlite")]) == 0
    return folder


def test_the_dialog_shows_the_gate_and_both_replies_of_a_discordant_case(qtbot, files):
    dialog = CompareCampaignsDialog(str(files / "new.sqlite"))
    qtbot.addWidget(dialog)
    assert dialog.set_file("base", str(files / "base.sqlite"))
    comparison = dialog.comparison  # compared as soon as both files are there
    assert comparison.base_llm == "oracle" and comparison.new_llm == "noisy:0.5"
    assert dialog.verdict.text().startswith("REGRESSION in ")
    assert dialog.table.rowCount() == len(comparison.lines) == 3
    assert dialog.table.item(2, 0).text() == "all (overall)"
    assert dialog.table.item(2, 11).text() == "YES"
    satisfy = comparison.lines[0]
    assert dialog.table.item(0, 3).text() == str(satisfy.base_only)
    # a category's discordant cases; the first is shown side by side
    dialog.table.selectRow(0)
    assert dialog.case_table.rowCount() == satisfy.base_only + satisfy.new_only
    assert (
        dialog.case_table.item(0, 2).text() == "100%"
        and dialog.case_table.item(0, 3).text() == "0%"
    )
    base_row, new_row = dialog.detail_base.row, dialog.detail_new.row
    assert base_row["llm"] == "oracle" and new_row["llm"] == "noisy:0.5"
    assert base_row["states"] == new_row["states"] and base_row["category"] == "satisfy"
    assert base_row["verdict"] == "pass" and new_row["verdict"] == "fail"
    assert "expected:" in dialog.detail_new.answers.toPlainText()  # the oracle's answer
    assert dialog.detail_new.reply.toPlainText() == new_row["reply"]
    dialog.table.selectRow(1)  # another category: its cases only
    assert {dialog.case_table.item(r, 0).text() for r in range(dialog.case_table.rowCount())} <= {
        "safer"
    }


def test_a_copy_is_no_regression_and_a_bad_file_is_one_line(qtbot, files, tmp_path):
    copy = tmp_path / "copy.sqlite"
    shutil.copy(files / "new.sqlite", copy)
    dialog = CompareCampaignsDialog(str(files / "new.sqlite"))
    qtbot.addWidget(dialog)
    assert dialog.set_file("base", str(copy))
    assert dialog.verdict.text().startswith("No regression: a drop of ")
    assert dialog.case_table.rowCount() == 0
    assert not dialog.set_file("base", str(tmp_path / "missing.sqlite"))
    assert "missing.sqlite" in dialog.verdict.text()


def test_the_results_menu_opens_the_dialog_on_the_open_file(qtbot, window, files):
    window.results.db_path = str(files / "new.sqlite")
    menus = {m.title(): m for m in window.menuBar().findChildren(QMenu)}
    action = next(a for a in menus["&Results"].actions() if a.text() == "Compare campaigns…")
    action.trigger()
    dialog = window.compare_campaigns_dialog
    qtbot.addWidget(dialog)
    assert dialog.paths["new"].text() == str(files / "new.sqlite")
    assert dialog.llms["new"].currentData() == "noisy:0.5"


def test_flaky_only_groups_repeats_and_keeps_the_flaky_cases(qtbot, window):
    from test_results_repeats_paired import repeated_rows

    panel = window.results_view.executions
    window.results.add(repeated_rows())
    panel.flaky_button.click()
    assert panel.group_button.isChecked() and panel.group_table.isVisibleTo(panel)
    model = panel.groups
    assert model.rowCount() == 1  # c1 (2 of 3 passed) is flaky; c2 (0 of 3) is stable-fail
    assert model.data(model.index(0, 3)) == "1" and model.data(model.index(0, 6)) == "⚠ flaky"
    panel.flaky_button.click()
    assert model.rowCount() == 2
