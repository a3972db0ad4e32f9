"""The k most probable paths to the goal (Storm's ShortestPathsGenerator)."""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.workbench.paths import k_most_probable


def test_frozen_lake_paths_from_the_start(lake):
    request, oracle, transitions = lake
    paths = k_most_probable(request, oracle, oracle.model.initial, 5, transitions)
    assert len(paths) == 5
    probabilities = [p.probability for p in paths]
    assert probabilities == sorted(probabilities, reverse=True)
    for path in paths:
        assert path.states[0] == oracle.model.initial
        assert oracle.state(path.states[-1]).is_goal
        assert not any(oracle.state(s).is_goal for s in path.states[:-1])
        # by hand: the product of P(s' | s, σ*(s)) from the oracle's own successor lists
        product = 1.0
        for a, b in zip(path.states, path.states[1:], strict=False):
            product *= oracle.state(a).successors[oracle.state(a).optimal_action][b]
        assert abs(path.probability - product) < 1e-15
        assert abs(path.probability - float(path.exact)) < 1e-15
    # six moves at the least from corner to corner, each 1/3; staying put at the start is 2/3
    assert len(paths[0].states) == 7 and paths[0].exact == Fraction(1, 3**6)
    assert paths[2].states[:2] == (0, 0) and paths[2].exact == Fraction(2, 3**7)


def test_from_a_goal_neighbour(lake):
    request, oracle, transitions = lake
    paths = k_most_probable(request, oracle, 13, 3, transitions)
    assert paths[0].states == (13, 15) and paths[0].exact == Fraction(1, 3)
