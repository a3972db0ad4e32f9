"""Running a campaign for the window, on its own thread with its own asyncio loop; and what the
Campaign tab asks of the core before that (a host's model list, the ``Campaign`` and its folder).

Why a separate thread: planning (case selection, prompt rendering), the SQLite commit after
every graded execution and the backends' own work would otherwise all run on the GUI thread.
The run and its state are a ``CampaignWorkspace`` (core/workspace/campaign.py): it plans, warns
of large plans, guards the cost limit, runs the ``CampaignSession`` and finishes the run, and
reports through plain callbacks; they are forwarded to the GUI thread by Qt signals, which queue
across threads. Stop cancels it thread-safely; everything graded so far stays stored, and
running the same campaign again resumes it.

Listing a host's models is a short network call: it runs as a task on the window's qasync loop,
never on the views' two worker threads (where a slow host would hold up layouts and reads).
"""

from __future__ import annotations

import asyncio
import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.campaign.eta import left_per_llm
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.campaign import CampaignRequest, CampaignWorkspace
from explaincheck.core.workspace.presentation.campaign_cost import CostSettings
from explaincheck.gui.support.session_thread import SessionThread
from explaincheck.gui.support.tasks import Tasks

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
    property_spec: str = "",
) -> Campaign:
    """The ``Campaign`` the tab's set-up describes on the open model (an ExplaincheckError with
    one line when it is incomplete). ``property_spec`` is the Model panel's property as
    ``--property`` text ("": Pmax=? [F goal_label]); it names its own target, as on the
    command line, so the goal is not given beside it."""
    from explaincheck.core.campaign.settings import campaign_from_settings

    if environment is None:
        raise ExplaincheckError("open a model first")
    if not setup.categories:
        raise ExplaincheckError("choose at least one applicable category")
    return campaign_from_settings(
        environment.id or environment.model_path,
        setup.llms,
        categories=setup.categories,
        budget=setup.budget,
        selection=setup.selection,
        repeat=setup.repeat,
        seed=setup.seed,
        wording=setup.wording,
        metamorphic=setup.metamorphic,
        keep_do_nothing=setup.keep_do_nothing,
        satisfy_rule=setup.satisfy_rule,
        satisfy_tolerance=setup.tolerance,
        constants=constants,
        goal_label=None if property_spec else goal_label,
        unsafe_label=unsafe_label,
        property=property_spec or None,
    )


def results_path(path: str) -> str:
    """The results file as typed (``~`` expanded), its folder made if missing (OSError if it
    cannot be)."""
    path = os.path.expanduser(path.strip())
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return path


class CampaignController(SessionThread):
    """Start/stop one campaign at a time; signals arrive on the GUI thread. The run and its
    state are a ``CampaignWorkspace`` (core/workspace/campaign.py) whose events, emitted on the
    campaign's thread, are forwarded as these signals (Qt queues them to the GUI thread)."""

    planned = Signal(int, object)  # total executions, {category: why skipped}
    llm_plan = Signal(object, object)  # {llm: executions left}, {llm: concurrency} (for the ETA)
    progress = Signal(object)  # core.campaign.progress.Progress
    row = Signal(object)  # one graded execution: its ExecutionRecord
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
        self.workspace = CampaignWorkspace()
        events = self.workspace.events  # emitted on the campaign's thread: through _emit
        for event, signal in (
            (events.planned, self.planned),
            (events.llm_plan, self.llm_plan),
            (events.executed, self.row),
            (events.progress, self.progress),
            (events.finished, self.finished),
            (events.failed, self.failed),
            (events.costs_started, self.costs_started),
            (events.cost_stopped, self.cost_stopped),
            (events.large_plan, self.large_plan),
        ):
            event.connect(functools.partial(self._emit, signal))

    @property
    def confirm_large_plans(self) -> bool:
        return self.workspace.confirm_large_plans

    @confirm_large_plans.setter
    def confirm_large_plans(self, confirm: bool) -> None:
        self.workspace.confirm_large_plans = confirm

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
        ``behavioural``: then ask the follow-up probes of its categories; ``costs``: the
        prices kept with it and the cost at which it stops (as ``run --max-cost``)."""
        if self.running:
            raise RuntimeError("a campaign is already running")
        request = CampaignRequest(
            campaign, db_path, environment, oracle, backends, behavioural, costs or CostSettings()
        )
        self.workspace.begin(request)  # a Stop from now on counts
        self._launch(self._thread_main, (request,), "explaincheck-campaign")

    def stop(self) -> None:
        """Cancel cleanly, also before the session exists or while a large plan awaits its
        answer (``CampaignWorkspace.stop``)."""
        self.workspace.stop()

    def answer_large_plan(self, go: bool) -> None:
        """The user's answer to ``large_plan``: run it (True) or not."""
        self.workspace.answer_large_plan(go)

    def _thread_main(self, request: CampaignRequest) -> None:
        """The campaign's thread: the workspace's run (errors become ``failed``), then the
        running flag is lowered once its last signal is delivered."""
        try:
            self.workspace.run_blocking(request)
        finally:
            self._detach()

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
