"""Cost per execution and the campaign-time estimate."""

from __future__ import annotations

import pandas as pd
import pytest
from analysis_data import FL, P, row

from explaincheck.core.analysis import cost


def _results() -> pd.DataFrame:
    rows = [
        row(FL, "a", "satisfy", P, 0, "pass", latency=2.0, prompt_tokens=100, completion_tokens=10),
        row(FL, "a", "satisfy", P, 1, "fail", latency=4.0, prompt_tokens=300, completion_tokens=20),
        row(FL, "a", "ranking", P, 0, "pass", latency=1.0, prompt_tokens=50, completion_tokens=6),
        # cached and error rows do not count towards the rate
        row(
            FL,
            "a",
            "ranking",
            P,
            1,
            "pass",
            latency=9.0,
            prompt_tokens=1,
            completion_tokens=1,
            cached=True,
        ),
        row(
            FL,
            "a",
            "ranking",
            P,
            2,
            "error",
            latency=None,
            prompt_tokens=None,
            completion_tokens=None,
        ),
        row(FL, "b", "satisfy", P, 0, "pass", latency=0.5, prompt_tokens=100, completion_tokens=5),
    ]
    frame = pd.DataFrame(rows)
    frame["cached"] = frame["cached"].fillna(False)
    return frame


def test_cost_per_llm_and_category():
    table = cost.cost_table(_results())
    satisfy = table.loc[("a", "satisfy")]
    assert satisfy["executions"] == 2
    assert satisfy["seconds_each"] == pytest.approx(3.0)
    assert satisfy["prompt_tokens"] == pytest.approx(200)
    assert satisfy["tokens_per_second"] == pytest.approx(30 / 6)
    overall = table.loc[("a", "all")]
    assert overall["executions"] == 3
    assert overall["seconds_total"] == pytest.approx(7.0)
    assert overall["tokens_per_second"] == pytest.approx(36 / 7)
    assert table.loc[("b", "all"), "seconds_each"] == pytest.approx(0.5)


def test_campaign_time_at_the_measured_rate():
    rates = cost.seconds_per_execution(_results())
    assert rates == pytest.approx({"a": 7 / 3, "b": 0.5})
    side_by_side = cost.campaign_seconds({"a": 30, "b": 100}, rates)
    assert side_by_side == pytest.approx(70.0)  # a: 30 x 7/3 is the slower one
    assert cost.campaign_seconds({"a": 30, "b": 100}, rates, serial=True) == pytest.approx(120.0)
    assert cost.campaign_seconds({"a": 30}, rates, concurrency={"a": 2}) == pytest.approx(35.0)
    with pytest.raises(KeyError):
        cost.campaign_seconds({"c": 1}, rates)
