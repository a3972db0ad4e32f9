"""The Teach tab's lookups of the category registry: which category an id names, which panel
shows its cases, which categories are taught and which need facts beyond the oracle. Views ask
here, so they never import the registry or the taxonomy's teaching module themselves."""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import Category
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.teaching import taught


def category(category_id: str) -> Category:
    """The registered category of this id (KeyError for an unknown one, as the registry)."""
    return CATEGORIES[category_id]


def shown_by(category_id: str | None, panel: str) -> bool:
    """Whether the cases of this category are shown by ``panel`` (its ``Category.panel``)."""
    found = CATEGORIES.get(category_id or "")
    return found is not None and found.panel == panel


def taught_choices() -> list[tuple[str, str]]:
    """(name, id) of every category the Teach tab offers, in the registry's order."""
    return [(found.name, found.id) for found in taught()]


def adds_facts(found: Category) -> bool:
    """Whether ``found`` grades with facts beyond the oracle (it overrides ``with_facts``,
    the rule the campaign planner follows too)."""
    return type(found).with_facts is not Category.with_facts


def facts_words(found: Category) -> str:
    """What is being computed, for the question card ("the factor interventions")."""
    return found.extra_facts or f"the facts {found.id} grades with"


def with_facts(found: Category, environment: Environment, oracle: OracleResult) -> OracleResult:
    """``oracle`` with ``found``'s extra facts attached, as a campaign's plan attaches them
    (blocking: the hook may model-check in the isolated child; run it on a worker thread)."""
    model = oracle.model
    request = environment.request(
        constants=model.constants,
        goal_label=model.goal_label,
        unsafe_label=model.unsafe_label,
        property=model.property,  # the property in use (None: Pmax=? [F goal])
    )
    return found.with_facts(oracle, environment, request)
