"""V, D and Q for every state, by one of two methods.

* ``exact``: Storm's Rational engine gives V and D as fractions; Q is summed exactly here.
* ``verified``: Storm's float engine gives an optimal scheduler; its values are then computed by
  a sparse direct solve of the induced Markov chain (policy evaluation, error ~1e-13 instead of
  value iteration's ~1e-6), zeros are pinned by graph analysis, and the Bellman optimality of the
  result is checked (policy iteration repairs the scheduler where the check fails). A value
  that is both attained by a scheduler and a Bellman fixed point is the optimum, so the result is
  exact up to the solver's round-off, which is reported as ``residual``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import spsolve

from explaincheck.core.oracle.graph_analysis import can_avoid_forever, can_reach
from explaincheck.core.oracle.structure import ModelStructure

TIE_TOLERANCE = 1e-9  # verified method: Q values closer than this count as tied


@dataclass
class Values:
    """Numbers per state; ``q[s][i]`` belongs to ``structure.choices[s][i]``."""

    value: list[float]
    danger: list[float] | None
    q: list[list[float]]
    scheduler: list[int]  # optimal choice index per state (for V)
    value_exact: list[Fraction] | None = None
    danger_exact: list[Fraction] | None = None
    q_exact: list[list[Fraction]] | None = None
    residual: float = 0.0


# ---------------------------------------------------------------- exact (Storm Rational engine)


def exact_values(model, structure: ModelStructure, properties, has_danger: bool) -> Values:
    import stormpy

    result = stormpy.model_checking(model, properties[0], extract_scheduler=True)
    value_exact = [Fraction(str(result.get_value(s))) for s in range(structure.size)]
    scheduler = _scheduler_choices(result, structure.size)
    danger_exact = None
    if has_danger:
        danger_result = stormpy.model_checking(model, properties[1])
        danger_exact = [Fraction(str(danger_result.get_value(s))) for s in range(structure.size)]
    q_exact = [
        [sum((p * value_exact[t] for t, p in c.probabilities.items()), Fraction(0)) for c in cs]
        for cs in structure.choices
    ]
    return Values(
        value=[float(v) for v in value_exact],
        danger=[float(d) for d in danger_exact] if danger_exact else None,
        q=[[float(x) for x in row] for row in q_exact],
        scheduler=scheduler,
        value_exact=value_exact,
        danger_exact=danger_exact,
        q_exact=q_exact,
    )


def _starting_environment():
    """Storm settings for the float run that only seeds policy iteration: plain value
    iteration with a bounded number of sweeps (Storm's default optimistic variant can stall)."""
    import stormpy
    from stormpy.developer import MinMaxMethod

    environment = stormpy.Environment()
    min_max = environment.solver().min_max()
    min_max.method = MinMaxMethod.VALUE_ITERATION
    min_max.maximal_number_of_iterations = 20_000
    return environment


def _scheduler_choices(result, size: int) -> list[int]:
    scheduler = result.get_scheduler()
    return [int(scheduler.get_choice(s).get_deterministic_choice()) for s in range(size)]


# ---------------------------------------------------------------- verified float method


@dataclass
class _Matrix:
    """All choices as rows of one sparse matrix (choice -> successor probabilities)."""

    rows: csr_matrix
    first_row: np.ndarray  # first row index of each state's choices
    size: int


def _choice_matrix(structure: ModelStructure) -> _Matrix:
    data, cols, indptr, first = [], [], [0], []
    for state_choices in structure.choices:
        first.append(len(indptr) - 1)
        for choice in state_choices:
            for successor, probability in choice.probabilities.items():
                cols.append(successor)
                data.append(float(probability))
            indptr.append(len(cols))
    first.append(len(indptr) - 1)
    shape = (len(indptr) - 1, structure.size)
    rows = csr_matrix((np.array(data), np.array(cols, dtype=np.int64), np.array(indptr)), shape)
    return _Matrix(rows, np.array(first), structure.size)


def _evaluate(matrix: _Matrix, policy: np.ndarray, fixed: dict[int, float], zero: np.ndarray):
    """Values of the chain induced by ``policy``: ``fixed`` states keep their value, states
    that cannot reach a positive fixed state under the policy get 0, the rest are solved."""
    n = matrix.size
    chain = matrix.rows[matrix.first_row[:-1] + policy]
    values = np.zeros(n)
    target = np.zeros(n, dtype=bool)
    for state, value in fixed.items():
        values[state] = value
        target[state] = value > 0
    # states that reach a positive fixed state in the induced chain (backward search)
    reach = target.copy()
    transposed = chain.T.tocsr()
    frontier = list(np.flatnonzero(target))
    while frontier:
        state = frontier.pop()
        for pred in transposed.indices[transposed.indptr[state] : transposed.indptr[state + 1]]:
            if not reach[pred]:
                reach[pred] = True
                frontier.append(pred)
    free = reach & ~np.isin(np.arange(n), list(fixed)) & ~zero
    index = np.flatnonzero(free)
    if len(index):
        sub = chain[index][:, index]
        rhs = chain[index] @ values
        solved = spsolve((identity(len(index), format="csc") - sub).tocsc(), rhs)
        values[index] = np.clip(np.atleast_1d(solved), 0.0, 1.0)
    return values


def _optimise(matrix: _Matrix, policy: np.ndarray, fixed: dict[int, float], zero: np.ndarray,
              maximise: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Policy iteration from ``policy`` until no choice improves by more than round-off."""
    counts = np.diff(matrix.first_row)
    state_of_row = np.repeat(np.arange(matrix.size), counts)
    free = np.ones(matrix.size, dtype=bool)
    free[list(fixed)] = False
    free &= ~zero
    for _ in range(1000):
        values = _evaluate(matrix, policy, fixed, zero)
        q = matrix.rows @ values
        signed = q if maximise else -q
        best = np.full(matrix.size, -np.inf)
        np.maximum.at(best, state_of_row, signed)
        gain = best - (values if maximise else -values)
        improvable = free & (gain > 1e-12)
        if not improvable.any():
            residual = float(np.max(np.abs(gain[free]), initial=0.0))
            return values, q, policy, residual
        for state in np.flatnonzero(improvable):
            lo, hi = matrix.first_row[state], matrix.first_row[state + 1]
            policy[state] = int(np.argmax(signed[lo:hi]))
    raise RuntimeError("policy iteration did not converge in 1000 rounds")


def verified_values(model, structure: ModelStructure, properties, has_danger: bool,
                    goal: list[bool], unsafe: list[bool] | None) -> Values:
    import stormpy

    matrix = _choice_matrix(structure)
    environment = _starting_environment()
    result = stormpy.model_checking(
        model, properties[0], extract_scheduler=True, environment=environment
    )
    policy = np.array(_scheduler_choices(result, structure.size))
    dead = ~np.array(can_reach(structure, goal))
    fixed = {s: 1.0 for s, g in enumerate(goal) if g}
    value, q_flat, policy, residual = _optimise(matrix, policy, fixed, dead, maximise=True)
    danger = None
    if has_danger and unsafe is not None:
        danger_result = stormpy.model_checking(
            model, properties[1], extract_scheduler=True, environment=environment
        )
        danger_policy = np.array(_scheduler_choices(danger_result, structure.size))
        safe = np.array(can_avoid_forever(structure, unsafe))
        fixed_d = {s: 1.0 for s, u in enumerate(unsafe) if u}
        danger_values, _, _, residual_d = _optimise(
            matrix, danger_policy, fixed_d, safe, maximise=False
        )
        danger = danger_values.tolist()
        residual = max(residual, residual_d)
    q = [
        q_flat[matrix.first_row[s] : matrix.first_row[s + 1]].tolist()
        for s in range(structure.size)
    ]
    return Values(value.tolist(), danger, q, policy.tolist(), residual=residual)
