"""Paired statistics: two LLMs that answered the same cases, compared case by case.

Why paired: both LLMs saw the same prompts, so their outcomes on one case are correlated; an
unpaired test throws that away and needs far more cases to see the same difference. Outcomes
are paired on (environment, case, repeat); executions without a reply (``error``) drop the pair.

- McNemar's exact test: ``scipy.stats.binomtest`` on the discordant pairs (one passes, the other
  does not) against ½;
- paired bootstrap 95% CI of the score difference: ``scipy.stats.bootstrap(paired=True)``;
- Wilson 95% intervals per score: ``statsmodels`` ``proportion_confint(method="wilson")``;
- Holm correction across categories: ``statsmodels`` ``multipletests(method="holm")``;
- RQ1 per LLM: the one-sided Wilcoxon signed-rank test of ``prioritization`` on that LLM's cells,
  with Cohen's h (``statsmodels`` ``proportion_effectsize``) between the pooled pass rates.

No statistic is computed by hand here: every number comes from scipy or statsmodels.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint, proportion_effectsize

from explaincheck.core.analysis.layout import BASELINE_LLM, CEILING_LLM, order_categories
from explaincheck.core.taxonomy.base import ERROR, PASS, PRIORITIZED, RANDOM

ALPHA = 0.05
RESAMPLES = 9999
BATCH = 500  # resamples (and jackknife samples) computed at a time: bounds the memory
OVERALL = "all"
PAIR_KEYS = ["environment", "category", "case_key", "repeat"]


def paired_outcomes(results: pd.DataFrame, llm_a: str, llm_b: str) -> pd.DataFrame:
    """One row per case and repeat both LLMs answered: pass (True/False) for each."""
    replied = results[results["verdict"] != ERROR]
    sides = []
    for llm, name in ((llm_a, "a"), (llm_b, "b")):
        side = replied[replied["llm"] == llm][PAIR_KEYS].copy()
        side[name] = (replied.loc[side.index, "verdict"] == PASS).to_numpy()
        sides.append(side.drop_duplicates(PAIR_KEYS))
    return sides[0].merge(sides[1], on=PAIR_KEYS, how="inner")


def wilson(passed: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Wilson score interval of a pass rate (NaN, NaN without any execution)."""
    if n == 0:
        return (np.nan, np.nan)
    low, high = proportion_confint(passed, n, alpha=alpha, method="wilson")
    return float(low), float(high)


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value: binomial test of a-only passes among discordant pairs."""
    a_only = int(np.sum(a & ~b))
    discordant = a_only + int(np.sum(~a & b))
    if discordant == 0:
        return 1.0
    return float(stats.binomtest(a_only, discordant, 0.5).pvalue)


def bootstrap_difference(
    a: np.ndarray, b: np.ndarray, alpha: float = ALPHA, seed: int = 0
) -> tuple[float, float]:
    """Paired bootstrap (BCa) CI of mean(a) − mean(b); NaN when the resamples do not vary
    (e.g. every pair equal) or there are fewer than two pairs."""
    differences = a.astype(float) - b.astype(float)
    if len(a) < 2 or np.all(differences == differences[0]):
        # every resample gives the same difference: no interval. Checked here rather than left
        # to scipy's warning, because ``catch_warnings`` is not thread-safe and the GUI calls
        # this on a worker thread, where the warning escaped to the console.
        return (np.nan, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (a.astype(float), b.astype(float)),
            _difference,
            paired=True,
            vectorized=True,
            n_resamples=RESAMPLES,
            batch=BATCH,  # without it, RESAMPLES x pairs floats at once (400 MB at 5,000)
            confidence_level=1 - alpha,
            random_state=np.random.default_rng(seed),
        )
    low, high = result.confidence_interval
    return float(low), float(high)


def _difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def compare(
    results: pd.DataFrame, llm_a: str, llm_b: str, alpha: float = ALPHA, seed: int = 0
) -> pd.DataFrame:
    """Per category and overall: n pairs, each score with its Wilson interval, the difference
    a − b with its paired bootstrap CI, the discordant counts, McNemar's exact p, the
    Holm-adjusted p across categories and whether the difference survives it."""
    pairs = paired_outcomes(results, llm_a, llm_b)
    rows = []
    groups = [(c, pairs[pairs["category"] == c]) for c in order_categories(pairs["category"])]
    for category, group in [*groups, (OVERALL, pairs)]:
        if group.empty:
            continue
        a, b = group["a"].to_numpy(bool), group["b"].to_numpy(bool)
        n = len(group)
        low_a, high_a = wilson(int(a.sum()), n, alpha)
        low_b, high_b = wilson(int(b.sum()), n, alpha)
        diff_low, diff_high = bootstrap_difference(a, b, alpha, seed)
        rows.append(
            {
                "category": category,
                "pairs": n,
                "score_a": a.mean(),
                "a_low": low_a,
                "a_high": high_a,
                "score_b": b.mean(),
                "b_low": low_b,
                "b_high": high_b,
                "difference": a.mean() - b.mean(),
                "diff_low": diff_low,
                "diff_high": diff_high,
                "a_only": int(np.sum(a & ~b)),
                "b_only": int(np.sum(~a & b)),
                "p_mcnemar": mcnemar_exact(a, b),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    per_category = table["category"] != OVERALL
    table["p_holm"] = np.nan
    if per_category.any():
        reject, adjusted, _, _ = multipletests(
            table.loc[per_category, "p_mcnemar"], alpha=alpha, method="holm"
        )
        table.loc[per_category, "p_holm"] = adjusted
        table.loc[per_category, "significant"] = reject
    # The overall test is one test, not one of the family: its own p decides.
    table.loc[~per_category, "significant"] = table.loc[~per_category, "p_mcnemar"] < alpha
    table["significant"] = table["significant"].astype(bool)
    return table.set_index("category")


def compared_llms(
    results: pd.DataFrame, exclude: Iterable[str] = (BASELINE_LLM, CEILING_LLM)
) -> list[tuple[str, str]]:
    """Every pair of LLMs under test (baseline and ceiling answerers left out)."""
    llms = sorted(set(results["llm"]) - set(exclude))
    return list(itertools.combinations(llms, 2))


def rq1_per_llm(results: pd.DataFrame, exclude: Iterable[str] = (CEILING_LLM,)) -> pd.DataFrame:
    """RQ1 for each LLM: comparable cells, the one-sided Wilcoxon p (prioritised < random) over
    them, the pooled pass rates of both selections and Cohen's h between them (negative: the
    prioritised cases are harder)."""
    from explaincheck.core.analysis.prioritization import comparable_cells, wilcoxon_test

    rows = []
    replied = results[results["verdict"] != ERROR]
    for llm in sorted(set(results["llm"]) - set(exclude)):
        mine = results[results["llm"] == llm]
        cells = comparable_cells(mine, exclude=())
        test = wilcoxon_test(mine, exclude=())
        rate = {}
        for selection in (PRIORITIZED, RANDOM):
            chosen = replied[(replied["llm"] == llm) & (replied["selection"] == selection)]
            rate[selection] = (chosen["verdict"] == PASS).mean() if len(chosen) else np.nan
        h = (
            float(proportion_effectsize(rate[PRIORITIZED], rate[RANDOM]))
            if not np.isnan([rate[PRIORITIZED], rate[RANDOM]]).any()
            else np.nan
        )
        p_value = test["p_value"].iat[0] if "p_value" in test.columns else np.nan
        rows.append(
            {
                "llm": llm,
                "cells": len(cells),
                "prioritized": rate[PRIORITIZED],
                "random": rate[RANDOM],
                "cohens_h": h,
                "wilcoxon_p": p_value,
            }
        )
    return pd.DataFrame(rows).set_index("llm") if rows else pd.DataFrame()
