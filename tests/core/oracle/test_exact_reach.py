"""Exact maximal reachability by policy iteration over Fractions, on hand-made structures."""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.oracle.exact_reach import evaluate, max_reach
from explaincheck.core.oracle.storm.structure import Choice, ModelStructure


def structure(choices: list[list[Choice]]) -> ModelStructure:
    size = len(choices)
    return ModelStructure(0, [{"s": i} for i in range(size)], [()] * size, choices, ("s",), ())


HALF, THIRD = Fraction(1, 2), Fraction(1, 3)
# 0: stay (self-loop) or go (½ goal, ½ to 2); 1: goal; 2: retry (back to 0) or quit (to 3);
# 3: trap. Pmax from 0 is 1 (go, retry, go, ...), though the start policy (stay, retry) never
# reaches the goal: policy iteration has to leave the self-loop's end component.
LOOP = structure(
    [
        [Choice("stay", {0: 1}), Choice("go", {1: HALF, 2: HALF})],
        [Choice(None, {1: 1})],
        [Choice("retry", {0: 1}), Choice("quit", {3: 1})],
        [Choice(None, {3: 1})],
    ]
)
GOAL = [False, True, False, False]


def test_policy_iteration_leaves_an_end_component():
    value, policy = max_reach(LOOP, GOAL, [0, 0, 0, 0])
    assert value == [1, 1, 1, 0]
    assert policy[0] == 1 and policy[2] == 0  # go, retry


def test_evaluation_solves_a_cycle_exactly():
    # go and quit: V0 = ½ + ½·V2, V2 = 0 -> ½; a ⅓ self-loop on top: V = ⅓V + ⅔·(½) = ½
    assert evaluate(LOOP, GOAL, [1, 0, 1, 0]) == [HALF, 1, 0, 0]
    looped = structure(
        [
            [Choice("go", {0: THIRD, 1: THIRD, 3: THIRD})],
            [Choice(None, {1: 1})],
            [Choice(None, {2: 1})],
            [Choice(None, {3: 1})],
        ]
    )
    assert evaluate(looped, GOAL, [0, 0, 0, 0])[0] == HALF
