"""The ten query categories by id (DESIGN.md ids, in the paper's Table 1 column order)."""

from __future__ import annotations

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Category
from explaincheck.core.taxonomy.best_action import BestAction
from explaincheck.core.taxonomy.bottleneck import Bottleneck
from explaincheck.core.taxonomy.more_promising import MorePromising
from explaincheck.core.taxonomy.ranking import Ranking
from explaincheck.core.taxonomy.safer import Safer
from explaincheck.core.taxonomy.satisfy import Satisfy
from explaincheck.core.taxonomy.subset_bottleneck import SubsetBottleneck
from explaincheck.core.taxonomy.subset_dead_end import SubsetDeadEnd
from explaincheck.core.taxonomy.which_bottleneck import WhichBottleneck
from explaincheck.core.taxonomy.worst_action import WorstAction

CATEGORIES: dict[str, Category] = {
    category.id: category
    for category in (
        Satisfy(),
        Bottleneck(),
        BestAction(),
        WorstAction(),
        Ranking(),
        SubsetBottleneck(),
        SubsetDeadEnd(),
        MorePromising(),
        Safer(),
        WhichBottleneck(),
    )
}

# Category id -> dimension, for code that only needs the names (tables, stored rows).
CATEGORY_DIMENSIONS: dict[str, str] = {cid: c.dimension for cid, c in CATEGORIES.items()}


def category(category_id: str) -> Category:
    """The category with this id; an unknown id is a user error naming the valid ones."""
    try:
        return CATEGORIES[category_id]
    except KeyError:
        valid = ", ".join(CATEGORIES)
        raise ExplaincheckError(f"unknown category {category_id!r} (valid: {valid})") from None
