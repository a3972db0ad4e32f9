"""The status bar's permanent parts: the oracle's line, the campaign's line and its bar.

Transient messages go through ``statusBar().showMessage``; these three widgets hold what stays.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QSizePolicy


class StatusLine:
    """Built into ``window``'s status bar; the presenters set its texts and the bar."""

    def __init__(self, window: QMainWindow) -> None:
        bar = window.statusBar()
        self.oracle = QLabel("No model open", window)
        # a long error message must not set the window's minimum width
        self.oracle.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.oracle, 1)
        self.campaign = QLabel("", window)
        bar.addPermanentWidget(self.campaign)
        self.progress = QProgressBar(window)
        self.progress.setMaximumWidth(180)
        self.progress.setMaximumHeight(14)
        self.progress.setFormat("%v / %m")
        self.progress.hide()
        bar.addPermanentWidget(self.progress)

    def show_count(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(1, total))
        self.progress.setValue(done)

    def set_running(self, running: bool) -> None:
        """Shown while a run goes, and after one that did something."""
        self.progress.setVisible(running or self.progress.value() > 0)
