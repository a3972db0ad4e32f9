"""The repeats of a case as one group: its k answers, whether they agree, how many passed and
the verdict's stability over them.

With ``--repeat k`` each case is asked k times; a table of k near-identical rows hides what
matters (does the LLM give the same answer each time?). Agreement uses the analysis's own rule
(``core.analysis.robustness.agree``: same answer, probabilities within the tolerance), stability
``core.analysis.stability``'s exact binomial rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from explaincheck.core.analysis.robustness import agree, canonical
from explaincheck.core.analysis.stability import UNSCORED, stability
from explaincheck.core.store.records import StoredExecution
from explaincheck.core.workspace.presentation.results.rows import answer_text, states_text

GROUP_KEYS = ("environment", "llm", "category", "selection", "case_key")
# The stability of a case's verdict over its repeats, as a mark (docs/method.md).
STABILITY_MARKS = {"stable-pass": "✓ stable", "stable-fail": "✗ stable", "flaky": "⚠ flaky"}
STABILITY_TIPS = {
    "stable-pass": "stable-pass: every repeat passed",
    "stable-fail": "stable-fail: every repeat failed",
    "flaky": "flaky: the repeats disagree (the exact 95% interval of the pass probability"
    " excludes both 0 and 1); quarantine the case or compare with --exclude-flaky",
}


@dataclass(frozen=True)
class RepeatGroup:
    """One case of one LLM: its executions by repeat, and what they say together."""

    members: tuple[StoredExecution, ...]
    passed: int
    stability: str | None  # stable-pass, stable-fail, flaky; None under two scored repeats
    agreement: bool | None  # None for one answer, or when a repeat has no readable answer
    answers: tuple[str, ...]  # each repeat's answer, short

    @property
    def row(self) -> StoredExecution:
        """The first repeat (what the case detail shows for the group)."""
        return self.members[0]

    @property
    def k(self) -> int:
        return len(self.members)

    @property
    def flaky(self) -> bool:
        return self.stability == "flaky"


def _canonical(execution: StoredExecution) -> Any:
    row = {"answer": execution.answer, "schema": execution.schema, "states": execution.states}
    try:
        return canonical(row)
    except (KeyError, TypeError, ValueError):
        return execution.answer


def short_answer(answer: Any) -> str:
    """A one-field answer by its value alone (k of them side by side stay readable)."""
    if isinstance(answer, dict) and len(answer) == 1:
        answer = next(iter(answer.values()))
    if isinstance(answer, float):
        return f"{answer:.4g}"
    return answer_text(answer)


def _key(execution: StoredExecution) -> tuple[str, ...]:
    key = tuple(str(getattr(execution, k)) for k in GROUP_KEYS)
    if not execution.case_key:  # a hand-made or very old row: the states stand in for the key
        key = (*key[:-1], states_text(execution.states))
    return key


def group_repeats(executions: Iterable[StoredExecution]) -> list[RepeatGroup]:
    """One group per case (environment, LLM, category, selection, case key), in the order
    their first execution comes; members by repeat."""
    groups: dict[tuple[str, ...], list[StoredExecution]] = defaultdict(list)
    for execution in executions:
        groups[_key(execution)].append(execution)
    found = []
    for members in groups.values():
        members.sort(key=lambda e: e.repeat)
        answers = [_canonical(e) for e in members]
        readable = [a for a in answers if a is not None]
        agreement = agree(readable) if len(members) > 1 and len(readable) == len(members) else None
        passed = sum(1 for e in members if e.verdict == "pass")
        runs = sum(1 for e in members if e.verdict not in UNSCORED)
        found.append(
            RepeatGroup(
                members=tuple(members),
                passed=passed,
                stability=stability(passed, runs),
                agreement=agreement,
                answers=tuple(short_answer(e.answer) for e in members),
            )
        )
    return found
