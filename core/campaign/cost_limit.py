"""The cost limit of a campaign (``--max-cost``, the Campaign tab's "Stop at cost"): stop
cleanly once its replies cost that much.

Why a progress subscriber: it sees every stored execution as it is graded, whatever the front
end (command line, API, GUI), and stopping is the session's own clean cancel (what is stored
stays, the same command continues).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.prices import CostTally, Price, money, row_cost
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.errors import ExplaincheckError


def check_limit(
    limit: float | None,
    prices: Mapping[str, Price],
    name: str = "--max-cost",
    hint: str = "--price MODEL=IN/OUT",
) -> float | None:
    """``limit`` if it is usable (None: no limit); else one line saying why (``name`` and
    ``hint`` are how the front end calls the limit and the prices)."""
    if limit is None:
        return None
    if not math.isfinite(limit) or limit <= 0:
        raise ExplaincheckError(f"{name} must be a positive amount (got {limit:g})")
    if not prices:
        raise ExplaincheckError(f"{name} needs prices: give {hint}")
    return limit


def costed_row(record: Any, prices: Mapping[str, Price]) -> dict[str, Any]:
    """An ``ExecutionRecord`` as the row ``CostTally`` adds, with what its reply cost."""
    row = {
        "llm": record.llm,
        "reply": record.reply,
        "cached": record.cached,
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "reasoning_tokens": getattr(record, "reasoning_tokens", None),
    }
    row["cost"] = row_cost(row, prices)
    return row


def stored_tally(plan: Plan, store: Any, prices: Mapping[str, Price]) -> CostTally:
    """What the executions of ``plan`` already in ``store`` cost (a resumed campaign)."""
    tally = CostTally()
    if not prices:
        return tally
    keys = {e.key for e in plan.executions}
    for row in store.iter_executions(lean=True):
        if row["exec_key"] in keys:
            tally.add({**row, "cost": row_cost(row, prices)})
    return tally


class CostGuard:
    """A progress subscriber that adds up what the replies cost and stops the session cleanly
    (as Stop does: what is stored stays) once ``limit`` is reached."""

    def __init__(
        self,
        prices: dict[str, Price],
        limit: float,
        session: Any,
        spent: float = 0.0,
        tally: CostTally | None = None,
    ):
        self.prices = prices
        self.limit = limit
        self.session = session
        self.tally = tally or CostTally()
        self._before = spent  # spent outside the tally
        self.reached = self.spent >= limit

    @property
    def spent(self) -> float:
        return self._before + self.tally.total

    @classmethod
    def for_plan(
        cls, plan: Plan, session: Any, prices: dict[str, Price], limit: float | None
    ) -> CostGuard | None:
        """A guard for ``plan`` counting what its stored executions already cost, or None."""
        if limit is None:
            return None
        guard = cls(prices, limit, session, tally=stored_tally(plan, session.store, prices))
        if guard.reached:
            session.cancel()
        return guard

    def __call__(self, progress: Progress) -> None:
        record = progress.last
        if record is None or self.reached:
            return
        self.tally.add(costed_row(record, self.prices))
        if self.spent >= self.limit:
            self.reached = True
            self.session.cancel()

    def message(
        self,
        progress: Progress,
        stopped: str = "stopped at --max-cost",
        again: str = "run again with a higher --max-cost to continue",
    ) -> str:
        """What happened and how to go on (``stopped``, ``again``: the front end's words)."""
        return (
            f"{stopped} {money(self.limit)} (spent {money(self.spent)});"
            f" {progress.done} of {progress.total} executions are stored: {again}"
        )
