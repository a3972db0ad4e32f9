"""A reference explainer that learns from the solved examples in its prompt (spec ``learner``).

Why: few-shot repair (``run --shots K``) needs an answerer whose gain from shots is known
exactly, so a test can check that the shots reach the prompt, that the gain is measured on
held-out cases and that the gate calls it "better" (``random`` with shots is the control: it
ignores them). The learner is a nearest-neighbour rule over the shots only; it never reads the
oracle's answer to the question:

- among the prompt's shots whose answer fits this question's answer form (a probability; one
  of the offered options; a permutation of exactly the listed actions), it copies the answer of
  the one whose state is nearest the question's: the L1 distance between the valuations
  (booleans as 0/1; a pair or subset state by state), ties to the earlier shot (the nearer δ);
- with no fitting shot (K = 0) it answers the first option of the form: ½ for a probability,
  the first offered option, the actions as listed for a ranking.

A training case's answer carries over to a held-out question exactly when the two share the
answer, so its held-out score is known from the split, the shots and the oracle alone.
"""

from __future__ import annotations

import json
import math
from typing import Any

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.answers import CHOICE, PROBABILITY, RANKING, AnswerForm
from explaincheck.core.taxonomy.base import Prompt, Shot, TestCase
from explaincheck.core.taxonomy.registry import category as category_by_id

NO_SHOT_PROBABILITY = 0.5


class LearnerBackend(Backend):
    """Copies the answer of the nearest fitting shot; the first option without one."""

    spec = "learner"
    concurrency = 64

    def __init__(self, oracle: OracleResult):
        self.oracle = oracle

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        return Reply(text=self.reply_text(prompt, case))

    def reply_text(self, prompt: Prompt, case: TestCase) -> str:
        """The reply for ``case`` asked with ``prompt`` (synchronous, for tests)."""
        form = category_by_id(case.category).answer_form(case, self.oracle)
        fitting = [(s, v) for s in prompt.shots if (v := _value(s, form)) is not None]
        if not fitting:
            return form.reply(first_answer(form))
        nearest = min(fitting, key=lambda found: self.distance(found[0].states, case.states))
        return form.reply(nearest[1])

    def distance(self, ours: tuple[int, ...], theirs: tuple[int, ...]) -> float:
        """L1 distance between two cases' valuations, state by state (in listed order)."""
        total = 0.0
        for a, b in zip(ours, theirs, strict=False):
            left, right = self.oracle.state(a).valuation, self.oracle.state(b).valuation
            for name in left.keys() | right.keys():
                x, y = left.get(name), right.get(name)
                total += abs(float(x) - float(y)) if x is not None and y is not None else 1.0
        return total + abs(len(ours) - len(theirs))


def first_answer(form: AnswerForm) -> Any:
    """What the learner says without a fitting shot."""
    if form.kind == PROBABILITY:
        return NO_SHOT_PROBABILITY
    if form.kind == CHOICE:
        return form.options[0]
    return list(form.options)


def _value(shot: Shot, form: AnswerForm) -> Any:
    """The shot's answer if it is an answer of ``form`` (else None)."""
    try:
        value = json.loads(shot.reply).get(form.key)
    except (ValueError, AttributeError):
        return None
    if form.kind == PROBABILITY:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return value if number and math.isfinite(value) and 0 <= value <= 1 else None
    if form.kind == CHOICE:
        return value if value in form.options else None
    if form.kind == RANKING and isinstance(value, list):
        return value if sorted(value) == sorted(form.options) else None
    return None
