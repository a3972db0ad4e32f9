"""Will the policy reach the goal? (state query about a loaded policy π): P^π [F goal] from here.

Truth: V^π(s) of π's induced chain. δ = 1 − 2|V^π(s) − ½| (ambiguity, as for satisfy). Graded
like satisfy (absolute tolerance or the same side of ½, a grading setting), against V^π.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import AnswerForm, probability_form
from explaincheck.core.taxonomy.base import (
    FAIL,
    PASS,
    STATE,
    Candidate,
    Grade,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.kinds import SingleStateCategory, number
from explaincheck.core.taxonomy.policy_kinds import (
    asked_chain,
    chain_of,
    choice_sentence,
    policy_preamble,
    policy_reason,
)
from explaincheck.core.taxonomy.satisfy import HALF


class PolicyReach(SingleStateCategory):
    id = "policy_reach"
    about_a_policy = True
    dimension = STATE
    title = "Will the policy reach the goal?"
    label = "π reach"
    name = "policy reaches goal"
    teachable = False

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if asked_chain(oracle) is None:
            return policy_reason(oracle)
        return None if self.pool(oracle) else "every reachable state is a goal state"

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        return [] if asked_chain(oracle) is None else super().candidates(oracle, seed)

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        return 1.0 - 2.0 * abs(chain_of(oracle).state(state.id).value - 0.5)

    def _choice(self, case: TestCase, oracle: OracleResult) -> str:
        state = chain_of(oracle).state(case.states[0])
        return (
            f"{policy_preamble()} {choice_sentence(state)}" if state.action else policy_preamble()
        )

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            f"{self._choice(case, oracle)} What is the probability that the goal is eventually "
            "reached from this state if the agent keeps following this policy?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{self._choice(case, oracle)} Following this policy from here on, how likely is it "
            "that the agent reaches the goal at some point?",
            f"{self._choice(case, oracle)} Give the probability of eventually reaching the goal "
            "from this state when every action is chosen by this policy.",
        )

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return probability_form()

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> float:
        return chain_of(oracle).state(case.states[0]).value

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"probability": self.oracle_answer(case, oracle)}

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        return f"probability {float(right):.4g}"

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = chain_of(oracle).state(case.states[0])
        error = abs(answer - state.value)
        if settings.satisfy_rule == HALF:
            exact = state.value_exact
            high = exact >= Fraction(1, 2) if exact is not None else state.value >= 0.5
            ok = (answer >= 0.5) == high
            rule = "same side of 1/2"
        else:
            ok = error <= settings.satisfy_tolerance + 1e-12
            rule = f"|p - V^pi| <= {settings.satisfy_tolerance:g}"
        reason = (
            f"p = {number(answer)}, V^pi = {number(state.value)}, error {number(error)} ({rule})"
        )
        return Grade(
            PASS if ok else FAIL,
            reason,
            {"probability": answer},
            {"probability": state.value},
            abs_error=error,
        )
