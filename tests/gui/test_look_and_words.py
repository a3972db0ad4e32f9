"""Small things a new user saw: the theme switch, the dark placeholder, the Settings host
field, "1 bottleneck", and Qt's propagateSizeHints line."""

from __future__ import annotations

from PySide6.QtGui import QPalette


def test_theme_system_after_dark_gives_the_platform_look_back(qapp):
    from explaincheck.gui.support.theme import apply_theme

    def look() -> tuple[str, object]:
        sheet = qapp.styleSheet()
        qapp.setStyleSheet("")  # under a style sheet, style() is Qt's proxy without a name
        name = qapp.style().name()
        qapp.setStyleSheet(sheet)
        return name, qapp.palette().color(QPalette.ColorRole.Window)

    apply_theme(qapp, "system")
    system = look()
    apply_theme(qapp, "dark")
    assert look()[0] == "fusion" and look()[1] != system[1]
    apply_theme(qapp, "system")
    assert look() == system


def test_dark_placeholder_text_reads_on_the_dark_base():
    from explaincheck.gui.support.theme import dark_palette

    palette = dark_palette()
    placeholder = palette.color(QPalette.ColorRole.PlaceholderText)
    base = palette.color(QPalette.ColorRole.Base)
    assert placeholder.lightness() - base.lightness() > 80


def test_settings_host_field_holds_a_host_and_port(qtbot):
    from explaincheck.gui.support.settings import Preferences
    from explaincheck.gui.views.settings_dialog import SettingsDialog

    host = "http://gpu-server.example.org:11434"
    dialog = SettingsDialog(Preferences(ollama_host=host))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.host.width() >= dialog.host.fontMetrics().horizontalAdvance(host)


def test_counted_nouns():
    from explaincheck.core.plural import counted

    assert counted(1, "bottleneck") == "1 bottleneck"
    assert counted(0, "dead end") == "0 dead ends"
    assert counted(4, "dead end") == "4 dead ends"


def test_model_panel_says_1_bottleneck(qtbot, window):
    from gui_helpers import open_env

    oracle = open_env(qtbot, window, "frozen_lake")
    assert len(oracle.bottlenecks) == 1
    text = window.model_view.status.text()
    assert "1 bottleneck ·" in text and "bottlenecks" not in text


def test_only_the_propagate_size_hints_message_is_dropped(capfd):
    from PySide6.QtCore import qWarning

    from explaincheck.gui.support.qt_messages import silence_harmless_messages

    silence_harmless_messages()
    silence_harmless_messages()  # once is enough; twice changes nothing
    qWarning("This plugin does not support propagateSizeHints()")
    qWarning("explaincheck: a real warning")
    err = capfd.readouterr().err
    assert "propagateSizeHints" not in err
