"""The Campaign tab's money controls against the OpenAI-compatible stand-in (real HTTP): a
"Stop at cost" stops the campaign cleanly through the command line's ``CostGuard`` and says so,
the cost per LLM is the one ``explaincheck results`` prints, and Run with no limit resumes the
campaign to the end; the Prices and Stop at cost fields are kept in campaign files and the
settings, and unusable entries are one line that starts nothing."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.cli.main import main

MODEL = "standin-1b"
PRICE = f"{MODEL}=2000/8000"  # per million tokens: about 0.7 a reply against the stand-in


@pytest.fixture(autouse=True)
def no_price_file(tmp_path, monkeypatch):
    """No user prices settings file: only the tab's Prices field prices these replies."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def only_openai(qtbot, window, server) -> str:
    """Tick just the stand-in's model (listed from its /v1/models); returns its spec."""
    view = window.campaign_view
    view.openai_host.setText(server.base_url)
    view.llm_box.check_openai()
    wait_for(qtbot, lambda: view.openai_button.isEnabled(), 30)
    spec = f"openai:{MODEL}@{server.base_url}"
    for i in range(view.llms.count()):
        item_spec = view.llms.item(i).data(Qt.ItemDataRole.UserRole)
        view.llm_box.set_llm_checked(item_spec, item_spec == spec)
    assert view.selected_llms() == [spec]
    return spec


def run(qtbot, window) -> None:
    qtbot.mouseClick(window.campaign_view.run_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: window.campaigns.running, 30)
    wait_for(qtbot, lambda: not window.campaigns.running and window.tasks.idle, 180)


def stored(db) -> tuple[int, int]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT COUNT(*), COUNT(DISTINCT exec_key) FROM executions"
        ).fetchone()


def results_cost_lines(db, capsys) -> list[str]:
    capsys.readouterr()
    assert main(["results", "--db", str(db)]) == 0
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith("cost ")]


def test_stop_at_cost_stops_cleanly_shows_it_and_resumes(qtbot, window, tmp_path, capsys):
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is not None, 60)
    window.settings.save_preferences(replace(window.settings.preferences(), concurrency=1))
    db = tmp_path / "gui.sqlite"
    with StandinOpenAI({MODEL: Script()}) as server:
        spec = only_openai(qtbot, window, server)
        view.category_box.set_categories(["satisfy"])
        view.budget.setValue(4)
        view.set_database(str(db))
        view.cost_fields.prices.setText(PRICE)
        view.cost_fields.limit.setText("1.5")
        run(qtbot, window)
        # stopped cleanly at the limit, said where the progress goes, before the end
        text = view.progress_text.text()
        assert text.startswith("Stopped at the cost limit 1.5000 (spent ")
        assert "Run with a higher Stop at cost (or none) to continue" in text
        rows, keys = stored(db)
        assert 1 <= rows < 4 and rows == keys
        assert f"{rows} of 4 executions are stored" in text
        assert window.errors == []
        # the cost per LLM, exactly as `explaincheck results` prints it from the stored prices
        shown = view.cost_fields.lines.text().splitlines()
        assert shown[0].startswith(f"cost {spec}: ") and "prompt," in shown[0]
        assert shown == results_cost_lines(db, capsys)
        spent = float(shown[-1].rpartition(": ")[2])
        assert spent >= 1.5
        # the same limit again: nothing more is asked, the tab says so again
        asked = len(server.chats())
        run(qtbot, window)
        assert len(server.chats()) == asked
        assert view.progress_text.text().startswith("Stopped at the cost limit 1.5000")
        # no limit: the campaign resumes to the end, without repeating a stored execution
        view.cost_fields.limit.setText("")
        run(qtbot, window)
    assert stored(db) == (4, 4)
    assert len(server.chats()) == 4
    assert view.progress.value() == view.progress.maximum() == 4
    assert "finished" in view.progress_text.text()
    shown = view.cost_fields.lines.text().splitlines()
    assert shown == results_cost_lines(db, capsys)
    assert float(shown[-1].rpartition(": ")[2]) > spent


def test_unusable_prices_or_limit_start_nothing(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is not None, 60)
    view.category_box.set_categories(["satisfy"])
    view.set_database(str(tmp_path / "none.sqlite"))
    for prices, limit, said in (
        ("", "2", "Stop at cost needs prices: give prices in the Prices field"),
        ("gpt-4o-mini=0.15", "", "Prices 'gpt-4o-mini=0.15': use MODEL=IN/OUT"),
        ("m=1/2", "lots", "Stop at cost: 'lots' is not an amount of money"),
        ("m=1/2", "-1", "Stop at cost must be a positive amount (got -1)"),
    ):
        view.cost_fields.prices.setText(prices)
        view.cost_fields.limit.setText(limit)
        window.run_campaign()
        assert view.progress_text.text().startswith(said)
        assert not window.campaigns.running
    assert not (tmp_path / "none.sqlite").exists()


def test_prices_and_limit_kept_in_campaign_files_and_settings(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is not None, 60)
    view.cost_fields.prices.setText("gpt-4o-mini=0.15/0.6, qwen-7b=0/0")
    view.cost_fields.limit.setText("2.5")
    path = tmp_path / "campaign.toml"
    view.save_campaign_file(str(path))
    text = path.read_text()
    assert 'price = ["gpt-4o-mini=0.15/0.6", "qwen-7b=0/0"]' in text
    assert "max-cost = 2.5" in text
    view.cost_fields.prices.setText("")
    view.cost_fields.limit.setText("")
    view.open_campaign_file(str(path))
    assert view.cost_fields.prices.text() == "gpt-4o-mini=0.15/0.6, qwen-7b=0/0"
    assert view.cost_fields.limit.text() == "2.5"
    # a file without them clears them (it is the whole set-up)
    path.write_text(text.replace("max-cost = 2.5\n", "").replace("price = [", "# ["))
    view.open_campaign_file(str(path))
    assert (view.cost_fields.prices.text(), view.cost_fields.limit.text()) == ("", "")
    # the settings keep them between sessions
    view.cost_fields.prices.setText("m=1/2")
    view.cost_fields.limit.setText("0.75")
    window.settings.save_campaign_choices(view.choices())
    view.cost_fields.prices.setText("")
    view.cost_fields.limit.setText("")
    view.apply_choices(window.settings.campaign_choices())
    assert (view.cost_fields.prices.text(), view.cost_fields.limit.text()) == ("m=1/2", "0.75")
    # a bad price is not saved into a file that run --config would refuse
    view.cost_fields.prices.setText("m=1")
    view.save_campaign_file(str(tmp_path / "bad.toml"))
    assert view.progress_text.text().startswith("Cannot save")
    assert not (tmp_path / "bad.toml").exists()
