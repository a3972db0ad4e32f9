"""The prioritisation effect (RQ1): does ranking by δ pick harder cases than random selection?

A comparable cell is an environment × LLM × category that scored under both selections. A lower
prioritised score means prioritisation surfaced harder cases. The one-sided Wilcoxon signed-rank
test (prioritised < random) follows the paper; tied cells carry no sign and are dropped by the
test (scipy's default ``zero_method='wilcox'``). The oracle answerer is left out by default (it
ties everywhere by construction and is not a model under test).

**Chance.** For best and worst action δ = 1 − chance, so prioritised cases are harder *to guess*
by construction, and the paper's test comes out significant for the uniform random answerer
itself (p = 0.013 on the seven built-ins, budget 10, seed 0). The headline test therefore scores
each case chance-corrected, (score − chance) / (1 − chance) with the case's exact chance
(``chance.case_chance``): 0 in expectation for a guesser and Q for ``noisy:Q`` whatever δ picked.
It runs over the answerers under test only (``layout.is_reference`` leaves random, oracle,
noisy:Q and flaw:... out); the paper's uncorrected test is kept beside it, and both tests are
also run on each negative control (random, noisy:Q), which must come out non-significant.

**Contrast and clusters.** The corrected tests leave out the cells whose two selections drew
the same cases (a pool no larger than the budget) and test the (environment, category) cluster
means over the LLMs, which share no case (``rq1_cells``); the paper's test is kept over cells.

**Effect size.** The mean difference prioritised − random over the cells, with a 95% interval
from a bootstrap that resamples (environment, category) clusters: cells of different LLMs share
their cases, so they are not independent (the Wilcoxon p-value treats them as if they were).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from explaincheck.core.analysis import rq1_cells
from explaincheck.core.analysis.chance import row_chances
from explaincheck.core.analysis.layout import CEILING_LLM, is_negative_control, is_reference
from explaincheck.core.analysis.scores import CELL_KEYS, PRECISION, case_scores, cells_for
from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM, UNSCORED

HARDER, EASIER, TIED = "harder", "easier", "tied"
# Below five untied cells even the most extreme one-sided result has p >= 1/16, so a p-value
# would only look like evidence; report "too few cells" instead.
MIN_UNTIED = 5
ALPHA = 0.05
RESAMPLES = 2000  # cluster bootstrap of the mean difference
CHANCE_CEILING = 1 - 1e-12  # a case every answer passes cannot be chance-corrected
HEADLINE = "headline: chance-corrected"
PAPER = "the paper's (uncorrected)"


def corrected_case_scores(results: pd.DataFrame) -> pd.DataFrame:
    """One row per case: score, its exact chance and (score − chance) / (1 − chance); cases whose
    chance cannot be told (or is 1) are left out."""
    keys = [*CELL_KEYS, "case_key"]
    if "schema" not in results.columns or "expected" not in results.columns:
        return pd.DataFrame(columns=[*keys, "score", "chance", "corrected"])
    replied = results[~results["verdict"].isin(UNSCORED)]
    chances = replied[keys].assign(chance=row_chances(replied))
    chances = chances.groupby(keys, sort=False, as_index=False)["chance"].first()
    cases = case_scores(results).merge(chances, on=keys, how="inner")
    cases = cases[cases["chance"].notna() & (cases["chance"] < CHANCE_CEILING)]
    cases = cases.assign(corrected=(cases["score"] - cases["chance"]) / (1 - cases["chance"]))
    return cases[[*keys, "score", "chance", "corrected"]].reset_index(drop=True)


def comparable_cells(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    corrected: bool = False,
    cells: pd.DataFrame | None = None,
    corrected_cases: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Cells scored under both selections, with the difference and its outcome; ``corrected``
    compares the cells' mean chance-corrected case scores instead of their scores. ``cells``
    and ``corrected_cases``: ``cell_scores(results)`` and ``corrected_case_scores(results)``
    if computed already."""
    exclude = list(exclude)
    if corrected:
        if corrected_cases is None:
            cases = corrected_case_scores(results[~results["llm"].isin(exclude)])
        else:
            cases = corrected_cases[~corrected_cases["llm"].isin(exclude)]
        cells = cases.groupby(CELL_KEYS, sort=False, as_index=False).agg(
            score=("corrected", "mean")
        )
    else:
        cells = cells_for(results, cells, exclude).dropna(subset=["score"])
    keys = ["environment", "llm", "category"]
    if cells.empty:
        return pd.DataFrame(columns=[*keys, PRIORITIZED, RANDOM, "difference", "outcome"])
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


def effect_counts(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    cells: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Counts and shares of cells where prioritisation is harder, easier or tied (+ total)."""
    outcomes = comparable_cells(results, exclude, cells=cells)["outcome"]
    counts = outcomes.value_counts().reindex([HARDER, EASIER, TIED], fill_value=0)
    total = int(counts.sum())
    frame = pd.DataFrame({"cells": counts.astype(int)})
    frame.loc["total"] = total
    frame["share"] = frame["cells"] / total if total else np.nan
    frame.index.name = "outcome"
    return frame


def cluster_interval(
    cells: pd.DataFrame, alpha: float = ALPHA, seed: int = 0
) -> tuple[float, float]:
    """Percentile interval of the mean ``difference`` over cells, resampling (environment,
    category) clusters with replacement (the cells of one cluster share their cases). NaN
    with fewer than two clusters."""
    if cells.empty:
        return (np.nan, np.nan)
    groups = cells.groupby(["environment", "category"])["difference"].agg(["sum", "size"])
    if len(groups) < 2:
        return (np.nan, np.nan)
    sums, sizes = groups["sum"].to_numpy(float), groups["size"].to_numpy(float)
    picks = np.random.default_rng(seed).integers(0, len(groups), (RESAMPLES, len(groups)))
    means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def wilcoxon_test(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    min_untied: int = MIN_UNTIED,
    corrected: bool = False,
    cells: pd.DataFrame | None = None,
    corrected_cases: pd.DataFrame | None = None,
    clustered: bool | None = None,
) -> pd.DataFrame:
    """One-row frame: cells, untied, clusters, same_cases_left_out, statistic, p_value, the
    mean difference with its cluster bootstrap 95% interval, and a sentence that says what it
    means. ``corrected`` tests the chance-corrected cell scores.

    ``clustered`` (default: as ``corrected``, i.e. the headline's form) leaves out the cells
    whose two selections drew the same cases and tests the (environment, category) cluster
    means over the LLMs (``rq1_cells``): cells of several LLMs share their cases, and a test
    over cells would treat them as independent. Off, it is the paper's test over cells.

    With fewer than ``min_untied`` untied cells (clusters), statistic and p_value are NaN and
    the sentence says the test was not run.
    """
    clustered = corrected if clustered is None else clustered
    cells = comparable_cells(results, exclude, corrected, cells, corrected_cases)
    left_out = 0
    if clustered:
        cells, left_out = rq1_cells.with_contrast(cells, rq1_cells.same_case_keys(results))
    untied = int((cells["outcome"] != TIED).sum())
    kind = "chance-corrected " if corrected else ""
    units = rq1_cells.cluster_means(cells) if clustered else cells["difference"]
    statistic, p_value, untied_units = rq1_cells.cluster_test(units.to_numpy(), min_untied)
    word = "clusters" if clustered else "cells"
    dropped = f"; {left_out} same-case cells left out" if clustered else ""
    if np.isnan(p_value):
        conclusion = (
            f"too few {word} for a Wilcoxon test: {len(units)} comparable, {untied_units} "
            f"untied (needs at least {min_untied} untied){dropped}"
        )
    else:
        over = (
            f"{len(units)} (environment, category) clusters of {len(cells)} cells"
            if clustered
            else f"{len(cells)} cells ({untied} untied)"
        )
        conclusion = (
            f"one-sided Wilcoxon signed-rank on the {kind}scores (prioritised < random): "
            f"W = {statistic:g}, p = {p_value:.3g} over {over}{dropped}"
        )
    low, high = cluster_interval(cells)
    return pd.DataFrame(
        [
            {
                "cells": len(cells),
                "untied": untied,
                "clusters": len(units) if clustered else np.nan,
                "same_cases_left_out": left_out,
                "statistic": statistic,
                "p_value": p_value,
                "mean_difference": float(cells["difference"].mean()) if len(cells) else np.nan,
                "ci_low": low,
                "ci_high": high,
                "conclusion": conclusion,
            }
        ]
    )


def rq1_tests(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """RQ1's tests as rows: the chance-corrected headline over the answerers under test, the
    paper's uncorrected test (every answerer but the oracle, as in the paper), and both tests
    on each negative control (random, noisy:Q) that ran; ``cells``: ``cell_scores(results)``
    if computed already (the chance-corrected case scores are computed once here)."""
    llms = sorted(map(str, results["llm"].unique()))
    under_test = [m for m in llms if not is_reference(m)]
    scored = (cells_for(results, cells), corrected_case_scores(results))
    rows = [
        _test_row(
            HEADLINE, under_test, results, [m for m in llms if m not in under_test], True, scored
        ),
        _test_row(
            PAPER, [m for m in llms if m != CEILING_LLM], results, [CEILING_LLM], False, scored
        ),
    ]
    for control in (m for m in llms if is_negative_control(m)):
        others = [m for m in llms if m != control]
        for corrected, label in ((True, "corrected"), (False, "the paper's")):
            name = f"negative control {control}: {label}"
            rows.append(_test_row(name, [control], results, others, corrected, scored))
    return pd.DataFrame(rows).set_index("test")


def _test_row(
    name: str,
    llms: list[str],
    results: pd.DataFrame,
    exclude: list[str],
    corrected: bool,
    scored: tuple[pd.DataFrame, pd.DataFrame],
) -> dict:
    cells, cases = scored
    found = wilcoxon_test(results, exclude, corrected=corrected, cells=cells, corrected_cases=cases)
    found = found.iloc[0].to_dict()
    if not llms:
        found["conclusion"] = (
            "no answerer under test ran (random, oracle, noisy:Q, hedge and flaw:… are"
            " baseline and reference answerers)"
            if name == HEADLINE
            else "no answerer in this group ran"
        )
    return {"test": name, "answerers": ", ".join(llms) or "–", **found}


def controls_sentence(tests: pd.DataFrame) -> str:
    """The negative controls' corrected p-values in one sentence, for the headline's note."""
    parts = []
    for name, row in tests.iterrows():
        if str(name).startswith("negative control") and str(name).endswith(": corrected"):
            control = str(name).removeprefix("negative control ").removesuffix(": corrected")
            p = row["p_value"]
            shown = "not run" if pd.isna(p) else f"p = {p:.3g}"
            verdict = "" if pd.isna(p) else (" (calibrated)" if p >= ALPHA else " (NOT calibrated)")
            parts.append(f"{control} {shown}{verdict}")
    if not parts:
        return "No negative control ran (run random or noisy:Q beside the models to check it)."
    return "Negative controls, corrected test (must be p ≥ 0.05): " + "; ".join(parts) + "."
