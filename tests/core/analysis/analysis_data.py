"""Hand-made results for the analysis tests: every expected number is worked out by hand here.

Dataset ``small_results`` (two environments, two LLMs, both selections):

frozen_lake / m1
  satisfy  prioritized: c0 [pass, fail] 0.5, c1 [pass, pass] 1.0, c2 [invalid, error] 0.0
           -> score (0.5+1+0)/3 = 0.5, invalid share 1/3, 3 cases, 6 executions, 1 error
  satisfy  random:      c0 [pass], c1 [pass] -> 1.0
  bottleneck prioritized: fail, pass, pass, fail -> 0.5
  bottleneck random:      pass, pass, fail -> 2/3
  average: prioritized (0.5+0.5)/2 = 0.5, random (1+2/3)/2 = 5/6
frozen_lake / random
  satisfy 0.5 / 0.0, bottleneck 0.5 / 0.5 (tie), average 0.5 / 0.25
water_jug / m1 (bottleneck not applicable: no rows)
  satisfy prioritized: pass, fail, fail, fail -> 0.25; random: one case, error only -> "err"
water_jug / random
  satisfy prioritized: pass -> 1.0; random: fail, pass -> 0.5
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from explaincheck.core.analysis.layout import dimension_of

FL, WJ = "frozen_lake", "water_jug"
P, R = "prioritized", "random"


def row(
    environment: str,
    llm: str,
    category: str,
    selection: str,
    case: int,
    verdict: str,
    repeat: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    """One execution in the shape of ``store.results_frame``."""
    base = {
        "environment": environment,
        "llm": llm,
        "category": category,
        "dimension": dimension_of(category, "mode"),  # as the store writes it
        "selection": selection,
        "repeat": repeat,
        "case_key": f"{category}/{selection}/{case}/{case}",
        "states": [case],
        "delta": 0.1 * case,
        "prompt": "Is this state a bottleneck?",
        "reply": '{"answer": "yes"}' if verdict != "error" else None,
        "thinking": "",
        "answer": None,
        "expected": None,
        "verdict": verdict,
        "reason": "hand-made",
        "abs_error": None,
        "latency": 0.01,
    }
    base.update(extra)
    return base


def cell(
    environment: str, llm: str, category: str, selection: str, verdicts: list[str]
) -> list[dict[str, Any]]:
    """One case per verdict (no repeats)."""
    return [row(environment, llm, category, selection, i, v) for i, v in enumerate(verdicts)]


def small_rows() -> list[dict[str, Any]]:
    rows = [
        row(FL, "m1", "satisfy", P, 0, "pass", 0),
        row(FL, "m1", "satisfy", P, 0, "fail", 1),
        row(FL, "m1", "satisfy", P, 1, "pass", 0),
        row(FL, "m1", "satisfy", P, 1, "pass", 1),
        row(FL, "m1", "satisfy", P, 2, "invalid", 0, reply="<script>alert(1)</script>"),
        row(FL, "m1", "satisfy", P, 2, "error", 1),
    ]
    rows += cell(FL, "m1", "satisfy", R, ["pass", "pass"])
    rows += cell(FL, "m1", "bottleneck", P, ["fail", "pass", "pass", "fail"])
    rows += cell(FL, "m1", "bottleneck", R, ["pass", "pass", "fail"])
    rows += cell(FL, "random", "satisfy", P, ["fail", "pass"])
    rows += cell(FL, "random", "satisfy", R, ["fail", "fail"])
    rows += cell(FL, "random", "bottleneck", P, ["pass", "fail"])
    rows += cell(FL, "random", "bottleneck", R, ["pass", "fail"])
    rows += cell(WJ, "m1", "satisfy", P, ["pass", "fail", "fail", "fail"])
    rows += cell(WJ, "m1", "satisfy", R, ["error"])
    rows += cell(WJ, "random", "satisfy", P, ["pass"])
    rows += cell(WJ, "random", "satisfy", R, ["fail", "pass"])
    return rows


def small_results() -> pd.DataFrame:
    return pd.DataFrame(small_rows())


# Wilcoxon data set: one LLM, three environments × three categories, 4 cases per cell; the
# scores are passes / 4. (prioritized passes, random passes) per cell:
PAIRS = {
    ("e1", "satisfy"): (1, 3),
    ("e1", "bottleneck"): (2, 4),
    ("e1", "best_action"): (0, 1),
    ("e2", "satisfy"): (3, 2),
    ("e2", "bottleneck"): (1, 4),
    ("e2", "best_action"): (2, 2),
    ("e3", "satisfy"): (0, 2),
    ("e3", "bottleneck"): (4, 4),
    ("e3", "best_action"): (1, 3),
}


def passes(n: int) -> list[str]:
    return ["pass"] * n + ["fail"] * (4 - n)


def wilcoxon_results(with_oracle: bool = True) -> pd.DataFrame:
    rows = []
    for (environment, category), (p, r) in PAIRS.items():
        rows += cell(environment, "m1", category, P, passes(p))
        rows += cell(environment, "m1", category, R, passes(r))
        if with_oracle:  # the oracle ties everywhere and must not enter RQ1
            rows += cell(environment, "oracle", category, P, passes(4))
            rows += cell(environment, "oracle", category, R, passes(4))
    return pd.DataFrame(rows)


def satisfy_results() -> pd.DataFrame:
    """Satisfy answers for the two grading rules (see test_analysis_satisfy)."""

    def answered(llm, case, verdict, p, v, repeat=0, abs_error="auto", dicts=False):
        error = abs(p - v) if abs_error == "auto" else abs_error
        answer = {"probability": p} if dicts else p
        expected = {"probability": v} if dicts else v
        return row(
            FL,
            llm,
            "satisfy",
            P,
            case,
            verdict,
            repeat,
            answer=answer,
            expected=expected,
            abs_error=error,
        )

    rows = [
        answered("A", 0, "pass", 0.52, 0.50),
        answered("A", 1, "fail", 0.40, 0.55),
        answered("A", 2, "fail", 0.10, 0.30),
        row(FL, "A", "satisfy", P, 3, "invalid", expected=0.7),
        row(FL, "A", "satisfy", P, 4, "error", expected=0.7),
        answered("A", 5, "pass", 0.55, 0.50),  # |0.55 - 0.5| = 0.05000000000000004
        answered("B", 0, "fail", 0.9, 0.8, repeat=0, dicts=True),
        answered("B", 0, "pass", 0.82, 0.8, repeat=1, abs_error=None, dicts=True),
        row(FL, "B", "bottleneck", P, 0, "pass"),  # other categories are ignored
    ]
    return pd.DataFrame(rows)
