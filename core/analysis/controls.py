"""Negative controls of RQ1: answerers whose correctness does not depend on δ, run directly.

Why: a test of "prioritised cases are harder" is only believable if it comes out
non-significant for answerers that cannot find any case harder: the uniform ``random`` answerer
``noisy:Q`` (the oracle's answer with probability Q, else a guess) and ``hedge`` (½ for a
probability, else a guess: a δ that rewards answers in the middle shows up here). All answer
from the case alone, in microseconds, so their results frame is built here without a runner or a
database (``fault_detection.selected_rows``), for ``benchmarks/rq1_controls.py`` and the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from explaincheck.core.analysis.case_quality import measured
from explaincheck.core.analysis.layout import BASELINE_LLM
from explaincheck.core.analysis.prioritization import wilcoxon_test
from explaincheck.core.backends.hedge_backend import HedgeBackend
from explaincheck.core.backends.noisy_backend import NoisyBackend, parse_share
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.campaign.fault_runs import selected_rows
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import PASS, PRIORITIZED, RANDOM
from explaincheck.core.taxonomy.case_rules import DEFAULT_RULES, SelectionRules
from explaincheck.core.taxonomy.degeneracy import degenerate_categories

HEDGE = "hedge"
CONTROLS: tuple[str, ...] = (BASELINE_LLM, "noisy:0.5", HEDGE)


def control_results(
    environments: Iterable[str],
    llms: Sequence[str] = CONTROLS,
    *,
    budget: int = 10,
    seed: int = 0,
    categories: Iterable[str] | None = None,
    rules: SelectionRules = DEFAULT_RULES,
) -> pd.DataFrame:
    """A results frame (the columns the analysis reads) of ``llms`` (``random``, ``noisy:Q``,
    ``hedge``) on both selections (under ``rules``) of every applicable category of each
    environment (of ``categories`` only, when given), seeded by ``seed``; ``degenerate`` says
    why a row's category measures nothing on that model ("" where it measures), as a
    campaign's plan stores it."""
    rows: list[dict] = []
    for env_id in environments:
        campaign = Campaign(environment=env_id, llms=("oracle",), budget=budget, seed=seed)
        environment = load_environment(campaign)
        truth = oracle_for(campaign, environment)
        answerers: dict[str, RandomBackend | NoisyBackend] = {}
        for spec in llms:
            if spec == BASELINE_LLM:
                answerers[spec] = RandomBackend(truth, environment, seed)
            elif spec == HEDGE:
                answerers[spec] = HedgeBackend(truth, environment, seed)
            elif spec.startswith("noisy:"):
                noisy = NoisyBackend(truth, parse_share(spec.partition(":")[2]), environment, seed)
                answerers[spec] = noisy
            else:
                raise ExplaincheckError(f"{spec}: a negative control is random, noisy:Q or hedge")
        name = environment.id or env_id
        found = selected_rows(name, truth, environment, answerers, budget, seed, rules)
        nothing = degenerate_categories(truth, rules=rules, seed=seed)
        rows += [{**row, "degenerate": nothing.get(row["category"], "")} for row in found]
    if categories is not None:
        kept = set(categories)
        rows = [r for r in rows if r["category"] in kept]
    return pd.DataFrame(rows)


def hedge_satisfy_rates(results: pd.DataFrame) -> pd.DataFrame:
    """Per environment: ``hedge``'s satisfy pass rate under each selection (the share of cases
    whose value a ½ is within tolerance of), and the difference prioritised − random."""
    mine = results[(results["llm"] == HEDGE) & (results["category"] == "satisfy")]
    rates = (
        mine.assign(passed=mine["verdict"] == PASS)
        .pivot_table(index="environment", columns="selection", values="passed", aggfunc="mean")
        .reindex(columns=[PRIORITIZED, RANDOM])
    )
    rates.columns.name = None
    rates["difference"] = rates[PRIORITIZED] - rates[RANDOM]
    return rates.reset_index()


def control_table(
    environments: Sequence[str],
    seeds: Iterable[int],
    *,
    budget: int = 10,
    llms: Sequence[str] = CONTROLS,
    categories: Iterable[str] | None = None,
    rules: SelectionRules = DEFAULT_RULES,
) -> pd.DataFrame:
    """Per seed and control: cells, the corrected test's p and mean difference, and the paper's
    uncorrected p and mean difference (``prioritization.wilcoxon_test`` on that answerer), over
    ``categories`` (default: every applicable one), the cells that measure nothing left out as
    the report's headline leaves them out."""
    rows = []
    for seed in seeds:
        results = control_results(
            environments, llms, budget=budget, seed=seed, categories=categories, rules=rules
        )
        results = measured(results)  # the report's headline leaves degenerate cells out
        for llm in llms:
            others = [m for m in llms if m != llm]
            corrected = wilcoxon_test(results, exclude=others, corrected=True).iloc[0]
            paper = wilcoxon_test(results, exclude=others).iloc[0]
            rows.append(
                {
                    "seed": seed,
                    "control": llm,
                    "cells": int(corrected["cells"]),
                    "corrected_p": corrected["p_value"],
                    "corrected_difference": corrected["mean_difference"],
                    "paper_p": paper["p_value"],
                    "paper_difference": paper["mean_difference"],
                }
            )
    return pd.DataFrame(rows)
