"""The "Example prompt" block of an environment's README, as ``envs --prompt ID`` prints it.

A README shows the prompt of a best-action case word for word, and a test holds every README to
``render_prompt``'s text (``tests/core/environments/test_readme_prompts.py``); so whoever adds an
environment pastes this block instead of writing it by hand.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult

INTRO = (
    "The prompt of a best-action case for state {state}, as "
    "`explaincheck.core.taxonomy.prompts.render_prompt` renders it (task, state, the offered "
    "actions, the category's question and its answer form):"
)


def readme_prompt(environment: Environment, oracle: OracleResult, state: int | None = None) -> str:
    """The README block for ``state`` (default: the initial state): the intro line, a blank
    line and the prompt in a ``text`` fence."""
    from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase
    from explaincheck.core.taxonomy.prompts import render_prompt

    chosen = oracle.initial.id if state is None else state
    if not 0 <= chosen < oracle.model.states:
        raise ExplaincheckError(
            f"state {chosen} is not a state of {environment.id} (0 to {oracle.model.states - 1})"
        )
    case = TestCase("best_action", (chosen,), 0.0, PRIORITIZED, 0)
    text = render_prompt(case, oracle, environment).text
    return f"{INTRO.format(state=chosen)}\n\n```text\n{text}\n```"
