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
undefined (NaN) when n < k. k is the repeat count the cases were asked (``--repeat``: the
distinct repeat numbers of a case's executions), never its run count: a question both
selections drew has 2k runs, and the estimators hold for any n ≥ k. Per LLM and category they
are means over the cases asked k ≥ 2 times; the report's repeats table
(``robustness.repeat_table``) reads the same cases and the same k (``repeated_cases``).

A further version that ``merge --on-conflict keep-both-as-repeats`` kept of a disagreeing
execution (marked ``MERGED_VERSION_OF`` in its options) is a second answer to one request, not
an independent repeat: it is left out of the runs, the repeat count, the stability and the
estimators here (``independent_runs``); the paired comparison's case score counts it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats

from explaincheck.core.analysis.layout import order_categories, order_llms
from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.store.records import MERGED_VERSION_OF
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


def _merged(results: pd.DataFrame) -> np.ndarray:
    """Which executions are versions a merge kept beside a repeat (``MERGED_VERSION_OF``)."""
    if results.empty or "options" not in results.columns:
        return np.zeros(len(results), dtype=bool)
    return np.array(
        [isinstance(o, dict) and MERGED_VERSION_OF in o for o in results["options"]], dtype=bool
    )


def independent_runs(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` without the versions a merge kept beside a repeat (``MERGED_VERSION_OF`` in
    their options): each asked repeat counts once, by the version under its own number."""
    merged = _merged(results)
    return results[~merged] if merged.any() else results


def merged_versions(results: pd.DataFrame) -> int:
    """How many executions ``independent_runs`` leaves out: a reader of per-case counts is
    told that the store holds more answers than the runs it sees."""
    return int(_merged(results).sum())


def case_runs(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (environment, LLM, category, distinct case) with a run: ``runs``,
    ``passes``, ``repeats`` (the repeat count it was asked: the distinct repeat numbers of its
    executions, those without a reply included), ``stability``, and the first ``case_key`` and
    ``states`` (to find the case again). A merge's further versions are not runs
    (``independent_runs``)."""
    results = independent_runs(results)
    if results.empty:
        return pd.DataFrame(columns=[*CASE_KEYS, "runs", "passes", "repeats", "stability"])
    repeat = results["repeat"] if "repeat" in results.columns else pd.Series(0, index=results.index)
    scored = ~results["verdict"].isin(UNSCORED).to_numpy()
    frame = pd.DataFrame(
        {
            "environment": results["environment"].to_numpy(),
            "llm": results["llm"].to_numpy(),
            "category": results["category"].to_numpy(),
            "case": [question_identity(k) for k in results["case_key"]],
            "case_key": results["case_key"].to_numpy(),
            "states": results["states"].to_numpy(),
            "run": scored.astype(int),
            "passed": ((results["verdict"] == PASS).to_numpy() & scored).astype(int),
            "repeat": repeat.fillna(0).to_numpy(int),
        }
    )
    cases = frame.groupby(CASE_KEYS, sort=False, as_index=False).agg(
        runs=("run", "sum"),
        passes=("passed", "sum"),
        repeats=("repeat", "nunique"),
        case_key=("case_key", "first"),
        states=("states", "first"),
    )
    cases = cases[cases["runs"] > 0].reset_index(drop=True)
    cases["runs"] = cases["runs"].astype(int)
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


def repeated_cases(results: pd.DataFrame) -> pd.DataFrame:
    """``case_runs`` of the cases asked k ≥ 2 times (``--repeat k``), with ``k``: the repeat
    count of their cell (LLM and category; the most common one where campaigns differ)."""
    cases = case_runs(results)
    cases = cases[cases["repeats"] >= 2]
    if cases.empty:
        return cases.assign(k=pd.Series(dtype=int))
    k = cases.groupby(["llm", "category"], sort=False)["repeats"].transform(
        lambda r: int(r.mode().max())
    )
    return cases.assign(k=k.astype(int))


def pass_k_estimates(cases: pd.DataFrame) -> dict[str, float]:
    """pass@1, pass@k and pass^k of one cell's ``repeated_cases`` (means over its cases of the
    unbiased estimators at the cell's k; a case with fewer than k runs is left out)."""
    n, c = cases["runs"].to_numpy(int), cases["passes"].to_numpy(int)
    k = int(cases["k"].iat[0])
    return {
        "pass@1": _mean(pass_at_k(a, b, 1) for a, b in zip(n, c, strict=True)),
        "pass@k": _mean(pass_at_k(a, b, k) for a, b in zip(n, c, strict=True)),
        "pass^k": _mean(pass_hat_k(a, b, k) for a, b in zip(n, c, strict=True)),
    }


def pass_k_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category over the cases asked k ≥ 2 times (k the repeat count): cases, the
    flaky share, and pass@1, pass@k and pass^k (``pass_k_estimates``)."""
    cases = repeated_cases(results)
    if cases.empty:
        return pd.DataFrame()
    rows = []
    for (llm, category), group in cases.groupby(["llm", "category"], sort=False):
        rows.append(
            {
                "llm": llm,
                "category": category,
                "cases": len(group),
                "k": int(group["k"].iat[0]),
                "flaky": float((group["stability"] == FLAKY).mean()),
                **pass_k_estimates(group),
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
