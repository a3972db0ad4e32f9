"""Satisfy property? (state query): the property's value from a state, acting optimally: how likely
the goal is reached, or (a reward property) the expected time or cost until it is.

δ, by default (``--delta band``, ``ruled``): a state within the tolerance band around ½
(|V − ½| ≤ t, t the satisfy tolerance) is no case, since a constant answer of ½ passes it, and
δ = 1 − (|V − ½| − t) / (½ − t) outside it: highest just outside the band, where the answer must
leave the middle yet is still nearly undetermined. The paper's δ = 1 − 2|V(s) − ½| (``--delta
paper``, what ``candidates`` gives) prioritises exactly the states a hedge of ½ passes. A state
whose words give a failure away (``case_rules.reads_as_failure``) is a reading case, δ at most ½.
Graded by
``GradingSettings``: ``absolute`` passes iff |p − V(s)| ≤ tolerance (default 0.05), ``half`` iff
p ≥ ½ ⇔ V(s) ≥ ½; the absolute error is always kept so either rule can be re-applied later.

**A reward property** (``value_scale``, docs/method.md §14): the answer is a number of 0 or more,
and every rule above is applied on the scale of the model's finite values, [lowest, highest]
mapped to [0, 1]: ``absolute`` passes iff |x − V(s)| ≤ t·R (R the range), ``half`` iff x and V lie
on the same side of the middle of the range, the stored ``abs_error`` is |x − V(s)| / R, and the
band of δ lies around the *mean* of the finite values outside the target (``value_scale.
hedge_point``), the constant a hedging answerer gives, so that a constant answer of the mean
passes no case. States with an infinite value (the target is not reached for sure) are no case:
their answer is no number. ``expected`` carries the range (``{"value": V, "range": [lo, hi]}``)
so analysis and the chance level can normalise without the oracle.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import AnswerForm, number_form, probability_form
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
from explaincheck.core.taxonomy.property_words import words_of
from explaincheck.core.taxonomy.sampling import delta, non_goal
from explaincheck.core.taxonomy.value_scale import position, scale_of

ABSOLUTE, HALF = "absolute", "half"
_EPSILON = 1e-12  # float slack so that |p − V| = tolerance passes


class Satisfy(SingleStateCategory):
    id = "satisfy"
    dimension = STATE
    title = "Satisfy property?"
    label = "Sat."
    name = "satisfy property"

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        if "range" in expected:
            return f"expected value {float(right):.4g}"
        return f"probability {float(right):.4g}"

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        """Non-goal states; under a reward property only those with a finite value."""
        return [s for s in non_goal(oracle) if not s.infinite]

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if not non_goal_count(oracle):
            return "every reachable state is a goal state"
        if oracle.prop.is_reward:
            if not self.pool(oracle):
                return "every state outside the target has an infinite expected reward"
            if scale_of(oracle).high <= scale_of(oracle).low:
                return "every state has the same finite expected reward"
        return None

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        return 1.0 - 2.0 * abs(position(state.value, oracle) - 0.5)

    def state_reading(self, state: StateFacts) -> bool:
        return reads_as_failure(state)

    def ruled(
        self, found: list[Candidate], oracle: OracleResult, rules: SelectionRules
    ) -> list[Candidate]:
        """The paper's candidates under ``--delta paper``; else the band rule of the module
        docstring (a band of half-width ``rules.band``; 0 under the ``half`` rule)."""
        if rules.delta == PAPER:
            return found
        middle = position(scale_of(oracle).mean, oracle)  # ½ for a probability
        reach = max(middle, 1.0 - middle)  # the farthest a position lies from the middle
        band = min(max(rules.band, 0.0), reach - _EPSILON)
        kept = []
        for c in found:
            away = abs(position(oracle.state(c.states[0]).value, oracle) - middle)
            if away <= band + _EPSILON:
                continue  # a hedge of the middle passes it: no test of reasoning
            amount = capped(1.0 - (away - band) / (reach - band), c.reading)
            kept.append(replace(c, delta=delta(amount)))
        return kept

    def no_case_reason(self, oracle: OracleResult, rules: SelectionRules) -> str:
        if rules.delta != PAPER and self.candidates(oracle):
            if oracle.prop.is_reward:
                return (
                    f"every candidate state has V within {rules.band:g} of the value range from"
                    " the mean value, where a constant answer of the mean passes (--delta paper"
                    " asks them anyway)"
                )
            return (
                f"every candidate state has V within {rules.band:g} of 1/2, where a constant"
                " answer of 1/2 passes (--delta paper asks them anyway)"
            )
        return super().no_case_reason(oracle, rules)

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "What is the probability that the goal is eventually reached from this state, "
                "if the agent acts as well as possible from now on?"
            )
        return f"What is {words.quantity} from this state, {words.acting} from now on?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "Suppose the agent plays optimally from this state onwards. How likely is it "
                "that the goal is reached at some point?",
                "Give the highest probability, over all ways the agent can act from here, of "
                "eventually reaching the goal from this state.",
            )
        return (
            f"Suppose the agent acts from this state onwards to make {words.quantity}"
            f" {words.aim}. What is it then?",
            f"Give the {words.best} value, over all ways the agent can act from here, of"
            f" {words.quantity} from this state.",
        )

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        if oracle.prop.is_reward:
            scale = scale_of(oracle)
            return number_form(scale.low, scale.high)
        return probability_form()

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> float:
        return oracle.state(case.states[0]).value

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        value = self.oracle_answer(case, oracle)
        if oracle.prop.is_reward:
            scale = scale_of(oracle)
            return {"value": value, "range": [scale.low, scale.high]}
        return {"probability": value}

    def chance(self, schema: dict[str, Any], expected: dict[str, Any]) -> float | None:
        return None  # the number rule of analysis/chance.py normalises by ``range``

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = oracle.state(case.states[0])
        if oracle.prop.is_reward:
            return self._judge_number(answer, case, oracle, settings)
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

    def _judge_number(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        """An expected reward, graded on the scale of the finite values (module docstring)."""
        state = oracle.state(case.states[0])
        scale = scale_of(oracle)
        width = scale.width
        error = abs(answer - state.value) / width if math.isfinite(state.value) else math.inf
        if settings.satisfy_rule == HALF:
            ok = (position(answer, oracle) >= 0.5) == (position(state.value, oracle) >= 0.5)
            middle = (scale.low + scale.high) / 2
            rule = f"same side of the middle of the range, {number(middle)}"
        elif settings.satisfy_rule == ABSOLUTE:
            ok = error <= settings.satisfy_tolerance + _EPSILON
            rule = (
                f"|x - V| <= {settings.satisfy_tolerance:g} x the range"
                f" [{number(scale.low)}, {number(scale.high)}]"
            )
        else:
            raise ValueError(f"unknown satisfy rule {settings.satisfy_rule!r}")
        reason = (
            f"x = {number(answer)}, V = {number(state.value)}, error {number(error)} of the range"
            f" ({rule})"
        )
        return Grade(
            PASS if ok else FAIL,
            reason,
            {"value": answer},
            self.expected(case, oracle),
            abs_error=error,
        )
