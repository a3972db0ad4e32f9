"""Satisfy errors and both grading rules, recomputed from stored answers only."""

from __future__ import annotations

import pytest
from analysis_data import satisfy_results

from explaincheck.core.analysis import satisfy


def test_as_probability_reads_stored_forms():
    assert satisfy.as_probability(0.25) == 0.25
    assert satisfy.as_probability({"probability": 0.5}) == 0.5
    assert satisfy.as_probability("1/3") == pytest.approx(1 / 3)
    assert satisfy.as_probability({"x": 1}) == 1.0
    for bad in (None, True, "high", [0.5], {"a": 1, "b": 2}, float("nan")):
        assert satisfy.as_probability(bad) is None


def test_satisfy_errors_per_llm():
    table = satisfy.satisfy_errors(satisfy_results())
    assert list(table.index) == ["A", "B"]
    a = table.loc["A"]
    assert (a["cases"], a["answered"]) == (5, 4)  # error left out; invalid is a case, unanswered
    assert a["mae"] == pytest.approx((0.02 + 0.15 + 0.2 + 0.05) / 4)
    assert a["score_absolute"] == pytest.approx(2 / 5)  # 0.52 and 0.55 (boundary) pass
    assert a["score_half"] == pytest.approx(3 / 5)  # 0.52, 0.10 (vs 0.30) and 0.55
    assert a["score_stored"] == pytest.approx(2 / 5)
    b = table.loc["B"]  # one case, two repeats: 0.9 (error 0.1) and 0.82 (0.02, recomputed)
    assert (b["cases"], b["answered"]) == (1, 2)
    assert b["mae"] == pytest.approx(0.06)
    assert b["score_absolute"] == pytest.approx(0.5)
    assert b["score_half"] == pytest.approx(1.0)
    assert b["score_stored"] == pytest.approx(0.5)


def test_satisfy_tolerance_is_a_parameter():
    table = satisfy.satisfy_errors(satisfy_results(), tolerance=0.2)
    assert table.loc["A", "score_absolute"] == pytest.approx(4 / 5)
    assert table.loc["B", "score_absolute"] == pytest.approx(1.0)


def test_satisfy_errors_grouped_by_environment_and_llm():
    table = satisfy.satisfy_errors(satisfy_results(), by=("environment", "llm"))
    assert list(table.index) == [("frozen_lake", "A"), ("frozen_lake", "B")]
