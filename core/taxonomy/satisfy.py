"""Satisfy property? (state query): how likely the goal is reached from a state, acting optimally.

δ, by default (``--delta band``, ``ruled``): a state within the tolerance band around ½
(|V − ½| ≤ t, t the satisfy tolerance) is no case, since a constant answer of ½ passes it, and
δ = 1 − (|V − ½| − t) / (½ − t) outside it: highest just outside the band, where the answer must
leave the middle yet is still nearly undetermined. The paper's δ = 1 − 2|V(s) − ½| (``--delta
paper``, what ``candidates`` gives) prioritises exactly the states a hedge of ½ passes. A state
whose words give a failure away (``case_rules.reads_as_failure``) is a reading case, δ at most ½.
Graded by
``GradingSettings``: ``absolute`` passes iff |p − V(s)| ≤ tolerance (default 0.05), ``half`` iff
p ≥ ½ ⇔ V(s) ≥ ½; the absolute error is always kept so either rule can be re-applied later.
"""

from __future__ import annotations

from dataclasses import replace
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
from explaincheck.core.taxonomy.case_rules import PAPER, SelectionRules, capped, reads_as_failure
from explaincheck.core.taxonomy.kinds import SingleStateCategory, number
from explaincheck.core.taxonomy.pool_counts import non_goal_count
from explaincheck.core.taxonomy.sampling import delta

ABSOLUTE, HALF = "absolute", "half"
_EPSILON = 1e-12  # float slack so that |p − V| = tolerance passes


class Satisfy(SingleStateCategory):
    id = "satisfy"
    dimension = STATE
    title = "Satisfy property?"
    label = "Sat."
    name = "satisfy property"

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        return f"probability {float(right):.4g}"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        return None if non_goal_count(oracle) else "every reachable state is a goal state"

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        return 1.0 - 2.0 * abs(state.value - 0.5)

    def state_reading(self, state: StateFacts) -> bool:
        return reads_as_failure(state)

    def ruled(
        self, found: list[Candidate], oracle: OracleResult, rules: SelectionRules
    ) -> list[Candidate]:
        """The paper's candidates under ``--delta paper``; else the band rule of the module
        docstring (a band of half-width ``rules.band``; 0 under the ``half`` rule)."""
        if rules.delta == PAPER:
            return found
        band = min(max(rules.band, 0.0), 0.5 - _EPSILON)
        kept = []
        for c in found:
            away = abs(oracle.state(c.states[0]).value - 0.5)
            if away <= band + _EPSILON:
                continue  # a hedge of ½ passes it: no test of reasoning
            amount = capped(1.0 - (away - band) / (0.5 - band), c.reading)
            kept.append(replace(c, delta=delta(amount)))
        return kept

    def no_case_reason(self, oracle: OracleResult, rules: SelectionRules) -> str:
        if rules.delta != PAPER and self.candidates(oracle):
            return (
                f"every candidate state has V within {rules.band:g} of 1/2, where a constant"
                " answer of 1/2 passes (--delta paper asks them anyway)"
            )
        return super().no_case_reason(oracle, rules)

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            "What is the probability that the goal is eventually reached from this state, "
            "if the agent acts as well as possible from now on?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            "Suppose the agent plays optimally from this state onwards. How likely is it that "
            "the goal is reached at some point?",
            "Give the highest probability, over all ways the agent can act from here, of "
            "eventually reaching the goal from this state.",
        )

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return probability_form()

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> float:
        return oracle.state(case.states[0]).value

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"probability": self.oracle_answer(case, oracle)}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = oracle.state(case.states[0])
        error = abs(answer - state.value)
        if settings.satisfy_rule == HALF:
            exact = state.exact_value()
            truth_high = exact >= Fraction(1, 2) if exact is not None else state.value >= 0.5
            ok = (answer >= 0.5) == truth_high
            rule = "same side of 1/2"
        elif settings.satisfy_rule == ABSOLUTE:
            ok = error <= settings.satisfy_tolerance + _EPSILON
            rule = f"|p - V| <= {settings.satisfy_tolerance:g}"
        else:
            raise ValueError(f"unknown satisfy rule {settings.satisfy_rule!r}")
        reason = f"p = {number(answer)}, V = {number(state.value)}, error {number(error)} ({rule})"
        return Grade(
            PASS if ok else FAIL,
            reason,
            {"probability": answer},
            {"probability": state.value},
            abs_error=error,
        )
