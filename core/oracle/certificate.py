"""How each value was obtained, with a rigorous interval where it is not exact (issue 33.7).

Under the exact method every V and D is a fraction from Storm's Rational engine: the certificate
says ``exact`` and no state carries an interval. Under the verified method V and D come from
policy iteration with sparse direct solves, and an interval is derived from its own final policy
π and values v (docs/method.md, "Certified values"):

* lower bound: V^π ≤ Pmax. On the states π leads to the target, V^π - v = (I - P_π)^-1 r, with
  r the residual of the solve, so |V^π - v| ≤ ‖r‖∞ · E_π[steps], and the expected steps are one
  more solve with the same matrix. lo = v - ‖r‖∞ · E_π[steps] (widened by ``SLACK``).
* upper bound: Pmax is the least fixed point of the Bellman operator T, so every u with T u ≤ u
  is above it (Knaster–Tarski). States with Pmax = 1 (prob1E) or 0 are fixed by graph analysis,
  u = 1 where v is within ``NEAR_ONE`` of 1, and elsewhere u = v̄ + d (``upper_bound``): v̄ the
  values made constant on groups of near-equal values and on maximal end components
  (``end_components.py``), d the largest expected total gain plus ``MARGIN`` any policy
  collects over the choices leaving a group (policy iteration on the collapsed MDP). u is
  checked in floats; a state where the check fails is raised to the best its actions give and
  the check repeated, and after ``RAISE_ROUNDS`` every open state is set to 1: the bound is
  sound whatever the model. Where a policy can linger for ~1e13 steps at a loss no float can
  see (a slippery gridworld's walls at 10^4 states), d grows with the lingering and the bound
  is honest but wide.

The danger D = 1 - Pmax [F Z] (Z: the states that can avoid unsafe forever) gets the mirrored
interval of its escape probability.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import splu

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.end_components import (
    EndComponents,
    almost_sure,
    plateaus,
)
from explaincheck.core.oracle.graph_analysis import can_avoid_forever_arrays
from explaincheck.core.oracle.types import Certificate

EXACT_CERTIFICATE = Certificate("exact", "Storm's Rational engine (exact fractions)", 0.0)
METHOD = (
    "bounds from policy iteration: lower V^π - ‖r‖·E_π[steps], upper a checked pre-fixed point"
    " of the Bellman operator (Knaster–Tarski): prob0/prob1 by graph analysis, constant on end"
    " components and near-equal plateaus, slack by policy iteration on the collapsed MDP"
)
SLACK = 1e-14  # floating-point round-off of the bounds' own arithmetic, added on each side
RAISE_ROUNDS = 5000  # rounds of raising failing states before every open state is set to 1
# (raising past what the actions ask was tried: the overshoot cascades through ties to 1)
MARGIN = 1e-14  # added to every leaving choice's gain: the room T u <= u has for round-off
STEPS_ROUNDS = 200  # policy-iteration rounds for the slack
NEAR_ONE = 1e-7  # u = 1 where v is this close to 1 (the interval there is at most this wide)
PLATEAU = 1e-10  # values this close across a transition share one bound (end_components.plateaus)
CAP_ROUNDS = 20  # rounds of joining states whose bound reached 1 to the plateau


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
    high = upper_bound(arrays, target, zero, policy, value)
    low = np.clip(np.minimum(low, value), 0.0, 1.0)
    high = np.clip(np.maximum(high, value), 0.0, 1.0)
    return low, high


def upper_bound(
    arrays: ChoiceArrays,
    target: np.ndarray,
    zero: np.ndarray,
    policy: np.ndarray,
    value: np.ndarray,
) -> np.ndarray:
    """A checked pre-fixed point u of the Bellman operator (T u <= u), so u >= Pmax.

    States with Pmax = 1 or 0 get it from graph analysis, and u = 1 where v is within
    ``NEAR_ONE`` of 1 (a plateau whose exact values differ by less than a float can say:
    1 - 4e-46 on the 1,600-state slippery grid). On the rest, u = v̄ + d: v̄ the values made
    constant on each maximal end component (their maximum there), and d the largest expected
    total of (P v̄ - v̄ + ``MARGIN``) any policy collects over the choices that leave a component,
    with the components collapsed (policy iteration; finite, the collapsed MDP has no end
    component left). Then every such choice has P u <= u - MARGIN, a choice internal to a
    component has P u = u, and a state where v̄ + d reaches 1 joins the plateau and d is solved
    again. The check is repeated in floats; a state where it fails is raised as before."""
    n = arrays.size
    has_rows = np.diff(arrays.first_row) > 0
    one = almost_sure(arrays, target, ~zero)
    capped = one | (~zero & has_rows & (value >= 1.0 - NEAR_ONE))
    high = np.where(capped, 1.0, 0.0)
    leaving = np.zeros(arrays.rows.shape[0], dtype=bool)
    open_states = ~capped & ~zero & has_rows
    for _ in range(CAP_ROUNDS):
        open_states = ~capped & ~zero & has_rows
        if not open_states.any():
            return high
        components = plateaus(arrays, open_states, value, PLATEAU)
        inside = components.component >= 0
        level = np.clip(value, 0.0, 1.0)
        if components.count:
            top = np.full(components.count, 0.0)
            np.maximum.at(top, components.component[inside], level[inside])
            level = np.where(inside, top[np.maximum(components.component, 0)], level)
        level = np.where(capped, 1.0, np.where(zero, 0.0, level))
        leaving = open_states[arrays.state_of_row] & ~components.internal
        reward = arrays.rows @ level - level[arrays.state_of_row] + MARGIN
        found = _max_total(arrays, open_states, components, leaving, policy, reward)
        if found is None:
            high[open_states] = 1.0
            break
        slack = found
        high[open_states] = np.minimum(1.0, level[open_states] + slack[open_states])
        reached = open_states & (high >= 1.0)
        if not reached.any():
            break
        capped |= reached
    for _ in range(RAISE_ROUNDS):
        q_high = arrays.rows @ high
        failing = np.zeros(n, dtype=bool)
        failing[arrays.state_of_row[leaving & (q_high > high[arrays.state_of_row])]] = True
        failing &= high < 1.0
        if not failing.any():
            break
        # raised to what its choices ask (an increasing sequence under T: it ends at a pre-fixed
        # point); internal choices of a component are raised with it, so none is skipped
        best_high = np.full(n, -np.inf)
        best_high[has_rows] = np.maximum.reduceat(q_high, arrays.first_row[:-1][has_rows])
        high[failing] = np.minimum(1.0, best_high[failing])
        leaving = open_states[arrays.state_of_row]  # once raised, u need not be constant
    else:
        high[open_states] = 1.0
    return np.clip(high + np.where(open_states, SLACK, 0.0), 0.0, 1.0)


def _max_total(
    arrays: ChoiceArrays,
    open_states: np.ndarray,
    components: EndComponents,
    leaving: np.ndarray,
    policy: np.ndarray,
    reward: np.ndarray,
) -> np.ndarray | None:
    """Per open state, the maximal expected total ``reward`` (per choice row) any policy of the
    collapsed MDP collects while among the open states (policy iteration, every policy being
    proper there); None when a solve fails."""
    n = arrays.size
    node = np.full(n, -1, dtype=np.int64)
    inside = components.component >= 0
    node[inside] = components.component[inside]
    alone = open_states & ~inside
    node[alone] = components.count + np.arange(int(alone.sum()))
    nodes = components.count + int(alone.sum())
    ascending = np.flatnonzero(leaving)
    order = np.argsort(node[arrays.state_of_row[ascending]], kind="stable")
    rows = ascending[order]
    row_node = node[arrays.state_of_row[rows]]
    starts = np.searchsorted(row_node, np.arange(nodes))
    if len(rows) == 0 or len(np.unique(row_node)) < nodes:
        return None  # a component without a way out cannot happen where Pmax > 0
    open_index = np.flatnonzero(open_states)
    collapse = csr_matrix(
        (np.ones(len(open_index)), (open_index, node[open_index])), shape=(n, nodes)
    )
    matrix = (arrays.rows[rows] @ collapse).tocsr()
    # start from the certified policy's choice where it leaves, else a node's first way out
    choice = starts.copy()
    chosen_row = arrays.first_row[:-1] + np.minimum(policy, _last_choice(arrays))
    position = np.minimum(np.searchsorted(ascending, chosen_row[alone]), len(rows) - 1)
    found = ascending[position] == chosen_row[alone]
    sorted_at = np.empty(len(rows), dtype=np.int64)
    sorted_at[order] = np.arange(len(rows))
    choice[node[alone][found]] = sorted_at[position[found]]
    gain = reward[rows]
    steps = np.zeros(nodes)
    for _ in range(STEPS_ROUNDS):
        square = matrix[choice]
        try:
            factor = splu(
                (identity(nodes, format="csc") - square).tocsc(),
                permc_spec="COLAMD",
                diag_pivot_thresh=0.0,
            )
        except RuntimeError:
            return None
        paid = gain[choice]
        steps = factor.solve(paid)
        steps = steps + factor.solve(paid - (steps - square @ steps))
        if not np.all(np.isfinite(steps)):
            return None
        q = gain + matrix @ steps
        best = np.maximum.reduceat(q, starts)
        better = best > steps + np.abs(steps) * 1e-9 + MARGIN * 1e-3
        if not better.any():
            break
        attains = np.where(q >= best[row_node], np.arange(len(rows)), len(rows))
        choice = np.where(better, np.minimum.reduceat(attains, starts), choice)
    result = np.zeros(n)
    result[open_states] = steps[node[open_states]]
    return result


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
