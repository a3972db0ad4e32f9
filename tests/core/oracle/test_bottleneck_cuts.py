"""The oracle's bottleneck column (single-state cuts of one unit of flow, scipy only) gives the
dominator tree's set on random graphs, lines, shortcuts, goals in the way and unreachable goals."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_oracle_bottlenecks import line

from explaincheck.core.oracle import bottlenecks
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.storm.structure import Choice, ModelStructure


def column_set(structure: ModelStructure, goal: list[bool]) -> set[int]:
    found = bottlenecks.bottleneck_column(
        choice_arrays(structure), np.array(goal, dtype=bool), structure.initial
    )
    return set(np.flatnonzero(found).tolist())


def random_structure(rng: random.Random, n: int) -> tuple[ModelStructure, list[bool]]:
    """A random MDP of ``n`` states: mostly forward moves (so there are bottlenecks), some
    back edges and self-loops, one to three goal states."""
    choices = []
    for state in range(n):
        state_choices = []
        for action in range(rng.randint(1, 3)):
            width = rng.choice([1, 1, 2, 3])
            targets = {
                min(n - 1, max(0, state + rng.choice([1, 1, 1, 2, -1, 0, 3]))) for _ in range(width)
            }
            share = 1.0 / len(targets)
            state_choices.append(Choice(f"a{action}", dict.fromkeys(targets, share)))
        choices.append(state_choices)
    pool = range(n // 2, n)
    goals = set(rng.sample(pool, rng.randint(1, min(3, len(pool)))))
    structure = ModelStructure(0, [{"i": i} for i in range(n)], [()] * n, choices, ("i",), ())
    return structure, [i in goals for i in range(n)]


@pytest.mark.parametrize("seed", range(60))
def test_the_cuts_are_the_dominators_on_random_graphs(seed):
    rng = random.Random(seed)
    structure, goal = random_structure(rng, rng.randint(3, 40))
    assert column_set(structure, goal) == bottlenecks.by_dominators(structure, goal)


def test_the_cuts_of_lines_shortcuts_and_unreachable_goals():
    assert column_set(*line(5, {4})) == {1, 2, 3}
    assert column_set(*line(5, {4}, extra=[(0, 2)])) == {2, 3}
    assert column_set(*line(5, {2, 4})) == {1}
    assert column_set(*line(5, set())) == set()
    assert column_set(*line(5, {4}, initial=4)) == set()
    assert column_set(*line(5, {0}, initial=2)) == set()
    assert column_set(*line(6, {5}, extra=[(0, 3), (2, 5)])) == set()  # two disjoint ways
