"""The noisy answerer (command-line spec ``noisy:Q``): the oracle's answer with probability Q,
otherwise the random answerer's.

Why: a reference whose expected score is known, Q + (1 − Q) · chance, checks that scores,
chance levels and reports measure what they claim (the calibration curve of the fault-detection
analysis). The coin is seeded per model, case and repeat (as random's guess) but not by Q, so
the cases answered right at one Q are also answered right at every higher Q and the curve rises
monotonically.
"""

from __future__ import annotations

import json
import random

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase


def parse_share(rest: str) -> float:
    """Q of ``noisy:Q``: a number in [0, 1], or a one-line error."""
    try:
        share = float(rest)
    except ValueError:
        share = float("nan")
    if not 0.0 <= share <= 1.0:
        raise ExplaincheckError(f"noisy:{rest}: Q must be a number from 0 to 1, e.g. noisy:0.5")
    return share


class NoisyBackend(Backend):
    """Oracle with probability ``share``, else uniform random; reproducible per case."""

    concurrency = 64

    def __init__(
        self, oracle: OracleResult, share: float, env: Environment | None = None, seed: int = 0
    ):
        self.oracle = oracle
        self.share = share
        self.seed = seed
        self.spec = f"noisy:{share:g}"
        self._right = OracleBackend(oracle)
        self._guess = RandomBackend(oracle, env, seed)

    async def answer(self, prompt: Prompt, case: TestCase, repeat: int = 0) -> Reply:
        return Reply(text=self.reply_text(case, repeat))

    async def answer_repeat(self, prompt: Prompt, case: TestCase, repeat: int) -> Reply:
        return Reply(text=self.reply_text(case, repeat))  # a fresh coin (and guess) per repeat

    def knows(self, case: TestCase, repeat: int = 0) -> bool:
        """Whether this case (and repeat) gets the oracle's answer."""
        model = self.oracle.model.content_hash[:16]  # as random: each model its own coins
        coin = random.Random(f"explaincheck/noisy/{self.seed}/{model}/{case.key}/{repeat}").random()
        return coin < self.share

    def reply_text(self, case: TestCase, repeat: int = 0) -> str:
        if self.knows(case, repeat):
            text, reason = self._right.reply_text(case), "the oracle's answer"
        else:
            text, reason = self._guess.reply_text(case, repeat), "a uniform random guess"
        reply = json.loads(text)
        reply["reason"] = f"{reason} (Q = {self.share:g})"
        return json.dumps(reply)
