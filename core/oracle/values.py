"""V, D and Q for every state, by one of two methods.

* ``exact``: Storm's Rational engine gives V and D as fractions; Q is summed exactly here.
* ``verified`` (models too large for rationals): policy iteration on Storm's float model. Each
  policy is evaluated by a sparse direct solve of its Markov chain (error ~1e-12, where Storm's
  default value iteration stops at ~1e-6 and stalls on slowly mixing chains), zeros are pinned
  exactly by graph analysis, and iteration stops only when no action improves on the values by
  more than 1e-12 (the Bellman residual, reported). A value that is attained by a policy and is a
  Bellman fixed point is the optimum, so the result is exact up to the solver's round-off.
  The danger D = Pmin [F unsafe] is computed as 1 - Pmax [F Z], Z = states that can avoid
  unsafe forever, so both quantities are maximal-reachability problems.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from explaincheck.core.oracle.graph_analysis import can_avoid_forever, can_reach
from explaincheck.core.oracle.structure import ModelStructure
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import spsolve

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


def _scheduler_choices(result, size: int) -> list[int]:
    if not result.has_scheduler():  # a DTMC: one choice per state, Storm keeps no scheduler
        return [0] * size
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


def _optimise(
    matrix: _Matrix, policy: np.ndarray, fixed: dict[int, float], zero: np.ndarray, maximise: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
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


def _attractor_policy(structure: ModelStructure, target: np.ndarray) -> np.ndarray:
    """Per state, the choice with most probability of stepping closer (in graph distance) to
    ``target``: a policy that reaches it quickly wherever possible, so policy iteration starts
    from a well-conditioned chain instead of one that lingers for astronomically long."""
    from collections import deque

    from explaincheck.core.oracle.graph_analysis import predecessors

    distance = np.full(structure.size, np.inf)
    distance[target] = 0
    queue = deque(np.flatnonzero(target).tolist())
    preds = predecessors(structure)
    while queue:
        state = queue.popleft()
        for pred in preds[state]:
            if distance[pred] == np.inf:
                distance[pred] = distance[state] + 1
                queue.append(pred)
    policy = np.zeros(structure.size, dtype=np.int64)
    for state, state_choices in enumerate(structure.choices):
        if len(state_choices) > 1 and np.isfinite(distance[state]):
            closer = [
                sum(float(p) for t, p in c.probabilities.items() if distance[t] < distance[state])
                for c in state_choices
            ]
            policy[state] = int(np.argmax(closer))
    return policy


def _minimal_danger(structure: ModelStructure, matrix: _Matrix, unsafe: list[bool]):
    """D = Pmin [F unsafe] = 1 - Pmax [F Z], Z = states that can avoid unsafe forever.

    Going through the complement makes the danger a maximal reachability problem too, whose
    policy iteration starts from an attractor policy; Storm's float scheduler for Pmin cannot be
    used as a start, because value iteration from below stalls on policies that linger."""
    safe = np.array(can_avoid_forever(structure, unsafe))
    cannot_reach_safe = ~np.array(can_reach(structure, safe.tolist()))
    fixed = {int(s): 1.0 for s in np.flatnonzero(safe)}
    start = _attractor_policy(structure, safe)
    escape, _, _, residual = _optimise(matrix, start, fixed, cannot_reach_safe, maximise=True)
    return (1.0 - escape).tolist(), residual


def verified_values(
    model,
    structure: ModelStructure,
    properties,
    has_danger: bool,
    goal: list[bool],
    unsafe: list[bool] | None,
) -> Values:
    matrix = _choice_matrix(structure)
    policy = _attractor_policy(structure, np.array(goal))
    dead = ~np.array(can_reach(structure, goal))
    fixed = {s: 1.0 for s, g in enumerate(goal) if g}
    value, q_flat, policy, residual = _optimise(matrix, policy, fixed, dead, maximise=True)
    danger = None
    if has_danger and unsafe is not None:
        danger, residual_d = _minimal_danger(structure, matrix, unsafe)
        residual = max(residual, residual_d)
    q = [
        q_flat[matrix.first_row[s] : matrix.first_row[s + 1]].tolist()
        for s in range(structure.size)
    ]
    return Values(value.tolist(), danger, q, policy.tolist(), residual=residual)
