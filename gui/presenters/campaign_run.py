"""Run ▶ and what a running campaign shows: the window's side of ``CampaignController``.

Builds the campaign from the Campaign tab's set-up and the open model, starts it, and routes the
controller's signals: the plan to the status line, progress and time left to the Campaign tab
(``RunClock`` follows the run per LLM), failures and refusals to a one-line message.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workspace.presentation.run_clock import RunClock
from explaincheck.core.workspace.presentation.window_text import planned_text
from explaincheck.gui.adapters.campaign_controller import build_campaign, results_path

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class CampaignRun:
    """Starts the Campaign tab's set-up and shows the run's signals."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.clock = RunClock()  # per-LLM time left of the running campaign

    def run(self) -> None:
        window = self.window
        model, view = window.model, window.campaign_view
        if window.campaigns.running:
            return
        if model.oracle is None or model.environment is None:
            self.message("Open a model and let its oracle build first.")
            return
        setup = view.setup()
        try:
            campaign = build_campaign(
                setup, model.environment, model.constants, model.goal_label, model.unsafe_label
            )
            db_path = results_path(setup.database)
            costs = view.cost_settings()  # prices and Stop at cost
        except (ExplaincheckError, OSError) as error:
            self.message(str(error))
            return
        window.settings.save_campaign_choices(view.choices())
        window.tasks.start(self._run(campaign, db_path, costs), "campaign")

    async def _run(self, campaign: Any, db_path: str, costs: Any = None) -> None:
        window = self.window
        if Path(db_path).exists():
            try:
                await window.results.load(db_path)
            except Exception as error:
                self.message(f"Cannot use {db_path}: {error}")
                return
        else:
            window.results.clear(db_path)
        model = window.model
        assert model.environment is not None and model.oracle is not None
        window.campaigns.start(
            campaign,
            db_path,
            model.environment,
            model.oracle,
            self.backend_settings(),
            behavioural=window.campaign_view.wants_behavioural(),
            costs=costs,
        )

    def backend_settings(self) -> BackendSettings:
        """The user's backend settings: the Campaign tab's Ollama host, else the one in
        Settings; timeout and concurrency from Settings (campaigns and Teach's ask live)."""
        prefs = self.window.settings.preferences()
        view = self.window.campaign_view
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
        self.window.campaign_view.show_message(text)
        self.window.statusBar().showMessage(text, 10000)
        self.window.show_tab("campaign")

    def planned(self, total: int, skipped: dict) -> None:
        self.window.status_line.progress.setMaximum(max(1, total))
        self.window.status_line.campaign.setText(planned_text(total, skipped))

    def large_plan(self, warning: str) -> None:
        """A plan that would write a very large results file runs only if the user says so."""
        from explaincheck.gui.views.large_plan_dialog import confirm_large_plan

        go = confirm_large_plan(self.window, warning)
        self.window.campaigns.answer_large_plan(go)
        if not go:
            self.message(f"Not started: {warning.removeprefix('warning: ')}")

    def running(self, running: bool) -> None:
        window = self.window
        window.campaign_view.set_running(running)
        window.regrading.refresh()
        window.commands.run.setEnabled(not running)
        window.commands.stop.setEnabled(running)
        window.status_line.set_running(running)

    def llm_plan(self, left: dict, concurrency: dict) -> None:
        self.clock.plan(left, concurrency)

    def progress(self, progress: Any) -> None:
        self.window.campaign_view.show_progress(progress, self.clock.follow(progress))
        self.window.status_line.show_count(progress.done, progress.total)

    def failed(self, error: BaseException) -> None:
        self.window.errors.append(str(error))
        self.message(f"The campaign stopped: {error}")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def finished(self, _outcome: object) -> None:
        window = self.window
        if window.results.db_path:  # reload: retried errors replace their old rows
            window.tasks.start(
                window.results_presenter.load(window.results.db_path), "reload results"
            )
