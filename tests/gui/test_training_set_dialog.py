"""Results › Make a training set… (split options, the counts per category and split, formats,
the work on a worker thread) and the Compare dialog's "Before/after on held-out cases" preset,
on real results files of the ladder (tests/models/ladder.prism)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from explaincheck.core.cli.main import main
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.compare_campaigns_dialog import CompareCampaignsDialog
from explaincheck.gui.views.training_set_dialog import TrainingSetDialog

LADDER = str(Path(__file__).parents[1] / "models" / "ladder.prism")
RUN = ["run", "--env", LADDER, "--categories", "best_action,worst_action,satisfy"]


def cli(args: list[str]) -> int:
    """The command line, run where no event loop is marked running (the session's qasync loop
    is marked so from its creation, and ``run`` starts a loop of its own)."""
    running = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        return main(args)
    finally:
        asyncio.events._set_running_loop(running)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("gui_training_set")
    args = [*RUN, "--llm", "learner", "--llm", "random", "--budget", "12"]
    assert cli([*args, "--db", str(root / "base.sqlite")]) == 0
    return root


def test_the_dialog_splits_counts_and_writes_a_training_set(qtbot, qloop, files, tmp_path):
    tasks = Tasks()
    dialog = TrainingSetDialog(str(files / "base.sqlite"), tasks)
    qtbot.addWidget(dialog)
    dialog.share.setValue(0.3)
    dialog.start_split()
    assert not dialog.split_button.isEnabled()  # working on a thread, the window free
    qtbot.waitUntil(lambda: dialog.found is not None and tasks.idle, timeout=60_000)
    rows = {
        dialog.table.item(r, 0).text(): [dialog.table.item(r, c).text() for c in (1, 2, 3)]
        for r in range(dialog.table.rowCount())
    }
    assert set(rows) == {"best_action", "worst_action", "satisfy", "all"}
    train, held, left = dialog.found.totals
    assert rows["all"] == [str(train), str(held), str(left)] and train and held
    split_path = str(tmp_path / "split.json")
    tasks.start(dialog.save(split_path))
    qtbot.waitUntil(lambda: dialog.write_button.isEnabled() and tasks.idle, timeout=30_000)
    assert json.loads(Path(split_path).read_text(encoding="utf-8"))["rule"]["by"] == "state"
    dialog.format.setCurrentIndex(dialog.format.findData("dpo"))
    tasks.start(dialog.write(str(tmp_path / "dpo")))
    qtbot.waitUntil(lambda: bool(dialog.records) and tasks.idle, timeout=60_000)
    records = (tmp_path / "dpo" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert dialog.status.text().startswith(f"{len(records)} dpo records")
    shown = [dialog.table.item(r, 4).text() for r in range(dialog.table.rowCount())]
    assert shown[-1] == str(len(records))  # the all row


def test_a_file_without_results_is_one_line_in_the_dialog(qtbot, qloop, tmp_path):
    tasks = Tasks()
    dialog = TrainingSetDialog(str(tmp_path / "none.sqlite"), tasks)
    qtbot.addWidget(dialog)
    dialog.start_split()
    qtbot.waitUntil(lambda: tasks.idle and dialog.split_button.isEnabled(), timeout=30_000)
    assert "no results database there" in dialog.status.text()


def test_the_compare_preset_judges_the_held_out_cases(qtbot, files, tmp_path):
    split = tmp_path / "split.json"
    assert cli(["split", "--db", str(files / "base.sqlite"), "--out", str(split)]) == 0
    for k in (0, 2):
        args = [*RUN, "--llm", "learner", "--shots", str(k), "--shots-from", str(split)]
        assert cli([*args, "--db", str(tmp_path / f"k{k}.sqlite")]) == 0
    dialog = CompareCampaignsDialog(str(tmp_path / "k2.sqlite"))
    qtbot.addWidget(dialog)
    assert dialog.set_file("base", str(tmp_path / "k0.sqlite"))
    dialog.case_part.set_part("held_out", str(split))
    assert "Held-out cases: BETTER overall" in dialog.verdict.text()
    assert dialog.comparison.pairs == dialog.comparison.lines[-1].pairs > 0
    dialog.case_part.set_part("train")  # the few-shot runs asked no training case: one line
    assert "holds no case of the split's train part" in dialog.verdict.text()


def test_the_results_menu_has_the_training_set_action(qtbot, window):
    menus = {m.title(): m for m in window.menuBar().findChildren(QMenu)}
    actions = [a.text() for a in menus["&Results"].actions()]
    assert "Make a training set…" in actions and "Compare campaigns…" in actions
