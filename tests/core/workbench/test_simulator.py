"""The simulator: seeded, reproducible paths whose probability is the product of the steps."""

from __future__ import annotations

from fractions import Fraction

import pytest

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workbench.simulator import Simulation, optimal_chooser, policy_chooser


def _run(lake, seed):
    _, oracle, transitions = lake
    sim = Simulation(oracle, seed=seed, transitions=transitions)
    sim.run(optimal_chooser(oracle), 30, chosen_by="optimal")
    return sim


def test_same_seed_same_path_and_probability_by_hand(lake):
    first, again = _run(lake, 7), _run(lake, 7)
    assert first.path == again.path and len(first.path) > 2
    # by hand: a Frozen Lake move reaches a tile with 1/3 for each way there (2/3 when two
    # of the three ways end on the same tile, e.g. against the edge)
    oracle = first.oracle
    hand = Fraction(1)
    for a, b in zip(first.path, first.path[1:], strict=False):
        action = oracle.state(a).optimal_action
        ways = round(3 * oracle.state(a).successors[action][b])
        hand *= Fraction(ways, 3)
    assert first.exact_probability() == hand
    assert first.probability() == pytest.approx(float(hand), rel=1e-12)
    others = {tuple(_run(lake, seed).path) for seed in range(6)}
    assert len(others) > 1  # the seed matters


def test_chosen_outcomes_back_forward_reset(lake):
    _, oracle, transitions = lake
    sim = Simulation(oracle, seed=0, transitions=transitions)
    start = sim.current
    sim.step("down", outcome=sorted(oracle.state(start).successors["down"])[-1])
    second = sim.current
    sim.step("right", outcome=sorted(oracle.state(second).successors["right"])[0])
    path = sim.path
    assert sim.back() and sim.path == path[:2]
    assert sim.forward() and sim.path == path
    assert not sim.forward()
    sim.back()
    sim.step("up", outcome=next(iter(oracle.state(second).successors["up"])))
    assert sim.path[:2] == path[:2] and len(sim.steps) == 2  # the old future is gone
    sim.reset()
    assert sim.path == [start] and sim.probability() == 1.0
    with pytest.raises(ExplaincheckError, match="cannot lead"):
        sim.step("down", outcome=15)


def test_a_loaded_policy_with_a_distribution(lake):
    _, oracle, transitions = lake
    policy = {s.id: {"down": 0.5, "right": 0.5} for s in oracle.states if s.q}
    runs = set()
    for seed in range(5):
        sim = Simulation(oracle, seed=seed, transitions=transitions)
        sim.run(policy_chooser(policy), 3)
        assert all(step.action in ("down", "right") for step in sim.taken)
        runs.add(tuple(step.action for step in sim.taken))
    assert len(runs) > 1
