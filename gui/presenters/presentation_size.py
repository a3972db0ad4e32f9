"""View › Larger text (Ctrl+plus), Smaller text (Ctrl+minus), Normal text size: the presentation
size for a projector (issue 50, point 6), remembered in Settings.

The size applies to every view at once (``gui/support/text_size.py``: the application's font,
the fonts made relative to it, and the graph's labels and the plots through its notifier); its
steps are the Qt-free ``core/workspace/presentation/text_size.py``. Given the window (whose
actions the shortcuts live on), its View menu, the settings and where it speaks, never the
window's other parts.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu

from explaincheck.core.workspace.presentation.text_size import (
    NORMAL,
    clamped,
    size_text,
    stepped,
)
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.text_size import set_text_scale, text_scale


class PresentationSize:
    """The size shown now, the three actions, and remembering it."""

    def __init__(self, window: QMainWindow, menu: QMenu | None, settings: Settings) -> None:
        self.settings = settings
        self.percent = round(text_scale() * 100)
        # the size in the status bar's corner while it is not the normal one (a transient
        # message was drawn over the oracle's line once the bar's font changed)
        self.label = QLabel("", window)
        self.label.setToolTip("Ctrl+plus / Ctrl+minus; View › Normal text size")
        self.label.hide()
        window.statusBar().addPermanentWidget(self.label)
        self.larger = self._action(window, "Larger text", ("Ctrl++", "Ctrl+="), +1)
        self.smaller = self._action(window, "Smaller text", ("Ctrl+-",), -1)
        self.normal = QAction("Normal text size", window)
        self.normal.triggered.connect(lambda: self.apply(NORMAL))
        window.addAction(self.normal)
        if menu is not None:
            menu.addSeparator()
            for action in (self.larger, self.smaller, self.normal):
                menu.addAction(action)

    def _action(
        self, window: QMainWindow, text: str, keys: tuple[str, ...], direction: int
    ) -> QAction:
        action = QAction(text, window)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setToolTip(f"{text}: every view, the graph's labels and the plots ({keys[0]})")
        action.triggered.connect(lambda: self.apply(stepped(self.percent, direction)))
        window.addAction(action)
        return action

    def apply(self, percent: int, remember: bool = True) -> None:
        """Show every view at ``percent`` of the normal size (and keep it for the next run)."""
        self.percent = clamped(percent)
        set_text_scale(self.percent / 100)
        if remember:  # a change the user made: kept for the next start
            self.settings.save_text_size(self.percent)
        self.label.setText(size_text(self.percent))
        self.label.setVisible(self.percent != NORMAL)


def view_menu(window: QMainWindow) -> QMenu | None:
    """The window's View menu (built by ``window_actions``)."""
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == "View" and action.menu() is not None:
            menu = action.menu()
            return menu if isinstance(menu, QMenu) else None
    return None
