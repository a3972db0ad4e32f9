"""The oracle's state limit in Settings (the CLI's ``--state-limit``): edited in the dialog, kept
in the settings file, and used when the window builds an oracle."""

from __future__ import annotations

from gui_helpers import wait_for

from explaincheck.core.oracle.types import OracleRequest
from explaincheck.gui.support.settings import Preferences, Settings
from explaincheck.gui.views.settings_dialog import SettingsDialog


def test_the_dialog_edits_and_the_file_keeps_the_state_limit(qtbot, tmp_path):
    settings = Settings(str(tmp_path / "s.ini"))
    assert settings.preferences().state_limit == OracleRequest.state_limit  # the CLI's default
    dialog = SettingsDialog(settings.preferences())
    qtbot.addWidget(dialog)
    assert dialog.state_limit.value() == 2_000_000
    dialog.state_limit.setValue(50_000)
    dialog.accept()
    settings.save_preferences(dialog.preferences())
    assert Settings(str(tmp_path / "s.ini")).preferences().state_limit == 50_000
    again = SettingsDialog(Settings(str(tmp_path / "s.ini")).preferences())
    qtbot.addWidget(again)
    assert again.state_limit.value() == 50_000


def test_a_broken_stored_limit_falls_back_to_the_default(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[oracle]\nstate_limit=lots\n")
    assert Settings(str(path)).preferences().state_limit == 2_000_000
    path.write_text("[oracle]\nstate_limit=-3\n")
    assert Settings(str(path)).preferences().state_limit == 1


def test_the_window_builds_with_the_limit_of_settings(qtbot, window, settings):
    settings.save_preferences(Preferences(state_limit=10))
    window.model.open_spec("frozen_lake")  # 16 states
    wait_for(qtbot, lambda: window.model_view.error_frame.isVisible(), 120)
    message = window.model_view.error.text()
    assert "more than the limit of 10" in message and "Settings" in message
    assert window.model.oracle is None
    assert window.workbench_controller.request().state_limit == 10
    settings.save_preferences(Preferences(state_limit=16))
    window.model.open_spec("frozen_lake")
    wait_for(qtbot, lambda: window.model.oracle is not None, 120)
    assert window.model.oracle.model.states == 16
