"""Which state is safer? (mode query): which of two states has the lower danger D.

D(s) = Pmin[F unsafe]. δ = 1 − |D(s1) − D(s2)| (ambiguity). Not applicable without an unsafe
label; pairs with equal D are not generated.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import QuantityPairCategory, pair_names


class Safer(QuantityPairCategory):
    id = "safer"
    title = "Which state is safer?"
    quantity = "danger"
    higher_is_right = False
    symbol = "D"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if not oracle.has_danger:
            return "the model has no unsafe label, so there is no danger D"
        return super().not_applicable(oracle)

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
