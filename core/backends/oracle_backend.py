"""The oracle answerer (command-line spec ``oracle``): replies with the oracle's own answer.

It must pass every case of every category on every environment, which checks candidate
generation, prompt schema, parsing and grading together end to end.
"""

from __future__ import annotations

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.registry import category as category_by_id


class OracleBackend(Backend):
    """Answers every case with the expected answer, as JSON text."""

    spec = "oracle"
    concurrency = 64

    def __init__(self, oracle: OracleResult):
        self.oracle = oracle

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        return Reply(text=self.reply_text(case))

    def reply_text(self, case: TestCase) -> str:
        """The reply for ``case`` (synchronous, for tests and scripts)."""
        category = category_by_id(case.category)
        form = category.answer_form(case, self.oracle)
        return form.reply(category.oracle_answer(case, self.oracle))
