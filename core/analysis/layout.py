"""Fixed order and labels of categories, dimensions, environments and LLMs in every table.

Tables, figures and the GUI must agree on one column order (the paper's Table 1) and one row
order, so the layout lives here once instead of in each analysis module.
"""

from __future__ import annotations

from collections.abc import Iterable

from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.taxonomy.base import EXPLANATION, MODE, PREFERENCE, SCOPE, STATE
from explaincheck.core.taxonomy.registry import CATEGORY_DIMENSIONS

# The ten categories in Table 1 order with their dimensions: the taxonomy registry is the one
# place they are defined, so a new category shows up here by itself.
CATEGORY_DIMENSION: dict[str, str] = dict(CATEGORY_DIMENSIONS)
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_DIMENSION)

DIMENSION_LABELS: dict[str, str] = {
    STATE: "State",
    PREFERENCE: "Preference",
    SCOPE: "Scope",
    MODE: "Mode",
    EXPLANATION: "Explanation",
}

# Short column labels as in the paper's Table 1 (which_bottleneck is the Mode "Bttl.").
CATEGORY_LABELS: dict[str, str] = {
    "satisfy": "Sat.",
    "bottleneck": "Bttl.",
    "best_action": "Best",
    "worst_action": "Worst",
    "ranking": "Rank",
    "subset_bottleneck": "Sub.B",
    "subset_dead_end": "Sub.D",
    "more_promising": "Prom.",
    "safer": "Safe",
    "which_bottleneck": "W.Bttl.",
    "factors": "Why",
    "average": "Avg.",
    "total": "Total",
}

# Longer names where there is room (figure axes, report prose).
CATEGORY_NAMES: dict[str, str] = {
    "satisfy": "satisfy property",
    "bottleneck": "bottleneck",
    "best_action": "best action",
    "worst_action": "worst action",
    "ranking": "action ranking",
    "subset_bottleneck": "bottleneck in subset",
    "subset_dead_end": "dead end in subset",
    "more_promising": "more promising",
    "safer": "safer state",
    "which_bottleneck": "which is bottleneck",
    "factors": "why (factors)",
}

# Colours of the four dimensions in every figure (colour-blind safe Okabe-Ito hues).
DIMENSION_COLOURS: dict[str, str] = {
    STATE: "#0072B2",
    PREFERENCE: "#E69F00",
    SCOPE: "#009E73",
    MODE: "#CC79A7",
    EXPLANATION: "#D55E00",
}
OTHER_COLOUR = "#999999"

# Built-in environments in the paper's order (the registry is the one list).
ENVIRONMENTS: tuple[str, ...] = BUILTIN_IDS

AVERAGE = "average"
BASELINE_LLM = "random"  # the uniform-random answerer every model is compared with
CEILING_LLM = "oracle"  # answers from the oracle: 1.00 by construction, not a model under test
NOT_APPLICABLE = "–"


def dimension_of(category: str, fallback: str | None = None) -> str:
    """Dimension of a category; unknown (future) categories keep what the store says."""
    return CATEGORY_DIMENSION.get(category, fallback or "other")


def dimension_label(dimension: str) -> str:
    return DIMENSION_LABELS.get(dimension, dimension.capitalize())


def category_label(category: str) -> str:
    return CATEGORY_LABELS.get(category, category)


def category_name(category: str) -> str:
    return CATEGORY_NAMES.get(category, category.replace("_", " "))


def order_categories(present: Iterable[str]) -> list[str]:
    """Known categories in Table 1 order, then unknown ones alphabetically."""
    present = set(present)
    known = [c for c in CATEGORIES if c in present]
    return known + sorted(present - set(CATEGORIES))


def order_environments(present: Iterable[str]) -> list[str]:
    """Built-in environments in the paper's order, then other models alphabetically."""
    present = set(present)
    known = [e for e in ENVIRONMENTS if e in present]
    return known + sorted(present - set(ENVIRONMENTS))


def order_llms(present: Iterable[str]) -> list[str]:
    """LLMs under test alphabetically, then the random baseline, then the oracle ceiling."""
    present = set(present)
    tail = [name for name in (BASELINE_LLM, CEILING_LLM) if name in present]
    return sorted(present - set(tail)) + tail
