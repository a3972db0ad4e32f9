"""Fixed order and labels of categories, dimensions, environments and LLMs in every table.

Tables, figures and the GUI must agree on one column order (the paper's Table 1) and one row
order, so the layout lives here once instead of in each analysis module. Category order, labels
and names come from the taxonomy registry (each category declares its own): nothing here lists
categories.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from explaincheck.core.backends.registry import (
    BASELINE,
    CEILING,
    MODEL,
    first_spec,
    kind_of,
    role_of,
)
from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.taxonomy.base import EXPLANATION, MODE, PREFERENCE, SCOPE, STATE
from explaincheck.core.taxonomy.registry import CATEGORIES as REGISTERED

DIMENSION_LABELS: dict[str, str] = {
    STATE: "State",
    PREFERENCE: "Preference",
    SCOPE: "Scope",
    MODE: "Mode",
    EXPLANATION: "Explanation",
}

# Short labels of the rows that are not categories (a category's own is ``Category.label``).
SUMMARY_LABELS: dict[str, str] = {"average": "Avg.", "total": "Total"}

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
# The answerers every table compares with; their roles are the backend registry's.
BASELINE_LLM = first_spec(BASELINE)  # "random": the uniform guesses every model is compared with
CEILING_LLM = first_spec(CEILING)  # "oracle": 1.00 by construction, not a model under test
NOT_APPLICABLE = "–"


def is_reference(llm: object) -> bool:
    """Whether ``llm`` is a baseline or reference answerer (random, oracle, noisy:Q, flaw:...),
    not a model under test (its kind's role): RQ1's headline test and the paired comparisons
    leave these out."""
    return role_of(llm) != MODEL


def is_negative_control(llm: object) -> bool:
    """``random`` and ``noisy:Q`` (kinds marked so): their correctness cannot depend on δ, so
    RQ1's corrected test must come out non-significant for them."""
    kind = kind_of(llm)
    return bool(kind and kind.negative_control)


def category_ids() -> tuple[str, ...]:
    """The registered categories in Table 1 order (read when asked: the registry is the one
    place they are listed, so a new category shows up here by itself): grouped by dimension,
    the dimensions in the order they first appear, each in registry order, so a category
    registered later (a plugin's state question) joins its dimension's columns under one
    header instead of opening a second one after the others."""
    first: dict[str, int] = {}
    for position, found in enumerate(REGISTERED.values()):
        first.setdefault(found.dimension, position)
    ranked = sorted(enumerate(REGISTERED.values()), key=lambda p: (first[p[1].dimension], p[0]))
    return tuple(found.id for _, found in ranked)


def dimension_of(category: str, fallback: str | None = None) -> str:
    """Dimension of a category; unknown (future) categories keep what the store says."""
    found = REGISTERED.get(category)
    return found.dimension if found else fallback or "other"


def dimension_label(dimension: str) -> str:
    return DIMENSION_LABELS.get(dimension, dimension.capitalize())


def category_label(category: str) -> str:
    """Short column label: the category's own (Table 1), else the id (e.g. from an old file)."""
    found = REGISTERED.get(category)
    return found.label if found else SUMMARY_LABELS.get(category, category)


def category_name(category: str) -> str:
    """Longer name for figure axes and prose: the category's own, else the id in words."""
    found = REGISTERED.get(category)
    return found.name if found else category.replace("_", " ")


def order_categories(
    present: Iterable[str], dimensions: Mapping[str, str] | None = None
) -> list[str]:
    """Known categories in Table 1 order, then unknown ones (an old file's, a plugin's that is
    not installed here) alphabetically: each after the last category of its dimension when
    ``dimensions`` (the store's) names it, so a table's dimension headers stay one each."""
    present = _distinct(present)
    ordered = [c for c in category_ids() if c in present]
    stored = dimensions or {}

    def dimension(category: str) -> str | None:
        found = REGISTERED.get(category)
        return found.dimension if found else stored.get(category)

    for category in sorted(present - set(REGISTERED)):
        same = [i for i, c in enumerate(ordered) if dimension(category) == dimension(c)]
        ordered.insert(same[-1] + 1 if same and dimension(category) else len(ordered), category)
    return ordered


def _distinct(values: Iterable[str]) -> set[str]:
    """The distinct values; a column's de-duplicated by pandas first (fast on 10,000 rows)."""
    unique = getattr(values, "unique", None)  # a pandas column: no pandas import needed here
    return set(unique()) if callable(unique) else set(values)


def order_environments(present: Iterable[str]) -> list[str]:
    """Built-in environments in the paper's order, then other models alphabetically."""
    present = set(present)
    known = [e for e in ENVIRONMENTS if e in present]
    return known + sorted(present - set(ENVIRONMENTS))


def environment_label(environment: str, width: int = 32) -> str:
    """A figure's name for an environment: a model given by its path is named by its file
    (``corridor.prism``, ``frozen_lake/model.prism``) and a name longer than ``width`` is cut in
    the middle, so that a deep folder cannot squeeze a heatmap's cells to nothing (the tables
    keep the whole path)."""
    parts = environment.replace("\\", "/").rstrip("/").split("/")
    # an environment folder's file is always model.prism: its folder names it; a plugin's id
    # (``DISTRIBUTION/NAME``) is a name, not a path
    name = "/".join(parts[-2:]) if parts[-1] == "model.prism" else parts[-1]
    if environment in ENVIRONMENTS:
        name = environment
    if len(name) <= width:
        return name
    half = (width - 1) // 2
    return f"{name[:half]}…{name[len(name) - (width - 1 - half) :]}"


def order_llms(present: Iterable[str]) -> list[str]:
    """LLMs under test alphabetically, then the random baseline, then the oracle ceiling."""
    present = set(present)
    tail = [name for name in (BASELINE_LLM, CEILING_LLM) if name in present]
    return sorted(present - set(tail)) + tail
