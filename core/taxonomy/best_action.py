"""Best action? (preference query): which available action is optimal.

Passes iff the named action lies in A*(s). δ = 1 − |A*(s)|/|Act(s)| (selectivity: a single optimal
action among many distractors is the hardest to single out). Act(s) is the offered actions
(do-nothing ones left out unless kept) and a state needs two of different value
(``case_rules``): where all tie, any answer passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import ActionChoiceCategory
from explaincheck.core.taxonomy.property_words import words_of


class BestAction(ActionChoiceCategory):
    id = "best_action"
    title = "Best action?"
    label = "Best"
    name = "best action"

    def pick(self, ordered: Sequence[Any]) -> Any:
        return ordered[0]

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> str:
        """The optimal scheduler's choice where it lies in A*(s) (it always does under the exact
        method), else the first of A*(s). Why not any of A*: on a reachability goal an action
        can tie with the optimum and still loop (wolf_goat_cabbage: crossing alone back and
        forth keeps Q = V), so a policy of arbitrary A* picks can lose value; the scheduler's
        picks cannot (the oracle used as a policy, ``explaincheck policy``, loses nothing)."""
        state = oracle.state(case.states[0])
        if state.optimal_action in state.best:
            return str(state.optimal_action)
        return state.best[0]

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "Which available action is the best one here, i.e. gives the highest probability "
                "of eventually reaching the goal if the agent acts as well as possible afterwards?"
            )
        return (
            f"Which available action is the best one here, i.e. gives the {words.best} value of"
            f" {words.quantity}, if the agent acts afterwards to make it {words.aim}?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "If the agent takes one of the available actions now and then plays optimally, "
                "which action makes eventually reaching the goal most likely?",
                "Name an optimal action for this state: one that maximises the probability of "
                "eventually reaching the goal, assuming optimal play after it.",
            )
        return (
            f"If the agent takes one of the available actions now and afterwards acts to make"
            f" {words.quantity} {words.aim}, which action gives it the {words.best} value?",
            f"Name an optimal action for this state: one that makes {words.quantity} {words.aim},"
            " assuming optimal play after it.",
        )
