"""The Teach tab's Qt-free lookups of the category registry (issue 36 point 2, first part):
the views ask here which category an id names and which panel shows its cases, so they never
import the registry themselves."""

from __future__ import annotations

from explaincheck.core.taxonomy.base import Category
from explaincheck.core.taxonomy.registry import CATEGORIES


def category(category_id: str) -> Category:
    """The registered category of this id (KeyError for an unknown one, as the registry)."""
    return CATEGORIES[category_id]


def shown_by(category_id: str | None, panel: str) -> bool:
    """Whether the cases of this category are shown by ``panel`` (its ``Category.panel``)."""
    found = CATEGORIES.get(category_id or "")
    return found is not None and found.panel == panel
