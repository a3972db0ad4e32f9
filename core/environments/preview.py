"""How an environment's words read for one state, before any query template is applied.

The taxonomy renders the real prompts; this preview (task + state + actions + one question) is
what the environment READMEs show and what a wording editor can display while words are written.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import StateFacts

BEST_ACTION_QUESTION = (
    "Which available action gives the highest probability of eventually reaching the goal? "
    'Respond only with a JSON object of the form {"action": "<action name>"}.'
)


def state_section(env: Environment, state: StateFacts) -> str:
    """The state description followed by the available actions and what each does."""
    lines = ["Current state:", env.describe(state), ""]
    if state.actions:
        lines.append("Available actions:")
        lines.extend(f"- {env.describe_action(action)}" for action in state.actions)
    else:
        lines.append("No action is available in this state: the run has ended here.")
    return "\n".join(lines)


def preview_prompt(
    env: Environment, state: StateFacts, question: str = BEST_ACTION_QUESTION
) -> str:
    """Task, state, actions and a question, as an LLM would read them."""
    return f"{env.task}\n\n{state_section(env, state)}\n\n{question}"
