"""Category difficulty (the paper's Figure 3 and RQ3): which kinds of question are hardest.

A category's difficulty is the mean of its cell scores (environment × LLM × selection) pooled over
the LLMs and both selections, so the ranking reflects the task rather than which states were
sampled. The oracle answerer is left out by default: it scores 1.00 by construction and would
only compress the differences between categories.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from explaincheck.core.analysis.layout import (
    CEILING_LLM,
    category_ids,
    category_label,
    dimension_label,
    dimension_of,
)
from explaincheck.core.analysis.scores import _store_dimensions, cells_for


def category_difficulty(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    cells: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Mean score per category, hardest (lowest) first; ties keep Table 1 order.

    Columns: category, label, dimension, dimension_label, score, cells (pooled cells).
    ``cells``: ``cell_scores(results)`` if computed already.
    """
    scored = cells_for(results, cells, exclude).dropna(subset=["score"])
    per = scored.groupby("category", sort=False).agg(
        score=("score", "mean"), cells=("score", "size")
    )
    fallback = _store_dimensions(results)
    per = per.reset_index()
    per["dimension"] = [dimension_of(c, fallback.get(c)) for c in per["category"]]
    per["dimension_label"] = [dimension_label(d) for d in per["dimension"]]
    per["label"] = [category_label(c) for c in per["category"]]
    rank = {c: i for i, c in enumerate(category_ids())}
    per["_order"] = [rank.get(c, len(rank)) for c in per["category"]]
    per = per.sort_values(["score", "_order", "category"], kind="stable")
    columns = ["category", "label", "dimension", "dimension_label", "score", "cells"]
    return per[columns].reset_index(drop=True)
