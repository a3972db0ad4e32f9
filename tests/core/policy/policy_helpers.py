"""Shared pieces of the policy tests: the models and an independent numpy solve."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest

MODELS = Path(__file__).resolve().parents[2] / "models"
THREE = MODELS / "policy_three.prism"


def three_oracle():
    return compute_oracle(OracleRequest(str(THREE)))


def lake_oracle(method: str = "auto"):
    return compute_oracle(load_builtin("frozen_lake").request(method=method))


def numpy_value(oracle, distribution_of) -> np.ndarray:
    """P^pi [F goal] by a dense numpy solve written apart from core/policy: the chain matrix
    from the oracle's float successors, who reaches the goal by matrix powers, then
    (I - P_TT) x = P_T,goal."""
    n = len(oracle.states)
    p = np.zeros((n, n))
    for state in oracle.states:
        if state.is_goal:
            p[state.id, state.id] = 1.0
            continue
        weights = distribution_of(state) if state.q else {next(iter(state.successors)): 1.0}
        for action, weight in weights.items():
            for target, prob in state.successors[action].items():
                p[state.id, target] += float(weight) * prob
    goal = np.array([s.is_goal for s in oracle.states])
    reach = goal.copy()
    for _ in range(n):
        reach = reach | ((p > 0) @ reach)
    free = reach & ~goal
    a = np.eye(int(free.sum())) - p[np.ix_(free, free)]
    b = p[np.ix_(free, goal)].sum(axis=1)
    value = goal.astype(float)
    value[free] = np.linalg.solve(a, b)
    return value
