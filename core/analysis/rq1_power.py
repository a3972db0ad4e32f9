"""How much RQ1's headline test can see on the stored pools, and that it holds its size.

Why: a non-significant headline reads as "prioritisation does not help" unless the test could
have found a real effect. The simulation keeps the stored cases (their δ, their exact chance,
which of them both selections share) and replaces the answers: each simulated LLM knows a case
with probability k(δ) = 0.95 − β·δ, else guesses uniformly (passes with the case's chance).
Cases are shared across LLMs through a common difficulty (a Gaussian copula with correlation
``rho``: the same cases are hard for every LLM), and a case asked under both selections gets
the same answer in both, as a cached reply would. β = 0 is the null (knowledge independent of
δ): the share of rejections is the test's size; β > 0 gives its power.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from explaincheck.core.analysis.layout import is_reference
from explaincheck.core.analysis.prioritization import ALPHA, MIN_UNTIED, corrected_case_scores
from explaincheck.core.analysis.rq1_cells import CELL, CLUSTER, cluster_test, same_case_keys
from explaincheck.core.taxonomy.base import PRIORITIZED

BASE = 0.95  # k(0): how often a simulated LLM knows a case of δ = 0
REPORT_BETA = 0.4  # the effect the report states the power for
REPORT_SIMULATIONS = 200  # in the report (the benchmark runs 1,000)
SHARED = 0.8  # correlation of the case difficulty between simulated LLMs


@dataclass(frozen=True)
class CasePool:
    """The stored cases of the cells with contrast: one row per (cell, selection, case)."""

    cluster: np.ndarray  # index of the (environment, category) cluster
    prioritized: np.ndarray  # bool: the row is under prioritised selection
    case: np.ndarray  # index of the case (the same states under both selections share it)
    delta: np.ndarray
    chance: np.ndarray
    clusters: int
    cases: int

    @property
    def empty(self) -> bool:
        return self.clusters == 0


def case_pool(results: pd.DataFrame, llm: str | None = None) -> CasePool:
    """The cases of one LLM's cells (``llm``; default the first that ran) that both selections
    scored and that do not draw the same cases, with δ and exact chance."""
    cases = corrected_case_scores(results)
    if not cases.empty:
        chosen = llm if llm is not None else str(sorted(cases["llm"].astype(str))[0])
        cases = cases[cases["llm"].astype(str) == chosen]
        same = same_case_keys(results)
        keep = [
            (str(e), str(c), str(m)) not in same for e, c, m in cases[CELL].itertuples(index=False)
        ]
        cases = cases[keep]
        both = cases.groupby(CLUSTER)["selection"].transform("nunique") == 2
        cases = cases[both]
    if cases.empty:
        empty = np.zeros(0)
        return CasePool(
            empty.astype(int), empty.astype(bool), empty.astype(int), empty, empty, 0, 0
        )
    facts = results.drop_duplicates("case_key")[["case_key", "delta", "states"]]
    cases = cases.merge(facts, on="case_key", how="left")
    cluster = cases.groupby(CLUSTER, sort=False).ngroup().to_numpy()
    identity = [
        f"{e}/{c}/{tuple(map(int, s))}"
        for e, c, s in cases[["environment", "category", "states"]].itertuples(index=False)
    ]
    case = pd.factorize(pd.Series(identity))[0]
    return CasePool(
        cluster=cluster,
        prioritized=(cases["selection"] == PRIORITIZED).to_numpy(),
        case=case,
        delta=cases["delta"].to_numpy(float),
        chance=cases["chance"].to_numpy(float),
        clusters=int(cluster.max()) + 1,
        cases=int(case.max()) + 1,
    )


def _differences(pool: CasePool, corrected: np.ndarray) -> np.ndarray:
    """Per cluster: mean corrected score prioritised − random (one simulated LLM)."""
    out = np.zeros(pool.clusters)
    for flag, sign in ((True, 1.0), (False, -1.0)):
        rows = pool.prioritized == flag
        sums = np.bincount(pool.cluster[rows], corrected[rows], pool.clusters)
        counts = np.bincount(pool.cluster[rows], minlength=pool.clusters)
        out += sign * sums / np.maximum(counts, 1)
    return out


def simulate(
    pool: CasePool,
    llms: int = 3,
    beta: float = 0.0,
    simulations: int = 1000,
    rho: float = SHARED,
    seed: int = 0,
) -> dict[str, float]:
    """Share of simulations in which the headline test (cluster means) and the test over
    cells (every LLM's cell a unit, as before) reject at ``ALPHA``."""
    if pool.empty:
        return {"clustered": np.nan, "cells": np.nan}
    rng = np.random.default_rng(seed)
    knows_below = norm.ppf(np.clip(BASE - beta * pool.delta, 1e-9, 1 - 1e-9))
    rejected = {"clustered": 0, "cells": 0}
    for _ in range(simulations):
        shared = rng.standard_normal(pool.cases)
        own = rng.standard_normal((llms, pool.cases))
        guess = rng.random((llms, pool.cases))
        per_llm = []
        for j in range(llms):
            latent = rho * shared + np.sqrt(1 - rho**2) * own[j]
            knows = latent[pool.case] < knows_below
            passed = knows | (guess[j][pool.case] < pool.chance)
            corrected = (passed - pool.chance) / (1 - pool.chance)
            per_llm.append(_differences(pool, corrected))
        table = np.vstack(per_llm)
        p_clustered = cluster_test(table.mean(axis=0), MIN_UNTIED)[1]
        p_cells = cluster_test(table.ravel(), MIN_UNTIED)[1]
        rejected["clustered"] += bool(p_clustered < ALPHA)
        rejected["cells"] += bool(p_cells < ALPHA)
    return {key: count / simulations for key, count in rejected.items()}


def power_sentence(results: pd.DataFrame) -> str:
    """The headline's power for β = ``REPORT_BETA`` on the cells of the answerers under test
    (as many simulated LLMs as there are), in one sentence."""
    under_test = sorted({str(m) for m in results["llm"].unique() if not is_reference(m)})
    if not under_test:
        ran = ", ".join(sorted(map(str, results["llm"].unique()))) or "none"
        return (
            "Power: not simulated, because no answerer under test ran (only reference and"
            f" baseline answerers: {ran})."
        )
    pool = case_pool(results, under_test[0])
    if pool.empty:
        return "Power: no cell with contrast to simulate on."
    power = simulate(pool, llms=len(under_test), beta=REPORT_BETA, simulations=REPORT_SIMULATIONS)[
        "clustered"
    ]
    meaning = (
        "a non-significant result says little"
        if power < 0.8
        else "a non-significant result is evidence against an effect this large"
    )
    return (
        f"Power {power:.2f} for β = {REPORT_BETA:g} on these {pool.clusters} clusters "
        f"({len(under_test)} LLM(s); simulated correctness k(δ) = {BASE:g} − β·δ, else a "
        f"uniform guess, {REPORT_SIMULATIONS} simulations): {meaning}."
    )
