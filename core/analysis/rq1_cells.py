"""RQ1's cells, which of them carry a contrast, and the headline test over case clusters.

Why: where a category's pool is no larger than the budget, both selections draw the same cases
(frozen_lake's best/worst/ranking/satisfy cells at budget 20): such a cell compares a case set
with itself, adds only noise to the headline test, and a non-significant result then reads as
"prioritisation does not help". ``rq1_cells`` marks them (``same_cases``); the headline test
leaves them out and says how many.

Cells of several LLMs on one (environment, category) share their cases, so their differences
are correlated: a signed-rank test over cells treats them as independent and rejects too often
(6–7 % at 5 % with three LLMs sharing case difficulty). ``cluster_test`` therefore averages the
differences of each (environment, category) cluster over the LLMs and runs the one-sided
Wilcoxon over the clusters, which share no case; with one LLM it is the cell test.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM, VARIANT_MARK, WORDING_MARK

CELL = ["environment", "category", "llm"]
CLUSTER = ["environment", "category"]
COLUMNS = [
    *CELL,
    "n_prioritized",
    "n_random",
    "mean_delta_prioritized",
    "mean_delta_random",
    "same_cases",
]


def _original(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the original cases (no other wording, no metamorphic variant)."""
    keys = results["case_key"].astype(str)
    plain = ~keys.str.contains(WORDING_MARK, regex=False) & ~keys.str.contains(
        VARIANT_MARK, regex=False
    )
    return results[plain]


def rq1_cells(results: pd.DataFrame) -> pd.DataFrame:
    """One row per environment × category × LLM that ran under both selections: the number
    of cases and their mean δ under each, and ``same_cases`` (both drew the same states)."""
    needed = {*CELL, "selection", "case_key", "states", "delta"}
    if results.empty or not needed <= set(results.columns):
        return pd.DataFrame(columns=COLUMNS)
    rows = _original(results)
    rows = rows.assign(case=[tuple(map(int, s)) for s in rows["states"]])
    found = []
    for (environment, category, llm), cell in rows.groupby(CELL, sort=False):
        by = {s: part.drop_duplicates("case") for s, part in cell.groupby("selection")}
        if PRIORITIZED not in by or RANDOM not in by:
            continue
        first, second = by[PRIORITIZED], by[RANDOM]
        found.append(
            {
                "environment": environment,
                "category": category,
                "llm": llm,
                "n_prioritized": len(first),
                "n_random": len(second),
                "mean_delta_prioritized": float(first["delta"].mean()),
                "mean_delta_random": float(second["delta"].mean()),
                "same_cases": set(first["case"]) == set(second["case"]),
            }
        )
    return pd.DataFrame(found, columns=COLUMNS)


def same_case_keys(results: pd.DataFrame) -> set[tuple[str, str, str]]:
    """(environment, category, llm) of the cells whose selections drew the same cases."""
    table = rq1_cells(results)
    marked = table[table["same_cases"].astype(bool)]
    return {(str(e), str(c), str(m)) for e, c, m in marked[CELL].itertuples(index=False)}


def with_contrast(
    cells: pd.DataFrame, same: Iterable[tuple[str, str, str]]
) -> tuple[pd.DataFrame, int]:
    """``cells`` (comparable cells, ``prioritization.comparable_cells``) without the same-case
    ones, and how many were left out."""
    left_out = set(same)
    if cells.empty or not left_out:
        return cells, 0
    keys = list(zip(cells["environment"], cells["category"], cells["llm"], strict=True))
    keep = np.array([(str(e), str(c), str(m)) not in left_out for e, c, m in keys])
    return cells[keep].reset_index(drop=True), int((~keep).sum())


def cluster_means(cells: pd.DataFrame) -> pd.Series:
    """Mean difference prioritised − random per (environment, category), over its LLMs."""
    if cells.empty:
        return pd.Series(dtype=float)
    return cells.groupby(CLUSTER, sort=False)["difference"].mean()


def cluster_test(differences: np.ndarray | pd.Series, min_untied: int) -> tuple[float, float, int]:
    """(W, one-sided p, untied clusters) of the Wilcoxon signed-rank test that the cluster
    differences are below 0; NaN W and p with fewer than ``min_untied`` untied clusters."""
    values = np.asarray(differences, dtype=float).round(12)
    untied = int(np.count_nonzero(values))
    if untied < min_untied:
        return np.nan, np.nan, untied
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        test = wilcoxon(values, alternative="less")
    return float(test.statistic), float(test.pvalue), untied
