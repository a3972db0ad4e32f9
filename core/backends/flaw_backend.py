"""Reference explainers with known flaws (command-line specs ``flaw:myopic:K``,
``flaw:determinised``, ``flaw:distance``, ``flaw:danger-blind``).

Each answers every case the way the oracle answerer does, but from a wrong picture of the MDP
(``oracle/flawed.py``): the category's own ``oracle_answer`` runs on the picture, so what a flaw
gets wrong follows from the picture alone. Replies carry a short reason with the values behind
the answer ("plans 2 steps ahead: V = 0.41").
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.oracle.flawed import Flaw, flawed_oracle
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.attach import attach
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.kinds import QuantityPairCategory, number
from explaincheck.core.taxonomy.metamorphic import state_names
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.registry import category as category_by_id


class FlawedBackend(Backend):
    """Answers from ``flaw``'s picture of the model of ``oracle``."""

    concurrency = 64

    def __init__(self, oracle: OracleResult, flaw: Flaw):
        self.truth = oracle
        self.flaw = flaw
        self.spec = flaw.spec
        self._picture: OracleResult | None = None
        self._lock = asyncio.Lock()

    @property
    def picture(self) -> OracleResult:
        """The flawed picture (computed on first use: myopic asks Storm in a child process)."""
        if self._picture is None:
            self._picture = self._own_picture()
        return self._picture

    def _own_picture(self) -> OracleResult:
        return self._with_policy(self._with_facts(flawed_oracle(self.truth, self.flaw)))

    def _with_policy(self, picture: OracleResult) -> OracleResult:
        """The picture with the truth's policy, its chain solved in the picture: on policy
        cases the flaw judges π by its own values and transitions (``core/policy``)."""
        chain = policy_chain(self.truth)
        return picture if chain is None else attach(picture, chain.policy)

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        if self._picture is None:
            async with self._lock:  # one computation, off the event loop
                if self._picture is None:
                    self._picture = await asyncio.to_thread(self._own_picture)
        return Reply(text=self.reply_text(case))

    def _with_facts(self, picture: OracleResult) -> OracleResult:
        """The picture with every category's extra facts as the flaw sees them
        (``Category.seen_through``: e.g. the factor truth of the same interventions, so on
        ``factors`` cases the citations come from the flawed picture, not from the truth)."""
        for category in CATEGORIES.values():
            picture = category.seen_through(picture, self.truth, self.flaw)
        return picture

    def reply_text(self, case: TestCase) -> str:
        """The reply for ``case`` (synchronous, for tests, scripts and the analysis)."""
        return picture_reply(case, self.picture, self.flaw.belief, self.truth)


def picture_answer(case: TestCase, picture: OracleResult) -> Any:
    """The answer the picture gives: the category's oracle answer on it. A pair that the picture
    sees as tied has no preferred state, so it answers the first name the prompt gives."""
    category = category_by_id(case.category)
    if isinstance(category, QuantityPairCategory):
        first, second = (picture.state(i) for i in case.states)
        if picture.compare(first, second, category.quantity) == 0:
            return state_names(case, 2)[0]  # the name the prompt uses (M under a rename)
    return category.oracle_answer(case, picture)


def picture_reason(case: TestCase, picture: OracleResult) -> str:
    """The picture's values behind the answer, in a few words."""
    category = category_by_id(case.category)
    facts = getattr(category, "facts", None)
    if facts is not None:
        return facts(case, picture)
    state = picture.state(case.states[0])
    if not state.q or case.category == "satisfy":
        return f"V = {number(state.value)}"
    return "Q: " + ", ".join(f"{a} = {number(v)}" for a, v in state.q.items())


def picture_reply(
    case: TestCase, picture: OracleResult, belief: str, truth: OracleResult | None = None
) -> str:
    """JSON reply: the picture's answer under the answer key plus a ``reason``. The key is the
    one the question asks for (``truth``'s form: a picture of probabilities answers an expected
    time with its probability, as the flaw believes it)."""
    form = category_by_id(case.category).answer_form(case, truth or picture)
    reason = f"{belief}: {picture_reason(case, picture)}"
    answer = picture_answer(case, picture)
    body = dict(answer) if isinstance(answer, dict) else {form.key: answer}  # several keys
    return json.dumps({**body, "reason": reason})
