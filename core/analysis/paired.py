"""Paired statistics: two LLMs that answered the same cases, compared case by case.

Why paired: both LLMs saw the same prompts, so their outcomes on one case are correlated; an
unpaired test throws that away and needs far more cases to see the same difference. The unit is
the **distinct case** (environment, category, the question's states, wording and variant): its
repeats, and the same question drawn by both selections, are aggregated into one score per LLM
(the share of passing executions) before any test, so a case counts once however often it was
asked. Executions without a reply (``error``) or with an uncertain verdict are left out; a case
one side never answered drops the pair.

- McNemar's exact test: ``scipy.stats.binomtest`` on the discordant cases (a scores higher, b
  scores higher) against ½; with repeats this is the sign test of the per-case differences;
- paired bootstrap 95% CI of the score difference: ``scipy.stats.bootstrap(paired=True)``;
- Wilson 95% intervals per score: ``statsmodels`` ``proportion_confint(method="wilson")``;
- Holm correction over the whole family, every (LLM pair, category) test, with the overall rows
  (one per LLM pair) a family of their own: ``statsmodels`` ``multipletests(method="holm")``;
- RQ1 per LLM: the one-sided Wilcoxon signed-rank test of ``prioritization`` on that LLM's cells
  (the paper's and the chance-corrected one), with Cohen's h (``statsmodels``
  ``proportion_effectsize``) between the pooled pass rates.

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

from explaincheck.core.analysis.layout import (
    BASELINE_LLM,
    CEILING_LLM,
    is_negative_control,
    is_reference,
    order_categories,
)
from explaincheck.core.analysis.prioritization import comparable_cells, wilcoxon_test
from explaincheck.core.taxonomy.base import PASS, PRIORITIZED, RANDOM, UNSCORED

ALPHA = 0.05
RESAMPLES = 9999
BATCH = 500  # resamples (and jackknife samples) computed at a time: bounds the memory
OVERALL = "all"
PAIR_KEYS = ["environment", "category", "case"]


def question_identity(case_key: str) -> str:
    """What makes two executions the same question: the case key without its selection and
    position (``category/selection/index/states~marks`` → ``category/states~marks``), so a case
    both selections drew is one case. Keys of another shape are their own identity."""
    parts = str(case_key).split("/", 3)
    return f"{parts[0]}/{parts[3]}" if len(parts) == 4 else str(case_key)


def paired_outcomes(results: pd.DataFrame, llm_a: str, llm_b: str) -> pd.DataFrame:
    """One row per distinct case both LLMs answered: each side's score on it (the share of its
    passing executions, repeats and both selections aggregated first), and how many
    executions each score is over. Executions without a reply (``error``) and uncertain verdicts
    are left out."""
    replied = results[~results["verdict"].isin(UNSCORED)]
    sides = []
    for llm, name in ((llm_a, "a"), (llm_b, "b")):
        mine = replied[replied["llm"] == llm]
        side = pd.DataFrame(
            {
                "environment": mine["environment"].to_numpy(),
                "category": mine["category"].to_numpy(),
                "case": [question_identity(k) for k in mine["case_key"]],
                name: (mine["verdict"] == PASS).to_numpy(float),
            }
        )
        side = side.groupby(PAIR_KEYS, sort=False, as_index=False).agg(
            **{name: (name, "mean"), f"{name}_executions": (name, "size")}
        )
        sides.append(side)
    return sides[0].merge(sides[1], on=PAIR_KEYS, how="inner")


def wilson(passed: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Wilson score interval of a pass rate (NaN, NaN without any execution)."""
    if n == 0:
        return (np.nan, np.nan)
    low, high = proportion_confint(passed, n, alpha=alpha, method="wilson")
    return float(low), float(high)


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value: binomial test of the cases where a scores higher among
    the cases where the two differ. On pass/fail cases this is McNemar's exact test; on case
    scores that are shares of repeats it is the sign test of the per-case differences."""
    a_only = int(np.sum(a > b))
    discordant = a_only + int(np.sum(a < b))
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
    """Per category and overall: distinct cases paired, each score with its Wilson interval,
    the difference a − b with its paired bootstrap CI, the discordant counts, McNemar's exact p,
    the Holm-adjusted p across categories and whether the difference survives it."""
    found = compare_family(results, [(llm_a, llm_b)], alpha, seed)
    return found.get((llm_a, llm_b), pd.DataFrame())


def compare_family(
    results: pd.DataFrame,
    pairs: Iterable[tuple[str, str]],
    alpha: float = ALPHA,
    seed: int = 0,
) -> dict[tuple[str, str], pd.DataFrame]:
    """``compare`` for every LLM pair, with Holm's correction over the whole family: every
    (LLM pair, category) test is one member; the overall rows (one per LLM pair) form a family
    of their own. Pairs without a shared case are left out."""
    tables = {}
    for llm_a, llm_b in pairs:
        table = _unadjusted(results, llm_a, llm_b, alpha, seed)
        if not table.empty:
            tables[(llm_a, llm_b)] = table
    if not tables:
        return {}
    stacked = pd.concat(tables, names=["llm_a", "llm_b", "category"])
    overall = stacked.index.get_level_values("category") == OVERALL
    stacked["p_holm"] = np.nan
    stacked["significant"] = False
    for members in (~overall, overall):
        if members.any():
            reject, adjusted, _, _ = multipletests(
                stacked.loc[members, "p_mcnemar"], alpha=alpha, method="holm"
            )
            stacked.loc[members, "p_holm"] = adjusted
            stacked.loc[members, "significant"] = reject
    stacked["significant"] = stacked["significant"].astype(bool)
    return {pair: stacked.xs(pair, level=["llm_a", "llm_b"]) for pair in tables}


def _unadjusted(
    results: pd.DataFrame, llm_a: str, llm_b: str, alpha: float, seed: int
) -> pd.DataFrame:
    pairs = paired_outcomes(results, llm_a, llm_b)
    rows = []
    groups = [(c, pairs[pairs["category"] == c]) for c in order_categories(pairs["category"])]
    for category, group in [*groups, (OVERALL, pairs)]:
        if group.empty:
            continue
        a, b = group["a"].to_numpy(float), group["b"].to_numpy(float)
        n = len(group)
        low_a, high_a = wilson(float(a.sum()), n, alpha)
        low_b, high_b = wilson(float(b.sum()), n, alpha)
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
                "a_only": int(np.sum(a > b)),
                "b_only": int(np.sum(a < b)),
                "p_mcnemar": mcnemar_exact(a, b),
            }
        )
    table = pd.DataFrame(rows)
    return table.set_index("category") if len(table) else table


def compared_llms(
    results: pd.DataFrame, exclude: Iterable[str] = (BASELINE_LLM, CEILING_LLM)
) -> list[tuple[str, str]]:
    """Every pair of LLMs under test (baseline and ceiling answerers left out)."""
    llms = sorted(set(results["llm"]) - set(exclude))
    return list(itertools.combinations(llms, 2))


def _role(llm: str) -> str:
    if is_negative_control(llm):
        return "negative control"
    return "reference" if is_reference(llm) else "under test"


def rq1_per_llm(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    cells: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """RQ1 for each LLM: comparable cells, the one-sided Wilcoxon p (prioritised < random) over
    them, the pooled pass rates of both selections and Cohen's h between them (negative: the
    prioritised cases are harder); ``cells``: ``cell_scores(results)`` if computed already."""
    rows = []
    replied = results[~results["verdict"].isin(UNSCORED)]
    llms = set(results["llm"].unique())
    for llm in sorted(llms - set(exclude)):
        others = sorted(llms - {llm})  # the LLM's own cells, taken from ``cells`` when given
        comparable = comparable_cells(results, exclude=others, cells=cells)
        test = wilcoxon_test(results, exclude=others, cells=cells)
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
        corrected = wilcoxon_test(results, exclude=others, corrected=True).iloc[0]
        rows.append(
            {
                "llm": llm,
                "role": _role(llm),
                "cells": len(comparable),
                "prioritized": rate[PRIORITIZED],
                "random": rate[RANDOM],
                "cohens_h": h,
                "wilcoxon_p": p_value,
                "corrected_p": corrected["p_value"],
                "corrected_difference": corrected["mean_difference"],
                "ci_low": corrected["ci_low"],
                "ci_high": corrected["ci_high"],
            }
        )
    return pd.DataFrame(rows).set_index("llm") if rows else pd.DataFrame()
