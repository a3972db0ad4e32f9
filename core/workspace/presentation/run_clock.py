"""The running campaign's time left, per LLM, as the text the Campaign tab shows.

Qt-free (a test drives it with plain progress values): the window's campaign presenter feeds it
the plan and each progress event; the Campaign tab only shows the two strings it gives back.
The times are formatted by core's one formatter, as the terminal bar's are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.campaign.eta import EtaEstimator, format_duration


@dataclass(frozen=True)
class TimeLeft:
    """``eta``: the campaign's time left (``MM:SS``); ``per_llm``: one line per LLM ("" when
    the run is not followed per LLM)."""

    eta: str
    per_llm: str = ""


class RunClock:
    """Follows one run: ``plan`` when its executions are known, ``follow`` each progress."""

    def __init__(self) -> None:
        self.eta: EtaEstimator | None = None  # None before a run's plan (or with no plan)

    def plan(self, left: Mapping[str, int], concurrency: Mapping[str, int]) -> None:
        self.eta = EtaEstimator.start(left, concurrency)

    def follow(self, progress: Any) -> TimeLeft:
        """Count the last execution (an error is timed but stays to do) and say the time left;
        without a plan, the progress's own pooled estimate."""
        last = progress.last
        if self.eta is None:
            return TimeLeft(format_duration(progress.eta))
        if last is not None:
            self.eta.record(last.llm, last.latency, finished=last.verdict != "error")
        lines = (f"{llm}: {format_duration(t)} left" for llm, t in self.eta.per_llm().items())
        return TimeLeft(format_duration(self.eta.eta()), "\n".join(lines))
