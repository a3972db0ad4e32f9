"""A campaign that would write a very large results file asks first (the CLI warns with the
same line, ``core.campaign.plan_size``): No writes nothing, Yes runs it."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from explaincheck.core.campaign import plan_size
from explaincheck.core.store import Store


@pytest.fixture
def small_threshold(monkeypatch):
    # every plan is "very large" (a real one of 100,000 executions takes long to plan)
    monkeypatch.setattr(plan_size, "WARN_EXECUTIONS", 1)


def _answer(monkeypatch, answer):
    asked: list[str] = []

    def question(parent, title, text, buttons, default):
        asked.append(text)
        assert default == QMessageBox.StandardButton.No  # Enter does not write gigabytes
        return answer

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return asked


def _start(qtbot, window, db):
    """A small campaign of the oracle answerer alone (no LLM needed)."""
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    for i in range(view.llms.count()):
        item = view.llms.item(i)
        wanted = item.data(Qt.ItemDataRole.UserRole) == "oracle"
        item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    view.budget.setValue(1)
    view.set_database(str(db))
    window.run_campaign()


def test_no_writes_nothing_and_says_why(qtbot, window, tmp_path, small_threshold, monkeypatch):
    asked = _answer(monkeypatch, QMessageBox.StandardButton.No)
    db = tmp_path / "results.sqlite"
    _start(qtbot, window, db)
    wait_for(qtbot, lambda: bool(asked) and not window.campaigns.running, 120)
    assert "executions will make results.sqlite about" in asked[0]
    assert "Stop ends the run" in asked[0] and "Ctrl-C" not in asked[0]
    assert window.campaign_view.progress_text.text().startswith("Not started: ")
    assert not db.exists()


def test_yes_runs_the_campaign(qtbot, window, tmp_path, small_threshold, monkeypatch):
    asked = _answer(monkeypatch, QMessageBox.StandardButton.Yes)
    db = tmp_path / "results.sqlite"
    _start(qtbot, window, db)
    wait_for(qtbot, lambda: bool(asked) and db.exists() and not window.campaigns.running, 180)
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) > 0


def test_a_small_plan_is_not_asked_about(qtbot, window, tmp_path, monkeypatch):
    asked = _answer(monkeypatch, QMessageBox.StandardButton.No)
    db = tmp_path / "results.sqlite"
    _start(qtbot, window, db)
    wait_for(qtbot, lambda: db.exists() and not window.campaigns.running, 180)
    assert asked == []
