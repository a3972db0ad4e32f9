"""The cost limit of a campaign (``--max-cost``): stop cleanly once its replies cost that much.

Why a progress subscriber: it sees every stored execution as it is graded, whatever the front
end (command line, API, GUI), and stopping is the session's own clean cancel (what is stored
stays, the same command continues).
"""

from __future__ import annotations

from typing import Any

from explaincheck.core.analysis.prices import Price, money, row_cost
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.progress import Progress


class CostGuard:
    """A progress subscriber that adds up what the replies cost and stops the session cleanly
    (as Stop does: what is stored stays) once ``limit`` is reached."""

    def __init__(self, prices: dict[str, Price], limit: float, session: Any, spent: float = 0.0):
        self.prices = prices
        self.limit = limit
        self.session = session
        self.spent = spent
        self.reached = spent >= limit

    @classmethod
    def for_plan(
        cls, plan: Plan, session: Any, prices: dict[str, Price], limit: float | None
    ) -> CostGuard | None:
        """A guard for ``plan`` counting what its stored executions already cost, or None."""
        if limit is None:
            return None
        keys = {e.key for e in plan.executions}
        spent = sum(
            row_cost(row, prices) or 0.0
            for row in session.store.iter_executions()
            if row["exec_key"] in keys
        )
        guard = cls(prices, limit, session, spent)
        if guard.reached:
            session.cancel()
        return guard

    def __call__(self, progress: Progress) -> None:
        record = progress.last
        if record is None or self.reached:
            return
        row = {
            "llm": record.llm,
            "reply": record.reply,
            "cached": record.cached,
            "prompt_tokens": record.prompt_tokens,
            "completion_tokens": record.completion_tokens,
        }
        self.spent += row_cost(row, self.prices) or 0.0
        if self.spent >= self.limit:
            self.reached = True
            self.session.cancel()

    def message(self, progress: Progress) -> str:
        return (
            f"stopped at --max-cost {money(self.limit)} (spent {money(self.spent)});"
            f" {progress.done} of {progress.total} executions are stored: run again with a"
            " higher --max-cost to continue"
        )
