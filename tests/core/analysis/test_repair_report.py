"""The repair judgement on hand-made pairs: better / worse / no change with the exact one-sided
p each way and Holm over the categories and the overall line; the base's flaky share only when
the base ran with repeats."""

from __future__ import annotations

import pandas as pd
import pytest

from explaincheck.core.analysis.compare import compare_campaigns
from explaincheck.core.analysis.repair_report import BETTER, NO_CHANGE, WORSE, judge


def side(plan: dict[str, list[list[str]]], llm: str = "x") -> pd.DataFrame:
    """``plan``: category -> per case, one verdict per repeat (case i has state i)."""
    rows = []
    for category, cases in plan.items():
        for i, verdicts in enumerate(cases):
            for repeat, verdict in enumerate(verdicts):
                rows.append(
                    {
                        "environment": "e",
                        "model_hash": "h",
                        "llm": llm,
                        "category": category,
                        "selection": "prioritized",
                        "case_key": f"{category}/prioritized/{i}/{i}",
                        "states": [i],
                        "repeat": repeat,
                        "verdict": verdict,
                    }
                )
    return pd.DataFrame(rows)


def test_a_gain_on_ten_of_ten_is_better_and_a_drop_is_worse():
    base = side({"satisfy": [["fail"]] * 10, "ranking": [["pass"]] * 8})
    new = side({"satisfy": [["pass"]] * 10, "ranking": [["fail"]] * 8})
    judged = judge("held_out", compare_campaigns(base, new, "x", "x"), base)
    satisfy, ranking, overall = judged.lines
    assert satisfy.p_better == pytest.approx(0.5**10)
    # Holm over satisfy, ranking and all (18 discordant pairs: 10 one way, 8 the other)
    assert satisfy.p_better_holm == pytest.approx(3 * 0.5**10)
    assert (satisfy.verdict, ranking.verdict) == (BETTER, WORSE)
    assert ranking.p_better == 1.0 and overall.verdict in (NO_CHANGE, BETTER)
    assert satisfy.flaky_share is None and satisfy.beyond_flaky is None  # asked once


def test_the_flaky_share_comes_from_the_base_s_repeats():
    base = side(
        {"satisfy": [["pass", "fail"], ["fail", "fail"], ["fail", "fail"], ["fail", "fail"]]}
    )
    new = side({"satisfy": [["pass", "pass"]] * 4})
    judged = judge("held_out", compare_campaigns(base, new, "x", "x"), base)
    satisfy = judged.lines[0]
    assert satisfy.flaky_share == pytest.approx(1 / 4)  # one of four cases disagrees
    assert satisfy.difference == pytest.approx(1 - 1 / 8) and satisfy.beyond_flaky is True
    assert judged.as_dict()["categories"][0]["flaky_share"] == pytest.approx(0.25)
