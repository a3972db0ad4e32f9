"""Chance level: the score a uniform random answer would get on each stored case.

Why: "the random baseline is at chance" is only checkable if chance is known, and chance is not
one number per category: a best-action case with three optimal actions out of four is easy to
guess, a ranking of four distinct actions is not. Computed from the stored answer schema and
expected answer only (no oracle, no LLM), assuming a uniform choice over the schema:

- one of an ``enum``: |accepted ∩ enum| / |enum| (accepted = the expected value or list);
- a ranking (array of the enum, groups of tied actions in any inner order): ∏|g|! / n!;
- a probability in [0, 1] under the absolute rule: |[V − t, V + t] ∩ [0, 1]|; under the half
  rule: the length of V's side of ½;
- an expected reward (satisfy under a reward property: ``{"value": V, "range": [lo, hi]}``,
  the random answerer drawing uniformly from the range) the same on the range mapped to [0, 1];
- a category that knows its own chance says it (``Category.chance``: ``factors`` counts the
  passing ordered 3-subsets of its factors exactly).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from explaincheck.core.analysis.layout import BASELINE_LLM, order_categories
from explaincheck.core.analysis.satisfy import DEFAULT_TOLERANCE, as_probability, on_scale
from explaincheck.core.analysis.scores import CELL_KEYS, cells_for, check_columns
from explaincheck.core.taxonomy.base import UNSCORED
from explaincheck.core.taxonomy.registry import CATEGORIES


def case_chance(
    schema: Any, expected: Any, grading: Any = None, category: str | None = None
) -> float:
    """Probability that a uniform random answer passes this case (NaN if it cannot be told).
    The case's category (every registered one that claims the answer, when not given) may know
    its own chance (``Category.chance``); the generic rules below cover the rest."""
    if not isinstance(schema, dict) or not isinstance(expected, dict):
        return math.nan
    own = _own_chance(schema, expected, category)
    if own is not None:
        return own
    if set(expected) == {"value", "range"}:
        place = on_scale(as_probability(expected["value"]), expected)
        return _probability_chance(None if place is None else min(max(place, 0.0), 1.0), grading)
    if len(expected) != 1:
        return math.nan
    key, accepted = next(iter(expected.items()))
    spec = schema.get("properties", {}).get(key)
    if not isinstance(spec, dict):
        return math.nan
    if "enum" in spec:
        options = spec["enum"]
        accepted = accepted if isinstance(accepted, list) else [accepted]
        return len(set(map(str, accepted)) & set(map(str, options))) / len(options)
    if spec.get("type") == "array" and isinstance(accepted, list):
        if not all(isinstance(group, list) for group in accepted):
            return math.nan
        sizes = [len(group) for group in accepted]
        return math.prod(math.factorial(s) for s in sizes) / math.factorial(sum(sizes))
    if spec.get("type") == "number":
        return _probability_chance(as_probability(accepted), grading)
    return math.nan


def _own_chance(
    schema: dict[str, Any], expected: dict[str, Any], category: str | None
) -> float | None:
    """The chance the case's category (or the first that claims the answer) knows, or None."""
    found = CATEGORIES.get(category) if category is not None else None
    asked = [found] if found is not None else list(CATEGORIES.values())
    return next((c for c in (a.chance(schema, expected) for a in asked) if c is not None), None)


def _probability_chance(value: float | None, grading: Any) -> float:
    if value is None:
        return math.nan
    grading = grading if isinstance(grading, dict) else {}
    if grading.get("satisfy_rule") == "half":
        return 0.5  # a uniform p lands on V's side of ½ half of the time
    tolerance = float(grading.get("satisfy_tolerance", DEFAULT_TOLERANCE))
    return min(1.0, value + tolerance) - max(0.0, value - tolerance)


def row_chances(rows: pd.DataFrame) -> pd.Series:
    """Each row's exact chance (``case_chance`` of its stored schema, expected answer and
    grading rule); NaN where it cannot be told."""
    check_columns(rows, ("schema", "expected"))
    none = pd.Series(None, index=rows.index)
    grading = rows["grading"] if "grading" in rows.columns else none
    categories = rows["category"] if "category" in rows.columns else none
    chance = [
        case_chance(s, e, g, c)
        for s, e, g, c in zip(rows["schema"], rows["expected"], grading, categories, strict=True)
    ]
    return pd.Series(chance, index=rows.index, dtype=float)


def chance_cells(results: pd.DataFrame) -> pd.DataFrame:
    """Mean chance level per environment × category × selection (cases are shared by LLMs)."""
    check_columns(results, ("schema", "expected"))
    rows = results[~results["verdict"].isin(UNSCORED)]
    cases = rows[[*CELL_KEYS, "case_key"]].assign(chance=row_chances(rows))
    cases = cases.drop_duplicates(["environment", "category", "selection", "case_key"])
    keys = ["environment", "category", "selection"]
    return cases.groupby(keys, sort=False, as_index=False)["chance"].mean()


def chance_table(
    results: pd.DataFrame, llm: str = BASELINE_LLM, cells: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per category and selection: chance level next to ``llm``'s score (both pooled over envs).

    Both are means over the environments that ran the category, so a random answerer's score
    should sit near the chance column whatever the selection picked. ``cells``:
    ``cell_scores(results)`` if computed already.
    """
    chance = chance_cells(results)
    others = [m for m in results["llm"].unique() if m != llm]
    scored = cells_for(results, cells, others).dropna(subset=["score"])
    merged = chance.merge(
        scored[["environment", "category", "selection", "score"]],
        on=["environment", "category", "selection"],
        how="left",
    )
    table = merged.pivot_table(
        index="category", columns="selection", values=["chance", "score"], aggfunc="mean"
    )
    table.columns = [f"{value}_{selection}" for value, selection in table.columns]
    table = table.reindex(order_categories(table.index))
    table.index.name = "category"
    if len(table):
        table.loc["all"] = table.mean(axis=0, skipna=True)
    return table
