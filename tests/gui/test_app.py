"""The ``explaincheck gui`` command, settings that persist, window state, dropped files."""

from __future__ import annotations

import subprocess
import sys

from gui_helpers import wait_for


def run_cli(*args: str, env_extra: dict | None = None, timeout: float = 300):
    import os

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "explaincheck.gui.launcher", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_screenshot_command(tmp_path):
    from PySide6.QtGui import QImage

    png = tmp_path / "window.png"
    result = run_cli(
        "gui",
        "--env",
        "wolf_goat_cabbage",
        "--screenshot",
        str(png),
        env_extra={"EXPLAINCHECK_SETTINGS": str(tmp_path / "settings.ini")},
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1600, 1000)


def test_screenshot_of_a_broken_model_reports_the_error(tmp_path):
    broken = tmp_path / "broken.prism"
    broken.write_text("mdp\nmodule m\n x : [0..1] init 0;\n [a] x=0 -> (x'=);\nendmodule\n")
    png = tmp_path / "error.png"
    result = run_cli(
        "gui",
        "--env",
        str(broken),
        "--screenshot",
        str(png),
        env_extra={"EXPLAINCHECK_SETTINGS": str(tmp_path / "settings.ini")},
    )
    assert result.returncode == 2
    assert "broken.prism" in result.stderr and "Traceback" not in result.stderr
    assert png.exists()


def test_gui_help_names_the_options():
    result = run_cli("gui", "--help", timeout=60)
    assert result.returncode == 0
    for option in ("--env", "--db", "--screenshot"):
        assert option in result.stdout


def test_preferences_and_window_state_persist(qtbot, qloop, tmp_path):
    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Preferences, Settings

    path = str(tmp_path / "settings.ini")
    settings = Settings(path)
    settings.save_preferences(Preferences("http://example.invalid:1", 30.0, 2, 7, "dark"))
    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.resize(1234, 876)
    first.show()
    first.inspector_dock.hide()
    first.close()
    again = Settings(path)
    assert again.preferences() == Preferences("http://example.invalid:1", 30.0, 2, 7, "dark")
    geometry, state = again.window_state()
    assert geometry == first.saveGeometry() and state is not None
    second = MainWindow(again)
    qtbot.addWidget(second)
    second.show()
    # (the offscreen screen is small, so Qt clamps the restored size; the layout must match)
    assert not second.inspector_dock.isVisible()
    assert second.model_dock.isVisible()
    assert second.campaign_view.budget.value() == 7
    assert second.campaign_view.host.text() == "http://example.invalid:1"
    settings.add_recent_file("/tmp/a.prism")
    settings.add_recent_file("/tmp/b.prism")
    settings.add_recent_file("/tmp/a.prism")
    assert Settings(path).recent_files() == ["/tmp/a.prism", "/tmp/b.prism"]


def test_dropped_database_opens_in_results(qtbot, window, tmp_path):
    from explaincheck.core.store import Store

    db = tmp_path / "empty.sqlite"
    Store.open(db).close()
    window.open_path(str(db))
    wait_for(qtbot, lambda: window.results.db_path == str(db) and window.tasks.idle, 30)
    assert window.tabs.currentWidget() is window.results_view
    assert window.campaign_view.database.text() == str(db)


def test_keyboard_shortcuts_switch_tabs(qtbot, window):
    from PySide6.QtCore import Qt

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    for key, widget in (
        (Qt.Key.Key_2, window.campaign_view),
        (Qt.Key.Key_3, window.results_view),
        (Qt.Key.Key_4, window.report_view),
        (Qt.Key.Key_5, window.teach_view),
        (Qt.Key.Key_1, window.graph),
    ):
        qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is widget
    assert window.commands.run.shortcut().toString() == "F5"
    assert window.commands.open.shortcut().toString() == "Ctrl+O"


def test_recent_databases_and_files_are_stored_as_absolute_paths(tmp_path, monkeypatch):
    from explaincheck.gui.support.settings import Settings

    monkeypatch.chdir(tmp_path)
    settings = Settings(str(tmp_path / "settings.ini"))
    settings.add_recent_database("results.sqlite")
    settings.add_recent_file("models/walk.prism")
    again = Settings(str(tmp_path / "settings.ini"))
    assert again.recent_databases() == [str(tmp_path / "results.sqlite")]
    assert again.recent_files() == [str(tmp_path / "models" / "walk.prism")]
