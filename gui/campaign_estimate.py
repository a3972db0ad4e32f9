"""How long a campaign set-up will take, shown before Run ("about N min").

Counts the executions the set-up asks for (budget × categories × selections × repeats ×
wordings, times the metamorphic variants) and prices them with ``core.analysis.cost``: the mean
measured seconds per execution of each LLM in the open results file, else the speed measured
by earlier runs on this machine (``core.campaign.speeds``), else its backend kind's planning
rate, and then it says the figure is a guess. Whether an answerer computes its reply (no
time to speak of), how its replies overlap and its planning rate are facts of its
``BackendKind`` (``core.backends.registry``): nothing here names a backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.backends.registry import answers_instantly, kind_of
from explaincheck.core.campaign.speeds import measured_speeds

# Upper bound of metamorphic variants per case (swap or subset order, action order, renaming).
METAMORPHIC_VARIANTS = 3
# Seconds per execution of a spec no kind claims (it fails at Run; priced like a model till then).
DEFAULT_OTHER = 3.0


@dataclass(frozen=True)
class Estimate:
    """Expected wall time and what it rests on."""

    seconds: float
    executions: int
    measured: tuple[str, ...]  # LLMs priced from the results file
    assumed: tuple[str, ...]  # LLMs priced at the default rate

    @property
    def text(self) -> str:
        minutes = self.seconds / 60
        when = "under 1 min" if minutes < 1 else f"about {round(minutes)} min"
        basis = []
        if self.measured:
            basis.append("measured rate (on this machine)")
        if self.assumed:
            basis.append(
                "a guess: default rate "
                + ", ".join(f"{_default(llm):g} s/answer" for llm in self.assumed[:1])
                + f" for {', '.join(self.assumed)} (nothing measured on this machine yet)"
            )
        tail = f" · {'; '.join(basis)}" if basis else ""
        return f"Estimate: {when} for up to {self.executions} answers{tail}"


def instant(llm: str) -> bool:
    """Answerers that compute their reply: no time worth estimating."""
    return answers_instantly(llm)


def _default(llm: str) -> float:
    kind = kind_of(llm)
    return kind.seconds if kind else DEFAULT_OTHER


def _declares(llm: str, fact: str) -> bool:
    """Whether the spec's kind declares ``fact`` ("pooled", "serial"); an unknown one none."""
    return bool(getattr(kind_of(llm), fact, False))


def executions_per_llm(
    categories: int, budget: int, selections: int, repeat: int, wordings: int, metamorphic: bool
) -> int:
    """Upper bound of executions per LLM (a category may have fewer candidates than the budget)."""
    variants = 1 + (METAMORPHIC_VARIANTS if metamorphic else 0)
    return categories * budget * selections * repeat * wordings * variants


def measured_rates(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """LLM -> measured seconds per execution in these result rows (worker thread: pandas)."""
    import pandas as pd

    from explaincheck.core.analysis.cost import seconds_per_execution

    frame = pd.DataFrame(list(rows))
    if frame.empty or not {"latency", "verdict", "llm"} <= set(frame.columns):
        return {}
    return seconds_per_execution(frame)


def known_rates(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """The speeds measured on this machine by earlier runs (``campaign.speeds``), with the open
    results file's own rates over them (worker thread)."""
    return {**measured_speeds(), **measured_rates(rows)}


def estimate(
    llms: Iterable[str], per_llm: int, rates: Mapping[str, float], concurrency: int = 1
) -> Estimate:
    """Wall time of ``per_llm`` executions for each LLM, by ``cost.campaign_seconds``."""
    from explaincheck.core.analysis.cost import campaign_seconds

    llms = list(llms)
    slow = [llm for llm in llms if not instant(llm)]
    seconds_each = {llm: rates.get(llm, _default(llm)) for llm in slow}
    in_flight = {llm: (concurrency if _declares(llm, "pooled") else 1) for llm in slow}
    local = [llm for llm in slow if _declares(llm, "serial")]
    others = [llm for llm in slow if llm not in local]
    # local models share one worker thread (their times add up); served models run beside them
    seconds = max(
        campaign_seconds(
            {llm: per_llm for llm in local}, seconds_each, concurrency=in_flight, serial=True
        ),
        campaign_seconds({llm: per_llm for llm in others}, seconds_each, concurrency=in_flight),
    )
    total = per_llm * len(llms)
    return Estimate(
        seconds=seconds,
        executions=total,
        measured=tuple(llm for llm in slow if llm in rates),
        assumed=tuple(llm for llm in slow if llm not in rates),
    )
