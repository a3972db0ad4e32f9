"""The hedging answerer (command-line spec ``hedge``), a negative control beside ``random``.

Why: an LLM that does not know often answers in the middle of the answer space ("about 0.5").
A hedge is not a uniform guess, so the uniform-chance correction cannot remove its advantage
where δ is highest near the middle (the paper's satisfy δ, 1 − 2|V − ½|, prioritises exactly
the states a ½ passes). This answerer makes that visible: ½ for every probability, the mean of
the model's finite values for an expected reward (``value_scale.hedge_point``), and the random
answerer's uniform draw where an answer space has no middle (an action, a ranking, yes/no, a
state of a pair), so it differs from ``random`` only where a middle exists. The default satisfy
δ must not reward it (docs/method.md §4, §14).
"""

from __future__ import annotations

from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.taxonomy.answers import NUMBER, PROBABILITY
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.registry import category as category_by_id
from explaincheck.core.taxonomy.value_scale import hedge_point

MIDDLE = 0.5  # the middle of a probability answer space


class HedgeBackend(RandomBackend):
    """½ for every probability, else the uniform draw ``random`` would give (same seed)."""

    spec = "hedge"

    def reply_text(self, case: TestCase, repeat: int = 0) -> str:
        form = category_by_id(case.category).answer_form(case, self.oracle)
        if form.kind == PROBABILITY:
            return form.reply(MIDDLE)
        if form.kind == NUMBER:  # an expected reward: the mean of the model's finite values
            return form.reply(hedge_point(self.oracle))
        return super().reply_text(case, repeat)
