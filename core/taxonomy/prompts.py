"""The prompt of a test case: its category looked up in the registry, its text and answer
schema rendered by ``prompt_text.prompt_for`` (the paper's template, section 5). Every caller
outside the taxonomy renders through ``render_prompt`` here.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.prompt_text import prompt_for
from explaincheck.core.taxonomy.registry import category as category_by_id


def render_prompt(case: TestCase, oracle: OracleResult, env: Environment) -> Prompt:
    """The prompt of ``case``: text for the LLM and the schema for constrained decoding (its
    category looked up by id; the text itself is ``prompt_text.prompt_for``'s)."""
    return prompt_for(category_by_id(case.category), case, oracle, env)
