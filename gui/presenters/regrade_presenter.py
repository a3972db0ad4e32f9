"""Campaign › Re-grade results…: the stored replies graded again under another satisfy rule,
off the GUI thread (no LLM is asked); the views reload after."""

from __future__ import annotations

import asyncio

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from explaincheck.core.workspace.presentation.window_text import regraded_text
from explaincheck.gui.adapters.campaign_controller import CampaignController
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.regrade_dialog import RegradeDialog


class RegradePresenter:
    """Given the results it regrades, the campaigns (no regrading while one writes), the
    action it enables and where it speaks."""

    def __init__(
        self,
        results: ResultsData,
        campaigns: CampaignController,
        action: QAction,
        tasks: Tasks,
        notices: Notices,
        parent: QWidget,
    ) -> None:
        self.results, self.campaigns, self.action = results, campaigns, action
        self.tasks, self.notices, self.parent = tasks, notices, parent

    def refresh(self) -> None:
        """Re-grading makes sense with a results file open and no campaign writing to it."""
        self.action.setEnabled(self.results.db_path is not None and not self.campaigns.running)

    def choose(self) -> None:
        db_path = self.results.db_path
        if db_path is None or self.campaigns.running:
            return
        dialog = RegradeDialog(db_path, parent=self.parent)
        if dialog.exec():
            self.regrade(dialog.satisfy_rule(), dialog.satisfy_tolerance())

    def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> asyncio.Task:
        return self.tasks.start(self._regrade(satisfy_rule, satisfy_tolerance), "re-grade")

    async def _regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> None:
        self.action.setEnabled(False)
        self.notices.say("Re-grading the stored replies…")
        try:
            summary = await self.results.regrade(satisfy_rule, satisfy_tolerance)
        except Exception as error:
            self.notices.fail(str(error), f"Re-grading failed: {error}")
            return
        finally:
            self.refresh()
        self.notices.say(regraded_text(summary.graded, summary.changed, satisfy_rule), 15000)
