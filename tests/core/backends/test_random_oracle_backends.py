"""The answerers that need no LLM: oracle (always right) and random (uniform, seeded per case)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "taxonomy"))

from taxonomy_factory import toy_environment, toy_oracle

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.taxonomy.base import PASS, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def all_cases(oracle):
    return [
        c
        for cid in CATEGORIES
        for selection in ("prioritized", "random")
        for c in select_cases(oracle, cid, budget=20, selection=selection)
    ]


def test_oracle_backend_passes_everything_through_the_async_interface():
    oracle, env = toy_oracle(), toy_environment()
    backend = OracleBackend(oracle)
    assert backend.spec == "oracle"

    async def run():
        return [
            (c, await backend.answer(render_prompt(c, oracle, env), c)) for c in all_cases(oracle)
        ]

    for case, reply in asyncio.run(run()):
        assert grade_reply(case, reply.text, oracle).verdict == PASS


def test_random_backend_is_seeded_per_case():
    oracle, env = toy_oracle(), toy_environment()
    cases = all_cases(oracle)
    first = [RandomBackend(oracle, env, seed=0).reply_text(c) for c in cases]
    assert (
        first == [RandomBackend(oracle, env, seed=0).reply_text(c) for c in reversed(cases)][::-1]
    )
    assert first != [RandomBackend(oracle, env, seed=1).reply_text(c) for c in cases]


def test_random_backend_is_uniform_over_the_answer_space():
    oracle = toy_oracle()
    backend = RandomBackend(oracle, None, seed=0)

    def draws(category_id, states, key):
        replies = []
        for index in range(2000):
            case = TestCase(category_id, states, 0.0, "prioritized", index)
            value = json.loads(backend.reply_text(case))[key]
            replies.append(tuple(value) if isinstance(value, list) else value)
        return Counter(replies)

    actions = draws("best_action", (0,), "action")
    assert set(actions) == {"left", "right", "stay"} and min(actions.values()) > 550
    rankings = draws("ranking", (0,), "ranking")
    assert len(rankings) == 6 and min(rankings.values()) > 250
    letters = draws("more_promising", (1, 6), "state")
    assert set(letters) == {"K", "L"} and min(letters.values()) > 900
    yes_no = draws("subset_dead_end", (0, 1, 2, 3), "answer")
    assert set(yes_no) == {"yes", "no"} and min(yes_no.values()) > 900
    probabilities = list(draws("satisfy", (1,), "probability").elements())
    assert all(0 <= p <= 1 for p in probabilities)
    assert sum(p < 0.5 for p in probabilities) > 900
