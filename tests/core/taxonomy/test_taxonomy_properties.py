"""Properties over random small oracles (hypothesis builds OracleResult directly, ties included)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from taxonomy_factory import make_oracle, make_state

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, Category, TestCase
from explaincheck.core.taxonomy.case_rules import PAPER, SelectionRules
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases

ACTION_NAMES = ("north", "south", "east", "west", "Pick_Up")
LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)  # few levels, so ties are common


@st.composite
def oracles(draw):
    count = draw(st.integers(2, 7))
    verified = draw(st.booleans())
    tolerance = 1e-9 if verified else 0.0
    states = []
    for i in range(count):
        goal = i > 0 and draw(st.integers(0, 5)) == 0
        names = st.lists(st.sampled_from(ACTION_NAMES), max_size=4, unique=True)
        actions = [] if goal else draw(names)
        q = {}
        for a in actions:
            noise = draw(st.sampled_from((0.0, 1e-12))) if verified else 0.0
            q[a] = min(1.0, draw(st.sampled_from(LEVELS)) + noise)
        value = None if q else (1.0 if goal else draw(st.sampled_from(LEVELS)))
        states.append(
            make_state(
                i,
                q,
                value=value,
                danger=draw(st.sampled_from(LEVELS)),
                goal=goal,
                initial=i == 0,
                bottleneck=i > 0 and not goal and draw(st.booleans()),
                centrality=draw(st.sampled_from((0.0, 0.1, 0.3, 0.3, 0.9))),
                tie_tolerance=tolerance,
                exact=not verified,
            )
        )
    return make_oracle(states, has_danger=draw(st.booleans()), tie_tolerance=tolerance)


@settings(max_examples=150, deadline=None)
@given(oracles())
def test_oracle_answerer_always_passes_and_random_always_reads(oracle):
    answer_oracle, answer_random = OracleBackend(oracle), RandomBackend(oracle, None, seed=1)
    for category_id, category in CATEGORIES.items():
        reason = category.not_applicable(oracle)
        for selection in ("prioritized", "random"):
            cases = select_cases(oracle, category_id, budget=20, selection=selection)
            if reason is None and not cases and type(category).ruled is not Category.ruled:
                # the category's own selection rule left every candidate out (satisfy's band
                # around ½: a constant ½ passes those states); the paper's δ still asks them
                assert category.candidates(oracle) and not category.ruled(
                    category.candidates(oracle), oracle, SelectionRules()
                )
                paper = SelectionRules(delta=PAPER)
                cases = select_cases(oracle, category_id, 20, selection, rules=paper)
            assert (reason is None) == bool(cases), (category_id, reason)
            for case in cases:
                grade = grade_reply(case, answer_oracle.reply_text(case), oracle)
                assert grade.verdict == PASS, (case, grade)
                assert grade_reply(case, answer_random.reply_text(case), oracle).verdict in (
                    PASS,
                    FAIL,
                )
        if reason is None:
            top = select_cases(oracle, category_id, budget=4)
            drawn = select_cases(oracle, category_id, budget=4, selection="random")
            assert sum(c.delta for c in top) >= sum(c.delta for c in drawn) - 1e-9


@settings(max_examples=150, deadline=None)
@given(oracles(), st.randoms(use_true_random=False))
def test_ranking_swaps(oracle, rng):
    for state in oracle.states:
        if state.is_goal or len(state.q) < 2:
            continue
        case = TestCase("ranking", (state.id,), 0.0, "prioritized", 0)
        right = [a for group in state.action_order for a in group]

        def grade(order, case=case):
            return grade_reply(case, json.dumps({"ranking": order}), oracle).verdict

        assert grade(right) == PASS
        group_of = {a: g for g, members in enumerate(state.action_order) for a in members}
        i, j = sorted(rng.sample(range(len(right)), 2))
        swapped = list(right)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        tied = group_of[right[i]] == group_of[right[j]]
        assert grade(swapped) == (PASS if tied else FAIL)
        assert grade(right[:-1]) == INVALID  # not a permutation: outside the asked form
        assert grade([*right[:-1], "fly"]) == INVALID
