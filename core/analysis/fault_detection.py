"""Fault detection with reference explainers whose faults are known (issue 13): the tables.

With real LLMs nobody knows which faults an explainer has, so "prioritised cases are harder"
(RQ1) cannot be told apart from "noisier". The ``flaw:...`` explainers answer from an exactly
known wrong picture of the MDP, so here every failing case is a real, known fault, and the
questions become: which categories catch which flaw (the detection matrix), does δ-prioritised
selection catch more of them than random selection (RQ1 with ground truth), and does ordering
the whole candidate pool by δ bring the failing cases earlier (APFD)?

This module only reads: the runs (and the APFD of each pool) are made by
``core/campaign/fault_runs.py``. The table functions take any results frame, so
``explaincheck report`` shows the same tables for a database holding ``flaw:`` and ``noisy:``
runs; the sections are built with ``analysis/report_parts.py`` (not ``report.py``, which reads
this module: no import circle).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from explaincheck.core.analysis import plots
from explaincheck.core.analysis.chance import row_chances
from explaincheck.core.analysis.layout import order_categories, order_environments
from explaincheck.core.analysis.report_parts import CSV, MARKDOWN, TEXT, Report, Section
from explaincheck.core.analysis.scores import cell_scores
from explaincheck.core.campaign.fault_runs import (
    EXPLAINERS,
    FLAW_PREFIX,
    NOISY_PREFIX,
    FaultDetection,
)
from explaincheck.core.oracle.flawed import DESCRIPTIONS
from explaincheck.core.taxonomy.base import PASS, PRIORITIZED, RANDOM

RAISES, UNCHANGED, LOWERS = "raises", "unchanged", "lowers"


# ---------------------------------------------------------------- tables


def flawed_rows(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["llm"].astype(str).str.startswith(FLAW_PREFIX)]


def fail_rates(results: pd.DataFrame) -> pd.DataFrame:
    """Per flawed explainer × environment × category: fail rate under each selection (1 − score;
    invalid counts as failing) and the mean δ of the failing and the passing selected cases."""
    rows = flawed_rows(results)
    if rows.empty:
        return pd.DataFrame(
            columns=["llm", "environment", "category", PRIORITIZED, RANDOM, "difference"]
        )
    cells = cell_scores(rows).dropna(subset=["score"])
    wide = cells.pivot_table(
        index=["llm", "environment", "category"], columns="selection", values="score", sort=False
    )
    for selection in (PRIORITIZED, RANDOM):
        if selection not in wide.columns:
            wide[selection] = np.nan
    rates = (1.0 - wide[[PRIORITIZED, RANDOM]]).round(12)
    rates.columns.name = None
    rates["difference"] = (rates[PRIORITIZED] - rates[RANDOM]).round(12)
    scored = rows[rows["verdict"] != "error"].assign(fails=rows["verdict"] != PASS)
    keys = ["llm", "environment", "category"]
    failing = scored[scored["fails"]].groupby(keys)["delta"].mean().rename("delta_failing")
    passing = scored[~scored["fails"]].groupby(keys)["delta"].mean().rename("delta_passing")
    rates = rates.join(failing).join(passing)
    rates["one_class"] = scored.groupby(keys).apply(_fails_one_class, include_groups=False)
    if "states" in scored:
        rates["same_cases"] = scored.groupby(keys).apply(_same_cases, include_groups=False)
    else:
        rates["same_cases"] = False
    return _ordered(rates.reset_index())


def _same_cases(rows: pd.DataFrame) -> bool:
    """Whether both selections asked exactly the same cases (the budget covers the pool)."""
    asked = {
        selection: {tuple(states) for states in group["states"]}
        for selection, group in rows.groupby("selection")
    }
    return len(asked) == 2 and asked.get(PRIORITIZED) == asked.get(RANDOM)


def _fails_one_class(rows: pd.DataFrame) -> bool:
    """Whether exactly the cases of one class (yes or no) fail: the picture gives one answer to
    every case of a balanced binary category."""
    if "positive" not in rows or rows["positive"].isna().any():
        return False
    classes = rows.groupby("positive")["fails"].agg(["all", "any"])
    return (
        len(classes) == 2
        and bool(((classes["all"]) | (~classes["any"])).all())
        and bool(classes["all"].sum() == 1)
    )


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    llms = {name: i for i, name in enumerate(_order_explainers(frame["llm"]))}
    envs = {name: i for i, name in enumerate(order_environments(frame["environment"]))}
    cats = {name: i for i, name in enumerate(order_categories(frame["category"]))}
    key = frame["llm"].map(llms) * 10_000 + frame["category"].map(cats) * 100
    key = key + frame["environment"].map(envs)
    return frame.assign(_key=key).sort_values("_key").drop(columns="_key").reset_index(drop=True)


def _order_explainers(present: Iterable[str]) -> list[str]:
    present = list(dict.fromkeys(present))
    known = [e for e in EXPLAINERS if e in present]
    return known + sorted(set(present) - set(known))


def ground_truth_rq1(rates: pd.DataFrame) -> pd.DataFrame:
    """Each comparable cell with its outcome (prioritisation raises, leaves or lowers the fail
    rate) and, where δ does not help, why."""
    cells = rates.dropna(subset=[PRIORITIZED, RANDOM]).copy()
    cells["outcome"] = np.select(
        [cells["difference"] > 0, cells["difference"] < 0], [RAISES, LOWERS], UNCHANGED
    )
    cells["why"] = [_why(row) for row in cells.itertuples(index=False)]
    return cells


def _why(cell: Any) -> str:
    """A short reason when prioritisation does not raise the fail rate."""
    p, r = getattr(cell, PRIORITIZED), getattr(cell, RANDOM)
    if cell.outcome == RAISES:
        return ""
    if p == 0 and r == 0:
        return "no selected case fails: the flaw does not show in this category here"
    if p == 1 and r == 1:
        return "every selected case fails: nothing left to find sooner"
    if cell.same_cases:
        return "the budget covers the whole pool: both selections ask the same cases"
    if cell.one_class:
        return (
            "the picture answers every case alike, so exactly one class fails: balanced "
            "selection fixes the fail rate at 1/2 whatever δ picks"
        )
    failing, passing = cell.delta_failing, cell.delta_passing
    if not (math.isnan(failing) or math.isnan(passing)) and failing < passing:
        return (
            f"the flaw errs on low-δ cases (mean δ {failing:.2f} failing vs {passing:.2f} "
            "passing): δ measures a difficulty this flaw does not share"
        )
    if cell.outcome == UNCHANGED:
        return "the same share fails under both selections"
    return "failing cases are not concentrated at high δ in this pool"


def rq1_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """How many cells prioritisation raises / leaves / lowers the fail rate, overall and per
    explainer."""
    outcomes = [RAISES, UNCHANGED, LOWERS]
    table = pd.crosstab(cells["llm"], cells["outcome"]).reindex(columns=outcomes, fill_value=0)
    table = table.reindex(_order_explainers(table.index))
    table.loc["all"] = table.sum(axis=0)
    table["cells"] = table.sum(axis=1)
    table.index.name = "explainer"
    table.columns.name = None
    return table.astype(int)


def rq1_by_category(cells: pd.DataFrame) -> pd.DataFrame:
    """Per category: the outcome counts and the reasons (with their cell counts, commonest
    first) where δ does not help."""
    rows = []
    for category in order_categories(cells["category"]):
        mine = cells[cells["category"] == category]
        counts = mine["outcome"].value_counts()
        reasons = mine.loc[mine["outcome"] != RAISES, "why"].map(_reason_kind)
        rows.append(
            {
                "category": category,
                RAISES: int(counts.get(RAISES, 0)),
                UNCHANGED: int(counts.get(UNCHANGED, 0)),
                LOWERS: int(counts.get(LOWERS, 0)),
                "why δ does not help (cells)": "; ".join(
                    f"{reason} ({count})" for reason, count in reasons.value_counts().items()
                ),
            }
        )
    return pd.DataFrame(rows).set_index("category")


def _reason_kind(why: str) -> str:
    """The reason without its numbers, so equal reasons can be counted."""
    return why.split(" (")[0].split(":")[0]


def detection_matrix(rates: pd.DataFrame) -> pd.DataFrame:
    """Explainers × categories: fail rate pooled over environments, per selection (columns
    (category, selection)), for the heat map and its table."""
    long = rates.melt(
        id_vars=["llm", "category"],
        value_vars=[PRIORITIZED, RANDOM],
        var_name="selection",
        value_name="fail",
    )
    table = long.pivot_table(
        index="llm", columns=["category", "selection"], values="fail", aggfunc="mean"
    )
    categories = order_categories({c for c, _ in table.columns})
    columns = [(c, s) for c in categories for s in (PRIORITIZED, RANDOM) if (c, s) in table]
    table = table.reindex(index=_order_explainers(table.index), columns=columns)
    table.index.name = "explainer"
    return table


def detection_text(matrix: pd.DataFrame) -> pd.DataFrame:
    """The matrix as "p/r" text cells (fail rates, prioritised/random)."""
    categories = list(dict.fromkeys(c for c, _ in matrix.columns))
    text = pd.DataFrame(index=matrix.index, columns=categories, dtype=object)
    for category in categories:
        for llm in matrix.index:
            p = (
                matrix.at[llm, (category, PRIORITIZED)]
                if (category, PRIORITIZED) in matrix
                else None
            )
            r = matrix.at[llm, (category, RANDOM)] if (category, RANDOM) in matrix else None
            text.at[llm, category] = f"{_two(p)}/{_two(r)}"
    return text


def _two(value: float | None) -> str:
    return (
        "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"
    )


def apfd_table(pools: pd.DataFrame, by: str = "category") -> pd.DataFrame:
    """Mean APFD of the δ order and of the random order per ``by`` (category or llm), over the
    cells where something fails, with the number of such cells."""
    scored = pools.dropna(subset=["apfd_prioritized"])
    table = scored.groupby(by).agg(
        apfd_prioritized=("apfd_prioritized", "mean"),
        apfd_random=("apfd_random", "mean"),
        cells=("apfd_prioritized", "size"),
        failing_share=("failing", "sum"),
    )
    pool_sizes = scored.groupby(by)["pool"].sum()
    table["failing_share"] = table["failing_share"] / pool_sizes
    table["gain"] = table["apfd_prioritized"] - table["apfd_random"]
    order = order_categories(table.index) if by == "category" else _order_explainers(table.index)
    table = table.reindex(order)
    if len(scored):
        table.loc["all"] = [
            scored["apfd_prioritized"].mean(),
            scored["apfd_random"].mean(),
            len(scored),
            scored["failing"].sum() / scored["pool"].sum(),
            scored["apfd_prioritized"].mean() - scored["apfd_random"].mean(),
        ]
    table["cells"] = table["cells"].astype(int)
    return table[["apfd_prioritized", "apfd_random", "gain", "cells", "failing_share"]]


def noisy_share(llm: str) -> float | None:
    """Q of a ``noisy:Q`` spec (None for anything else)."""
    if not str(llm).startswith(NOISY_PREFIX):
        return None
    try:
        return float(str(llm)[len(NOISY_PREFIX) :])
    except ValueError:
        return None


def calibration(results: pd.DataFrame) -> pd.DataFrame:
    """Per Q of the ``noisy:Q`` runs: mean score and mean chance over the scored cells, and the
    expected score Q + (1 − Q) · chance (cell by cell, then averaged)."""
    shares = results["llm"].map(noisy_share)
    rows = results[shares.notna()]
    if rows.empty or "schema" not in rows or "expected" not in rows:
        return pd.DataFrame(columns=["Q", "score", "chance", "expected", "cells"])
    cases = rows.assign(chance=row_chances(rows))
    keys = ["environment", "llm", "category", "selection"]
    chance_cells = cases.groupby(keys, as_index=False)["chance"].mean()
    cells = cell_scores(rows).dropna(subset=["score"]).merge(chance_cells, on=keys)
    cells["Q"] = cells["llm"].map(noisy_share)
    cells["expected"] = cells["Q"] + (1 - cells["Q"]) * cells["chance"]
    table = cells.groupby("Q", as_index=False).agg(
        score=("score", "mean"),
        chance=("chance", "mean"),
        expected=("expected", "mean"),
        cells=("score", "size"),
    )
    table["difference"] = table["score"] - table["expected"]
    return table.set_index("Q")


def equivalent_mutants(pools: pd.DataFrame) -> pd.DataFrame:
    """Flaw × environment pairs whose picture fails no case of any whole candidate pool: no
    test of the taxonomy can tell that explainer from the oracle there (an equivalent mutant,
    in mutation analysis), so it is reported apart and left out of the RQ1 and APFD
    aggregates. Columns: llm, environment, categories (pools checked), cases (their size)."""
    columns = ["llm", "environment", "categories", "cases"]
    if pools is None or pools.empty:
        return pd.DataFrame(columns=columns)
    grouped = pools.groupby(["llm", "environment"], sort=False).agg(
        failing=("failing", "sum"), categories=("category", "nunique"), cases=("pool", "sum")
    )
    found = grouped[grouped["failing"] == 0].reset_index()[columns]
    llms = {name: i for i, name in enumerate(_order_explainers(found["llm"]))}
    envs = {name: i for i, name in enumerate(order_environments(found["environment"]))}
    key = found["llm"].map(llms) * 10_000 + found["environment"].map(envs)
    return found.assign(_key=key).sort_values("_key").drop(columns="_key").reset_index(drop=True)


def without_mutants(frame: pd.DataFrame, mutants: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without the rows of the (llm, environment) pairs in ``mutants``."""
    if mutants.empty or frame.empty:
        return frame
    pairs = set(zip(mutants["llm"], mutants["environment"], strict=True))
    keep = [
        (llm, env) not in pairs for llm, env in zip(frame["llm"], frame["environment"], strict=True)
    ]
    return frame[keep]


# ---------------------------------------------------------------- the report


def fault_sections(results: pd.DataFrame, pools: pd.DataFrame | None = None) -> tuple[list, dict]:
    """(sections, figures) of the fault-detection part of a report: detection matrix, RQ1 with
    ground truth, APFD (when ``pools`` is given) and the noisy:Q calibration curve."""
    sections, figures = [], {}
    mutants = equivalent_mutants(pools) if pools is not None else pd.DataFrame()
    if len(mutants):
        sections.append(
            Section(
                "fault_detection_equivalent",
                "Fault detection — equivalent mutants (left out of every aggregate below)",
                mutants,
                note=(
                    "These flawed explainers fail no case of any category's whole candidate "
                    "pool on that model: no question of the taxonomy can tell them from the "
                    "oracle there, so they say nothing about detection or about δ and are "
                    "left out of the detection matrix, RQ1 with ground truth and APFD."
                ),
            )
        )
        results = without_mutants(results, mutants)
        pools = without_mutants(pools, mutants)
    rates = fail_rates(results)
    if len(rates):
        matrix = detection_matrix(rates)
        figures["detection_matrix"] = plots.detection_heatmap(matrix)
        cells = ground_truth_rq1(rates)
        counts = rq1_counts(cells)
        total = counts.loc["all"]
        sections += [
            Section(
                "fault_detection_matrix",
                "Fault detection — fail rate per flawed explainer and category (prio./random)",
                detection_text(matrix),
                note=(
                    "Each flawed explainer answers from an exactly known wrong picture of the "
                    "MDP, so every failing case is a real fault. Cells: share of failing cases, "
                    "pooled over environments; – = the category never applies. "
                    + _flaw_legend(matrix.index)
                ),
                figure="detection_matrix",
            ),
            Section(
                "fault_detection_rq1",
                "Fault detection — RQ1 with ground truth: does prioritisation raise the fail rate?",
                counts,
                note=(
                    f"Over {int(total['cells'])} (explainer, environment, category) cells, "
                    f"prioritised selection raises the fail rate in {int(total[RAISES])}, leaves "
                    f"it in {int(total[UNCHANGED])} and lowers it in {int(total[LOWERS])}."
                ),
            ),
            Section(
                "fault_detection_rq1_categories",
                "Fault detection — RQ1 per category, and why δ does not help where it does not",
                rq1_by_category(cells),
            ),
            Section(
                "fault_detection_cells",
                "Fault detection — all cells",
                cells,
                formats=frozenset({CSV}),
            ),
        ]
    if pools is not None and len(pools):
        sections += [
            Section(
                "fault_detection_apfd",
                "Fault detection — APFD per category (whole candidate pool)",
                apfd_table(pools, "category"),
                note=(
                    "APFD of the whole candidate pool ordered by δ (prioritised; averaged "
                    "exactly over every order of its δ ties) against the exact expectation of a "
                    "uniformly random order (random: ½ for every pool with a failing case); "
                    "1 = failing cases first, below 0.5 = late. Yes/no categories are ordered "
                    "within each class (balanced selection draws from each), one cell per "
                    "class. Means over the explainer × environment (× class) cells where any "
                    "case fails, equivalent mutants left out; failing_share = failing cases / "
                    "pool."
                ),
            ),
            Section(
                "fault_detection_apfd_explainers",
                "Fault detection — APFD per flawed explainer",
                apfd_table(pools, "llm"),
                formats=frozenset({TEXT, MARKDOWN, CSV}),
            ),
            Section(
                "fault_detection_pools", "Fault detection — pools", pools, formats=frozenset({CSV})
            ),
        ]
    table = calibration(results)
    if len(table) >= 2:
        figures["noisy_calibration"] = plots.calibration_curve(table)
        sections.append(
            Section(
                "noisy_calibration",
                "noisy:Q calibration — score against Q + (1 − Q)·chance",
                table,
                note=(
                    "noisy:Q gives the oracle's answer with probability Q, else a uniform random "
                    "one; its expected score is Q + (1 − Q)·chance (chance from the stored "
                    "schema and expected answer). Means over environment × category × "
                    "selection cells."
                ),
                figure="noisy_calibration",
            )
        )
    return sections, figures


def _flaw_legend(explainers: Iterable[str]) -> str:
    """One clause per flaw kind shown: what its picture believes."""
    kinds = dict.fromkeys(str(e).removeprefix(FLAW_PREFIX).partition(":")[0] for e in explainers)
    return " ".join(f"{kind}: {DESCRIPTIONS[kind]}." for kind in kinds if kind in DESCRIPTIONS)


def fault_report(detection: FaultDetection, environments: Sequence[str]) -> Report:
    """A ``report.Report`` of the fault-detection material (rendered and written like any
    report)."""
    sections, figures = fault_sections(detection.results, detection.pools)
    explainers = ", ".join(_order_explainers(flawed_rows(detection.results)["llm"]))
    summary = (
        f"Fault detection over {len(environments)} environment(s) "
        f"({', '.join(environments)}); budget {detection.budget} per category and selection, "
        f"seed {detection.seed}; flawed explainers: {explainers}."
    )
    return Report(summary=summary, sections=sections, figures=figures)
