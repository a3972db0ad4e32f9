"""Time left in a campaign, estimated per LLM.

One rate over all executions is wrong when answerers differ by orders of magnitude: the random
and oracle baselines answer at once, so their executions inflate the rate and an ETA of "0:01"
is shown while a slow LLM still has a minute of work. Each LLM has its own queue and workers
(``CampaignRunner``), so each LLM's time left is its remaining executions × its measured time per
answer / its concurrency, and the campaign ends when the slowest LLM does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.backends.base import Backend
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.taxonomy.base import ERROR


def format_duration(seconds: float | None) -> str:
    """``MM:SS``, or ``H:MM:SS`` from an hour on; ``--:--`` when not known yet. The one
    formatter of a time left: the terminal bar and the Campaign tab show the same text."""
    if seconds is None:
        return "--:--"
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


@dataclass
class LlmPace:
    """One LLM's executions left and the answers timed so far (in this run)."""

    remaining: int
    answered: int = 0
    seconds: float = 0.0  # the sum of the answers' latencies

    @property
    def per_answer(self) -> float | None:
        return self.seconds / self.answered if self.answered else None


def llm_eta(pace: LlmPace, concurrency: int) -> float | None:
    """Seconds this LLM still needs; None while nothing is timed yet (and work is left)."""
    if pace.remaining <= 0:
        return 0.0
    per_answer = pace.per_answer
    if per_answer is None:
        return None
    return pace.remaining * per_answer / max(1, min(concurrency, pace.remaining))


def campaign_eta(paces: Mapping[str, LlmPace], concurrency: Mapping[str, int]) -> float | None:
    """The slowest LLM's time left (LLMs run side by side); None if any is not timed yet."""
    times = [llm_eta(pace, concurrency.get(llm, 1)) for llm, pace in paces.items()]
    if any(t is None for t in times):
        return None
    return max((t for t in times if t is not None), default=0.0)


@dataclass
class EtaEstimator:
    """Follows a running campaign: ``record`` each finished execution, then ask ``eta``."""

    paces: dict[str, LlmPace]
    concurrency: dict[str, int] = field(default_factory=dict)

    @classmethod
    def start(cls, remaining: Mapping[str, int], concurrency: Mapping[str, int]) -> EtaEstimator:
        return cls({llm: LlmPace(int(n)) for llm, n in remaining.items()}, dict(concurrency))

    def record(self, llm: str, latency: float | None, finished: bool = True) -> None:
        """One answer from ``llm`` took ``latency`` seconds; ``finished`` is False for an
        execution that ended in error (retried later, so still remaining)."""
        pace = self.paces.setdefault(llm, LlmPace(0))
        if latency is not None and latency >= 0:
            pace.answered += 1
            pace.seconds += latency
        if finished:
            pace.remaining = max(0, pace.remaining - 1)

    def eta(self) -> float | None:
        return campaign_eta(self.paces, self.concurrency)

    def per_llm(self) -> dict[str, float | None]:
        return {llm: llm_eta(p, self.concurrency.get(llm, 1)) for llm, p in self.paces.items()}


def left_per_llm(
    plan: Plan, stored: Mapping[str, tuple[str | None, Any]], backends: Mapping[str, Backend]
) -> tuple[dict[str, int], dict[str, int]]:
    """Executions each LLM still has to answer (stored non-error ones are skipped on resume),
    and each LLM's concurrency: what ``EtaEstimator.start`` needs (the window and the terminal
    bar start it when the backends are made)."""
    left = {llm: 0 for llm in plan.campaign.llms}
    for execution in plan.executions:
        verdict = stored.get(execution.key, (None, 0))[0]
        if verdict is None or verdict == ERROR:
            left[execution.llm] = left.get(execution.llm, 0) + 1
    concurrency = {llm: int(getattr(b, "concurrency", 1) or 1) for llm, b in backends.items()}
    return left, concurrency
