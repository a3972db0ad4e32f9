"""Is a verdict stable over repeats? ``stable-pass``, ``stable-fail`` or ``flaky`` per (case, LLM),
and pass@k / pass^k per LLM and category.

Why: with ``--repeat k`` a case whose repeats disagree is a flaky test — its verdict says more
about the sampling than about the explainer, and a comparison that counts it can "regress" by
chance. The rule is exact (docs/method.md, "Stability over repeats"): the Clopper–Pearson
interval of the case's pass probability, at ``CONFIDENCE``, is computed from its repeats;
``flaky`` when the interval excludes both 0 and 1 (the repeats prove the verdict goes both
ways), ``stable-pass`` when it excludes 0 only, ``stable-fail`` when it excludes 1 only. A case
asked once has no stability (None).

The case is the paired tests' distinct case (``paired.question_identity``: a question both
selections drew is one case), so a stability and a comparison speak of the same unit. Executions
without a reply (``error``) or with an oracle that cannot decide (``uncertain``) are not runs.

pass@k and pass^k are the unbiased estimators Inspect AI's ``pass_at`` and ``pass_k`` reducers
compute from n runs with c passes: pass@k = 1 − C(n−c, k)/C(n, k), pass^k = C(c, k)/C(n, k);
undefined (NaN) when n < k. Per LLM and category they are means over cases.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats

from explaincheck.core.analysis.layout import order_categories, order_llms
from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.taxonomy.base import ERROR, PASS

CONFIDENCE = 0.95
STABLE_PASS, STABLE_FAIL, FLAKY = "stable-pass", "stable-fail", "flaky"
UNSCORED = (ERROR, "uncertain")  # not a run: no reply, or no exact verdict
CASE_KEYS = ["environment", "llm", "category", "case"]


def clopper_pearson(passes: int, runs: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a pass probability from ``runs`` trials."""
    interval = stats.binomtest(passes, runs).proportion_ci(confidence, method="exact")
    return float(interval.low), float(interval.high)


def stability(passes: int, runs: int, confidence: float = CONFIDENCE) -> str | None:
    """``stable-pass``, ``stable-fail`` or ``flaky`` by the exact rule above; None under 2 runs."""
    if runs < 2:
        return None
    low, high = clopper_pearson(passes, runs, confidence)
    if low > 0 and high < 1:
        return FLAKY
    return STABLE_PASS if low > 0 else STABLE_FAIL


def pass_at_k(runs: int, passes: int, k: int) -> float:
    """Probability that at least one of k runs drawn from the n passes (Inspect's ``pass_at``)."""
    if runs < k:
        return math.nan
    return 1.0 - math.comb(runs - passes, k) / math.comb(runs, k)


def pass_hat_k(runs: int, passes: int, k: int) -> float:
    """Probability that all k runs drawn from the n pass (Inspect's ``pass_k``)."""
    if runs < k:
        return math.nan
    return math.comb(passes, k) / math.comb(runs, k)


def case_runs(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (environment, LLM, category, distinct case): ``runs``, ``passes``,
    ``stability``, and the first ``case_key`` and ``states`` (to find the case again)."""
    scored = results[~results["verdict"].isin(UNSCORED)]
    if scored.empty:
        return pd.DataFrame(columns=[*CASE_KEYS, "runs", "passes", "stability"])
    frame = pd.DataFrame(
        {
            "environment": scored["environment"].to_numpy(),
            "llm": scored["llm"].to_numpy(),
            "category": scored["category"].to_numpy(),
            "case": [question_identity(k) for k in scored["case_key"]],
            "case_key": scored["case_key"].to_numpy(),
            "states": scored["states"].to_numpy(),
            "passed": (scored["verdict"] == PASS).to_numpy(int),
        }
    )
    cases = frame.groupby(CASE_KEYS, sort=False, as_index=False).agg(
        runs=("passed", "size"),
        passes=("passed", "sum"),
        case_key=("case_key", "first"),
        states=("states", "first"),
    )
    cases["passes"] = cases["passes"].astype(int)
    cases["stability"] = [
        stability(int(p), int(n)) for p, n in zip(cases["passes"], cases["runs"], strict=True)
    ]
    return cases


def flaky_keys(results: pd.DataFrame) -> set[tuple[str, str, str]]:
    """(environment, category, case) of every case some LLM of ``results`` answered flakily."""
    cases = case_runs(results)
    flaky = cases[cases["stability"] == FLAKY]
    return set(zip(flaky["environment"], flaky["category"], flaky["case"], strict=True))


def pass_k_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category over cases asked k ≥ 2 times (k the most common run count): cases,
    the flaky share, and pass@1, pass@k and pass^k (means over cases with at least k runs)."""
    cases = case_runs(results)
    cases = cases[cases["runs"] >= 2]
    if cases.empty:
        return pd.DataFrame()
    rows = []
    for (llm, category), group in cases.groupby(["llm", "category"], sort=False):
        k = int(group["runs"].mode().max())
        n, c = group["runs"].to_numpy(int), group["passes"].to_numpy(int)
        rows.append(
            {
                "llm": llm,
                "category": category,
                "cases": len(group),
                "k": k,
                "flaky": float((group["stability"] == FLAKY).mean()),
                "pass@1": _mean(pass_at_k(a, b, 1) for a, b in zip(n, c, strict=True)),
                "pass@k": _mean(pass_at_k(a, b, k) for a, b in zip(n, c, strict=True)),
                "pass^k": _mean(pass_hat_k(a, b, k) for a, b in zip(n, c, strict=True)),
            }
        )
    table = pd.DataFrame(rows)
    llm_rank = {name: i for i, name in enumerate(order_llms(table["llm"].unique()))}
    category_rank = {name: i for i, name in enumerate(order_categories(table["category"]))}
    table = table.assign(
        _l=table["llm"].map(llm_rank), _c=table["category"].map(category_rank).fillna(np.inf)
    )
    return table.sort_values(["_l", "_c"]).drop(columns=["_l", "_c"]).set_index(["llm", "category"])


def quarantine(results: pd.DataFrame) -> pd.DataFrame:
    """The flaky cases, one row per (case, LLM): where they are and how often they passed."""
    cases = case_runs(results)
    flaky = cases[cases["stability"] == FLAKY]
    columns = ["environment", "llm", "category", "states", "passes", "runs", "case_key"]
    return flaky[columns].reset_index(drop=True)


def _mean(values: Iterable[float]) -> float:
    found = [v for v in values if not math.isnan(v)]
    return float(np.mean(found)) if found else math.nan
