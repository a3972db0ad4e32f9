"""Run ▶ and what a running campaign shows: the window's side of ``CampaignController``.

Builds the campaign from the Campaign tab's set-up and the open model, starts it, and routes the
controller's signals: the plan to the status line, progress and time left to the Campaign tab
(``RunClock`` follows the run per LLM), failures and refusals to a one-line message.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workspace.presentation.run_clock import RunClock
from explaincheck.core.workspace.presentation.window_text import planned_text
from explaincheck.gui.adapters.campaign_controller import (
    CampaignController,
    build_campaign,
    results_path,
)
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.notices import Notices, ShowTab
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.status_line import StatusLine


@dataclass
class RunParts:
    """What a run reads and writes besides the Campaign tab: the open model, the campaign
    controller, the results it fills and their loader, the settings it remembers choices in."""

    model: ModelController
    campaigns: CampaignController
    results: ResultsData
    reload: Callable[[str], Any]  # ``ResultsPresenter.load``: a coroutine that reads a file
    settings: Settings
    tasks: Tasks


class CampaignRun:
    """Starts the Campaign tab's set-up and shows the run's signals (on the Campaign tab, the
    status line, the Run and Stop actions; ``running_changed`` for the others)."""

    def __init__(
        self,
        parts: RunParts,
        view: CampaignView,
        status_line: StatusLine,
        actions: tuple[QAction, QAction],
        running_changed: Callable[[], object],
        show_tab: ShowTab,
        notices: Notices,
        parent: QWidget,
    ) -> None:
        self.parts, self.view, self.status_line = parts, view, status_line
        self.run_action, self.stop_action = actions
        self.running_changed = running_changed
        self.show_tab, self.notices, self.parent = show_tab, notices, parent
        self.clock = RunClock()  # per-LLM time left of the running campaign

    def run(self) -> None:
        parts = self.parts
        model, view = parts.model, self.view
        if parts.campaigns.running:
            return
        if model.oracle is None or model.environment is None:
            self.message("Open a model and let its oracle build first.")
            return
        setup = view.setup()
        try:
            campaign = build_campaign(
                setup,
                model.environment,
                model.constants,
                model.goal_label,
                model.unsafe_label,
                model.property_spec,
            )
            db_path = results_path(setup.database)
            costs = view.cost_settings()  # prices and Stop at cost
        except (ExplaincheckError, OSError) as error:
            self.message(str(error))
            return
        parts.settings.save_campaign_choices(view.choices())
        parts.tasks.start(self._run(campaign, db_path, costs), "campaign")

    async def _run(self, campaign: Any, db_path: str, costs: Any = None) -> None:
        parts = self.parts
        if Path(db_path).exists():
            try:
                await parts.results.load(db_path)
            except Exception as error:
                self.message(f"Cannot use {db_path}: {error}")
                return
        else:
            parts.results.clear(db_path)
        model = parts.model
        assert model.environment is not None and model.oracle is not None
        parts.campaigns.start(
            campaign,
            db_path,
            model.environment,
            model.oracle,
            self.backend_settings(),
            behavioural=self.view.wants_behavioural(),
            costs=costs,
        )

    def backend_settings(self) -> BackendSettings:
        """The user's backend settings: the Campaign tab's Ollama host, else the one in
        Settings; timeout and concurrency from Settings (campaigns and Teach's ask live)."""
        prefs = self.parts.settings.preferences()
        view = self.view
        host = view.ollama_host() or prefs.ollama_host
        openai = view.openai_base_url() or prefs.openai_base_url
        return BackendSettings(
            ollama_hosts=(host,) if host else (),
            timeout=prefs.timeout,
            concurrency=prefs.concurrency,
            llama_binding=None if prefs.llama_binding == "automatic" else prefs.llama_binding,
            openai_hosts=(openai,) if openai else (),
        )

    def message(self, text: str) -> None:
        """Why a run did not start or stopped: on the Campaign tab, shown, and in the bar."""
        self.view.show_message(text)
        self.notices.say(text, 10000)
        self.show_tab("campaign")

    def planned(self, total: int, skipped: dict) -> None:
        self.status_line.progress.setMaximum(max(1, total))
        self.status_line.campaign.setText(planned_text(total, skipped))

    def large_plan(self, warning: str) -> None:
        """A plan that would write a very large results file runs only if the user says so."""
        from explaincheck.gui.views.large_plan_dialog import confirm_large_plan

        go = confirm_large_plan(self.parent, warning)
        self.parts.campaigns.answer_large_plan(go)
        if not go:
            self.message(f"Not started: {warning.removeprefix('warning: ')}")

    def running(self, running: bool) -> None:
        self.view.set_running(running)
        self.running_changed()
        self.run_action.setEnabled(not running)
        self.stop_action.setEnabled(running)
        self.status_line.set_running(running)

    def llm_plan(self, left: dict, concurrency: dict) -> None:
        self.clock.plan(left, concurrency)

    def progress(self, progress: Any) -> None:
        self.view.show_progress(progress, self.clock.follow(progress))
        self.status_line.show_count(progress.done, progress.total)

    def failed(self, error: BaseException) -> None:
        self.notices.errors.append(str(error))
        self.message(f"The campaign stopped: {error}")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def finished(self, _outcome: object) -> None:
        db_path = self.parts.results.db_path
        if db_path:  # reload: retried errors replace their old rows
            self.parts.tasks.start(self.parts.reload(db_path), "reload results")
