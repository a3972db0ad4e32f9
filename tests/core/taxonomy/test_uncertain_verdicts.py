"""Verdicts respect the oracle's intervals (issue 33.8): a verdict that could flip inside them is
``uncertain``; one the intervals decide stays pass or fail; the exact method never says it."""

from __future__ import annotations

from explaincheck.core.taxonomy.base import (
    FAIL,
    INVALID,
    PASS,
    UNCERTAIN,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.grading import grade_reply
from tests.core.taxonomy.taxonomy_factory import make_oracle, make_state


def case(category_id, *states):
    return TestCase(category_id, tuple(states), 0.0, "prioritized", 0)


def choice_oracle(v1, i1, v2, i2, *, bounded=True, tie_tolerance=0.0, v3=0.1):
    """State 0 chooses among a (to state 1), b (to state 2) and c (to state 3, clearly worst);
    states 1-3 are plain states whose V and intervals are given."""
    root = make_state(
        0,
        {"a": v1, "b": v2, "c": v3},
        initial=True,
        exact=not bounded,
        tie_tolerance=tie_tolerance,
        successors={"a": {1: 1.0}, "b": {2: 1.0}, "c": {3: 1.0}},
        value_interval=(max(v1, v2) - 0.01, max(v1, v2) + 0.01),
    )
    leaves = [
        make_state(1, value=v1, exact=not bounded, value_interval=i1),
        make_state(2, value=v2, exact=not bounded, value_interval=i2),
        make_state(3, value=v3, exact=not bounded, value_interval=(v3, v3)),
    ]
    return make_oracle([root, *leaves], bounded=bounded, tie_tolerance=tie_tolerance)


def best(oracle, action):
    return grade_reply(case("best_action", 0), f'{{"action": "{action}"}}', oracle)


def test_best_action_within_the_widths_is_uncertain():
    oracle = choice_oracle(0.5, (0.49, 0.51), 0.505, (0.50, 0.51))
    assert best(oracle, "b").verdict == UNCERTAIN  # passes on the floats, may not be optimal
    assert best(oracle, "a").verdict == UNCERTAIN  # fails on the floats, may be optimal
    grade = best(oracle, "b")
    assert "Q(b) - Q(a) in [-0.01, 0.02]" in grade.reason and grade.expected == {"action": ["b"]}
    assert best(oracle, "c").verdict == FAIL  # clearly worse than both: decided


def test_best_action_outside_the_widths_is_graded_as_before():
    oracle = choice_oracle(0.3, (0.29, 0.31), 0.5, (0.49, 0.51))
    assert best(oracle, "b").verdict == PASS
    assert best(oracle, "a").verdict == FAIL
    worst = grade_reply(case("worst_action", 0), '{"action": "c"}', oracle)
    assert worst.verdict == PASS
    assert grade_reply(case("worst_action", 0), '{"action": "a"}', oracle).verdict == FAIL


def test_the_exact_method_is_never_uncertain():
    oracle = choice_oracle(0.5, (0.49, 0.51), 0.505, (0.50, 0.51), bounded=False)
    assert best(oracle, "b").verdict == PASS and best(oracle, "a").verdict == FAIL


def test_identical_outcomes_tie_exactly_however_wide_the_intervals():
    # a and b lead to the same distribution: Q(a) - Q(b) = 0 for every V, a certain tie
    root = make_state(
        0,
        {"a": 0.5, "b": 0.5, "c": 0.1},
        exact=False,
        successors={"a": {1: 0.5, 2: 0.5}, "b": {2: 0.5, 1: 0.5}, "c": {3: 1.0}},
        value_interval=(0.4, 0.6),
    )
    leaves = [
        make_state(1, value=0.2, exact=False, value_interval=(0.0, 0.4)),
        make_state(2, value=0.8, exact=False, value_interval=(0.6, 1.0)),
        make_state(3, value=0.1, exact=False, value_interval=(0.1, 0.1)),
    ]
    oracle = make_oracle([root, *leaves], bounded=True)
    assert best(oracle, "a").verdict == PASS and best(oracle, "b").verdict == PASS
    ranking = grade_reply(case("ranking", 0), '{"ranking": ["b", "a", "c"]}', oracle)
    assert ranking.verdict == PASS


def test_the_intervals_overrule_a_tie_tolerance_they_separate():
    # the floats differ by 5e-10 < the tie tolerance, yet the (point) intervals separate them
    v2 = 0.5 + 5e-10
    oracle = choice_oracle(0.5, (0.5, 0.5), v2, (v2, v2), tie_tolerance=1e-9)
    grade = best(oracle, "a")
    assert grade.verdict == FAIL and "the intervals decide fail" in grade.reason
    assert best(oracle, "b").verdict == PASS


def test_ranking_uncertain_only_where_the_order_is_within_the_widths():
    close = choice_oracle(0.5, (0.49, 0.51), 0.505, (0.50, 0.51))
    reply = '{"ranking": ["b", "a", "c"]}'
    assert grade_reply(case("ranking", 0), reply, close).verdict == UNCERTAIN
    wrong = '{"ranking": ["c", "b", "a"]}'  # c before both: wrong for every V
    assert grade_reply(case("ranking", 0), wrong, close).verdict == FAIL
    apart = choice_oracle(0.3, (0.29, 0.31), 0.5, (0.49, 0.51))
    assert grade_reply(case("ranking", 0), reply, apart).verdict == PASS
    assert grade_reply(case("ranking", 0), '{"ranking": ["a", "b", "c"]}', apart).verdict == FAIL


def satisfy_oracle(value, bounds):
    state = make_state(0, {"a": value, "b": 0.0}, exact=False, value_interval=bounds)
    goal = make_state(1, goal=True, exact=False, value_interval=(1.0, 1.0))
    return make_oracle([state, goal], bounded=True)


def satisfy(oracle, p, settings=None):
    return grade_reply(case("satisfy", 0), f'{{"probability": {p}}}', oracle, settings)


def test_satisfy_decided_only_when_the_band_holds_for_every_value():
    wide = satisfy_oracle(0.5, (0.44, 0.56))
    assert satisfy(wide, 0.5).verdict == UNCERTAIN  # |p - V| <= 0.05 for V in [.45, .55] only
    narrow = satisfy_oracle(0.5, (0.46, 0.54))
    assert satisfy(narrow, 0.5).verdict == PASS
    assert satisfy(narrow, 0.7).verdict == FAIL
    edge = satisfy_oracle(0.55, (0.52, 0.56))
    grade = satisfy(edge, 0.58)  # error 0.03 on the floats, 0.06 at V = 0.52
    assert grade.verdict == UNCERTAIN and grade.abs_error is not None
    assert abs(grade.abs_error - 0.03) < 1e-12  # the error is still kept


def test_satisfy_half_rule_uncertain_when_the_interval_straddles_one_half():
    half = GradingSettings(satisfy_rule="half")
    assert satisfy(satisfy_oracle(0.51, (0.49, 0.53)), 0.9, half).verdict == UNCERTAIN
    assert satisfy(satisfy_oracle(0.6, (0.55, 0.65)), 0.9, half).verdict == PASS
    assert satisfy(satisfy_oracle(0.6, (0.55, 0.65)), 0.1, half).verdict == FAIL


def pair_oracle(i1, i2, d1=None, d2=None):
    v1, v2 = sum(i1) / 2, sum(i2) / 2
    root = make_state(0, {"a": 0.5}, exact=False, value_interval=(0.5, 0.5), danger=0.5)
    first = make_state(
        1,
        {"a": v1},
        value=v1,
        danger=d1 and sum(d1) / 2,
        exact=False,
        value_interval=i1,
        danger_interval=d1,
    )
    second = make_state(
        2,
        {"a": v2},
        value=v2,
        danger=d2 and sum(d2) / 2,
        exact=False,
        value_interval=i2,
        danger_interval=d2,
    )
    return make_oracle([root, first, second], bounded=True, tie_tolerance=1e-9)


def test_pairs_uncertain_when_the_intervals_overlap():
    close = pair_oracle((0.40, 0.50), (0.45, 0.60))
    for answer in ("K", "L"):
        reply = f'{{"state": "{answer}"}}'
        assert grade_reply(case("more_promising", 1, 2), reply, close).verdict == UNCERTAIN
    apart = pair_oracle((0.40, 0.44), (0.45, 0.60))
    assert grade_reply(case("more_promising", 1, 2), '{"state": "L"}', apart).verdict == PASS
    assert grade_reply(case("more_promising", 1, 2), '{"state": "K"}', apart).verdict == FAIL


def test_safer_reads_the_danger_intervals():
    close = pair_oracle((0.1, 0.2), (0.5, 0.6), d1=(0.30, 0.40), d2=(0.35, 0.45))
    assert grade_reply(case("safer", 1, 2), '{"state": "K"}', close).verdict == UNCERTAIN
    apart = pair_oracle((0.4, 0.5), (0.45, 0.6), d1=(0.30, 0.34), d2=(0.35, 0.45))
    assert grade_reply(case("safer", 1, 2), '{"state": "K"}', apart).verdict == PASS
    assert grade_reply(case("safer", 1, 2), '{"state": "L"}', apart).verdict == FAIL


def test_graph_facts_and_unreadable_replies_are_never_uncertain():
    oracle = choice_oracle(0.5, (0.0, 1.0), 0.505, (0.0, 1.0))
    bottleneck = grade_reply(case("bottleneck", 1), '{"answer": "no"}', oracle)
    assert bottleneck.verdict == PASS
    assert best(oracle, "nothing").verdict == INVALID
