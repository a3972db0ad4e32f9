"""Chance levels from stored schemas and expected answers."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from analysis_data import row

from explaincheck.core.analysis import chance

ACTIONS = {"properties": {"action": {"enum": ["l", "d", "r", "u"], "type": "string"}}}
RANKING = {"properties": {"ranking": {"items": {"enum": ["l", "d", "r", "u"]}, "type": "array"}}}
YES_NO = {"properties": {"answer": {"enum": ["yes", "no"], "type": "string"}}}
PROBABILITY = {"properties": {"probability": {"type": "number", "minimum": 0, "maximum": 1}}}


def test_case_chance_per_answer_form():
    assert chance.case_chance(ACTIONS, {"action": ["l"]}) == 0.25
    assert chance.case_chance(ACTIONS, {"action": ["l", "d", "x"]}) == 0.5  # x is not offered
    assert chance.case_chance(YES_NO, {"answer": "no"}) == 0.5
    assert chance.case_chance(RANKING, {"ranking": [["l", "r"], ["u"], ["d"]]}) == 2 / 24
    assert chance.case_chance(RANKING, {"ranking": [["l"], ["d"], ["r"], ["u"]]}) == 1 / 24
    assert chance.case_chance(PROBABILITY, {"probability": 0.5}) == pytest.approx(0.1)
    assert chance.case_chance(PROBABILITY, {"probability": 0.02}) == pytest.approx(0.07)
    assert chance.case_chance(PROBABILITY, {"probability": 1.0}) == pytest.approx(0.05)
    grading = {"satisfy_rule": "absolute", "satisfy_tolerance": 0.2}
    assert chance.case_chance(PROBABILITY, {"probability": 0.5}, grading) == pytest.approx(0.4)
    assert chance.case_chance(PROBABILITY, {"probability": 0.9}, {"satisfy_rule": "half"}) == 0.5
    for schema, expected in ((None, {"a": 1}), (ACTIONS, None), (ACTIONS, {"other": "l"})):
        assert math.isnan(chance.case_chance(schema, expected))


def test_chance_table_next_to_the_random_scores():
    rows = []
    for llm, verdicts in (("random", ["pass", "fail"]), ("m1", ["pass", "pass"])):
        for i, verdict in enumerate(verdicts):
            expected = {"action": ["l"] if i == 0 else ["l", "d", "r"]}
            for selection in ("prioritized", "random"):
                rows.append(
                    row(
                        "frozen_lake",
                        llm,
                        "best_action",
                        selection,
                        i,
                        verdict,
                        schema=ACTIONS,
                        expected=expected,
                    )
                )
    table = chance.chance_table(pd.DataFrame(rows))
    assert list(table.index) == ["best_action", "all"]
    assert table.loc["best_action", "chance_prioritized"] == pytest.approx((0.25 + 0.75) / 2)
    assert table.loc["best_action", "score_random"] == pytest.approx(0.5)
