"""Selection and candidate sampling: budgets, class balance, determinism, sampled top δ."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from taxonomy_factory import make_oracle, make_state, toy_oracle

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy import sampling
from explaincheck.core.taxonomy.case_rules import (
    PAPER,
    READING_DELTA,
    SelectionRules,
    is_visible_dead_end,
    reads_as_failure,
)
from explaincheck.core.taxonomy.registry import CATEGORIES, PAPER_CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def mean(values):
    return sum(values) / len(values)


# Every category that applies to the toy model (asked of the category, not listed by id): those
# that need more (factors: the interventions a campaign computes, tested in tests/core/factors;
# the policy categories: a loaded policy, tests/core/policy/test_policy_categories.py; a
# plugin's that the toy does not suit) say so through ``not_applicable``.
APPLICABLE_TO_TOY = [
    c for c, found in CATEGORIES.items() if found.not_applicable(toy_oracle()) is None
]


def test_the_toy_model_serves_the_papers_categories():
    assert set(PAPER_CATEGORIES) <= set(APPLICABLE_TO_TOY)


@pytest.mark.parametrize("category_id", APPLICABLE_TO_TOY)
def test_prioritized_beats_random_and_both_are_reproducible(toy, category_id):
    prioritized = select_cases(toy, category_id, budget=6, selection="prioritized", seed=3)
    chosen = select_cases(toy, category_id, budget=6, selection="random", seed=3)
    assert prioritized and chosen
    assert mean([c.delta for c in prioritized]) >= mean([c.delta for c in chosen])
    assert [c.positive for c in prioritized] == [c.positive for c in chosen]  # same balance
    assert select_cases(toy, category_id, budget=6, selection="random", seed=3) == chosen
    assert all(c.selection == "random" for c in chosen)
    assert len({c.states for c in chosen}) == len(chosen)  # no duplicates
    assert len({c.key for c in prioritized}) == len(prioritized)


def test_budget_larger_than_candidates_and_errors(toy):
    assert len(select_cases(toy, "best_action", budget=100)) == 3  # 0, 1, 6: decided states
    assert select_cases(toy, "best_action", budget=0) == []
    with pytest.raises(ExplaincheckError, match="unknown category"):
        select_cases(toy, "nope")
    with pytest.raises(ExplaincheckError, match="unknown selection"):
        select_cases(toy, "satisfy", selection="best")


def test_seed_changes_tie_breaks_not_deltas(toy):
    by_seed = {
        seed: [c.states for c in select_cases(toy, "satisfy", budget=3, seed=seed)]
        for seed in range(8)
    }
    # state 1 (V = 1/2) lies in satisfy's hedge band: no case; 6 and 7 (V = 0.4, 0.6) tie on δ
    assert all((1,) not in order for order in by_seed.values())
    assert all(set(order[:2]) == {(6,), (7,)} for order in by_seed.values())
    assert {order[0] for order in by_seed.values()} == {(6,), (7,)}  # tie broken both ways
    paper = SelectionRules(delta=PAPER)  # the paper's δ puts V = 1/2 first, whatever the seed
    assert all(
        select_cases(toy, "satisfy", budget=3, seed=seed, rules=paper)[0].states == (1,)
        for seed in range(8)
    )


def random_oracle(count: int, seed: int = 1, bottlenecks: int = 3, dead_ends: int = 5):
    rng = random.Random(seed)
    states = []
    for i in range(count):
        value = 0.0 if 0 < i <= dead_ends else rng.choice(range(1, 400)) / 400
        states.append(
            make_state(
                i,
                {"a": value, "b": value / 2},
                danger=rng.choice(range(100)) / 100,
                initial=i == 0,
                bottleneck=dead_ends < i <= dead_ends + bottlenecks,
                centrality=rng.choice(range(1000)) / 1000,
                # the first two dead ends are live (they move on to state 0), the rest absorbing
                successors={"a": {0: 1.0}, "b": {0: 1.0}} if 0 < i <= 2 else None,
            )
        )
    return make_oracle(states)


def test_pairs_are_sampled_beyond_the_limit_and_keep_the_exact_top():
    oracle = random_oracle(1000)  # 499,500 pairs
    candidates = CATEGORIES["more_promising"].candidates(oracle)
    assert len(candidates) <= sampling.PAIR_TOP + sampling.PAIR_SAMPLE
    assert len({frozenset(c.states) for c in candidates}) == len(candidates)
    values = [s.value for s in oracle.states]
    exact = sorted(
        (
            round(1 - abs(values[a] - values[b]), 12)
            for a, b in combinations(range(1000), 2)
            if values[a] != values[b]
        ),
        reverse=True,
    )
    top = select_cases(oracle, "more_promising", budget=20)
    assert [c.delta for c in top] == exact[:20]
    picked = select_cases(oracle, "more_promising", budget=20, selection="random")
    assert mean([c.delta for c in picked]) < mean([c.delta for c in top])
    assert all(values[a] != values[b] for a, b in (c.states for c in picked))


def test_cross_pairs_are_sampled_beyond_the_limit():
    oracle = random_oracle(1300, bottlenecks=300, dead_ends=0)  # 300 x 999 pairs
    top = select_cases(oracle, "which_bottleneck", budget=10)
    decoys = [s.centrality for s in oracle.states if not s.bottleneck and not s.is_initial]
    assert [c.delta for c in top] == [max(decoys)] * 10
    for c in top:
        assert sum(oracle.state(i).bottleneck for i in c.states) == 1


@pytest.mark.parametrize("category_id", ["subset_bottleneck", "subset_dead_end"])
def test_subsets_are_sampled_and_reach_the_top_delta_per_class(category_id):
    oracle = random_oracle(60)  # C(54..59, 4) > 200,000 subsets
    category = CATEGORIES[category_id]
    candidates = category.candidates(oracle)
    assert len(candidates) < 20_000
    assert all(len(set(c.states)) == 4 for c in candidates)
    pool = category.pool(oracle)
    best_negative = max(category.score(s, oracle) for s in pool if not category.marked(s))
    best_positive = max(category.score(s, oracle) for s in pool)
    if category_id == "subset_dead_end":  # a subset of live dead ends only: δ 1 (method.md §4)
        assert any(category.marked(s) and not is_visible_dead_end(s) for s in pool)
        best_positive = 1.0
        # no negative holds a failure state: the label rule answers each, δ capped at ½
        assert not any(reads_as_failure(s) and not s.dead_end for s in pool)
        best_negative = min(best_negative, READING_DELTA)
    cases = select_cases(oracle, category_id, budget=20)
    assert len(cases) == 20
    for c in cases:
        members = [oracle.state(i) for i in c.states]
        assert c.positive == any(category.marked(s) for s in members)
        assert c.delta == (best_positive if c.positive else best_negative)


def test_selection_does_not_depend_on_hash_randomisation():
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from taxonomy_factory import toy_oracle;"
        "from explaincheck.core.taxonomy.registry import CATEGORIES;"
        "from explaincheck.core.taxonomy.selection import select_cases;"
        "print(json.dumps({c: [x.states for x in select_cases(toy_oracle(), c, 6, s)]"
        " for c in CATEGORIES for s in ('prioritized', 'random')}))"
    )
    here = str(Path(__file__).parent)
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script, here],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())


def test_satisfy_says_why_a_model_in_the_hedge_band_has_no_case():
    """Every non-goal state at V = 0.45..0.55: a constant ½ passes each, so the band rule asks
    none and the plan's skip line says why; the paper's δ still asks them."""
    states = [
        make_state(0, {"a": 0.5, "b": 0.45}, initial=True),
        make_state(1, {"a": 0.55}),
        make_state(2, goal=True),
    ]
    oracle = make_oracle(states)
    satisfy = CATEGORIES["satisfy"]
    assert select_cases(oracle, "satisfy", budget=4) == []
    reason = satisfy.no_case_reason(oracle, SelectionRules())
    assert reason.startswith("every candidate state has V within 0.05 of 1/2")
    paper = SelectionRules(delta=PAPER)
    assert len(select_cases(oracle, "satisfy", budget=4, rules=paper)) == 2
    assert satisfy.no_case_reason(oracle, paper) == "no candidate test case"
