"""Every category asks and grades against the property (issue 49, point 3): the words of each
form, "best" in the property's direction, satisfy as an expected value graded on the value
range, δ normalised by the range, the hedge control left without a case, and the categories
that do not apply saying why. The oracles are exact results of the property's own pieces
(``tests/support/property_oracle.py``), as the one pipeline will assemble them."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import pytest
from support.property_oracle import property_oracle

from explaincheck.core.backends.hedge_backend import HedgeBackend
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle.serialization import to_contract
from explaincheck.core.oracle.types import Certificate
from explaincheck.core.taxonomy.base import PASS, GradingSettings, TestCase
from explaincheck.core.taxonomy.case_rules import SelectionRules
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES, applicability
from explaincheck.core.taxonomy.value_scale import hedge_point, scale_of

FOUR = "tests/models/rewards_four.prism"
START, GOAL, JUNCTION, PIT = 0, 1, 2, 3


@pytest.fixture(scope="module")
def time_min():
    return property_oracle(FOUR, 'R{"time"}min=? [F "goal"]')


@pytest.fixture(scope="module")
def hours():
    """job_shop under its property "hours" (the expected hours until the order ends)."""
    env = load_builtin("job_shop")
    prop = env.worded(env.properties["hours"])
    return env, property_oracle(env.model_path, prop, constants=env.constants)


@pytest.fixture(scope="module")
def deadline():
    """frozen_lake under its property "deadline" (the goal within 20 moves)."""
    env = load_builtin("frozen_lake")
    prop = env.worded(env.properties["deadline"])
    return env, property_oracle(env.model_path, prop, constants=env.constants)


def case(category: str, *states: int) -> TestCase:
    return TestCase(category, tuple(states), 0.5, "prioritized", 0)


def test_each_form_is_said_once_in_the_questions(time_min, hours, deadline):
    question = CATEGORIES["satisfy"].question(case("satisfy", START), time_min)
    assert question == (
        "What is the expected time until reaching the goal from this state, when the agent acts"
        " to make it as small as possible from now on?"
    )
    best = CATEGORIES["best_action"].question(case("best_action", START), time_min)
    assert "the lowest value of the expected time until reaching the goal" in best
    worst = CATEGORIES["worst_action"].question(case("worst_action", START), time_min)
    assert "the highest value of the expected time" in worst
    pair = CATEGORIES["more_promising"].question(case("more_promising", START, JUNCTION), time_min)
    assert "is the expected time until reaching the goal lower" in pair
    _, job = hours
    asked = CATEGORIES["satisfy"].question(case("satisfy", job.model.initial), job)
    assert asked.startswith(
        "What is the expected number of hours until reaching the end of the order (every job"
        " finished, or the deadline reached with work left) from this state"
    )
    _, lake = deadline
    assert "the probability of reaching the goal within the steps left" in CATEGORIES[
        "satisfy"
    ].question(case("satisfy", 0), lake)


def test_pmax_reach_keeps_the_words_of_every_earlier_round():
    reach = property_oracle(FOUR, 'Pmax=? [F "goal"]')
    assert reach.prop.reaches_goal
    assert CATEGORIES["satisfy"].question(case("satisfy", START), reach) == (
        "What is the probability that the goal is eventually reached from this state, "
        "if the agent acts as well as possible from now on?"
    )
    assert "highest probability of eventually reaching the goal" in CATEGORIES[
        "best_action"
    ].question(case("best_action", START), reach)


def test_the_prompt_says_how_the_reward_adds_up_and_the_steps_left(hours, deadline):
    env, job = hours
    plan = plan_campaign(
        Campaign("job_shop", ("oracle",), ("satisfy",), 2, property_text="hours"),
        environment=env,
        oracle=job,
    )
    text = plan.executions[0].prompt.text
    assert "What counts: every hour the machines work counts as one hour" in text
    assert plan.executions[0].prompt.schema["properties"]["value"] == {
        "type": "number",
        "minimum": 0,
    }
    assert '{"value": <a number of 0 or more>}' in text
    lake_env, lake = deadline
    lake_case = next(
        c for c in CATEGORIES["best_action"].candidates(lake) if lake.state(c.states[0]).q
    )
    prompt = render_prompt(
        TestCase("best_action", lake_case.states, 0.5, "prioritized", 0), lake, lake_env
    )
    left = lake.state(lake_case.states[0]).valuation["steps left"]
    assert f"Steps left before the deadline: {left}." in prompt.text


def test_satisfy_asks_an_expected_value_graded_on_the_value_range(time_min):
    satisfy = CATEGORIES["satisfy"]
    assert [c.states for c in satisfy.candidates(time_min)] == [(START,), (JUNCTION,)]  # no ∞
    scale = scale_of(time_min)
    assert (scale.low, scale.high, scale.width) == (0.0, 3.5, 3.5)
    assert satisfy.expected(case("satisfy", START), time_min) == {"value": 3.5, "range": [0, 3.5]}
    tolerance = GradingSettings(satisfy_tolerance=0.05)  # ± 0.05 · 3.5 = 0.175
    near = grade_reply(case("satisfy", START), '{"value": 3.67}', time_min, tolerance)
    far = grade_reply(case("satisfy", START), '{"value": 3.68}', time_min, tolerance)
    assert (near.verdict, far.verdict) == ("pass", "fail")
    assert near.abs_error == pytest.approx(0.17 / 3.5)  # stored on the range, as the rules read
    assert "of the range" in far.reason
    half = GradingSettings(satisfy_rule="half")
    assert grade_reply(case("satisfy", JUNCTION), '{"value": 2}', time_min, half).verdict == PASS
    assert grade_reply(case("satisfy", JUNCTION), '{"value": 1.5}', time_min, half).verdict == (
        "fail"
    )
    assert grade_reply(case("satisfy", START), '{"value": "70%"}', time_min).verdict == "invalid"
    assert grade_reply(case("satisfy", START), '{"value": -1}', time_min).verdict == "invalid"


def test_the_hedge_of_the_mean_passes_no_satisfy_case(hours):
    """A constant answer of the mean of the finite values (the hedge control) is what a
    middle-seeking δ would reward: the band rule leaves every state it passes out of both
    selections, and grades it as failing everywhere else (method.md §14)."""
    _env, job = hours
    point = hedge_point(job)
    satisfy = CATEGORIES["satisfy"]
    found = satisfy.candidates(job)
    kept = satisfy.ruled(found, job, SelectionRules())
    assert 0 < len(kept) < len(found)  # the band around the mean took some states out
    hedge = HedgeBackend(job)
    for candidate in kept:
        asked = TestCase("satisfy", candidate.states, candidate.delta, "prioritized", 0)
        assert json.loads(hedge.reply_text(asked)) == {"value": point}
        assert grade_reply(asked, hedge.reply_text(asked), job).verdict == "fail"
    # the paper's δ (on the range) would have favoured the states near the middle instead
    paper = sorted(found, key=lambda c: -c.delta)[0]
    assert abs(job.state(paper.states[0]).value - (scale_of(job).low + scale_of(job).high) / 2) < (
        0.1 * scale_of(job).width
    )


def test_best_is_the_lowest_expected_time_and_pairs_follow_the_direction(time_min):
    start = time_min.state(START)
    assert start.best == ("safe",) and start.worst == ("fast",)
    assert CATEGORIES["best_action"].oracle_answer(case("best_action", START), time_min) == "safe"
    promising = CATEGORIES["more_promising"]
    assert promising.oracle_answer(case("more_promising", START, JUNCTION), time_min) == "L"
    assert promising.oracle_answer(case("more_promising", JUNCTION, PIT), time_min) == "K"
    pairs = {c.states: c for c in promising.candidates(time_min)}
    close = pairs.get((START, JUNCTION)) or pairs[(JUNCTION, START)]
    assert close.delta == pytest.approx(1 - 1 / 3.5)  # |3.5 − 2.5| of the range 3.5
    to_pit = pairs.get((START, PIT)) or pairs[(PIT, START)]
    assert to_pit.delta == 0.0 and to_pit.gap == 1.0  # a gap to ∞ is the whole range
    facts = promising.facts(case("more_promising", JUNCTION, PIT), time_min)
    assert "∞ (never reaches the goal for sure)" in facts


def test_ranking_delta_is_the_smallest_gap_of_the_range(hours):
    _, job = hours
    ranking = CATEGORIES["ranking"]
    width = scale_of(job).width
    for candidate in ranking.candidates(job)[:20]:
        state = job.state(candidate.states[0])
        values = [state.q[group[0]] for group in state.action_order]
        assert values == sorted(values)  # best first: the lowest expected hours
        gap = min(b - a for a, b in itertools.pairwise(values))
        assert candidate.delta == pytest.approx(1 - gap / width, abs=1e-12)


def test_categories_that_do_not_apply_say_why(time_min):
    avoid = property_oracle(FOUR, 'Pmin=? [F "unsafe"]')
    found = applicability(avoid)
    assert "under a minimal probability the target is what the agent avoids" in str(
        found["bottleneck"].reason
    )
    assert found["which_bottleneck"].reason == found["bottleneck"].reason
    most = property_oracle(FOUR, 'Rmax=? [F "goal" | "unsafe"]')
    assert "no value is a failure" in str(applicability(most)["subset_dead_end"].reason)
    assert "factor truth of" in str(applicability(time_min)["factors"].reason)
    assert not CATEGORIES["factors"].on_request(time_min)


def test_the_oracle_passes_every_case_and_guesses_stay_at_chance(hours, deadline):
    """Every case of every applicable category, both selections: the oracle answerer passes all
    of them; the random answerer passes some and fails some (it is graded, not trusted)."""
    for env, found in (hours, deadline):
        plan = plan_campaign(
            Campaign(env.id, ("oracle",), budget=6, selection="both", property_text="x"),
            environment=env,
            oracle=found,
        )
        oracle, guess = OracleBackend(found), RandomBackend(found)
        verdicts = []
        for execution in plan.executions:
            graded = grade_reply(execution.case, oracle.reply_text(execution.case), found)
            assert graded.verdict == PASS, (execution.case, graded.reason)
            verdicts.append(grade_reply(execution.case, guess.reply_text(execution.case), found))
        assert {"pass", "fail"} <= {g.verdict for g in verdicts}
        assert len({e.case.category for e in plan.executions}) >= 6


def test_oracle_json_is_strict_with_infinite_values(time_min):
    data = to_contract(time_min)
    text = json.dumps(data, allow_nan=False)  # raises on inf or NaN
    pit = data["states"][PIT]
    assert pit["V"] is None and pit["V_infinite"] is True and pit["Q"] == {"wait": None}
    assert pit["Q_infinite"] == ["wait"] and "V_exact" not in pit
    junction = data["states"][JUNCTION]
    assert junction["Q"] == {"risky": None, "slow": 2.5} and junction["Q_infinite"] == ["risky"]
    assert junction["R"] == {"risky": 1.0, "slow": 1.0}
    assert data["model"]["property"] == {
        "text": 'R{"time"}min=? [F "goal"]',
        "kind": "reward",
        "direction": "min",
        "reward": "time",
        "bound": None,
        "target": '"goal"',
        "avoid": None,
        "name": "",
    }
    assert math.isinf(time_min.state(PIT).value) and "Infinity" not in text


def test_intervals_decide_in_the_propertys_direction(time_min):
    """Under the verified method's intervals (``uncertainty``) "best" is still the lowest
    expected time, Q's difference holds the rewards, and satisfy is decided on the range."""
    width = 1e-9
    states = tuple(
        replace(
            s,
            value_interval=None if s.infinite else (s.value - width, s.value + width),
            value_exact=None,
            q_exact={},
        )
        for s in time_min.states
    )
    verified = replace(
        time_min,
        states=states,
        method="verified",
        tie_tolerance=1e-9,
        certificate=Certificate("bounded", "test intervals", 2 * width),
    )
    best = case("best_action", START)
    assert grade_reply(best, '{"action": "safe"}', verified).verdict == PASS
    assert grade_reply(best, '{"action": "fast"}', verified).verdict == "fail"
    worst = case("worst_action", START)
    assert grade_reply(worst, '{"action": "fast"}', verified).verdict == PASS
    ranked = case("ranking", START)
    assert grade_reply(ranked, '{"ranking": ["safe", "fast"]}', verified).verdict == PASS
    assert grade_reply(ranked, '{"ranking": ["fast", "safe"]}', verified).verdict == "fail"
    assert grade_reply(case("satisfy", START), '{"value": 3.6}', verified).verdict == PASS
    edge = 3.5 + 0.05 * 3.5  # on the tolerance's edge: the interval straddles it
    assert grade_reply(case("satisfy", START), f'{{"value": {edge}}}', verified).verdict == (
        "uncertain"
    )
    pair = case("more_promising", START, JUNCTION)
    assert grade_reply(pair, '{"state": "L"}', verified).verdict == PASS
