"""A whole study in one run: one campaign per environment (``run --env all``) into one results
file, planned together, asked one environment after another in one session, followed with one
progress and one ETA, resumed as a whole, and reported over all of it.

Why on top of ``run_campaign``'s pieces (``planned_with_notes``, ``run_planned``): each
environment stays an ordinary campaign (its identity, its keys, its row in ``campaigns``), so
``report``, ``results``, ``merge`` and a resume read it as if it had been run alone. What the
matrix adds: every plan is made before anything is asked (a model that cannot be checked stops
the study before it costs a request), one size warning over the sum, one session (one Ctrl-C
stops every environment; the next ones are not begun), one cost limit over all of them, and
``MatrixProgress``: one bar over the whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explaincheck.core.campaign.cost_limit import CostGuard, check_priced, keys_tally
from explaincheck.core.campaign.matrix import MatrixProgress, left_in_plans
from explaincheck.core.campaign.new_database import discard_if_unused
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.plan_size import plans_size_warning
from explaincheck.core.campaign.prices import CostTally, Price
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.campaign.regrade import RegradeSummary
from explaincheck.core.campaign.runner import RunOutcome, begin_plan
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import Store, check_writable
from explaincheck.core.workspace.campaign import (
    CampaignRequest,
    CampaignRun,
    Costs,
    RunCosts,
    RunHooks,
    planned_with_notes,
    run_planned,
)


class MatrixHooks(RunHooks):
    """``RunHooks`` told once for the whole matrix (``planned`` once per campaign, ``progress``
    folded over all of them, ``llm_plan`` with the work left in every environment), plus the
    matrix's own beginning and end. ``ended`` is not called: ``matrix_ended`` is."""

    def matrix_planned(self, plans: Sequence[Plan]) -> None:
        """Every campaign is planned (after ``planned`` of each), nothing is asked yet."""

    def matrix_ended(self, run: MatrixRun, session: CampaignSession) -> None:
        """The matrix is finished, stopped or interrupted; the session is still open."""


@dataclass(frozen=True)
class MatrixRun:
    """How a matrix ended: every plan, the campaigns that ran (in order; those after a stop were
    not begun) and one outcome over the whole matrix."""

    plans: tuple[Plan, ...]
    runs: tuple[CampaignRun, ...]
    outcome: RunOutcome

    @property
    def guard(self) -> CostGuard | None:
        """The cost guard of the last campaign (it counts what the earlier ones spent)."""
        return self.runs[-1].guard if self.runs else None

    @property
    def cost_stopped(self) -> bool:
        return any(run.cost_stopped for run in self.runs)

    @property
    def regraded(self) -> RegradeSummary:
        """The re-grade of resumed rows, over every campaign."""
        graded = sum(run.finished.regraded.graded for run in self.runs)
        changed = sum(run.finished.regraded.changed for run in self.runs)
        return RegradeSummary(graded, changed)


async def run_matrix(
    requests: Sequence[CampaignRequest], hooks: MatrixHooks | None = None
) -> MatrixRun | None:
    """Plan every request, warn once of a very large file, then run the campaigns in order in
    one session. They share the results file, backend settings, costs and ``behavioural``
    (the first request's). Stops after an interrupted campaign, at the cost limit, or when an
    LLM was given up (its server is gone: the next environments would only time out); a run
    of the same requests continues each campaign where it stopped. None: a large plan was
    declined (nothing written)."""
    if not requests:
        raise ExplaincheckError("no environment to run")
    hooks = hooks or MatrixHooks()
    first = requests[0]
    costs: RunCosts = first.costs or Costs()
    if costs.limit is not None:  # before any work: an unpriced model would count as free
        for request in requests:
            check_priced(request.campaign.llms, costs.prices, *costs.names)
    check_writable(Path(first.db_path))
    plans = [planned_with_notes(request, costs) for request in requests]
    for plan in plans:
        hooks.planned(plan)
    hooks.matrix_planned(plans)
    warning = plans_size_warning(plans, first.db_path, stop=hooks.stop_words)
    if warning is not None and not hooks.large_plan(warning):
        return None
    with (
        discard_if_unused(first.db_path),
        CampaignSession.open(first.db_path, first.backends) as session,
    ):
        hooks.opened(session)
        try:
            return await _run_all(plans, session, costs, hooks, first.behavioural)
        finally:
            hooks.closing(session)


async def _run_all(
    plans: Sequence[Plan],
    session: CampaignSession,
    costs: RunCosts,
    hooks: MatrixHooks,
    behavioural: bool,
) -> MatrixRun:
    stored = session.store.stored()
    matrix = MatrixProgress.start(plans, stored)
    # every campaign in the file once the first answer is stored: a study killed outright
    # (SIGKILL, a power cut) still says what it planned, and a run refused before it asked
    # anything (no server, an unknown model) leaves no file behind
    told = _CampaignHooks(
        hooks, matrix, left_in_plans(plans, stored), lambda: _record_not_begun(plans, session.store)
    )
    runs: list[CampaignRun] = []
    for index, plan in enumerate(plans):
        if session.cancelled:  # Ctrl-C (or Stop) between two campaigns: begin no other
            break
        matrix.begin(index)
        spent = _spent_elsewhere(plans, index, session, costs)
        run = await run_planned(
            plan, session, costs, told, behavioural=behavioural, spent_elsewhere=spent
        )
        runs.append(run)
        if session.cancelled or run.cost_stopped or run.outcome.stopped:
            break
    _record_not_begun(plans[len(runs) :], session.store)
    stopped = {
        (f"{matrix.name(i)}: {llm}" if matrix.several else llm): (
            f"{run.plan.environment_name}: {why}" if matrix.several else why
        )
        for i, run in enumerate(runs)
        for llm, why in run.outcome.stopped.items()
    }
    final = matrix.final(_state(session, stopped), "; ".join(stopped.values()))
    hooks.progress(final)
    ran = MatrixRun(tuple(plans), tuple(runs), RunOutcome(final, stopped))
    hooks.matrix_ended(ran, session)
    return ran


def _record_not_begun(plans: Sequence[Plan], store: Store) -> None:
    """The campaigns not begun yet (at the start, every new one; after a stop, those it left),
    recorded as ``incomplete`` with nothing stored: the file says what the whole study planned
    (``report``'s facts, ``compare``'s check of an unfinished side), not only what ran; a
    campaign the file already holds is left as it is."""
    known = {campaign.identity for campaign in store.campaigns()}
    for plan in plans:
        if plan.identity not in known:
            store.end_campaign(begin_plan(store, plan), "incomplete")


def _state(session: CampaignSession, stopped: dict[str, str]) -> str:
    if session.cancelled:
        return "cancelled"
    return "stopped" if stopped else "finished"


def _spent_elsewhere(
    plans: Sequence[Plan], index: int, session: CampaignSession, costs: RunCosts
) -> float:
    """What the other campaigns' stored replies cost (0 without a limit: nothing to stop)."""
    if costs.limit is None or len(plans) == 1:
        return 0.0
    keys = {e.key for i, plan in enumerate(plans) if i != index for e in plan.executions}
    return keys_tally(keys, session.store, costs.prices).total


class _CampaignHooks(RunHooks):
    """One campaign's run sequence, told to the matrix's hooks as part of the whole."""

    def __init__(
        self,
        hooks: MatrixHooks,
        matrix: MatrixProgress,
        left: dict[str, int],
        ready: Callable[[], None] | None,
    ) -> None:
        self.hooks = hooks
        self.matrix = matrix
        self.left = left
        self.ready = ready  # called once, when the first answer is stored
        self._llms_told = False

    def costs_started(self, prices: dict[str, Price], tally: CostTally) -> None:
        self.hooks.costs_started(prices, tally)

    def llm_plan(self, left: dict[str, int], concurrency: dict[str, int]) -> None:
        if not self._llms_told:  # once: the work left in every environment, not in this one
            self._llms_told = True
            self.hooks.llm_plan(dict(self.left), concurrency)

    def progress(self, progress: Progress) -> None:
        if progress.last is not None and self.ready is not None:
            ready, self.ready = self.ready, None
            ready()
        self.hooks.progress(self.matrix.fold(progress))


__all__ = ["MatrixHooks", "MatrixRun", "run_matrix"]
