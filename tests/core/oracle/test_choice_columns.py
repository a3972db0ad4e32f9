"""A*, A° and do-nothing rows as columns (``choices.py``) say what ``group_actions`` says state by
state: random Q with ties, near ties chained within the tolerance, unlabelled rows, states of one,
two and many labelled choices."""

from __future__ import annotations

import numpy as np
import pytest

from explaincheck.core.oracle.choices import tie_groups
from explaincheck.core.oracle.columnar import group_actions

TOLERANCE = 1e-9


def _tied(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE


@pytest.mark.parametrize("seed", range(40))
def test_the_columns_are_the_tie_groups_state_by_state(seed):
    rng = np.random.default_rng(seed)
    states = int(rng.integers(1, 30))
    counts = rng.integers(0, 6, size=states)
    first_row = np.concatenate([[0], np.cumsum(counts)])
    rows = int(first_row[-1])
    codes = np.where(rng.random(rows) < 0.15, -1, rng.integers(0, 8, size=rows))
    levels = np.array([0.5, 0.5 + 0.6e-9, 0.5 + 1.2e-9, 0.25, 0.9])  # a chain of near ties
    q = np.where(rng.random(rows) < 0.5, levels[rng.integers(0, 5, size=rows)], rng.random(rows))
    best, worst = tie_groups(first_row, codes, q, TOLERANCE)
    for state in range(states):
        rows_here = [r for r in range(first_row[state], first_row[state + 1]) if codes[r] >= 0]
        names = [f"r{r}" for r in rows_here]
        order = group_actions(names, [q[r] for r in rows_here], _tied)
        expected_best = set(order[0]) if order else set()
        expected_worst = set(order[-1]) if order else set()
        assert {f"r{r}" for r in rows_here if best[r]} == expected_best
        assert {f"r{r}" for r in rows_here if worst[r]} == expected_worst
    assert not (best[codes < 0].any() or worst[codes < 0].any())
