"""Each category on the hand-built toy oracle: δ, selected cases, expected answer and verdicts.

The numbers of the toy model are listed in ``taxonomy_factory.toy_oracle``.
"""

from __future__ import annotations

import json

import pytest
from taxonomy_factory import make_oracle, make_state

from explaincheck.core.taxonomy.base import (
    EXPLANATION,
    FAIL,
    INVALID,
    MODE,
    PASS,
    PREFERENCE,
    SCOPE,
    STATE,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.case_rules import PAPER, SelectionRules
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def deltas(oracle, category_id):
    return {c.states: c.delta for c in CATEGORIES[category_id].candidates(oracle)}


def case(category_id, *states):
    return TestCase(category_id, tuple(states), 0.0, "prioritized", 0)


def verdict(oracle, category_id, states, reply, settings=None):
    return grade_reply(case(category_id, *states), reply, oracle, settings)


def test_registry_ids_and_dimensions():
    # the paper's categories keep their dimensions; a new category adds to the registry only
    paper = {
        "satisfy": STATE,
        "bottleneck": STATE,
        "best_action": PREFERENCE,
        "worst_action": PREFERENCE,
        "ranking": PREFERENCE,
        "subset_bottleneck": SCOPE,
        "subset_dead_end": SCOPE,
        "more_promising": MODE,
        "safer": MODE,
        "which_bottleneck": MODE,
        "factors": EXPLANATION,
    }
    assert paper.items() <= {cid: c.dimension for cid, c in CATEGORIES.items()}.items()
    assert all(c.id == cid and c.title for cid, c in CATEGORIES.items())
    binary = {cid for cid, c in CATEGORIES.items() if c.binary}
    assert binary & set(paper) == {"bottleneck", "subset_bottleneck", "subset_dead_end"}


def test_the_paper_categories_are_registered_in_table_1_order():
    from explaincheck.core.taxonomy.registry import PAPER_CATEGORIES

    registered = [c for c in CATEGORIES if c in PAPER_CATEGORIES]
    assert registered == list(PAPER_CATEGORIES) and len(PAPER_CATEGORIES) == 10
    assert {CATEGORIES[c].dimension for c in PAPER_CATEGORIES} == {STATE, PREFERENCE, SCOPE, MODE}


# --- satisfy ---------------------------------------------------------------------------------


def test_satisfy_delta_and_selection(toy):
    assert deltas(toy, "satisfy") == {
        (0,): 0.5,
        (1,): 1.0,
        (2,): 0.0,
        (3,): 0.0,
        (4,): 0.0,
        (6,): 0.8,
        (7,): 0.8,
    }  # the goal state 5 is no candidate; these are the paper's δ (``--delta paper``)
    paper = select_cases(toy, "satisfy", budget=4, rules=SelectionRules(delta=PAPER))
    assert [c.states for c in paper[:1]] == [(1,)]
    assert {c.states for c in paper[1:3]} == {(6,), (7,)}
    assert paper[3].states == (0,)
    assert [c.index for c in paper] == [0, 1, 2, 3]
    # the default band δ: state 1 (V = ½, a hedge of ½ passes it) is no case; 6 and 7
    # (|V − ½| = 0.1) get 1 − 0.05/0.45, state 0 (0.25) 1 − 0.2/0.45
    cases = select_cases(toy, "satisfy", budget=4)
    assert (1,) not in [c.states for c in cases]
    assert {c.states for c in cases[:2]} == {(6,), (7,)} and cases[2].states == (0,)
    assert cases[0].delta == pytest.approx(1 - 0.05 / 0.45)
    assert cases[2].delta == pytest.approx(1 - 0.2 / 0.45)


@pytest.mark.parametrize(
    ("reply", "expected_verdict", "error"),
    [
        ('{"probability": 0.5}', PASS, 0.0),
        ('{"probability": 0.54}', PASS, 0.04),
        ('{"probability": 0.55}', PASS, 0.05),  # the tolerance itself passes
        ('{"probability": 0.56}', FAIL, 0.06),
        ('{"probability": "70%"}', FAIL, 0.2),
        ('{"probability": "45%"}', PASS, 0.05),
        ('{"probability": 1.5}', INVALID, None),
        ("I cannot say.", INVALID, None),
    ],
)
def test_satisfy_absolute_rule(toy, reply, expected_verdict, error):
    grade = verdict(toy, "satisfy", (1,), reply)
    assert grade.verdict == expected_verdict
    assert grade.expected == {"probability": 0.5}
    if error is None:
        assert grade.abs_error is None and grade.answer is None
    else:
        assert grade.abs_error == pytest.approx(error)


def test_satisfy_half_rule_keeps_error(toy):
    half = GradingSettings(satisfy_rule="half")
    # V(1) = 0.5 counts as the upper side; V(6) = 0.4 the lower side.
    assert verdict(toy, "satisfy", (1,), '{"probability": 0.9}', half).verdict == PASS
    assert verdict(toy, "satisfy", (1,), '{"probability": 0.49}', half).verdict == FAIL
    grade = verdict(toy, "satisfy", (6,), '{"probability": 0.1}', half)
    assert grade.verdict == PASS and grade.abs_error == pytest.approx(0.3)
    assert verdict(toy, "satisfy", (6,), '{"probability": 0.5}', half).verdict == FAIL
    tight = GradingSettings(satisfy_tolerance=0.01)
    assert verdict(toy, "satisfy", (6,), '{"probability": 0.42}', tight).verdict == FAIL


# --- bottleneck ------------------------------------------------------------------------------


def test_bottleneck_delta_and_balanced_selection(toy):
    # Initial state 0 and goal 5 are no candidates; δ = C_B.
    assert deltas(toy, "bottleneck") == {
        (1,): 0.2,
        (2,): 0.6,
        (3,): 0.1,
        (4,): 0.0,
        (6,): 0.5,
        (7,): 0.4,
    }
    cases = select_cases(toy, "bottleneck", budget=20)  # k = min(10, 2 positives, 4 negatives)
    assert [(c.states, c.positive) for c in cases] == [
        ((2,), True),
        ((6,), False),
        ((7,), True),
        ((1,), False),
    ]
    assert [c.states for c in select_cases(toy, "bottleneck", budget=3)] == [(2,), (6,)]
    assert select_cases(toy, "bottleneck", budget=1) == []


def test_bottleneck_verdicts(toy):
    assert verdict(toy, "bottleneck", (2,), '{"answer": "yes"}').verdict == PASS
    assert verdict(toy, "bottleneck", (2,), '{"answer": "no"}').verdict == FAIL
    assert verdict(toy, "bottleneck", (6,), '{"answer": "No"}').verdict == PASS
    assert verdict(toy, "bottleneck", (6,), '{"answer": true}').verdict == FAIL
    grade = verdict(toy, "bottleneck", (6,), '{"answer": "maybe"}')
    assert grade.verdict == INVALID and "maybe" in grade.reason
    assert grade.expected == {"answer": "no"}


def test_bottleneck_not_applicable_without_bottlenecks():
    oracle = make_oracle(
        [make_state(0, {"a": 0.5, "b": 0.2}, initial=True), make_state(1, {"a": 0.3})]
    )
    for cid in ("bottleneck", "subset_bottleneck", "which_bottleneck"):
        assert "no bottleneck" in CATEGORIES[cid].not_applicable(oracle)
        assert select_cases(oracle, cid) == []


# --- best / worst action ---------------------------------------------------------------------


def test_best_action_delta_expected_and_verdicts(toy):
    # State 7 has one action and goal 5 none: no preference cases; 2 and 3 have only tied
    # actions, so any answer passes there: no case either (docs/method.md §4).
    assert deltas(toy, "best_action") == {
        (0,): 0.666666666667,
        (1,): 0.5,
        (6,): 0.666666666667,
    }
    assert [c.states for c in select_cases(toy, "best_action", budget=3)][2] == (1,)
    grade = verdict(toy, "best_action", (0,), '{"action": "right"}')
    assert grade.verdict == PASS and grade.expected == {"action": ["right"]}
    assert verdict(toy, "best_action", (0,), '{"action": "stay"}').verdict == FAIL
    # tied optimal actions: either passes
    assert verdict(toy, "best_action", (2,), '{"action": "wait"}').verdict == PASS
    assert verdict(toy, "best_action", (2,), '{"action": " GO "}').verdict == PASS
    grade = verdict(toy, "best_action", (0,), '{"action": "jump"}')
    assert grade.verdict == INVALID and "jump" in grade.reason


def test_worst_action_delta_expected_and_verdicts(toy):
    assert deltas(toy, "worst_action") == {
        (0,): 0.333333333333,
        (1,): 0.5,
        (6,): 0.666666666667,
    }
    assert [c.states for c in select_cases(toy, "worst_action", budget=2)] == [(6,), (1,)]
    grade = verdict(toy, "worst_action", (0,), '{"action": "stay"}')
    assert grade.verdict == PASS and grade.expected == {"action": ["left", "stay"]}
    assert verdict(toy, "worst_action", (0,), '{"action": "left"}').verdict == PASS  # tied
    assert verdict(toy, "worst_action", (0,), '{"action": "right"}').verdict == FAIL
    assert verdict(toy, "worst_action", (6,), "```json\n{}\n```").verdict == INVALID


# --- ranking ---------------------------------------------------------------------------------


def test_ranking_delta_uses_gaps_between_distinct_values(toy):
    # 1 − the smallest gap between adjacent tie groups; states whose actions all tie (2: go = wait,
    # 3: a = b) are no ranking case, since every order passes there (docs/method.md)
    assert deltas(toy, "ranking") == {
        (0,): 0.75,  # right .75 > left = stay .5: one gap of .25 between the two groups
        (1,): 0.75,
        (6,): 0.9,  # gaps 0.1 and 0.2
    }
    chosen = [c.states for c in select_cases(toy, "ranking", budget=5)]
    assert chosen[0] == (6,) and sorted(chosen[1:]) == [(0,), (1,)]


def test_ranking_not_applicable_when_every_state_ties():
    tied = make_oracle(
        [make_state(0, {"go": 0.5, "wait": 0.5}, initial=True), make_state(1, goal=True)]
    )
    assert CATEGORIES["ranking"].not_applicable(tied) == (
        "no state outside the goal has two actions of different value (do-nothing actions left out)"
    )
    assert select_cases(tied, "ranking", budget=5) == []


def test_ranking_verdicts(toy):
    def rank(states, order):
        return verdict(toy, "ranking", states, json.dumps({"ranking": order}))

    grade = rank((0,), ["right", "left", "stay"])
    assert grade.verdict == PASS and grade.expected == {"ranking": [["right"], ["left", "stay"]]}
    assert rank((0,), ["right", "stay", "left"]).verdict == PASS  # tied pair swapped
    wrong = rank((0,), ["left", "right", "stay"])
    assert wrong.verdict == FAIL and "left" in wrong.reason
    assert rank((6,), ["x", "z", "y"]).verdict == FAIL
    # not a permutation: outside the asked form (and the schema), so invalid (method.md §6)
    short = rank((0,), ["right", "left"])
    assert short.verdict == INVALID and "missing stay" in short.reason
    repeated = rank((0,), ["right", "left", "left"])
    assert repeated.verdict == INVALID and "repeated left" in repeated.reason
    assert rank((0,), ["right", "left", "fly"]).verdict == INVALID
    assert verdict(toy, "ranking", (0,), '{"ranking": "right > stay > left"}').verdict == PASS
    assert verdict(toy, "ranking", (0,), '{"ranking": 3}').verdict == INVALID


# --- subsets ---------------------------------------------------------------------------------


def test_subset_bottleneck_candidates_and_verdicts(toy):
    found = deltas(toy, "subset_bottleneck")
    assert len(found) == 15  # all 4-subsets of the 6 non-goal, non-initial states
    negatives = [s for s in found if not {2, 7} & set(s)]
    assert len(negatives) == 1 and set(negatives[0]) == {1, 3, 4, 6}
    assert found[negatives[0]] == 0.5  # max C_B
    cases = select_cases(toy, "subset_bottleneck", budget=20)  # k = 1 (one negative subset)
    assert [c.positive for c in cases] == [True, False]
    assert cases[0].delta == 0.6 and 2 in cases[0].states
    good = grade_reply(cases[0], '{"answer": "yes"}', toy)
    assert good.verdict == PASS and good.expected == {"answer": "yes"}
    assert grade_reply(cases[1], '{"answer": "yes"}', toy).verdict == FAIL
    assert grade_reply(cases[1], "no", toy).verdict == PASS  # a bare answer is readable


def test_subset_dead_end_candidates_and_verdicts(toy):
    found = deltas(toy, "subset_dead_end")
    assert len(found) == 35  # all 4-subsets of the 7 non-goal states
    positives = {s: d for s, d in found.items() if {3, 4} & set(s)}
    assert len(positives) == 30
    # 4 is an absorbing failure (its wording gives it away): δ ½; 3 is a live dead end: δ 1
    assert {s: d for s, d in positives.items() if 4 not in s} == {
        s: 1.0 for s in positives if 4 not in s
    }
    assert sum(4 not in s for s in positives) == 10
    assert {d for s, d in positives.items() if 4 in s} == {0.5}
    # a negative subset holds no failure state (4 is the only one): the label rule answers "no"
    # rightly, so every negative is a reading case too (1 − min V = 0.6 or 0.5, capped at ½)
    negatives = {frozenset(s): d for s, d in found.items() if s not in positives}
    assert negatives == {
        frozenset({1, 2, 6, 7}): 0.5,
        frozenset({0, 2, 6, 7}): 0.5,
        frozenset({0, 1, 6, 7}): 0.5,
        frozenset({0, 1, 2, 6}): 0.5,
        frozenset({0, 1, 2, 7}): 0.5,
    }
    candidates = {c.states: c for c in CATEGORIES["subset_dead_end"].candidates(toy)}
    assert all(c.reading == (not c.positive or 4 in c.states) for c in candidates.values())
    cases = select_cases(toy, "subset_dead_end", budget=10)
    assert [c.positive for c in cases] == [True, False] * 5
    assert [c.delta for c in cases if not c.positive] == [0.5] * 5
    positives_chosen = [c for c in cases if c.positive]
    assert all(4 not in c.states and c.delta == 1.0 for c in positives_chosen)  # live ones first
    assert not any(c.reading for c in positives_chosen)
    assert grade_reply(cases[0], '{"answer": "yes"}', toy).verdict == PASS
    assert grade_reply(cases[1], '{"answer": "no"}', toy).verdict == PASS
    assert grade_reply(cases[1], '{"answer": "yes"}', toy).verdict == FAIL


def test_subset_not_applicable_when_a_class_is_empty():
    states = [make_state(0, {"a": 0.5, "b": 0.2}, initial=True)] + [
        make_state(i, {"a": 0.1 * i}) for i in range(1, 6)
    ]
    oracle = make_oracle(states)  # no dead end
    assert "no dead end" in CATEGORIES["subset_dead_end"].not_applicable(oracle)
    few = make_oracle([*states[:3], make_state(3, {"a": 0.0}), make_state(4, {"a": 0.0})])
    assert "fewer than 4" in CATEGORIES["subset_dead_end"].not_applicable(few)


# --- pairs -----------------------------------------------------------------------------------


def test_more_promising_pairs_delta_and_verdicts(toy):
    found = deltas(toy, "more_promising")
    assert len(found) == 20  # 21 pairs of the 7 non-goal states minus the tied (3, 4)
    assert {frozenset(p) for p in found} >= {frozenset({1, 6}), frozenset({1, 7})}
    assert frozenset({3, 4}) not in {frozenset(p) for p in found}
    assert found[next(p for p in found if set(p) == {0, 7})] == 0.85
    top = select_cases(toy, "more_promising", budget=2)
    assert {frozenset(c.states) for c in top} == {frozenset({1, 6}), frozenset({1, 7})}
    assert all(c.delta == 0.9 for c in top)
    # presentation order decides the letter
    assert verdict(toy, "more_promising", (1, 6), '{"state": "K"}').verdict == PASS
    assert verdict(toy, "more_promising", (6, 1), '{"state": "K"}').verdict == FAIL
    grade = verdict(toy, "more_promising", (6, 1), '{"state": "state l"}')
    assert grade.verdict == PASS and grade.expected == {"state": "L"}
    assert verdict(toy, "more_promising", (6, 1), '{"state": "C"}').verdict == INVALID


def test_safer_pairs_delta_and_verdicts(toy):
    found = deltas(toy, "safer")
    assert frozenset({1, 7}) not in {frozenset(p) for p in found}  # D tied at 0.2
    assert len(found) == 20
    assert found[next(p for p in found if set(p) == {4, 2})] == 0.0
    assert verdict(toy, "safer", (2, 4), '{"state": "K"}').verdict == PASS
    assert verdict(toy, "safer", (4, 2), '{"state": "K"}').verdict == FAIL
    no_danger = make_oracle(list(toy.states), has_danger=False)
    assert "no unsafe label" in CATEGORIES["safer"].not_applicable(no_danger)
    assert select_cases(no_danger, "safer") == []


def test_which_bottleneck_pairs_delta_and_verdicts(toy):
    found = deltas(toy, "which_bottleneck")
    # 2 bottlenecks x 4 decoys (1, 3, 4, 6); δ = C_B(decoy)
    assert {(frozenset(p), d) for p, d in found.items()} == {
        (frozenset({b, decoy}), c_b)
        for b in (2, 7)
        for decoy, c_b in ((1, 0.2), (3, 0.1), (4, 0.0), (6, 0.5))
    }
    top = select_cases(toy, "which_bottleneck", budget=2)
    assert {frozenset(c.states) for c in top} == {frozenset({2, 6}), frozenset({7, 6})}
    assert verdict(toy, "which_bottleneck", (6, 2), '{"state": "L"}').verdict == PASS
    assert verdict(toy, "which_bottleneck", (6, 2), '{"state": "K"}').verdict == FAIL


def test_equal_values_everywhere_is_not_applicable():
    flat = make_oracle(
        [make_state(0, {"a": 0.5, "b": 0.5}, initial=True, danger=0.1), make_state(1, {"a": 0.5})]
    )
    assert "same V" in CATEGORIES["more_promising"].not_applicable(flat)
    assert "same D" in CATEGORIES["safer"].not_applicable(
        make_oracle([make_state(0, {"a": 0.5}, danger=0.1), make_state(1, {"a": 0.2}, danger=0.1)])
    )
