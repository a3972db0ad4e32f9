"""Campaign › Re-grade results…: the stored replies graded again under another satisfy rule,
off the GUI thread (no LLM is asked); the views reload after."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from explaincheck.core.workspace.presentation.window_text import regraded_text
from explaincheck.gui.views.regrade_dialog import RegradeDialog

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class RegradePresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def refresh(self) -> None:
        """Re-grading makes sense with a results file open and no campaign writing to it."""
        window = self.window
        window.commands.regrade.setEnabled(
            window.results.db_path is not None and not window.campaigns.running
        )

    def choose(self) -> None:
        db_path = self.window.results.db_path
        if db_path is None or self.window.campaigns.running:
            return
        dialog = RegradeDialog(db_path, parent=self.window)
        if dialog.exec():
            self.regrade(dialog.satisfy_rule(), dialog.satisfy_tolerance())

    def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> asyncio.Task:
        return self.window.tasks.start(self._regrade(satisfy_rule, satisfy_tolerance), "re-grade")

    async def _regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> None:
        window = self.window
        window.commands.regrade.setEnabled(False)
        window.statusBar().showMessage("Re-grading the stored replies…")
        try:
            summary = await window.results.regrade(satisfy_rule, satisfy_tolerance)
        except Exception as error:
            window.errors.append(str(error))
            window.statusBar().showMessage(f"Re-grading failed: {error}", 15000)
            return
        finally:
            self.refresh()
        window.statusBar().showMessage(
            regraded_text(summary.graded, summary.changed, satisfy_rule), 15000
        )
