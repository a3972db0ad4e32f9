"""The prioritisation effect (RQ1): does ranking by δ pick harder cases than random selection?

A comparable cell is an environment × LLM × category that scored under both selections. A lower
prioritised score means prioritisation surfaced harder cases. The one-sided Wilcoxon signed-rank
test (prioritised < random) follows the paper; tied cells carry no sign and are dropped by the
test (scipy's default ``zero_method='wilcox'``). The oracle answerer is left out by default (it
ties everywhere by construction and is not a model under test).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from explaincheck.core.analysis.layout import CEILING_LLM
from explaincheck.core.analysis.scores import PRECISION, cell_scores
from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM

HARDER, EASIER, TIED = "harder", "easier", "tied"
# Below five untied cells even the most extreme one-sided result has p >= 1/16, so a p-value
# would only look like evidence; report "too few cells" instead.
MIN_UNTIED = 5


def comparable_cells(
    results: pd.DataFrame, exclude: Iterable[str] = (CEILING_LLM,)
) -> pd.DataFrame:
    """Cells scored under both selections, with the difference and its outcome."""
    kept = results[~results["llm"].isin(list(exclude))]
    cells = cell_scores(kept).dropna(subset=["score"])
    keys = ["environment", "llm", "category"]
    wide = cells.pivot_table(index=keys, columns="selection", values="score", sort=False)
    for selection in (PRIORITIZED, RANDOM):
        if selection not in wide.columns:
            wide[selection] = np.nan
    wide = wide[[PRIORITIZED, RANDOM]].dropna().round(PRECISION)
    wide.columns.name = None
    wide["difference"] = (wide[PRIORITIZED] - wide[RANDOM]).round(PRECISION)
    wide["outcome"] = np.select(
        [wide["difference"] < 0, wide["difference"] > 0], [HARDER, EASIER], TIED
    )
    return wide.reset_index()


def effect_counts(results: pd.DataFrame, exclude: Iterable[str] = (CEILING_LLM,)) -> pd.DataFrame:
    """Counts and shares of cells where prioritisation is harder, easier or tied (+ total)."""
    outcomes = comparable_cells(results, exclude)["outcome"]
    counts = outcomes.value_counts().reindex([HARDER, EASIER, TIED], fill_value=0)
    total = int(counts.sum())
    frame = pd.DataFrame({"cells": counts.astype(int)})
    frame.loc["total"] = total
    frame["share"] = frame["cells"] / total if total else np.nan
    frame.index.name = "outcome"
    return frame


def wilcoxon_test(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    min_untied: int = MIN_UNTIED,
) -> pd.DataFrame:
    """One-row frame: cells, untied, statistic, p_value and a sentence that says what it means.

    With fewer than ``min_untied`` untied cells, statistic and p_value are NaN and the sentence
    says the test was not run.
    """
    cells = comparable_cells(results, exclude)
    untied = int((cells["outcome"] != TIED).sum())
    statistic = p_value = np.nan
    if untied < min_untied:
        conclusion = (
            f"too few cells for a Wilcoxon test: {len(cells)} comparable, {untied} untied "
            f"(needs at least {min_untied} untied)"
        )
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            test = wilcoxon(cells[PRIORITIZED], cells[RANDOM], alternative="less")
        statistic, p_value = float(test.statistic), float(test.pvalue)
        conclusion = (
            f"one-sided Wilcoxon signed-rank (prioritised < random): W = {statistic:g}, "
            f"p = {p_value:.3g} over {len(cells)} cells ({untied} untied)"
        )
    return pd.DataFrame(
        [
            {
                "cells": len(cells),
                "untied": untied,
                "statistic": statistic,
                "p_value": p_value,
                "conclusion": conclusion,
            }
        ]
    )
