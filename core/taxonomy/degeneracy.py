"""Which categories measure nothing on a model although they apply (docs/method.md §4).

Where every candidate of a category has δ = 0, or every candidate is a reading case (the
corridor: values are 0 or 1 and every pair holds the trap), its cases are a foregone
conclusion. ``run`` warns where the plan is made, the Campaign tab marks the category, and the
report puts a caveat under Table 1. The same question as the plan asks, on the same candidates.
"""

from __future__ import annotations

from collections.abc import Iterable

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.case_rules import DEFAULT_RULES, SelectionRules, degenerate_reason
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import ruled_candidates


def degenerate_categories(
    oracle: OracleResult,
    category_ids: Iterable[str] | None = None,
    rules: SelectionRules = DEFAULT_RULES,
    seed: int = 0,
) -> dict[str, str]:
    """Category id -> why it measures nothing here, for the applicable ones among
    ``category_ids`` (default: every category except ``factors``, which is asked on request)."""
    ids = (
        list(category_ids)
        if category_ids is not None
        else [c for c in CATEGORIES if c != "factors"]
    )
    found = {}
    for category_id in ids:
        if CATEGORIES[category_id].not_applicable(oracle) is not None:
            continue
        why = degenerate_reason(ruled_candidates(oracle, category_id, seed, rules))
        if why:
            found[category_id] = why
    return found
