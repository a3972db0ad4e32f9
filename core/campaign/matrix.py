"""A matrix of campaigns: several environments (``run --env a --env b``, ``--env all``) into one
results file, one campaign per environment, followed as one run.

Why one tally over the matrix: each campaign's runner counts its own plan only, so a front end
would show seven bars that each restart at zero, and a resumed matrix would look as far along
as its first environment. ``MatrixProgress`` counts every environment's stored executions from
the start and folds each campaign's snapshots into one ``Progress`` over the whole matrix, and
``left_in_plans`` gives the per-LLM work left over all of it (the ETA's input).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.progress import Progress, Tally
from explaincheck.core.taxonomy.base import ERROR

ALL = "all"  # ``--env all``: every installed environment


def expand_environments(names: Iterable[str], installed: Sequence[str]) -> tuple[str, ...]:
    """The environments ``names`` asks for, in the order given, each once; ``all`` stands for
    every one of ``installed`` (the built-in ids, the paper's seven first, then plugins')."""
    found: list[str] = []
    for name in names:
        found.extend(installed if name.strip() == ALL else [name])
    return tuple(dict.fromkeys(found))


def _unfinished(stored: Mapping[str, tuple[str | None, Any]], key: str) -> bool:
    verdict = stored.get(key, (None, 0))[0]
    return verdict is None or verdict == ERROR


def left_in_plans(
    plans: Sequence[Plan], stored: Mapping[str, tuple[str | None, Any]]
) -> dict[str, int]:
    """Executions each LLM still has to answer in all of ``plans`` (stored ``error`` rows are
    asked again, so they count)."""
    left: Counter[str] = Counter({llm: 0 for plan in plans for llm in plan.campaign.llms})
    for plan in plans:
        for execution in plan.executions:
            if _unfinished(stored, execution.key):
                left[execution.llm] += 1
    return dict(left)


@dataclass
class MatrixProgress:
    """One ``Progress`` over every campaign of a matrix: ``begin(i)`` as campaign ``i`` starts,
    ``fold`` each of its snapshots. A campaign that ends (finished, stopped or cancelled)
    hands on to the matrix, so every folded snapshot is "running" and ``final`` is the one
    end a front end sees."""

    plans: tuple[Plan, ...]
    tally: Tally
    index: int = 0
    _first: bool = field(default=True, repr=False)

    @classmethod
    def start(
        cls, plans: Sequence[Plan], stored: Mapping[str, tuple[str | None, Any]]
    ) -> MatrixProgress:
        """The matrix before anything is asked: the executions every campaign already stored
        count as done (as one campaign's runner counts its own)."""
        tally = Tally(sum(plan.total for plan in plans))
        for plan in plans:
            for execution in plan.executions:
                if not _unfinished(stored, execution.key):
                    tally.count(stored[execution.key][0] or "", resumed=True)
        return cls(tuple(plans), tally)

    @property
    def several(self) -> bool:
        return len(self.plans) > 1

    def begin(self, index: int) -> None:
        """Campaign ``index`` (0-based) starts: its first snapshot names it."""
        self.index = index
        self._first = True

    def name(self, index: int | None = None) -> str:
        """``[3/7] water_jug``: which campaign of the matrix (its environment)."""
        index = self.index if index is None else index
        return f"[{index + 1}/{len(self.plans)}] {self.plans[index].environment_name}"

    def fold(self, progress: Progress) -> Progress:
        """Campaign ``index``'s snapshot as the matrix's: its newest execution counted once,
        its messages said with its environment when there are several."""
        if progress.last is not None:
            self.tally.count(progress.last.verdict)
        message = progress.message
        if self.several and progress.last is None and progress.state == "running":
            said = self._first  # the campaign's first snapshot: say which one it is
            self._first = False
            if message or said:
                message = f"{self.name()}: {message}" if message else self.name()
        return self.tally.snapshot(last=progress.last, message=message)

    def final(self, state: str, message: str = "") -> Progress:
        return self.tally.snapshot(state=state, message=message)
