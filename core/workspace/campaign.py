"""A campaign run as the application holds it: its settings, whether it runs, how far it got,
how it ended and where it stored its results, with plain callbacks.

Why here and not in the GUI: what a run does before and after ``CampaignSession.run`` (the run
options and prices kept with the plan for ``results --config`` and the report, the warning of
a very large results file, the cost limit, ``finish_run``) is core logic. The GUI's
``CampaignController`` runs ``run_blocking`` on a thread of its own and forwards the events as
Qt signals (queued to the GUI thread, since they are emitted on the campaign's thread).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from explaincheck.core.workspace.events import Event

if TYPE_CHECKING:
    from explaincheck.core.campaign.cost_limit import CostGuard
    from explaincheck.core.campaign.plan import Campaign, Plan
    from explaincheck.core.campaign.prices import Price
    from explaincheck.core.campaign.progress import Progress, ProgressEvents
    from explaincheck.core.campaign.runner import RunOutcome
    from explaincheck.core.campaign.session import BackendSettings, CampaignSession
    from explaincheck.core.environments.types import Environment
    from explaincheck.core.oracle.types import OracleResult


class RunCosts(Protocol):
    """The prices a run is charged at and the cost at which it stops (the Campaign tab's
    ``CostSettings``, ``run --price --max-cost``)."""

    @property
    def prices(self) -> dict[str, Price]: ...

    @property
    def limit(self) -> float | None: ...

    def run_options(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class NoCosts:
    """No prices and no limit."""

    prices: dict[str, Price] = field(default_factory=dict)
    limit: float | None = None

    def run_options(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class CampaignRequest:
    """One run: ``campaign`` on the open model into ``db_path``; ``behavioural``: then the
    follow-up probes of its categories that have them (``Category.follow_up``)."""

    campaign: Campaign
    db_path: str
    environment: Environment
    oracle: OracleResult
    backends: BackendSettings
    behavioural: bool = False
    costs: RunCosts | None = None


class CampaignEvents:
    """What a ``CampaignWorkspace`` tells its listeners; emitted on the run's own thread."""

    def __init__(self) -> None:
        self.running = Event("running")  # (bool)
        self.planned = Event("planned")  # (total executions, {category: why skipped})
        self.large_plan = Event("large_plan")  # (one line): a very large results file ahead
        self.costs_started = Event("costs_started")  # (prices, CostTally of stored executions)
        self.llm_plan = Event("llm_plan")  # ({llm: executions left}, {llm: concurrency})
        self.progress = Event("progress")  # (Progress) after every execution
        self.executed = Event("executed")  # (ExecutionRecord) one graded execution
        self.cost_stopped = Event("cost_stopped")  # (one line): the cost limit was reached
        self.finished = Event("finished")  # (RunOutcome)
        self.failed = Event("failed")  # (exception)


class CampaignWorkspace:
    """One campaign at a time: ``run`` it, ``stop`` it from any thread."""

    def __init__(self) -> None:
        self.events = CampaignEvents()
        self.request: CampaignRequest | None = None  # the settings of the current or last run
        self.running = False
        self.planned = 0  # executions of the current or last plan
        self.progress: Progress | None = None
        self.outcome: RunOutcome | None = None
        self.error: BaseException | None = None
        self.confirm_large_plans = False  # wait for ``answer_large_plan`` before a large run
        self._lock = threading.Lock()
        self._session: CampaignSession | None = None
        self._stop_requested = False
        self._large_plan_answer = threading.Event()
        self._large_plan_go = False

    @property
    def store_path(self) -> str | None:
        """The results file of the current or last run."""
        return None if self.request is None else self.request.db_path

    # -- from any thread ---------------------------------------------------------------------
    def stop(self) -> None:
        """Cancel cleanly: in-flight requests are abandoned, stored results kept; before the
        session exists it is cancelled as soon as it opens; a large plan waiting is declined."""
        with self._lock:
            self._stop_requested = True
            if self._session is not None:
                self._session.cancel()
        self.answer_large_plan(False)

    def answer_large_plan(self, go: bool) -> None:
        """The answer to ``events.large_plan``: run it (True) or not."""
        self._large_plan_go = go
        self._large_plan_answer.set()

    # -- on the run's thread -----------------------------------------------------------------
    def run_blocking(self, request: CampaignRequest) -> RunOutcome | None:
        """``run`` on this thread's own event loop; an error is told (``events.failed``), never
        raised, so a front end's worker thread ends cleanly."""
        try:
            return asyncio.run(self.run(request))
        except BaseException as error:  # reported in the front end, never a crash
            self.error = error
            self.events.failed.emit(error)
            return None

    def begin(self, request: CampaignRequest) -> None:
        """Make ``request`` the current run, before its thread starts: a Stop from then on
        counts (``run`` begins by itself when not begun)."""
        with self._lock:
            self._stop_requested = False
        self.request, self.progress, self.outcome, self.error = request, None, None, None
        self._set_running(True)

    async def run(self, request: CampaignRequest) -> RunOutcome | None:
        """Plan and run ``request`` (None: a large plan was declined, nothing written)."""
        if self.request is not request or not self.running:
            self.begin(request)
        try:
            outcome = await self._run(request)
        finally:
            with self._lock:
                self._session = None
            self._set_running(False)
        self.outcome = outcome
        if outcome is not None:
            self.events.finished.emit(outcome)
        return outcome

    async def _run(self, request: CampaignRequest) -> RunOutcome | None:
        from explaincheck.core.campaign.eta import left_per_llm
        from explaincheck.core.campaign.finish import finish_run
        from explaincheck.core.campaign.progress import ProgressEvents
        from explaincheck.core.campaign.session import CampaignSession

        costs: RunCosts = request.costs or NoCosts()
        plan = planned_with_notes(request, costs)
        self.planned = plan.total
        self.events.planned.emit(plan.total, dict(plan.skipped))
        if self._large_plan_declined(plan, request.db_path):
            return None  # nothing written: not even an empty results file
        events = ProgressEvents()
        events.subscribe(self._on_progress)
        # the session is opened on this thread: SQLite's rule
        with CampaignSession.open(request.db_path, request.backends) as session:
            self._attach(session)

            def started(backends: Any) -> None:
                self.events.llm_plan.emit(*left_per_llm(plan, session.store.stored(), backends))

            guard = self._cost_guard(plan, session, costs, events)
            outcome = await session.run(plan, events=events, started=started)
            if guard is not None and guard.reached:
                said = "Stopped at the cost limit"
                again = "Run with a higher Stop at cost (or none) to continue"
                self.events.cost_stopped.emit(guard.message(outcome.progress, said, again))
            # as run does: re-grade resumed rows, record the grading, the follow-up probes
            await finish_run(plan, session, outcome, behavioural=request.behavioural)
            return outcome

    def _attach(self, session: CampaignSession) -> None:
        with self._lock:
            self._session = session
            if self._stop_requested:
                session.cancel()

    def _set_running(self, running: bool) -> None:
        self.running = running
        self.events.running.emit(running)

    def _on_progress(self, progress: Progress) -> None:
        self.progress = progress
        if progress.last is not None:
            self.events.executed.emit(progress.last)
        self.events.progress.emit(progress)

    def _large_plan_declined(self, plan: Plan, db_path: str) -> bool:
        """Warn of a very large plan; with ``confirm_large_plans``, wait for the answer."""
        from explaincheck.core.campaign.plan_size import size_warning

        warning = size_warning(plan, db_path, stop="Stop ends the run")
        if warning is None:
            return False
        self._large_plan_answer.clear()
        if self._stop_requested:  # Stop was pressed while it planned
            return True
        self.events.large_plan.emit(warning)
        if not self.confirm_large_plans:
            return False
        self._large_plan_answer.wait()
        return not self._large_plan_go or self._stop_requested

    def _cost_guard(
        self, plan: Plan, session: CampaignSession, costs: RunCosts, events: ProgressEvents
    ) -> CostGuard | None:
        """Tell what the stored executions cost; the guard of ``costs.limit`` (the command
        line's ``CostGuard``) subscribed to ``events``, or None without a limit."""
        from explaincheck.core.campaign.cost_limit import CostGuard, stored_tally

        tally = stored_tally(plan, session.store, costs.prices)
        self.events.costs_started.emit(costs.prices, tally)
        if costs.limit is None:
            return None
        guard = CostGuard(costs.prices, costs.limit, session, tally.total)
        if guard.reached:
            session.cancel()
        events.subscribe(guard)
        return guard


def planned_with_notes(request: CampaignRequest, costs: RunCosts) -> Plan:
    """The plan of ``request`` with its run options (for ``results --config``) and its prices
    (results and the report price the replies as this run did) in its notes."""
    from explaincheck.core.campaign.plan import plan_campaign
    from explaincheck.core.campaign.prices import stored_form

    campaign = request.campaign
    plan = plan_campaign(campaign, environment=request.environment, oracle=request.oracle)
    options = {**campaign.run_options(), "db": str(request.db_path), **costs.run_options()}
    notes: dict[str, Any] = {**plan.notes, "run_options": options}
    if costs.prices:
        notes["prices"] = stored_form(costs.prices)
    return replace(plan, notes=notes)
