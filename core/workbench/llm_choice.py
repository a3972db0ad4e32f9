"""An LLM as the simulator's chooser: the best_action question, asked live and parsed.

The question, its prompt and its answer form are the best_action category's own, so the LLM
reads exactly what a campaign would show it; the reply is parsed like a graded one (never
evaluated) and an unreadable reply is an error, not a guess.
"""

from __future__ import annotations

from explaincheck.core.campaign.session import BackendSettings, ask_live
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase
from explaincheck.core.taxonomy.parsing import parse_reply
from explaincheck.core.taxonomy.registry import category


async def llm_best_action(
    spec: str,
    state: int,
    oracle: OracleResult,
    environment: Environment,
    settings: BackendSettings | None = None,
) -> str:
    """The action the LLM of ``spec`` calls best at ``state``."""
    case = TestCase("best_action", (state,), 0.0, PRIORITIZED, 0)
    answer = await ask_live(spec, case, oracle, environment, settings)
    form = category("best_action").answer_form(case, oracle)
    parsed = parse_reply(answer.reply, form)
    actions = oracle.state(state).actions
    value = parsed.value
    if isinstance(value, list | tuple) and value:
        value = value[0]
    if not parsed.ok or value not in actions:
        why = parsed.reason or f"{value!r} is not an action here"
        raise ExplaincheckError(f"{spec} gave no usable action at state {state}: {why}")
    return str(value)
