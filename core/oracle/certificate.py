"""How each value was obtained, with a rigorous interval where it is not exact (issue 33.7).

Under the exact method every V and D is a fraction from Storm's Rational engine: the certificate
says ``exact`` and no state carries an interval. Under the verified method V and D come from
policy iteration with sparse direct solves, and an interval is derived from its own final policy
π and values v (docs/method.md, "Certified values"):

* lower bound: V^π ≤ Pmax. On the states π leads to the target, V^π - v = (I - P_π)^-1 r, with
  r the residual of the solve, so |V^π - v| ≤ ‖r‖∞ · E_π[steps], and the expected steps are one
  more solve with the same matrix. lo = v - ‖r‖∞ · E_π[steps] (widened by ``SLACK``).
* upper bound: Pmax is the least fixed point of the Bellman operator T, so every u with T u ≤ u
  is above it (Knaster–Tarski). u = v + ε (E_π[steps] + 1) is checked against every action of
  every state; a state where the check fails is raised to the best its actions give and the
  check repeated (an increasing sequence, so it ends at a pre-fixed point: ties across a plateau
  pass on their slack), and after ``RAISE_ROUNDS`` every open state is set to 1: the bound is
  sound whatever the model, and as tight as the policy's slack wherever the check settles.

The danger D = 1 - Pmax [F Z] (Z: the states that can avoid unsafe forever) gets the mirrored
interval of its escape probability.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import identity
from scipy.sparse.linalg import splu

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.graph_analysis import can_avoid_forever_arrays
from explaincheck.core.oracle.types import Certificate

EXACT_CERTIFICATE = Certificate("exact", "Storm's Rational engine (exact fractions)", 0.0)
METHOD = (
    "bounds from policy iteration: lower V^π - ‖r‖·E_π[steps], upper a checked pre-fixed point"
    " of the Bellman operator (Knaster–Tarski)"
)
SLACK = 1e-14  # floating-point round-off of the bounds' own arithmetic, added on each side
RAISE_ROUNDS = 5000  # rounds of raising failing states before every open state is set to 1
# (raising past what the actions ask was tried: the overshoot cascades through ties to 1)


@dataclass
class Bounds:
    """A certificate and the per-state intervals it stands for."""

    certificate: Certificate
    value_low: np.ndarray
    value_high: np.ndarray
    danger_low: np.ndarray | None
    danger_high: np.ndarray | None


def reach_bounds(
    arrays: ChoiceArrays, target: np.ndarray, policy: np.ndarray, value: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rigorous [lo, hi] around Pmax [F target] from policy ``policy`` and its values."""
    n = arrays.size
    chain = arrays.rows[arrays.first_row[:-1] + np.minimum(policy, _last_choice(arrays))]
    pattern = chain.copy()
    pattern.data = (pattern.data > 0).astype(np.int8)
    free = reaching(pattern, target) & ~target
    zero = ~reaching(arrays.state_graph, target)  # no path at all: Pmax = 0 exactly
    low = np.where(target, 1.0, 0.0)
    steps = np.zeros(n)
    index = np.flatnonzero(free)
    residual = 0.0
    if len(index):
        sub = chain[index]
        square = sub[:, index].tocsc()
        v = value[index]
        rhs = sub[:, np.flatnonzero(target)] @ np.ones(int(target.sum()))
        residual = float(np.max(np.abs(v - (square @ v + rhs)), initial=0.0))
        factor = splu(
            (identity(len(index), format="csc") - square).tocsc(),
            permc_spec="COLAMD",
            diag_pivot_thresh=0.0,
        )
        expected = factor.solve(np.ones(len(index)))
        expected = expected + factor.solve(np.ones(len(index)) - (expected - square @ expected))
        steps[index] = np.maximum(expected, 0.0) * (1 + 1e-9)
        low[index] = v - residual * steps[index] - SLACK
    q = arrays.rows @ value
    has_rows = np.diff(arrays.first_row) > 0
    best = np.full(n, -np.inf)
    best[has_rows] = np.maximum.reduceat(q, arrays.first_row[:-1][has_rows])
    gain = float(np.max(np.where(~target & has_rows, best - value, 0.0), initial=0.0))
    epsilon = max(residual, gain, 0.0) + SLACK
    high = np.where(
        target, 1.0, np.where(zero, 0.0, np.minimum(1.0, value + epsilon * (steps + 1)))
    )
    high[~free & ~target & ~zero] = 1.0  # π does not reach the target from there: no bound yet
    open_states = ~target & ~zero & has_rows
    for _ in range(RAISE_ROUNDS):
        q_high = arrays.rows @ high
        best_high = np.full(n, -np.inf)
        best_high[has_rows] = np.maximum.reduceat(q_high, arrays.first_row[:-1][has_rows])
        failing = open_states & (best_high > high) & (high < 1.0)
        if not failing.any():
            break
        # raised to what its actions ask (an increasing sequence under T: it ends at a
        # pre-fixed point; ties of a plateau pass their slack on in as many rounds as it is wide)
        high[failing] = np.minimum(1.0, best_high[failing])
    else:
        high[open_states] = 1.0
    low = np.clip(np.minimum(low, value), 0.0, 1.0)
    high = np.clip(np.maximum(high + np.where(open_states, SLACK, 0.0), value), 0.0, 1.0)
    return low, high


def _last_choice(arrays: ChoiceArrays) -> np.ndarray:
    return np.maximum(np.diff(arrays.first_row) - 1, 0)


def certify(
    arrays: ChoiceArrays,
    goal: np.ndarray,
    unsafe: np.ndarray | None,
    value: np.ndarray,
    policy: np.ndarray,
    danger: np.ndarray | None,
    danger_policy: np.ndarray | None,
) -> Bounds:
    """The bounded certificate of the verified method's V (and D when given)."""
    value_low, value_high = reach_bounds(arrays, goal, policy, value)
    widths = [value_high - value_low]
    danger_low = danger_high = None
    if danger is not None and unsafe is not None and danger_policy is not None:
        safe = can_avoid_forever_arrays(arrays, unsafe)
        escape_low, escape_high = reach_bounds(arrays, safe, danger_policy, 1.0 - danger)
        danger_low, danger_high = 1.0 - escape_high, 1.0 - escape_low
        widths.append(danger_high - danger_low)
    max_width = float(max(w.max(initial=0.0) for w in widths))
    return Bounds(
        Certificate("bounded", METHOD, max_width), value_low, value_high, danger_low, danger_high
    )
