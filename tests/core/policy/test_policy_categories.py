"""The policy categories on Frozen Lake with a loaded policy: offered only with a policy, graded
against the induced chain, balanced, prompts that say what the policy does."""

from __future__ import annotations

import pytest
from policy_helpers import lake_oracle

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.policy.attach import attach
from explaincheck.core.policy.loading import policy_from_callable
from explaincheck.core.taxonomy.base import FAIL, PASS, UNCERTAIN
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.policy_kinds import NO_POLICY
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES, applicability
from explaincheck.core.taxonomy.selection import select_cases

POLICY_CATEGORIES = ("policy_reach", "policy_optimal", "policy_better", "policy_regret")


@pytest.fixture(scope="module")
def mixed():
    """Left-or-down in the top half (often wrong), optimal below."""
    oracle = lake_oracle()
    rule = lambda v: "left:0.5,down:0.5" if v["r"] < 2 else None  # noqa: E731
    return attach(oracle, policy_from_callable(rule, oracle, default="optimal"))


def test_offered_only_with_a_policy(mixed):
    plain = applicability(lake_oracle())
    assert all(plain[c].reason == NO_POLICY for c in POLICY_CATEGORIES)
    loaded = applicability(mixed)
    assert all(loaded[c].applicable for c in POLICY_CATEGORIES)


@pytest.mark.parametrize("category_id", POLICY_CATEGORIES)
def test_oracle_passes_and_prioritised_is_harder(mixed, category_id):
    prioritized = select_cases(mixed, category_id, budget=6, selection="prioritized")
    chosen = select_cases(mixed, category_id, budget=6, selection="random")
    assert prioritized and chosen
    assert sum(c.delta for c in prioritized) >= sum(c.delta for c in chosen)
    answerer = OracleBackend(mixed)
    for case in prioritized + chosen:
        assert grade_reply(case, answerer.reply_text(case), mixed).verdict == PASS


def test_policy_optimal_is_balanced_and_graded_by_regret(mixed):
    cases = select_cases(mixed, "policy_optimal", budget=6)
    assert sorted(c.positive for c in cases) == [False] * 3 + [True] * 3
    chain = mixed.policy
    for case in cases:
        state = chain.state(case.states[0])
        assert case.positive == (state.regret == 0)
        wrong = '{"answer": "no"}' if case.positive else '{"answer": "yes"}'
        assert grade_reply(case, wrong, mixed).verdict == FAIL


def test_policy_reach_is_graded_against_v_pi_not_v_star(mixed):
    case = next(
        c
        for c in select_cases(mixed, "policy_reach", budget=20)
        if abs(mixed.policy.state(c.states[0]).value - mixed.state(c.states[0]).value) > 0.1
    )
    v_star = mixed.state(case.states[0]).value
    assert grade_reply(case, f'{{"probability": {v_star}}}', mixed).verdict == FAIL


def test_prompts_describe_the_policys_choice(mixed):
    environment = load_builtin("frozen_lake")
    pair = select_cases(mixed, "policy_regret", budget=1)[0]
    text = render_prompt(pair, mixed, environment).text
    assert "In state K the policy" in text and "In state L the policy" in text
    single = next(c for c in select_cases(mixed, "policy_optimal", budget=2) if not c.positive)
    assert "the policy chooses left with probability 0.5, down with probability 0.5" in (
        render_prompt(single, mixed, environment).text
    )


def test_optimal_policy_every_is_it_optimal_case_says_yes():
    oracle = lake_oracle()
    optimal = attach(oracle, policy_from_callable(lambda v: None, oracle, default="optimal"))
    found = applicability(optimal)["policy_optimal"]
    assert found.reason == "the policy is optimal in every candidate state (no no-case)"
    candidates = CATEGORIES["policy_optimal"].candidates(optimal)
    assert candidates and all(c.positive for c in candidates)


def test_random_answers_are_readable(mixed):
    answerer = RandomBackend(mixed)
    for category_id in POLICY_CATEGORIES:
        for case in select_cases(mixed, category_id, budget=4):
            assert grade_reply(case, answerer.reply_text(case), mixed).verdict in (PASS, FAIL)


def test_policy_optimal_under_the_verified_method_agrees_or_is_uncertain(mixed):
    """The same policy on Frozen Lake's verified oracle: every reply's verdict is the exact
    oracle's, or uncertain where π's action ties exactly with another (the intervals cannot
    tell an exact tie); never a different decided verdict."""
    verified = lake_oracle("verified")
    rule = lambda v: "left:0.5,down:0.5" if v["r"] < 2 else None  # noqa: E731
    floats = attach(verified, policy_from_callable(rule, verified, default="optimal"))
    assert floats.certificate is not None and floats.certificate.kind == "bounded"
    seen = set()
    for case in select_cases(mixed, "policy_optimal", budget=10):
        for reply in ('{"answer": "yes"}', '{"answer": "no"}'):
            truth = grade_reply(case, reply, mixed).verdict
            bounded = grade_reply(case, reply, floats).verdict
            assert bounded in (truth, UNCERTAIN), case
            seen.add(bounded)
    assert {PASS, FAIL} <= seen
