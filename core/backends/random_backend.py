"""The paper's uniform-random baseline answerer (command-line spec ``random``).

Each answer is a uniform draw from the case's answer space (``AnswerForm.random``: an available
action, a permutation of the actions, a state of the pair, yes/no, a probability in [0, 1]),
seeded by (seed, model, case key, repeat), so a campaign gives the same answers on every run
and machine, and each repeat of a case is a fresh draw. The model (its content hash) is in the
seed because case keys repeat across models (``satisfy/prioritized/0/3`` exists in most): without
it every environment drew the same guesses for the same keys, the errors of the negative control
were correlated across the (environment, category) clusters RQ1 tests over, and the control came
out "NOT calibrated" (random p = 0.012 on the example report; 0.80 with the model in the seed).
"""

from __future__ import annotations

import random

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.registry import category as category_by_id


class RandomBackend(Backend):
    """Answers uniformly at random over the answer space, reproducibly per case."""

    spec = "random"
    concurrency = 64

    def __init__(self, oracle: OracleResult, env: Environment | None = None, seed: int = 0):
        self.oracle = oracle
        self.env = env  # kept for the common answerer signature; the words do not matter here
        self.seed = seed

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        return Reply(text=self.reply_text(case))

    async def answer_repeat(self, prompt: Prompt, case: TestCase, repeat: int) -> Reply:
        return Reply(text=self.reply_text(case, repeat))

    def reply_text(self, case: TestCase, repeat: int = 0) -> str:
        """The reply for ``case`` (synchronous, for tests and scripts)."""
        form = category_by_id(case.category).answer_form(case, self.oracle)
        model = self.oracle.model.content_hash[:16]
        seed = f"explaincheck/random-answerer/{self.seed}/{model}/{case.key}"
        rng = random.Random(seed if repeat == 0 else f"{seed}/repeat-{repeat}")
        return form.reply(form.random(rng))
