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


FACTORS_SCHEMA = {
    "properties": {
        "action": {"enum": ["short", "long"], "type": "string"},
        "factors": {"items": {"enum": ["s", "w", "p", "r", "L"]}, "type": "array"},
    }
}


def factors_expected(action, necessary, strength):
    return {"action": action, "factors": [], "necessary": necessary, "strength": strength}


def test_factors_chance_by_hand():
    """tests/models/factors.prism with factors s, w, p, r, L (60 ordered triples).
    Windy: influence L 10.6, w 10.5, r 10.5, p 0.3, s 0; the passing triples are L first, then
    w and r in either order (tied): 2 of 60; A* = {long}: 1 of 2 actions -> 1/60.
    Calm: w 10.5, L 0.6, p 0.3 strictly ahead of r = s = 0: 1 triple -> 1/120."""
    windy = factors_expected(
        ["long"], ["w", "r", "L"], {"s": 0.0, "w": 0.5, "p": 0.3, "r": 0.5, "L": 0.6}
    )
    assert chance.case_chance(FACTORS_SCHEMA, windy) == pytest.approx(1 / 60)
    calm = factors_expected(["short"], ["w"], {"s": 0.0, "w": 0.5, "p": 0.3, "r": 0.0, "L": 0.6})
    assert chance.case_chance(FACTORS_SCHEMA, calm) == pytest.approx(1 / 120)
    # a tie across the cut: a first, then any two of the three tied b, c, d in any order:
    # 3 sets x 2 orders = 6 of the 4*3*2 = 24 triples; both actions right -> 1/4
    tied = factors_expected(["short", "long"], ["a"], {"a": 0.5, "b": 0.3, "c": 0.3, "d": 0.3})
    assert chance.case_chance(FACTORS_SCHEMA, tied) == pytest.approx(6 / 24)


def test_factors_chance_under_graded_necessity_by_hand():
    """The same model under graded necessity, on one scale for model factors (p, r, L) and
    state factors (s, w) alike, as the prompt defines influence (issue 51.6; before, across
    kinds only membership of the necessary set was compared, which passed 3 of 60). Windy:
    L 0.2, then w and r tied at 0.1 in either order: 2 of 60; half the actions right -> 2/120
    (the judge's own count, in the test below, agrees)."""
    kinds = {"s": "state", "w": "state", "p": "model", "r": "model", "L": "model"}
    windy = {
        "action": ["long"],
        "factors": [],
        "necessary": ["w", "r", "L"],
        "necessity": {"s": -0.4, "w": 0.1, "p": -0.1, "r": 0.1, "L": 0.2},
        "kind": kinds,
        "strength": {"s": 0.0, "w": 0.5, "p": 0.3, "r": 0.5, "L": 0.6},
    }
    assert chance.case_chance(FACTORS_SCHEMA, windy) == pytest.approx(2 / 120)


def test_factors_chance_counts_what_the_judge_passes():
    """Every (action, ordered triple) a random answer can give, graded by the category itself on
    real cases: the share that passes is the chance level."""
    import itertools
    import json
    from pathlib import Path

    from explaincheck.core.campaign.plan import Campaign, plan_campaign
    from explaincheck.core.environments.generic import generic_environment
    from explaincheck.core.taxonomy.base import PASS
    from explaincheck.core.taxonomy.grading import grade_reply

    model = str(Path(__file__).parents[2] / "models" / "factors.prism")
    environment = generic_environment(model, constants="p=0.3,r=0.5")
    campaign = Campaign(
        environment=model, constants="p=0.3,r=0.5", llms=("random",), categories=("factors",)
    )
    plan = plan_campaign(campaign, environment=environment)
    assert len(plan.executions) == 2
    for execution in plan.executions:
        schema = execution.prompt.schema
        actions = schema["properties"]["action"]["enum"]
        ids = schema["properties"]["factors"]["items"]["enum"]
        answers = [
            {"action": a, "factors": list(t)}
            for a in actions
            for t in itertools.permutations(ids, 3)
        ]
        passed = sum(
            grade_reply(execution.case, json.dumps(answer), plan.oracle).verdict == PASS
            for answer in answers
        )
        expected = grade_reply(execution.case, json.dumps(answers[0]), plan.oracle).expected
        assert passed > 0
        assert chance.case_chance(schema, expected) == pytest.approx(passed / len(answers))
        assert passed / len(answers) == pytest.approx(2 / 120)  # the hand count above
