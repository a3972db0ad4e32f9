"""An LLM as the simulator's chooser: best_action asked live, the reply parsed."""

from __future__ import annotations

import asyncio

from explaincheck.core.environments.registry import resolve
from explaincheck.core.workbench.llm_choice import llm_best_action


def test_reference_and_random_answerers(lake):
    _, oracle, _ = lake
    environment = resolve("frozen_lake")
    assert asyncio.run(llm_best_action("oracle", 13, oracle, environment)) == "down"
    picked = {asyncio.run(llm_best_action("random", 0, oracle, environment)) for _ in range(3)}
    assert picked <= set(oracle.state(0).actions) and picked
