"""The first window fits the screen with its frame: on a laptop screen it opens maximised (the
window manager then keeps title bar and status bar on screen), on a large one at 1600x1000,
centred; a window that was closed before comes back where it was."""

from __future__ import annotations

from PySide6.QtCore import QRect


def test_a_laptop_screen_gets_a_maximised_first_window(qtbot, qloop, settings, monkeypatch):
    from explaincheck.gui import main_window

    window = main_window.MainWindow(settings)
    qtbot.addWidget(window)
    assert window.first_start
    shown = []
    monkeypatch.setattr(window, "showMaximized", lambda: shown.append("maximised"))
    monkeypatch.setattr(window, "show", lambda: shown.append("normal"))
    screen = type("Screen", (), {"availableGeometry": lambda self: QRect(0, 0, 1366, 740)})()
    monkeypatch.setattr(window, "screen", lambda: screen)
    window.show_first()
    assert shown == ["maximised"]


def test_a_large_screen_gets_1600_by_1000_centred(qtbot, qloop, settings, monkeypatch):
    from explaincheck.gui import main_window

    window = main_window.MainWindow(settings)
    qtbot.addWidget(window)
    screen = type("Screen", (), {"availableGeometry": lambda self: QRect(0, 0, 1920, 1160)})()
    monkeypatch.setattr(window, "screen", lambda: screen)
    window.show_first()
    assert (window.width(), window.height()) == main_window.FIRST_SIZE
    assert window.geometry().center().x() in range(955, 966)
    window.close()


def test_a_window_closed_before_comes_back_as_it_was(qtbot, qloop, settings, monkeypatch):
    from explaincheck.gui import main_window

    first = main_window.MainWindow(settings)
    qtbot.addWidget(first)
    first.show()
    first.close()  # stores its geometry
    again = main_window.MainWindow(settings)
    qtbot.addWidget(again)
    assert not again.first_start
    shown = []
    monkeypatch.setattr(again, "showMaximized", lambda: shown.append("maximised"))
    monkeypatch.setattr(again, "show", lambda: shown.append("normal"))
    again.show_first()
    assert shown == ["normal"]  # restoreGeometry put it where it was
