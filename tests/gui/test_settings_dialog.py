"""The Settings dialog never saves credentials in a host URL (the CLI refuses them too)."""

from __future__ import annotations

import pytest

from explaincheck.gui.support.settings import Preferences, Settings
from explaincheck.gui.views.settings_dialog import CREDENTIALS_REMOVED, SettingsDialog


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("http://user:sk-secret123@gpu1:11434", "http://gpu1:11434"),
        ("http://gpu1:11434/?token=sk-secret123", "http://gpu1:11434/"),
        ("https://proxy.example/ollama#sk-secret123", "https://proxy.example/ollama"),
    ],
)
def test_ok_takes_credentials_out_before_anything_is_saved(qtbot, tmp_path, typed, kept):
    dialog = SettingsDialog(Preferences())
    qtbot.addWidget(dialog)
    dialog.host.setText(typed)
    dialog.accept()
    assert dialog.result() == 0  # not accepted
    assert dialog.note.text() == CREDENTIALS_REMOVED  # refused once, with the reason
    assert dialog.host.text() == kept
    dialog.accept()  # the second OK saves the host without them
    assert dialog.result() == 1
    settings = Settings(str(tmp_path / "s.ini"))
    settings.save_preferences(dialog.preferences())
    text = (tmp_path / "s.ini").read_text()
    assert "sk-secret123" not in text and "user" not in text
    assert settings.preferences().ollama_host == kept


def test_an_unusable_host_is_refused_with_its_reason(qtbot):
    dialog = SettingsDialog(Preferences())
    qtbot.addWidget(dialog)
    dialog.host.setText("ftp://gpu1")
    dialog.accept()
    assert dialog.result() == 0
    assert "scheme must be http or https" in dialog.note.text()


def test_credentials_typed_into_the_settings_file_are_not_used(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[ollama]\nhost=http://me:sk-secret123@gpu1:11434\n")
    assert Settings(str(path)).preferences().ollama_host == "http://gpu1:11434"


@pytest.mark.parametrize("field", ["host", "openai"])
def test_an_at_inside_a_password_is_taken_out_whole(qtbot, tmp_path, field):
    """Issue 34 point 7: ``bob:pa@ssKEY@`` once left ``ssKEY@``; the OpenAI field was not
    checked at all."""
    dialog = SettingsDialog(Preferences())
    qtbot.addWidget(dialog)
    getattr(dialog, field).setText("http://bob:pa@ssKEY@gpu1:8000/v1")
    dialog.accept()
    assert dialog.result() == 0 and dialog.note.text() == CREDENTIALS_REMOVED
    assert getattr(dialog, field).text() == "http://gpu1:8000/v1"
    dialog.accept()
    assert dialog.result() == 1
    settings = Settings(str(tmp_path / "s.ini"))
    settings.save_preferences(dialog.preferences())
    assert "KEY" not in (tmp_path / "s.ini").read_text()
