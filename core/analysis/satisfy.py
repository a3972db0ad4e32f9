"""Satisfy errors: how far the answered probabilities are from V(s), under both grading rules.

The grading rule for satisfy is a campaign setting, so both rules are re-applied here to the
stored answers (no LLM is asked): ``absolute`` passes when |p − V(s)| ≤ tolerance, ``half`` when
p and V(s) lie on the same side of ½ (p ≥ ½ ⇔ V(s) ≥ ½). A case's score is the share of passing
repeats, a group's score the mean over its cases (pooled over environments and selections).
Invalid replies pass under neither rule; errors are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from explaincheck.core.analysis.layout import order_llms
from explaincheck.core.analysis.scores import CELL_KEYS, check_columns
from explaincheck.core.taxonomy.base import ERROR, INVALID, PASS

SATISFY = "satisfy"
DEFAULT_TOLERANCE = 0.05
# Float slack so that |0.55 − 0.5| = 0.05000000000000004 still passes a 0.05 tolerance; the same
# as the grader's (taxonomy/satisfy.py), so the stored rule and the recomputed one agree.
SLACK = 1e-12
_PROBABILITY_KEYS = ("probability", "p", "value", "answer", "V")


def as_probability(value: Any) -> float | None:
    """A number from a stored answer or expected value (float, "1/3", {"probability": p})."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | np.integer | np.floating):
        number = float(value)
        return None if np.isnan(number) else number
    if isinstance(value, str):
        try:
            return float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(value, dict):
        for key in _PROBABILITY_KEYS:
            if key in value:
                return as_probability(value[key])
        if len(value) == 1:
            return as_probability(next(iter(value.values())))
    return None


def on_scale(value: float | None, expected: Any) -> float | None:
    """``value`` as a probability, or placed on an expected reward's range (``expected`` holds
    ``range``: satisfy under a reward property)."""
    if value is None or not (isinstance(expected, dict) and "range" in expected):
        return value
    bounds = expected.get("range")
    if not isinstance(bounds, list) or len(bounds) != 2:
        return value
    low, high = (as_probability(b) for b in bounds)
    if low is None or high is None:
        return value
    width = high - low if high > low else 1.0
    return (value - low) / width


def satisfy_executions(results: pd.DataFrame, tolerance: float = DEFAULT_TOLERANCE) -> pd.DataFrame:
    """Satisfy executions (errors dropped) with p, V, abs_error and a pass flag per rule."""
    check_columns(results, ("answer", "expected"))
    rows = results[(results["category"] == SATISFY) & (results["verdict"] != ERROR)].copy()
    answered = [
        None if verdict == INVALID else as_probability(answer)
        for verdict, answer in zip(rows["verdict"], rows["answer"], strict=True)
    ]
    # an expected reward's answer and truth are placed on its range, [lo, hi] -> [0, 1]
    # (method.md §14), so both rules and the mean error read as for a probability
    answered = [
        on_scale(a, e) if a is not None else None
        for a, e in zip(answered, rows["expected"], strict=True)
    ]
    rows["p"] = pd.Series(answered, index=rows.index, dtype=float)
    rows["v"] = pd.Series(
        [on_scale(as_probability(e), e) for e in rows["expected"]], index=rows.index, dtype=float
    )
    stored = (
        pd.to_numeric(rows["abs_error"], errors="coerce")
        if "abs_error" in rows.columns
        else pd.Series(np.nan, index=rows.index)
    )
    # The stored error is authoritative; recompute only where an old row lacks it.
    rows["abs_error"] = stored.fillna((rows["p"] - rows["v"]).abs()).where(rows["p"].notna())
    rows["pass_absolute"] = (rows["abs_error"] <= tolerance + SLACK).astype(float)
    same_side = (rows["p"] >= 0.5) == (rows["v"] >= 0.5)
    rows["pass_half"] = (same_side & rows["p"].notna() & rows["v"].notna()).astype(float)
    rows["pass_stored"] = (rows["verdict"] == PASS).astype(float)
    return rows


def satisfy_errors(
    results: pd.DataFrame,
    tolerance: float = DEFAULT_TOLERANCE,
    by: Sequence[str] = ("llm",),
) -> pd.DataFrame:
    """Per group (default: per LLM): cases, answered, mae, score_absolute, score_half, stored.

    ``mae`` is the mean absolute error over answered executions; ``score_stored`` is the
    score under the rule that graded the run, for comparison.
    """
    rows = satisfy_executions(results, tolerance)
    by = list(by)
    flags = ["pass_absolute", "pass_half", "pass_stored"]
    cases = rows.groupby([*CELL_KEYS, "case_key"], sort=False, as_index=False)[flags].mean()
    scores = cases.groupby(by, sort=False).agg(
        cases=("pass_stored", "size"),
        score_absolute=("pass_absolute", "mean"),
        score_half=("pass_half", "mean"),
        score_stored=("pass_stored", "mean"),
    )
    errors = rows.groupby(by, sort=False).agg(
        answered=("abs_error", "count"), mae=("abs_error", "mean")
    )
    frame = scores.join(errors)
    frame = frame[["cases", "answered", "mae", "score_absolute", "score_half", "score_stored"]]
    if by == ["llm"]:
        return frame.reindex(order_llms(frame.index))
    return frame.sort_index()


def delta_note(campaigns: Sequence[Any]) -> str:
    """Which satisfy δ the campaigns selected with (``--delta``), for Table 1's note; campaigns
    stored before the option existed used the paper's formula."""
    used = sorted(
        {str((c.settings or {}).get("delta") or "paper") for c in campaigns if c.settings}
    )
    if not used:
        return ""
    words = {
        "band": "band (states a constant ½ passes left out, docs/method.md §4, 13)",
        "paper": "paper (1 − 2|V − ½|)",
    }
    return " Satisfy δ: " + "; ".join(words.get(u, u) for u in used) + "."
