"""The cost limit of a campaign (``--max-cost``, the Campaign tab's "Stop at cost"): stop
cleanly once its replies cost that much.

Why a progress subscriber: it sees every stored execution as it is graded, whatever the front
end (command line, API, GUI), and stopping is the session's own clean cancel (what is stored
stays, the same command continues).

What it promises: no new request starts once the limit is reached; the replies already in
flight then (at most the requests in flight, ``--concurrency`` per LLM) are stored and counted,
so the spend it prints is what ``results`` reports, and the overshoot is those replies alone
(it says how many). Every LLM that is not an instant answerer needs a price: an unpriced one
would count as free, so it is refused before any work.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Set
from typing import Any

from explaincheck.core.backends.registry import answers_instantly
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.prices import CostTally, Price, money, price_for, row_cost
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.plural import counted
from explaincheck.core.store import ExecutionRecord, Store


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


def check_priced(
    llms: Iterable[str],
    prices: Mapping[str, Price],
    name: str = "--max-cost",
    hint: str = "--price MODEL=IN/OUT",
) -> None:
    """Under a cost limit every LLM that is not an instant answerer (random, oracle, the
    reference explainers) has a price: one line naming the first that has none."""
    for llm in llms:
        if not answers_instantly(llm) and price_for(llm, prices) is None:
            example = hint.replace("MODEL", llm, 1) if "MODEL" in hint else hint
            raise ExplaincheckError(
                f"{name}: no price for {llm}, so its replies would count as free: give"
                f" {example} (0/0 if it really costs nothing)"
            )


def costed_row(record: ExecutionRecord, prices: Mapping[str, Price]) -> dict[str, Any]:
    """An ``ExecutionRecord`` as the row ``CostTally`` adds, with what its reply cost."""
    row = {
        "llm": record.llm,
        "reply": record.reply,
        "cached": record.cached,
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "reasoning_tokens": getattr(record, "reasoning_tokens", None),
        "cached_prompt_tokens": getattr(record, "cached_prompt_tokens", None),
    }
    row["cost"] = row_cost(row, prices)
    return row


def stored_tally(plan: Plan, store: Store, prices: Mapping[str, Price]) -> CostTally:
    """What the executions of ``plan`` already in ``store`` cost (a resumed campaign)."""
    return keys_tally({e.key for e in plan.executions}, store, prices)


def keys_tally(keys: Set[str], store: Store, prices: Mapping[str, Price]) -> CostTally:
    """What the stored executions of these keys cost (several campaigns: a matrix)."""
    tally = CostTally()
    if not prices:
        return tally
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
        session: CampaignSession,
        spent: float = 0.0,
        tally: CostTally | None = None,
    ):
        self.prices = prices
        self.limit = limit
        self.session = session
        self.tally = tally or CostTally()
        self._before = spent  # spent outside the tally
        self.reached = self.spent >= limit
        self.in_flight = 0  # replies stored after the limit was reached (they were in flight)
        self.at_limit = self.spent if self.reached else 0.0  # the spend when it was reached

    @property
    def spent(self) -> float:
        return self._before + self.tally.total

    @classmethod
    def for_plan(
        cls, plan: Plan, session: CampaignSession, prices: dict[str, Price], limit: float | None
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
        if record is None:
            return
        self.tally.add(costed_row(record, self.prices))  # also after the limit: it was spent
        if self.reached:
            if record.reply is not None and not record.cached:
                self.in_flight += 1
            return
        if self.spent >= self.limit:
            self.reached = True
            self.at_limit = self.spent
            self.session.cancel()

    def message(
        self,
        progress: Progress,
        stopped: str = "stopped at --max-cost",
        again: str = "run again with a higher --max-cost to continue",
    ) -> str:
        """What happened and how to go on (``stopped``, ``again``: the front end's words)."""
        late = ""
        if self.in_flight:
            late = (
                f", of which {money(self.spent - self.at_limit)} by"
                f" {counted(self.in_flight, 'reply', 'replies')} in flight when it was reached"
            )
        return (
            f"{stopped} {money(self.limit)} (spent {money(self.spent)}{late});"
            f" {progress.done} of {progress.total} executions are stored: {again}"
        )
