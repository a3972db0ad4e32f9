"""Worst action? (preference query): which available action is most damaging.

Passes iff the named action lies in A°(s). δ = 1 − |A°(s)|/|Act(s)| (selectivity, symmetric to
best action). Act(s) and the pool as for best action (``case_rules``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import ActionChoiceCategory
from explaincheck.core.taxonomy.property_words import words_of


class WorstAction(ActionChoiceCategory):
    id = "worst_action"
    title = "Worst action?"
    label = "Worst"
    name = "worst action"

    def pick(self, ordered: Sequence[Any]) -> Any:
        return ordered[-1]

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "Which available action is the worst one here, i.e. gives the lowest probability "
                "of eventually reaching the goal, even if the agent acts as well as possible "
                "afterwards?"
            )
        return (
            f"Which available action is the worst one here, i.e. gives the {words.worst} value"
            f" of {words.quantity}, even if the agent acts afterwards to make it {words.aim}?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "If the agent takes one of the available actions now and then plays optimally, "
                "which action makes eventually reaching the goal least likely?",
                "Name the action the agent should avoid most here: the one that minimises the "
                "probability of eventually reaching the goal, assuming optimal play after it.",
            )
        return (
            f"If the agent takes one of the available actions now and afterwards acts to make"
            f" {words.quantity} {words.aim}, which action gives it the {words.worst} value?",
            f"Name the action the agent should avoid most here: the one that gives the"
            f" {words.worst} value of {words.quantity}, assuming optimal play after it.",
        )
