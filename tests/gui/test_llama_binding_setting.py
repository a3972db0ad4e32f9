"""The Settings dialog's llama.cpp binding reaches the backends a campaign makes."""

from __future__ import annotations

from explaincheck.gui.support.settings import Preferences, Settings
from explaincheck.gui.views.settings_dialog import SettingsDialog


def test_the_binding_setting_is_kept_and_passed_to_the_backends(qtbot, qloop, tmp_path):
    from explaincheck.gui.main_window import MainWindow

    settings = Settings(str(tmp_path / "settings.ini"))
    assert settings.preferences().llama_binding == "automatic"
    dialog = SettingsDialog(settings.preferences())
    qtbot.addWidget(dialog)
    dialog.llama_binding.setCurrentText("llama-cpp-python")
    settings.save_preferences(dialog.preferences())
    assert Settings(str(tmp_path / "settings.ini")).preferences().llama_binding == (
        "llama-cpp-python"
    )
    window = MainWindow(settings)
    qtbot.addWidget(window)
    assert window.backend_settings().llama_binding == "llama-cpp-python"
    settings.save_preferences(Preferences(llama_binding="automatic"))
    assert window.backend_settings().llama_binding is None  # EXPLAINCHECK_LLAMA_BINDING decides
