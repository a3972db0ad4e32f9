"""Why? (explanation query): the best action and the three factors that most influence it.

The truth comes from exact interventions (``core/factors``, attached to the oracle by the plan):
a factor is necessary at s iff neutralising it changes A*(s); its strength is how much the margin
of the factual best group changes; the influence order puts necessary factors first, then by
strength. Grading (docs/method.md, "Why-questions (factors)"): the action part as best_action;
the factor part passes iff the three cited factors are three most influential ones (no uncited
factor outranks the lowest cited one) in non-increasing order of influence. Precision against
the necessary set, Spearman's ρ and the "uncited outranks" flag are reported as the seed study's
metrics. δ = 1 − the smallest non-zero strength gap between neighbours among the four most
influential factors (a near tie across the cut is hard to get right).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import dataclass
from typing import Any

from explaincheck.core.factors.types import FactorTruth, StateFactors, factor_truth
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.answers import AnswerForm
from explaincheck.core.taxonomy.base import (
    EXPLANATION,
    FAIL,
    PASS,
    Candidate,
    Category,
    Grade,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.kinds import number
from explaincheck.core.taxonomy.parsing import Parsed, find_value, read_choice, read_ranking
from explaincheck.core.taxonomy.sampling import delta

CITED = 3  # factors an answer cites
FACTORS = "factors"
TOLERANCE = 1e-9  # strengths closer than this are tied (they come from exact fractions)


@dataclass(frozen=True)
class FactorsForm(AnswerForm):
    """``{"action": one action, "factors": three different factor ids, most influential
    first}``: one form, two keys, read by ``read_reply``."""

    factor_ids: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(self.options)},
                FACTORS: {
                    "type": "array",
                    "items": {"type": "string", "enum": list(self.factor_ids)},
                    "minItems": CITED,
                    "maxItems": CITED,
                    "uniqueItems": True,
                },
            },
            "required": ["action", FACTORS],
            "additionalProperties": False,
        }

    def shape(self) -> str:
        return (
            '{"action": "<one of: ' + ", ".join(self.options) + '>", "factors": '
            '["<most influential factor>", "<second>", "<third>"]}'
        )

    def random(self, rng: random.Random) -> Any:
        return {"action": rng.choice(self.options), FACTORS: rng.sample(self.factor_ids, CITED)}

    def reply(self, value: Any) -> str:
        return json.dumps(value)

    def read_reply(self, text: Any) -> Parsed:
        """Both keys of the reply, canonical; a missing or unreadable part makes it invalid."""
        raw_action, reason = find_value(text, "action")
        if reason:
            return Parsed(reason=reason)
        action = read_choice(raw_action, self.options)
        if not action.ok:
            return action
        raw_factors, reason = find_value(text, FACTORS)
        if reason:
            return Parsed(reason=reason)
        cited = read_ranking(raw_factors, self.factor_ids)
        if not cited.ok:
            return Parsed(reason=cited.reason.replace("actions", "factors"))
        return Parsed(value={"action": action.value, FACTORS: cited.value})


def score(truth: StateFactors, factor_id: str) -> float:
    """Influence as one number: necessary factors above every unnecessary one, then strength
    (strengths are at most 2, margins lying in [-1, 1])."""
    effect = truth.effect(factor_id)
    return (10.0 if effect.necessary else 0.0) + effect.strength


def influence_of(expected: dict[str, Any]) -> dict[str, float]:
    """The true influence of each factor, from the stored truth: 10 for a necessary factor
    plus its strength (necessary factors above every unnecessary one)."""
    necessary = set(expected["necessary"])
    return {f: (10.0 if f in necessary else 0.0) + s for f, s in expected["strength"].items()}


def order_faults(cited: list[str], influence: dict[str, float]) -> tuple[bool, bool]:
    """(an uncited factor outranks the lowest cited one, the cited order puts a strictly less
    influential factor before a more influential one): the factor part passes iff neither."""
    values = [influence[f] for f in cited if f in influence]
    lowest = min(values) if values else -math.inf
    outranked = any(v > lowest + TOLERANCE for f, v in influence.items() if f not in cited)
    inverted = any(
        values[i] + TOLERANCE < values[j]
        for i in range(len(values))
        for j in range(i + 1, len(values))
    )
    return outranked, inverted


def factor_part_chance(expected: dict[str, Any]) -> float:
    """Probability that a uniform ordered 3-subset of the factors (what the random answerer
    cites) passes the factor part: the passing triples, counted by enumeration, over
    n(n−1)(n−2). Exact; n is the number of factors (a few to a few dozen)."""
    influence = influence_of(expected)
    ids = list(influence)
    if len(ids) < CITED:
        return 0.0
    passing = sum(
        1
        for cited in itertools.permutations(ids, CITED)
        if not any(order_faults(list(cited), influence))
    )
    return passing / math.perm(len(ids), CITED)


def factor_metrics(cited: list[str], expected: dict[str, Any]) -> dict[str, Any]:
    """The seed study's metrics of one answer, from the truth stored in ``expected``:
    precision of the cited set against the necessary set, Spearman's ρ between the cited order
    and the true influence (None when undefined: all three tie), and whether an uncited factor
    outranks the lowest cited one."""
    from scipy.stats import spearmanr

    necessary = set(expected["necessary"])
    influence = influence_of(expected)
    known = [f for f in cited if f in influence]
    precision = len(necessary & set(known)) / CITED
    rho = None
    values = [influence[f] for f in known]
    if len(known) >= 2 and max(values) - min(values) > TOLERANCE:
        rho = float(spearmanr(list(range(len(known), 0, -1)), values).statistic)
        rho = None if math.isnan(rho) else rho
    outranked, inverted = order_faults(known, influence)
    return {
        "precision": precision,
        "best_precision": min(CITED, len(necessary)) / CITED,
        "spearman": rho,
        "uncited_outranks": outranked,
        "inverted": inverted,
    }


class Factors(Category):
    id = "factors"
    dimension = EXPLANATION
    title = "Why? (factors)"
    label = "Why"
    name = "why (factors)"

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        if isinstance(right, dict):
            return f"{right.get('action')}, because of {', '.join(right.get('factors') or [])}"
        return super().answer_words(right, expected)

    def truth(self, oracle: OracleResult) -> FactorTruth:
        found = factor_truth(oracle)
        if found is None:
            raise ValueError("the factor truth was not computed for this oracle")
        return found

    def on_request(self, oracle: OracleResult) -> bool:
        return factor_truth(oracle) is None

    def not_applicable(self, oracle: OracleResult) -> str | None:
        found = factor_truth(oracle)
        if found is None:
            return "the factor interventions are computed only when factors is asked for by id"
        if len(found.factors) < CITED + 1:
            return f"fewer than {CITED + 1} factors (an answer cites {CITED})"
        if not found.states:
            return "no state where every factor's effect is defined"
        return None

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        found = factor_truth(oracle)
        if found is None or len(found.factors) <= CITED:
            return []
        return [
            Candidate(self.id, (state_id,), delta(self.state_delta(found.states[state_id])))
            for state_id in sorted(found.states)
        ]

    def state_delta(self, truth: StateFactors) -> float:
        order = truth.influence_order()[: CITED + 1]
        strengths = [truth.effect(f).strength for f in order]
        gaps = [abs(a - b) for a, b in itertools.pairwise(strengths) if abs(a - b) > TOLERANCE]
        return 1.0 - min(1.0, min(gaps)) if gaps else 0.0

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        listed = self._listed(oracle)
        return (
            "In this state the agent should act as well as possible, i.e. maximise the "
            "probability of eventually reaching the goal. Which available action is best, and "
            f"which three of these factors most influence that choice, most influential first?\n"
            f"Factors:\n{listed}"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        listed = self._listed(oracle)
        return (
            "Suppose the agent acts as well as possible from here on, i.e. it maximises the "
            "probability of eventually reaching the goal. Which available action should it take "
            "now, and which three of the factors below influence that choice most, the most "
            f"influential one first?\nFactors:\n{listed}",
            "Name the available action that gives the highest probability of eventually "
            "reaching the goal (acting as well as possible afterwards), and rank the three "
            "factors below that matter most for choosing it, from most to least influential."
            f"\nFactors:\n{listed}",
        )

    def _listed(self, oracle: OracleResult) -> str:
        return "\n".join(f"- {f.id}: {f.words}" for f in self.truth(oracle).factors)

    def answer_form(self, case: TestCase, oracle: OracleResult) -> FactorsForm:
        ids = tuple(f.id for f in self.truth(oracle).factors)
        return FactorsForm("action", FACTORS, oracle.state(case.states[0]).actions, ids)

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        state = oracle.state(case.states[0])
        truth = self.truth(oracle).states[state.id]
        return {
            "action": list(state.best),
            FACTORS: list(truth.influence_order()[:CITED]),
            "necessary": [e.factor for e in truth.effects if e.necessary],
            "sufficient": [e.factor for e in truth.effects if e.sufficient],
            "strength": {e.factor: e.strength for e in truth.effects},
            "best_after": {e.factor: list(e.best_after) for e in truth.effects},
        }

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        state = oracle.state(case.states[0])
        order = self.truth(oracle).states[state.id].influence_order()
        return {"action": state.best[0], FACTORS: list(order[:CITED])}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        expected = self.expected(case, oracle)
        action, cited = answer["action"], list(answer[FACTORS])
        problems = []
        if action not in expected["action"]:
            problems.append(f"action {action} is not in A* {{{', '.join(expected['action'])}}}")
        metrics = factor_metrics(cited, expected)
        if len(cited) != CITED or len(set(cited)) != CITED:
            problems.append(f"cited {len(set(cited))} different factors, not {CITED}")
        else:
            if metrics["uncited_outranks"]:
                problems.append("an uncited factor outranks the lowest cited one")
            if metrics["inverted"]:
                problems.append("the cited order is not by influence")
        strengths = ", ".join(
            f"{f}={number(s)}{'*' if f in expected['necessary'] else ''}"
            for f, s in expected["strength"].items()
        )
        rho = metrics["spearman"]
        reason = (
            f"answered {action}, cited {', '.join(cited)}; "
            + ("; ".join(problems) if problems else "right action, a top-3 in order")
            + f" (strength, * = necessary: {strengths}; precision {metrics['precision']:.2f}"
            + f", ρ {'n/a' if rho is None else f'{rho:.2f}'})"
        )
        verdict = FAIL if problems else PASS
        return Grade(verdict, reason, {"action": action, FACTORS: cited}, expected)
