"""Per-category scores (the paper's Table 1) from a results frame (one row per execution).

Scoring rules (docs/method.md): a case's score is the share of its passing repeats; a cell's score
(environment × LLM × category × selection) is the mean over its cases. ``invalid`` counts as not
passed and its share is reported apart; ``error`` (no reply) and ``uncertain`` (a verdict the
oracle's intervals cannot decide) are left out of every score and counted instead. A category
without any row for an environment is not applicable there ("–").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from explaincheck.core.analysis.layout import (
    AVERAGE,
    NOT_APPLICABLE,
    dimension_label,
    dimension_of,
    order_categories,
    order_environments,
    order_llms,
)
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import (
    ERROR,
    INVALID,
    PASS,
    PRIORITIZED,
    RANDOM,
    UNCERTAIN,
    UNSCORED,
)

CELL_KEYS = ["environment", "llm", "category", "selection"]
REQUIRED_COLUMNS = [*CELL_KEYS, "case_key", "verdict"]
SELECTIONS = (PRIORITIZED, RANDOM)
ALL_ERRORS = "err"  # a side that ran but got no reply at all
PRECISION = 12  # scores are rounded to this many decimals before comparing them
SMALL_CELL = 6  # cells with fewer scored cases are marked (†): their score is a rough estimate
SMALL_MARK = "†"
DEGENERATE_MARK = "‡"  # the category measures nothing on that model (case_quality)
CONFIDENCE = 0.95


def check_columns(results: pd.DataFrame, extra: tuple[str, ...] = ()) -> None:
    """Fail with one readable line when a frame lacks the store's columns (e.g. an old db)."""
    missing = [c for c in (*REQUIRED_COLUMNS, *extra) if c not in results.columns]
    if missing:
        raise ExplaincheckError(f"results lack column(s): {', '.join(missing)}")


def selections_present(results: pd.DataFrame) -> list[str]:
    """The selections that ran, prioritized first (decides "p/r" versus a single number)."""
    present = set(results["selection"].unique()) if len(results) else set()
    return [s for s in SELECTIONS if s in present]


def case_scores(results: pd.DataFrame) -> pd.DataFrame:
    """One row per case: share of passing and of invalid repeats, errors and uncertain verdicts
    left out."""
    check_columns(results)
    keys = [*CELL_KEYS, "case_key"]
    scored = results.loc[~results["verdict"].isin(UNSCORED), [*keys, "verdict"]]
    scored = scored.assign(
        passed=(scored["verdict"] == PASS).astype(float),
        invalid=(scored["verdict"] == INVALID).astype(float),
    )
    cases = scored.groupby(keys, sort=False, as_index=False).agg(
        score=("passed", "mean"), invalid_share=("invalid", "mean"), repeats=("passed", "size")
    )
    return cases.reset_index(drop=True)


def cell_scores(results: pd.DataFrame) -> pd.DataFrame:
    """One row per environment × LLM × category × selection that has any execution.

    Columns: score and invalid_share (NaN when no execution was scored), cases (scored
    cases, the k of a balanced category), ci_low and ci_high (the 95% Wilson interval of the
    score over its cases: how far the score could be from the explainer's true pass rate with
    so few cases), executions, errors and uncertain (counts of rows).
    """
    check_columns(results)
    cases = case_scores(results)
    per_cell = cases.groupby(CELL_KEYS, sort=False).agg(
        score=("score", "mean"),
        invalid_share=("invalid_share", "mean"),
        cases=("score", "size"),
        passed=("score", "sum"),
    )
    low, high = wilson_interval(per_cell["passed"], per_cell["cases"])
    per_cell = per_cell.assign(ci_low=low, ci_high=high).drop(columns="passed")
    counts = results.groupby(CELL_KEYS, sort=False).agg(
        executions=("verdict", "size"),
        errors=("verdict", lambda v: int((v == ERROR).sum())),
        uncertain=("verdict", lambda v: int((v == UNCERTAIN).sum())),
    )
    cells = counts.join(per_cell, how="left").reset_index()
    cells["cases"] = cells["cases"].fillna(0).astype(int)
    if "degenerate" in results.columns:  # why the cell measures nothing ("": it measures)
        why = results.groupby(CELL_KEYS, sort=False)["degenerate"].agg(lambda v: max(map(str, v)))
        cells["degenerate"] = why.reindex(pd.MultiIndex.from_frame(cells[CELL_KEYS])).to_numpy()
    fallback = _store_dimensions(results)
    cells.insert(3, "dimension", [dimension_of(c, fallback.get(c)) for c in cells["category"]])
    return cells[
        [
            *CELL_KEYS[:3],
            "dimension",
            "selection",
            "score",
            "invalid_share",
            "cases",
            "ci_low",
            "ci_high",
            "executions",
            "errors",
            "uncertain",
            *(["degenerate"] if "degenerate" in cells.columns else []),
        ]
    ]


def cells_for(
    results: pd.DataFrame, cells: pd.DataFrame | None = None, exclude: Iterable[str] = ()
) -> pd.DataFrame:
    """``cell_scores`` of the rows of LLMs not in ``exclude``: taken from ``cells`` (the cell
    scores of all of ``results``) when a caller computed them already, so that a report scores
    its cells once however many tables it makes of them."""
    left_out = list(exclude)
    if cells is None:
        return cell_scores(results[~results["llm"].isin(left_out)] if left_out else results)
    if not left_out:
        return cells
    return cells[~cells["llm"].isin(left_out)].reset_index(drop=True)


def wilson_interval(passed: pd.Series, cases: pd.Series) -> tuple[pd.Series, pd.Series]:
    """95% Wilson score interval of passed/cases (statsmodels). A case's score may be a share of
    repeats, so ``passed`` may be fractional; Wilson's formula takes it as it is."""
    low, high = proportion_confint(passed, cases, alpha=1 - CONFIDENCE, method="wilson")
    return pd.Series(low, index=passed.index), pd.Series(high, index=passed.index)


def average_scores(cells: pd.DataFrame) -> pd.DataFrame:
    """Per environment × LLM × selection: unweighted mean over the scored categories (Avg.),
    the cells that measure nothing (``counted`` false: degenerate, docs/method.md §4) left
    out."""
    scored = cells.dropna(subset=["score"])
    if "counted" in scored.columns:
        scored = scored[scored["counted"].astype(bool)]
    return scored.groupby(["environment", "llm", "selection"], sort=False, as_index=False).agg(
        score=("score", "mean"),
        invalid_share=("invalid_share", "mean"),
        categories=("score", "size"),
    )


def applicability(results: pd.DataFrame) -> set[tuple[str, str]]:
    """(environment, category) pairs that have rows: the rest is "–" (not applicable)."""
    return _pairs(results, "environment", "category")


def score_matrix(
    results: pd.DataFrame, selection: str | None = None, cells: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Numeric Table 1: index (environment, llm), columns categories + average.

    ``selection=None`` averages the selections that scored (the heatmap's colour); NaN marks
    not applicable or unscored cells; ``cells``: ``cell_scores(results)`` if computed already.
    """
    cells = cells_for(results, cells)
    averages = average_scores(cells).assign(category=AVERAGE)
    both = pd.concat([cells[[*CELL_KEYS, "score"]], averages[[*CELL_KEYS, "score"]]])
    if selection is not None:
        both = both[both["selection"] == selection]
    values = both.groupby(["environment", "llm", "category"])["score"].mean()
    rows = _row_index(results)
    columns = [*table_categories(results), AVERAGE]
    matrix = values.unstack("category") if len(values) else pd.DataFrame(index=rows)
    return matrix.reindex(index=rows, columns=columns).astype(float)


def table1(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 1 as text: "prioritised/random" when both ran, "–" where not applicable; a side
    scored on fewer than ``SMALL_CELL`` cases carries ``SMALL_MARK``."""
    cells = cells_for(results, cells)
    averages = average_scores(cells)
    why = cells["degenerate"] if "degenerate" in cells.columns else [""] * len(cells)
    shown = [
        _marked(s, n, str(w)) for s, n, w in zip(cells["score"], cells["cases"], why, strict=True)
    ]
    marked = cells.assign(shown=shown)
    return _text_table(results, marked, averages, "shown", str, average_fmt=_two_decimals)


def interval_table(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 1 with the evidence behind each side: "score [low, high] n=cases" (95% Wilson)."""
    cells = cells_for(results, cells)
    why = cells["degenerate"] if "degenerate" in cells.columns else [""] * len(cells)
    shown = [
        _with_interval(s, lo, hi, n, str(w))
        for s, lo, hi, n, w in zip(
            cells["score"], cells["ci_low"], cells["ci_high"], cells["cases"], why, strict=True
        )
    ]
    totals = cells.groupby(["environment", "llm", "selection"], as_index=False)["cases"].sum()
    totals["shown"] = [f"n={int(n)}" for n in totals["cases"]]
    return _text_table(results, cells.assign(shown=shown), totals, "shown", str, last="total")


def _marked(score: float, cases: int, degenerate: str = "") -> float | str:
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return score
    small = SMALL_MARK if cases < SMALL_CELL else ""
    return f"{score:.2f}{small}{DEGENERATE_MARK if degenerate else ''}"


def _with_interval(
    score: float, low: float, high: float, cases: int, degenerate: str = ""
) -> float | str:
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return score
    mark = (SMALL_MARK if cases < SMALL_CELL else "") + (DEGENERATE_MARK if degenerate else "")
    return f"{score:.2f} [{low:.2f}, {high:.2f}] n={cases}{mark}"


def invalid_table(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Share of invalid (unparseable) replies per cell, laid out like Table 1."""
    cells = cells_for(results, cells)
    averages = average_scores(cells)
    return _text_table(results, cells, averages, "invalid_share", _two_decimals)


def cases_table(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Number of scored cases per cell (the k of the balanced categories), like Table 1."""
    cells = cells_for(results, cells)
    totals = cells.groupby(["environment", "llm", "selection"], as_index=False)["cases"].sum()
    return _text_table(results, cells, totals, "cases", lambda v: str(int(v)), last="total")


def harder_mask(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """True where the prioritised score is lower than the random one (bold in the paper)."""
    cells = cells_for(results, cells)
    prioritized = score_matrix(results, PRIORITIZED, cells).round(PRECISION)
    random = score_matrix(results, RANDOM, cells).round(PRECISION)
    mask = (prioritized < random).fillna(False).astype(bool)
    mask.columns = _columns(results, table_categories(results))
    return mask


def execution_counts(results: pd.DataFrame) -> pd.DataFrame:
    """Per environment × LLM: executions by verdict, the invalid share, and the errors and
    uncertain verdicts excluded."""
    check_columns(results)
    verdicts = pd.crosstab([results["environment"], results["llm"]], results["verdict"])
    counts = pd.DataFrame(index=verdicts.index)
    for verdict in (PASS, "fail", INVALID, ERROR, UNCERTAIN):
        counts[verdict] = verdicts.get(verdict, 0)
    counts.insert(0, "executions", verdicts.sum(axis=1))
    scored = counts["executions"] - counts[ERROR] - counts[UNCERTAIN]
    counts["invalid_share"] = (counts[INVALID] / scored.where(scored > 0)).astype(float)
    counts = counts.rename(columns={ERROR: "errors", INVALID: "invalid", PASS: "pass"})
    return counts.reindex(_row_index(results))


def _text_table(
    results: pd.DataFrame,
    cells: pd.DataFrame,
    averages: pd.DataFrame,
    value: str,
    fmt: Callable[[float], str],
    last: str = AVERAGE,
    average_fmt: Callable[[float], str] | None = None,
) -> pd.DataFrame:
    """Lay a long per-cell frame out as Table 1 text (rows environment × LLM); the last column
    comes from ``averages`` (its ``value`` column, else its score, shown by ``average_fmt``)."""
    average_fmt = average_fmt or fmt
    selections = selections_present(results)
    applicable = applicability(results)
    categories = table_categories(results)
    lookup = {
        tuple(row[:4]): (row[4], row[5])
        for row in cells[[*CELL_KEYS, value, "errors"]].itertuples(index=False)
    }
    average_column = value if value in averages.columns else "score"
    avg = {
        tuple(row[:3]): row[3]
        for row in averages[["environment", "llm", "selection", average_column]].itertuples(
            index=False
        )
    }
    rows = _row_index(results)
    data = []
    for environment, llm in rows:
        line = []
        for category in categories:
            if (environment, category) not in applicable:
                line.append(NOT_APPLICABLE)
                continue
            parts = []
            for selection in selections:
                found = lookup.get((environment, llm, category, selection))
                parts.append(_side(found, fmt))
            line.append("/".join(parts))
        sides = [avg.get((environment, llm, s)) for s in selections]
        line.append("/".join(_side(None if v is None else (v, 0), average_fmt) for v in sides))
        data.append(line)
    columns = _columns(results, categories, last)
    return pd.DataFrame(data, index=rows, columns=columns, dtype=object)


def _side(found: tuple[float, int] | None, fmt: Callable[[float], str]) -> str:
    """One selection's part of a cell: the value, "err" if every execution failed, "–"."""
    if found is None:
        return NOT_APPLICABLE
    value, errors = found
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ALL_ERRORS if errors else NOT_APPLICABLE
    return fmt(value)


def _two_decimals(value: float) -> str:
    return f"{value:.2f}"


def table_categories(results: pd.DataFrame) -> list[str]:
    """The categories of ``results`` in Table 1 order, grouped by dimension (the store's for a
    category not registered here)."""
    return order_categories(results["category"], _store_dimensions(results))


def _columns(results: pd.DataFrame, categories: list[str], last: str = AVERAGE) -> pd.MultiIndex:
    fallback = _store_dimensions(results)
    tuples = [(dimension_label(dimension_of(c, fallback.get(c))), c) for c in categories]
    return pd.MultiIndex.from_tuples([*tuples, ("", last)], names=["dimension", "category"])


def _row_index(results: pd.DataFrame) -> pd.MultiIndex:
    """Environment × LLM pairs that ran, in the fixed layout order."""
    pairs = _pairs(results, "environment", "llm")
    ordered = [
        (environment, llm)
        for environment in order_environments(e for e, _ in pairs)
        for llm in order_llms(m for e, m in pairs if e == environment)
    ]
    if not ordered:
        return pd.MultiIndex.from_arrays([[], []], names=["environment", "llm"])
    return pd.MultiIndex.from_tuples(ordered, names=["environment", "llm"])


def _pairs(results: pd.DataFrame, first: str, second: str) -> set[tuple[str, str]]:
    """The distinct (first, second) values, de-duplicated by pandas before Python sees them
    (iterating 10,000 Arrow-backed strings in Python took half of the Report tab's time)."""
    distinct = results[[first, second]].drop_duplicates()
    return set(zip(distinct[first], distinct[second], strict=True))


def _store_dimensions(results: pd.DataFrame) -> dict[str, str]:
    """The store's own dimension per category, used only for categories unknown here."""
    if "dimension" not in results.columns or not len(results):
        return {}
    pairs = results[["category", "dimension"]].dropna().drop_duplicates("category")
    return dict(zip(pairs["category"], pairs["dimension"], strict=True))
