"""A flawed explainer's factor citations come from its own flawed picture, and on
wolf_goat_cabbage ``flaw:determinised`` (each crossing has its most likely outcome: nothing
falls overboard) fails every case where the overboard chances matter unequally, while the
oracle answerer passes every case. (On frozen_lake its picture keeps the ⅓/⅓/⅓ slip: equally
likely outcomes keep equal weight, so there it sees the slip.)"""

from __future__ import annotations

import json

import pytest

from explaincheck.core.backends.flaw_backend import FlawedBackend
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.factors.types import factor_truth
from explaincheck.core.oracle.flawed import parse_flaw
from explaincheck.core.taxonomy.base import FAIL, PASS
from explaincheck.core.taxonomy.grading import grade_reply

OVERBOARD = ("wolf_overboard", "goat_overboard", "cabbage_overboard")


@pytest.fixture(scope="module")
def plan():
    campaign = Campaign(
        environment="wolf_goat_cabbage", llms=("oracle",), categories=("factors",), budget=100
    )
    return plan_campaign(campaign)


@pytest.fixture(scope="module")
def determinised(plan):
    return FlawedBackend(plan.oracle, parse_flaw("determinised"))


def test_the_flawed_picture_has_its_own_factor_truth(plan, determinised):
    truth, own = factor_truth(plan.oracle), factor_truth(determinised.picture)
    assert own is not None and own is not truth
    assert [f.id for f in own.factors] == [f.id for f in truth.factors]  # same schema
    assert set(own.states) == set(truth.states)  # an answer at every case
    # the overboard chances matter somewhere in truth; a picture without falls never sees them
    for factor in OVERBOARD:
        assert any(s.effect(factor).strength > 0 for s in truth.states.values())
        assert all(s.effect(factor).strength == 0 for s in own.states.values())
        assert not any(s.effect(factor).necessary for s in own.states.values())


def test_citations_follow_the_picture_not_the_truth(plan, determinised):
    differ = 0
    for execution in plan.executions:
        case = execution.case
        state = case.states[0]
        cited = json.loads(determinised.reply_text(case))["factors"]
        own = factor_truth(determinised.picture).states[state].influence_order()[:3]
        true = factor_truth(plan.oracle).states[state].influence_order()[:3]
        assert cited == list(own)
        differ += cited != list(true)
    assert differ > 0


def test_oracle_passes_every_case_and_determinised_fails_where_overboard_matters(
    plan, determinised
):
    assert plan.executions
    oracle = OracleBackend(plan.oracle)
    truth = factor_truth(plan.oracle)
    unequal = 0
    for execution in plan.executions:
        case = execution.case
        assert grade_reply(case, oracle.reply_text(case), plan.oracle).verdict == PASS
        grade = grade_reply(case, determinised.reply_text(case), plan.oracle)
        scores = [truth.states[case.states[0]].effect(f).necessity for f in OVERBOARD]
        if max(scores) - min(scores) > 1e-9:
            unequal += 1
            assert grade.verdict == FAIL, grade.reason
    assert unequal > 0
