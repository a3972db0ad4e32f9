"""A campaign run as the application holds it: the ONE run sequence every front end uses, and
the GUI's workspace around it (its settings, whether it runs, how far it got, how it ended).

Why one sequence here: ``explaincheck run``, the Campaign tab and ``api.run`` each plan, warn
of a very large results file, open a session, guard the cost, run and finish the run
(``finish_run``: re-grade resumed rows, record the grading, the follow-up probes). When each
wrote its own copy they drifted (the API's had no ``finish_run``, so a resume under another
satisfy rule kept its old grades). ``run_campaign(request, hooks)`` is that sequence; a front
end passes ``RunHooks`` of its own (the terminal's progress bar and Ctrl-C, the API's callback,
the window's events). The GUI's ``CampaignController`` runs ``CampaignWorkspace.run_blocking``
on a thread of its own and forwards the events as Qt signals (queued to the GUI thread).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from explaincheck.core.backends.base import Backend
from explaincheck.core.campaign.cost_limit import CostGuard, check_priced, stored_tally
from explaincheck.core.campaign.eta import left_per_llm
from explaincheck.core.campaign.finish import Finished, finish_run
from explaincheck.core.campaign.new_database import discard_if_unused
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.campaign.plan_size import size_warning
from explaincheck.core.campaign.prices import CostTally, Price, stored_form
from explaincheck.core.campaign.progress import Progress, ProgressEvents
from explaincheck.core.campaign.runner import RunOutcome
from explaincheck.core.campaign.session import BackendSettings, CampaignSession
from explaincheck.core.campaign.shard import Shard, shard_plan
from explaincheck.core.campaign.speeds import add_measurements, plan_latencies
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import check_writable, now
from explaincheck.core.workspace.events import Event


class RunCosts(Protocol):
    """The prices a run is charged at and the cost at which it stops (the Campaign tab's
    ``CostSettings``, ``run --price --max-cost``)."""

    @property
    def prices(self) -> dict[str, Price]: ...

    @property
    def limit(self) -> float | None: ...

    @property
    def names(self) -> tuple[str, str]:
        """How the front end calls the limit and the prices (for its one-line errors)."""
        ...

    def run_options(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Costs:
    """Prices and a limit as the command line and the API give them (``names``: how the front
    end calls the limit and the prices, for the one line that refuses an unpriced model)."""

    prices: dict[str, Price] = field(default_factory=dict)
    limit: float | None = None
    names: tuple[str, str] = ("--max-cost", "--price MODEL=IN/OUT")

    def run_options(self) -> dict[str, Any]:
        return {}


NoCosts = Costs  # no prices and no limit: ``Costs()``


@dataclass(frozen=True)
class CampaignRequest:
    """One run: ``campaign`` into ``db_path``. The model is ``environment`` and ``oracle`` when
    the front end has it open (else it is loaded, from the oracle cache); ``plan``: already
    planned (the API's ``plan``); ``shard``: only that part; ``run_options``: what
    ``results --config`` writes back (default: the campaign's own, the file and the costs');
    ``behavioural``: then the follow-up probes of its categories (``Category.follow_up``)."""

    campaign: Campaign
    db_path: str
    environment: Environment | None
    oracle: OracleResult | None
    backends: BackendSettings
    behavioural: bool = False
    costs: RunCosts | None = None
    shard: Shard | None = None
    run_options: dict[str, Any] | None = None
    plan: Plan | None = None


class RunHooks:
    """What a front end is told along the run sequence, in this order; each hook is a no-op
    here, so a front end overrides only what it shows."""

    stop_words = "Ctrl-C stops the run"  # how this front end stops a run (the size warning)

    def planned(self, plan: Plan) -> None:
        """The plan, before anything is written."""

    def large_plan(self, warning: str) -> bool:
        """A very large results file ahead (one line): go on (True) or write nothing."""
        return True

    def opened(self, session: CampaignSession) -> None:
        """The session is open (Stop and Ctrl-C can cancel it from here on)."""

    def costs_started(self, prices: dict[str, Price], tally: CostTally) -> None:
        """The prices of the run and what the plan's stored executions already cost."""

    def llm_plan(self, left: dict[str, int], concurrency: dict[str, int]) -> None:
        """The backends are made: executions left and requests in flight per LLM."""

    def progress(self, progress: Progress) -> None:
        """After every execution (and the runner's messages: resuming, loading a model)."""

    def ended(self, run: CampaignRun, session: CampaignSession) -> None:
        """The run is finished (``finish_run`` done); the session is still open."""

    def closing(self, session: CampaignSession) -> None:
        """The session closes, however the run ended."""


@dataclass(frozen=True)
class CampaignRun:
    """How one run of the sequence ended: its plan, the runner's outcome, what finishing did,
    and the cost guard (None without a limit)."""

    plan: Plan
    outcome: RunOutcome
    finished: Finished
    guard: CostGuard | None = None

    @property
    def cost_stopped(self) -> bool:
        return self.guard is not None and self.guard.reached


async def run_campaign(
    request: CampaignRequest, hooks: RunHooks | None = None
) -> CampaignRun | None:
    """The run sequence: plan → size warning → session → cost guard → run → ``finish_run``.
    None: a large plan was declined (nothing written). A results file this run created is
    removed again when the run fails before storing anything (a refused model or LLM)."""
    hooks = hooks or RunHooks()
    costs: RunCosts = request.costs or Costs()
    if costs.limit is not None:  # before any work: an unpriced model would count as free
        check_priced(request.campaign.llms, costs.prices, *costs.names)
    check_writable(Path(request.db_path))  # before the plan is made and said
    plan = planned_with_notes(request, costs)
    hooks.planned(plan)
    warning = size_warning(plan, request.db_path, stop=hooks.stop_words)
    if warning is not None and not hooks.large_plan(warning):
        return None  # nothing written: not even an empty results file
    # the session is opened on this thread: SQLite's rule
    with (
        discard_if_unused(request.db_path),
        CampaignSession.open(request.db_path, request.backends) as session,
    ):
        hooks.opened(session)
        try:
            return await run_planned(plan, session, costs, hooks, behavioural=request.behavioural)
        finally:
            hooks.closing(session)


async def run_planned(
    plan: Plan,
    session: CampaignSession,
    costs: RunCosts,
    hooks: RunHooks,
    *,
    behavioural: bool = False,
    spent_elsewhere: float = 0.0,
) -> CampaignRun:
    """The run sequence's middle, on an open session: cost guard → run → ``finish_run`` →
    ``hooks.ended``. ``spent_elsewhere``: what other campaigns of the same run already cost
    (a matrix of environments stops at one limit over all of them)."""
    events = ProgressEvents()
    events.subscribe(hooks.progress)
    guard = _cost_guard(plan, session, costs, hooks, spent_elsewhere)
    if guard is not None:
        events.subscribe(guard)

    def started(backends: Mapping[str, Backend]) -> None:
        hooks.llm_plan(*left_per_llm(plan, session.store.stored(), backends))

    began = now()
    outcome = await session.run(plan, events=events, started=started)
    finished = await finish_run(plan, session, outcome, behavioural=behavioural)
    add_measurements(plan_latencies(plan, session.store, since=began))  # for estimates
    run = CampaignRun(plan, outcome, finished, guard)
    hooks.ended(run, session)
    return run


async def run_plans(
    plans: list[Plan], db_path: str, backends: BackendSettings, hooks: RunHooks | None = None
) -> list[CampaignRun]:
    """Several plans made elsewhere (the frozen benchmark's, one per environment) into one
    results file, each through ``run_campaign``; stops after the first run that did not
    complete (a later one would only say the same)."""
    runs: list[CampaignRun] = []
    for plan in plans:
        request = CampaignRequest(plan.campaign, db_path, None, None, backends, plan=plan)
        run = await run_campaign(request, hooks)
        if run is None:  # a large plan declined: nothing more is written
            break
        runs.append(run)
        if not run.outcome.complete:
            break
    return runs


def _cost_guard(
    plan: Plan,
    session: CampaignSession,
    costs: RunCosts,
    hooks: RunHooks,
    spent_elsewhere: float = 0.0,
) -> CostGuard | None:
    """Tell what the stored executions cost; the guard of ``costs.limit``, or None."""
    tally = stored_tally(plan, session.store, costs.prices)
    hooks.costs_started(costs.prices, tally)
    if costs.limit is None:
        return None
    guard = CostGuard(costs.prices, costs.limit, session, spent_elsewhere + tally.total)
    if guard.reached:
        session.cancel()
    return guard


def planned_with_notes(request: CampaignRequest, costs: RunCosts) -> Plan:
    """The plan of ``request`` (cut to its shard) with its run options (for
    ``results --config``), its prices (results and the report price the replies as this run
    did) and its shard in its notes."""
    campaign = request.campaign
    plan = request.plan or plan_campaign(
        campaign, environment=request.environment, oracle=request.oracle
    )
    notes: dict[str, Any] = dict(plan.notes)
    if request.shard is not None:
        plan = shard_plan(plan, request.shard)
        notes["shard"] = str(request.shard)
    options = request.run_options
    if options is None:
        options = {**campaign.run_options(), "db": str(request.db_path), **costs.run_options()}
    notes["run_options"] = options
    if costs.prices:
        notes["prices"] = stored_form(costs.prices)
    return replace(plan, notes=notes)


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
        self.last_run: CampaignRun | None = None  # with what finishing did
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
        self.last_run = None
        self._set_running(True)

    async def run(self, request: CampaignRequest) -> RunOutcome | None:
        """Plan and run ``request`` (None: a large plan was declined, nothing written)."""
        if self.request is not request or not self.running:
            self.begin(request)
        try:
            run = await run_campaign(request, _WindowHooks(self))
        finally:
            with self._lock:
                self._session = None
            self._set_running(False)
        self.last_run = run
        self.outcome = None if run is None else run.outcome
        if run is not None:
            if run.guard is not None and run.cost_stopped:
                said = "Stopped at the cost limit"
                again = "Run with a higher Stop at cost (or none) to continue"
                self.events.cost_stopped.emit(run.guard.message(run.outcome.progress, said, again))
            self.events.finished.emit(run.outcome)
        return self.outcome

    def _attach(self, session: CampaignSession | None) -> None:
        with self._lock:
            self._session = session
            if session is not None and self._stop_requested:
                session.cancel()

    def _set_running(self, running: bool) -> None:
        self.running = running
        self.events.running.emit(running)

    def _on_progress(self, progress: Progress) -> None:
        self.progress = progress
        if progress.last is not None:
            self.events.executed.emit(progress.last)
        self.events.progress.emit(progress)

    def _large_plan_go_on(self, warning: str) -> bool:
        """Warn of a very large plan; with ``confirm_large_plans``, wait for the answer."""
        self._large_plan_answer.clear()
        if self._stop_requested:  # Stop was pressed while it planned
            return False
        self.events.large_plan.emit(warning)
        if not self.confirm_large_plans:
            return True
        self._large_plan_answer.wait()
        return self._large_plan_go and not self._stop_requested


class _WindowHooks(RunHooks):
    """The run sequence told as the workspace's events (the window's hooks)."""

    stop_words = "Stop ends the run"

    def __init__(self, workspace: CampaignWorkspace) -> None:
        self.workspace = workspace

    def planned(self, plan: Plan) -> None:
        self.workspace.planned = plan.total
        self.workspace.events.planned.emit(plan.total, dict(plan.skipped))

    def large_plan(self, warning: str) -> bool:
        return self.workspace._large_plan_go_on(warning)

    def opened(self, session: CampaignSession) -> None:
        self.workspace._attach(session)

    def costs_started(self, prices: dict[str, Price], tally: CostTally) -> None:
        self.workspace.events.costs_started.emit(prices, tally)

    def llm_plan(self, left: dict[str, int], concurrency: dict[str, int]) -> None:
        self.workspace.events.llm_plan.emit(left, concurrency)

    def progress(self, progress: Progress) -> None:
        self.workspace._on_progress(progress)

    def closing(self, session: CampaignSession) -> None:
        self.workspace._attach(None)
