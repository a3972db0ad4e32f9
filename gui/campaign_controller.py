"""Running a campaign for the window, on its own thread with its own asyncio loop; and what the
Campaign tab asks of the core before that (a host's model list, the ``Campaign`` and its folder).

Why a separate thread: planning (case selection, prompt rendering), the SQLite commit after
every graded execution and the backends' own work would otherwise all run on the GUI thread.
The core runner reports through plain callbacks (``ProgressEvents``); they are forwarded to the
GUI thread by Qt signals, which queue across threads. The run itself is a ``CampaignSession``
(core/campaign/session.py), opened on the campaign thread; Stop cancels it thread-safely;
everything graded so far stays stored, and running the same campaign again resumes it.

Listing a host's models is a short network call: it runs as a task on the window's qasync loop,
never on the views' two worker threads (where a slow host would hold up layouts and reads).
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.analysis.cost_limit import CostGuard, stored_tally
from explaincheck.core.analysis.prices import stored_form
from explaincheck.core.campaign.eta import left_per_llm
from explaincheck.core.campaign.session import BackendSettings, CampaignSession
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.campaign_cost import CostSettings
from explaincheck.gui.results_data import row_of
from explaincheck.gui.session_thread import SessionThread
from explaincheck.gui.tasks import Tasks

if TYPE_CHECKING:
    from explaincheck.core.campaign.plan import Campaign
    from explaincheck.gui.views.campaign_view import CampaignSetup

__all__ = ["BackendSettings", "CampaignController", "build_campaign", "left_per_llm"]
HOST_CHECK_TIMEOUT = 3.0  # seconds a host has to list its models


def build_campaign(
    setup: CampaignSetup,
    environment: Environment | None,
    constants: str,
    goal_label: str,
    unsafe_label: str,
) -> Campaign:
    """The ``Campaign`` the tab's set-up describes on the open model (an ExplaincheckError with
    one line when it is incomplete)."""
    from explaincheck.core.campaign.plan import Campaign, resolve_wordings
    from explaincheck.core.taxonomy.base import GradingSettings

    if environment is None:
        raise ExplaincheckError("open a model first")
    if not setup.categories:
        raise ExplaincheckError("choose at least one applicable category")
    return Campaign(
        environment=environment.id or environment.model_path,
        llms=setup.llms,
        categories=setup.categories,
        budget=setup.budget,
        selection=setup.selection,
        repeat=setup.repeat,
        seed=setup.seed,
        wordings=resolve_wordings(setup.wording),
        metamorphic=setup.metamorphic,
        keep_do_nothing=setup.keep_do_nothing,
        constants=constants,
        goal_label=goal_label,
        unsafe_label=unsafe_label,
        grading=GradingSettings(satisfy_rule=setup.satisfy_rule, satisfy_tolerance=setup.tolerance),
    )


def results_path(path: str) -> str:
    """The results file as typed (``~`` expanded), its folder made if missing (OSError if it
    cannot be)."""
    path = os.path.expanduser(path.strip())
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return path


class CampaignController(SessionThread):
    """Start/stop one campaign at a time; signals arrive on the GUI thread."""

    planned = Signal(int, object)  # total executions, {category: why skipped}
    llm_plan = Signal(object, object)  # {llm: executions left}, {llm: concurrency} (for the ETA)
    progress = Signal(object)  # core.campaign.progress.Progress
    row = Signal(object)  # one graded execution as a row dict
    finished = Signal(object)  # RunOutcome
    failed = Signal(object)  # exception
    host_checked = Signal(str, object)  # the host as typed, {url: [models]} ({}: none answers)
    host_failed = Signal(str, str)  # the host as typed, one line saying why
    openai_checked = Signal(str, object)  # the base URL as typed, {url: [models]}
    openai_failed = Signal(str, str)
    costs_started = Signal(object, object)  # the run's prices, CostTally of its stored executions
    cost_stopped = Signal(str)  # the Stop at cost limit was reached: one line saying so
    # a plan that would write a very large results file: one line (plan_size.size_warning);
    # with ``confirm_large_plans`` the run waits for ``answer_large_plan`` before it writes
    large_plan = Signal(str)

    def __init__(self, tasks: Tasks, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.confirm_large_plans = False
        self._large_plan_answer = threading.Event()
        self._large_plan_go = False

    def start(
        self,
        campaign: Any,
        db_path: str,
        environment: Environment,
        oracle: OracleResult,
        backends: BackendSettings,
        behavioural: bool = False,
        costs: CostSettings | None = None,
    ) -> None:
        """Plan and run ``campaign`` (a ``core.campaign.plan.Campaign``) into ``db_path``;
        ``behavioural``: then ask the behavioural probes of its factors cases; ``costs``: the
        prices kept with it and the cost at which it stops (as ``run --max-cost``)."""
        if self.running:
            raise RuntimeError("a campaign is already running")
        self._launch(
            self._thread_main,
            (campaign, db_path, environment, oracle, backends, behavioural, costs),
            "explaincheck-campaign",
        )

    def stop(self) -> None:
        """Cancel cleanly (``SessionThread.stop``), also while a large plan awaits its answer."""
        super().stop()
        self.answer_large_plan(False)

    def answer_large_plan(self, go: bool) -> None:
        """The user's answer to ``large_plan``: run it (True) or not."""
        self._large_plan_go = go
        self._large_plan_answer.set()

    def _large_plan_declined(self, plan, db_path) -> bool:
        """Warn of a very large plan; with ``confirm_large_plans``, wait for the answer."""
        from explaincheck.core.campaign.plan_size import size_warning

        warning = size_warning(plan, db_path, stop="Stop ends the run")
        if warning is None:
            return False
        self._large_plan_answer.clear()
        if self._stop_requested:  # Stop was pressed while it planned
            return True
        self.large_plan.emit(warning)
        if not self.confirm_large_plans:
            return False
        self._large_plan_answer.wait()
        return not self._large_plan_go or self._stop_requested

    # -- worker thread ---------------------------------------------------------------------
    def _thread_main(
        self, campaign, db_path, environment, oracle, backends, behavioural=False, costs=None
    ) -> None:
        try:
            outcome = asyncio.run(
                self._run(campaign, db_path, environment, oracle, backends, behavioural, costs)
            )
        except BaseException as error:  # reported in the window, never a crash
            self.failed.emit(error)
        else:
            if outcome is not None:
                self.finished.emit(outcome)
        finally:
            self._detach()

    async def _run(
        self,
        campaign,
        db_path,
        environment,
        oracle,
        settings: BackendSettings,
        behavioural=False,
        costs: CostSettings | None = None,
    ):
        from explaincheck.core.campaign.finish import finish_run
        from explaincheck.core.campaign.plan import plan_campaign
        from explaincheck.core.campaign.progress import ProgressEvents

        plan = plan_campaign(campaign, environment=environment, oracle=oracle)
        costs = costs or CostSettings()
        options = {**campaign.run_options(), "db": str(db_path), **costs.run_options()}
        plan = replace(plan, notes={**plan.notes, "run_options": options})  # for results --config
        if costs.prices:  # results and the report price the replies as this run did
            plan = replace(plan, notes={**plan.notes, "prices": stored_form(costs.prices)})
        self.planned.emit(plan.total, dict(plan.skipped))
        if self._large_plan_declined(plan, db_path):
            return None  # nothing written: not even an empty results file
        events = ProgressEvents()
        events.subscribe(self._on_progress)
        with CampaignSession.open(db_path, settings) as session:  # on this thread: SQLite's rule
            self._attach(session)

            def started(backends) -> None:
                self.llm_plan.emit(*left_per_llm(plan, session.store.stored(), backends))

            guard = self._cost_guard(plan, session, costs, events)
            outcome = await session.run(plan, events=events, started=started)
            if guard is not None and guard.reached:
                said = "Stopped at the cost limit"
                again = "Run with a higher Stop at cost (or none) to continue"
                self.cost_stopped.emit(guard.message(outcome.progress, said, again))
            # as run does: re-grade resumed rows, record the grading, the follow-up probes
            await finish_run(plan, session, outcome, behavioural=behavioural)
            return outcome

    def _cost_guard(
        self, plan, session: CampaignSession, costs: CostSettings, events
    ) -> CostGuard | None:
        """Tell the tab what the stored executions cost; the guard of ``costs.limit`` (the
        command line's ``CostGuard``) subscribed to ``events``, or None without a limit."""
        tally = stored_tally(plan, session.store, costs.prices)
        spent = tally.total
        self.costs_started.emit(costs.prices, tally)  # the GUI thread's from here on
        if costs.limit is None:
            return None
        guard = CostGuard(costs.prices, costs.limit, session, spent)
        if guard.reached:
            session.cancel()
        events.subscribe(guard)
        return guard

    # -- Ollama host check (on the window's loop) ----------------------------------------------
    def check_host(self, host: str) -> asyncio.Task:
        """List the models of the Ollama host ``host`` (empty: the default host)."""
        return self.tasks.start(self._check_host(host), "check Ollama host")

    async def _check_host(self, host: str) -> None:
        from explaincheck.core.backends.registry import ollama_models

        try:
            listing = await ollama_models((host,), timeout=HOST_CHECK_TIMEOUT)
        except Exception as error:  # a bad URL or a broken connection: said in the panel
            self.host_failed.emit(host, str(error) or type(error).__name__)
            return
        self.host_checked.emit(host, listing)

    # -- OpenAI-compatible server check (on the window's loop) -------------------------------
    def check_openai(self, url: str) -> asyncio.Task:
        """List the models of the OpenAI-compatible server ``url`` (``/v1/models``)."""
        return self.tasks.start(self._check_openai(url), "check OpenAI-compatible server")

    async def _check_openai(self, url: str) -> None:
        from explaincheck.core.backends.openai_backend import served_models

        try:
            listing = await served_models((url,) if url else (), timeout=HOST_CHECK_TIMEOUT)
        except Exception as error:  # a bad URL or a broken connection: said in the panel
            self.openai_failed.emit(url, str(error) or type(error).__name__)
            return
        self.openai_checked.emit(url, listing)

    def _on_progress(self, progress) -> None:
        """Called on the worker's loop: forward to the GUI thread (signals queue)."""
        if progress.last is not None:
            self.row.emit(row_of(progress.last))
        self.progress.emit(progress)
