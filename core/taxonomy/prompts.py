"""Rendering a test case into the prompt text and the JSON schema of its answer.

The frame is the paper's template (section 5): the environment's task description, the state in
words (or states K, L, ... for pairs and subsets), the available actions with their meanings, the
category's question and "Respond only with a JSON object of the form ...". The environment supplies
all the words (``Environment.task``, ``describe``, ``action_meanings``); categories supply the
question and the answer form.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.metamorphic import shown_actions, state_names
from explaincheck.core.taxonomy.registry import category as category_by_id


def render_prompt(case: TestCase, oracle: OracleResult, env: Environment) -> Prompt:
    """The prompt of ``case``: text for the LLM and the schema for constrained decoding."""
    category = category_by_id(case.category)
    form = category.answer_form(case, oracle)
    parts = [env.task.strip()]
    if category.lettered:
        states = [oracle.state(i) for i in case.states]
        parts.append(
            "\n".join(
                f"State {name}: {env.describe(state).strip()}"
                for name, state in zip(state_names(case, len(states)), states, strict=True)
            )
        )
        actions = oracle.model.actions
        if actions:
            parts.append(
                _action_list("Actions in this environment:", shown_actions(case, actions), env)
            )
    else:
        state = oracle.state(case.states[0])
        parts.append(f"Current state: {env.describe(state).strip()}")
        listed = category.listed_actions(case, oracle)
        if listed:
            parts.append(_action_list("Available actions:", shown_actions(case, listed), env))
        else:
            parts.append("No actions are available in this state.")
    parts.append(
        f"{category.phrase(case, oracle)}\n"
        f"Respond only with a JSON object of the form {form.shape()}."
    )
    return Prompt(text="\n\n".join(p for p in parts if p), schema=form.schema())


def _action_list(heading: str, actions: tuple[str, ...], env: Environment) -> str:
    return "\n".join([heading, *(f"- {env.describe_action(a)}" for a in actions)])
