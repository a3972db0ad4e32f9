"""The Campaign tab's OpenAI-compatible server field lists ``/v1/models`` of a stand-in into the
LLM list; the tab saves its set-up as a campaign file that ``explaincheck run --config`` runs
and opens such a file back; the progress line shows tokens and cost."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.campaign.prices import Price
from explaincheck.gui.campaign_cost import CostMeter


def specs(view) -> dict[str, bool]:
    return {
        view.llms.item(i).data(Qt.ItemDataRole.UserRole): view.llms.item(i).checkState()
        == Qt.CheckState.Checked
        for i in range(view.llms.count())
    }


def test_list_models_of_an_openai_compatible_server(qtbot, window):
    view = window.campaign_view
    with StandinOpenAI({"qwen-7b": Script(), "llama-8b": Script()}) as server:
        view.openai_host.setText(server.base_url)
        view.llm_box.check_openai()
        wait_for(qtbot, lambda: view.openai_button.isEnabled(), 30)
        assert window.backend_settings().openai_hosts == (server.base_url,)
    found = specs(view)
    assert f"openai:qwen-7b@{server.base_url}" in found
    assert f"openai:llama-8b@{server.base_url}" in found
    assert view.host_status.text() == "✓ connected: 2 models listed"
    view.openai_host.setText("")  # empty: the server in Settings
    prefs = window.settings.preferences()
    window.settings.save_preferences(replace(prefs, openai_base_url="http://gpu1:8000/v1"))
    assert window.backend_settings().openai_hosts == ("http://gpu1:8000/v1",)
    view.openai_host.setText("http://127.0.0.1:9/v1")
    view.llm_box.check_openai()
    wait_for(qtbot, lambda: view.openai_button.isEnabled(), 30)
    assert view.host_status.text().startswith("✗")


def test_campaign_file_saved_runs_and_opens_back(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    view = window.campaign_view
    wait_for(qtbot, lambda: view.category_box.applied is not None, 60)
    view.category_box.set_categories(["satisfy", "best_action"])
    view.budget.setValue(2)
    view.seed.setValue(3)
    view.set_database(str(tmp_path / "gui.sqlite"))
    chosen = view.selected_llms()
    assert chosen  # the baselines are ticked by default
    path = tmp_path / "campaign.toml"
    view.save_campaign_file(str(path))
    assert view.progress_text.text() == f"Saved the campaign to {path}"
    text = path.read_text()
    assert 'env = "frozen_lake"' in text and "budget = 2" in text and "seed = 3" in text
    # the saved file runs unchanged on the command line (its own process: a loop runs here)
    command = [sys.executable, "-m", "explaincheck.core.cli.main", "run", "--config", str(path)]
    assert subprocess.run(command, capture_output=True, timeout=300).returncode == 0
    with sqlite3.connect(tmp_path / "gui.sqlite") as db:
        llms = {row[0] for row in db.execute("SELECT DISTINCT llm FROM executions")}
        categories = {row[0] for row in db.execute("SELECT DISTINCT category FROM executions")}
    assert llms == set(chosen) and categories == {"satisfy", "best_action"}
    # and opens back into the tab
    view.budget.setValue(9)
    view.seed.setValue(0)
    path.write_text(text.replace("budget = 2", "budget = 4").replace('"oracle"', '"random"'))
    view.open_campaign_file(str(path))
    assert view.budget.value() == 4 and view.seed.value() == 3
    assert [s for s, on in specs(view).items() if on] == ["random"]
    assert view.category_box.selected_categories() == ["satisfy", "best_action"]
    path.write_text(text + "budgt = 1\n")
    view.open_campaign_file(str(path))
    assert "unknown key 'budgt'" in view.progress_text.text()
    assert view.budget.value() == 4  # a bad file changes nothing


def test_cost_meter_counts_tokens_and_money():
    meter = CostMeter({"m": Price(1, 2)})
    assert meter.text() == ""
    record = SimpleNamespace(
        llm="openai:m@http://h:1/v1",
        reply="{}",
        cached=False,
        prompt_tokens=1000,
        completion_tokens=500,
    )
    meter.add(record)
    meter.add(SimpleNamespace(**{**vars(record), "cached": True}))  # not generated again
    assert meter.text() == "1500 tokens, cost 0.0020"
    meter.add(SimpleNamespace(**{**vars(record), "llm": "ollama:x"}))  # no price: tokens only
    assert meter.text() == "3000 tokens, cost 0.0020"


def test_the_empty_server_field_shows_the_server_openai_base_url_names():
    from explaincheck.gui.views.campaign_llm_box import server_placeholder

    named = server_placeholder({"OPENAI_BASE_URL": "http://gpu1:8000/v1"})
    assert named == "http://gpu1:8000/v1 (from OPENAI_BASE_URL; key: OPENAI_API_KEY)"
    secret = server_placeholder({"OPENAI_BASE_URL": "http://bob:pw@gpu1:8000/v1?key=SECRET"})
    assert secret.startswith("http://gpu1:8000/v1 (from") and "pw" not in secret
    assert "SECRET" not in secret
    assert server_placeholder({}).startswith("OpenAI-compatible server, e.g.")


def test_one_listed_model_is_said_in_the_singular(qtbot, window):
    view = window.campaign_view
    with StandinOpenAI({"qwen-7b": Script()}) as server:
        view.openai_host.setText(server.base_url)
        view.llm_box.check_openai()
        wait_for(qtbot, lambda: view.openai_button.isEnabled(), 30)
    assert view.host_status.text() == "✓ connected: 1 model listed"
