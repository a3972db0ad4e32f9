"""Which state is more promising? (mode query): which of two states has the better V (the higher
under a maximising property, the lower under a minimising one: less expected time).

δ = 1 − |V(s1) − V(s2)| (ambiguity), the gap a share of the value range for an expected reward
(``value_scale``). Pairs with equal V have no right answer and are not
generated; each unordered pair appears once in a seeded presentation order (``sampling``). A pair
holding a state whose words give a failure away is a reading case, δ at most ½ (``case_rules``).
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import QuantityPairCategory, pair_names
from explaincheck.core.taxonomy.property_words import words_of
from explaincheck.core.taxonomy.runs import OPTIMAL_RUN_NOTE, optimal_run


class MorePromising(QuantityPairCategory):
    id = "more_promising"
    title = "Which state is more promising?"
    label = "Prom."
    name = "more promising"
    quantity = "value"
    higher_is_right = True
    symbol = "V"

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                f"From which of the two states, {pair_names(case)}, is the goal more likely to "
                "be reached eventually, if the agent acts as well as possible from there?"
            )
        return (
            f"From which of the two states, {pair_names(case)}, is {words.quantity}"
            f" {words.better}, if the agent acts from there to make it {words.aim}?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                f"Acting optimally, the agent starts either in state {pair_names(case)}. In "
                "which one is its chance of eventually reaching the goal higher?",
                f"Compare the two states {pair_names(case)}: which has the higher probability "
                "of eventually reaching the goal under optimal play?",
            )
        return (
            f"Acting to make {words.quantity} {words.aim}, the agent starts either in state"
            f" {pair_names(case)}. In which one is it {words.better}?",
            f"Compare the two states {pair_names(case)}: which has the {words.better} value of"
            f" {words.quantity} under optimal play?",
        )

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        words = words_of(oracle)
        best = (max if words.maximising else min)(states, key=lambda f: f.value)
        why = (
            f"{names[states.index(best)]} is more promising: the higher V, the likelier the goal "
            "under the best policy."
            if words.reaches_goal
            else f"{names[states.index(best)]} is more promising: its V, {words.quantity}, is"
            f" {words.better} under the best policy."
        )
        run = optimal_run(oracle, best.id)
        return [why, OPTIMAL_RUN_NOTE] if run else [why], run
