"""A category's extra facts (``Category.with_facts``) outside a campaign, for the Teach tab.

A campaign attaches them as it plans; the Teach tab offers a category's cases on the open model
alone, so it asks here first: computed in a worker thread (the hook model-checks in the isolated
child and caches on disk, as in a campaign) once per model and category, and kept for the
session. Every category that overrides ``with_facts`` is asked, never one by id.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Category
from explaincheck.gui.support.tasks import in_thread


def adds_facts(category: Category) -> bool:
    """Whether ``category`` grades with facts beyond the oracle (it overrides ``with_facts``,
    the rule the campaign planner follows too)."""
    return type(category).with_facts is not Category.with_facts


def facts_words(category: Category) -> str:
    """What is being computed, for the status line ("the factor interventions")."""
    return category.extra_facts or f"the facts {category.id} grades with"


def _attached(category: Category, environment: Environment, oracle: OracleResult) -> OracleResult:
    model = oracle.model
    request = environment.request(
        constants=model.constants, goal_label=model.goal_label, unsafe_label=model.unsafe_label
    )
    return category.with_facts(oracle, environment, request)


class CategoryFacts:
    """The oracles with a category's facts attached, by (category, model), for the session."""

    def __init__(self) -> None:
        self._oracles: dict[tuple[str, str], OracleResult] = {}

    async def with_facts(
        self, category: Category, environment: Environment, oracle: OracleResult
    ) -> OracleResult:
        """``oracle`` with ``category``'s extra facts (``oracle`` itself if it needs none)."""
        if not adds_facts(category):
            return oracle
        key = (category.id, oracle.model.content_hash)
        if key not in self._oracles:
            self._oracles[key] = await in_thread(_attached, category, environment, oracle)
        return self._oracles[key]
