"""Rendering a test case into the prompt text and the JSON schema of its answer, given its
category (``prompts.render_prompt`` looks the category up in the registry).

The frame is the paper's template (section 5): the environment's task description, the state in
words (or states K, L, ... for pairs and subsets), the available actions with their meanings, the
category's question and "Respond only with a JSON object of the form ...". The environment supplies
all the words (``Environment.task``, ``describe``, ``action_meanings``); categories supply the
question and the answer form.

Under a property (``property_words``) two lines are the prompt's own, written once here: how an
expected reward adds up (``Property.reward_words``: the environment's ``[rewards]`` words or the
model's rewards block), after the task; and each state's steps left under a deadline
(``[F<=k φ]``, whose states are pairs of a model state and the steps left).

This module does not import the registry, so a category that renders its own follow-up
questions (``factor_probes``) can use it without a cycle through the registry.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.property import VARIABLE_STEPS
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import Category, Prompt, TestCase
from explaincheck.core.taxonomy.metamorphic import shown_actions, state_names


def prompt_for(
    category: Category, case: TestCase, oracle: OracleResult, env: Environment
) -> Prompt:
    """The prompt of ``case`` of ``category``: text for the LLM and the schema for constrained
    decoding."""
    form = category.answer_form(case, oracle)
    parts = [env.task.strip(), reward_line(oracle)]
    if category.lettered:
        states = [oracle.state(i) for i in case.states]
        parts.append(
            "\n".join(
                f"State {name}: {_described(state, env)}"
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
        parts.append(f"Current state: {_described(state, env)}")
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


def reward_line(oracle: OracleResult) -> str:
    """How the property's reward adds up ("" for a probability, or with no words for it)."""
    prop = oracle.prop
    if not prop.is_reward or not prop.reward_words:
        return ""
    return f"What counts: {prop.reward_words.strip()}"


def steps_left_line(state: StateFacts) -> str:
    """A deadline's steps left at ``state`` ("" for a state without a step counter)."""
    left = state.valuation.get(VARIABLE_STEPS)
    if left is None:
        return ""
    return f"Steps left before the deadline: {left}."


def _described(state: StateFacts, env: Environment) -> str:
    text = env.describe(state).strip()
    steps = steps_left_line(state)
    return f"{text}\n{steps}" if steps else text


def _action_list(heading: str, actions: tuple[str, ...], env: Environment) -> str:
    return "\n".join([heading, *(f"- {env.describe_action(a)}" for a in actions)])
