"""Which state is safer? (mode query): which of two states has the lower danger D.

D(s) = Pmin[F unsafe]. δ = 1 − |D(s1) − D(s2)| (ambiguity). Not applicable without an unsafe
label; pairs with equal D are not generated.

Where every run ends in the goal or in an unsafe state, D = 1 − V on every state, so "safer" asks
exactly what ``more_promising`` asks (the same pairs, the same answers). The oracle detects this
(``danger_is_complement``) and the category is then left out of default campaigns.
"""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import QuantityPairCategory, pair_names
from explaincheck.core.taxonomy.pool_counts import danger_is_one_minus_value


class Safer(QuantityPairCategory):
    id = "safer"
    title = "Which state is safer?"
    label = "Safe"
    name = "safer state"
    quantity = "danger"
    higher_is_right = False
    symbol = "D"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if not oracle.has_danger:
            return "the model has no unsafe label, so there is no danger D"
        return super().not_applicable(oracle)

    def caveat(self, oracle: OracleResult) -> str | None:
        if not danger_is_complement(oracle):
            return None
        return (
            "every run ends in the goal or in an unsafe state, so D = 1 − V on every state and "
            "'Which state is safer?' asks the same as 'Which state is more promising?'"
        )

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            f"Which of the two states, {pair_names(case)}, is safer, i.e. has the lower "
            "probability of "
            "eventually reaching an unsafe state (a failure as described in the task), when the "
            "agent acts to avoid unsafe states as well as possible?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"The agent does its best to never reach an unsafe state (a failure as described in "
            f"the task). Starting from which state, {pair_names(case)}, is it less likely to "
            "end up in an unsafe state?",
            f"Compare the two states {pair_names(case)}: from which one is the probability of "
            "eventually reaching an unsafe state (a failure as described in the task) lower, "
            "when the agent avoids unsafe states as well as possible?",
        )

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        if state.danger is None:
            return "D unknown"
        return f"D = Pmin[F unsafe] = {state.danger:.4g}"

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        safest = min(states, key=lambda f: f.danger if f.danger is not None else 1.0)
        why = (
            f"{names[states.index(safest)]} is safer: the lower D, the less a careful policy "
            "risks the unsafe states."
        )
        return [why], []


def danger_is_complement(oracle: OracleResult) -> bool:
    """Whether D(s) = 1 − V(s) on every state outside the goal (exactly under the exact method,
    else within the tie tolerance): then safer and more_promising order every pair alike. Only
    a maximised probability can repeat D so: under a minimising property more_promising prefers
    the lower V, and an expected reward is no probability."""
    if not oracle.has_danger:
        return False
    prop = oracle.prop
    if prop.is_reward or not prop.maximising:
        return False
    from_columns = danger_is_one_minus_value(oracle)
    if from_columns is not None:
        return from_columns
    for state in oracle.states:
        if state.is_goal:
            continue
        if state.value_exact is not None and state.danger_exact is not None:
            if Fraction(state.danger_exact) != 1 - Fraction(state.value_exact):
                return False
        elif state.danger is None or abs(state.danger - (1.0 - state.value)) > max(
            oracle.tie_tolerance, 1e-12
        ):
            return False
    return True
