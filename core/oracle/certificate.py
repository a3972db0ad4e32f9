"""How each value was obtained, with a rigorous interval where it is not exact (issue 33.7).

Under the exact method every V and D is a fraction from Storm's Rational engine: the certificate
says ``exact`` and no state carries an interval. Under the verified method V and D come from
Storm's interval iteration where it converges (its bounds are then the certificate, below), else
from policy iteration with sparse direct solves, and an interval is derived from its own final
policy π and values v (docs/method.md, "Certified values"):

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

A second, independent source comes first: Storm's interval iteration (``SoundBounds``, from
``storm.checking.sound_bounds``). Where it converged (width ≤ 2·10^-12) its bounds are the
certificate and the own bounds are not computed (they cost more than the values themselves at
10^5 states); there the values are the bounds' midpoints (``sound_values``) and policy iteration
never ran. Where it stopped unconverged, the values come from policy iteration, both bounds are
computed and intersected: each holds the true value, so their intersection does. Every interval
is widened to hold the reported value.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import splu

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.cores import available_cores
from explaincheck.core.oracle.end_components import (
    EndComponents,
    almost_sure,
    maximal_end_components,
    plateaus,
)
from explaincheck.core.oracle.graph_analysis import can_avoid_forever_arrays
from explaincheck.core.oracle.storm.checking import SOUND_PRECISION, SoundBounds
from explaincheck.core.oracle.types import Certificate

EXACT_CERTIFICATE = Certificate("exact", "Storm's Rational engine (exact fractions)", 0.0)
STORM_METHOD = (
    f"Storm's interval iteration (lower and upper bounds converged to {SOUND_PRECISION:g}, each"
    " widened by a bound on its float round-off)"
)
OWN_METHOD = (
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
        components = _without_cycles(
            arrays, open_states, plateaus(arrays, open_states, value, PLATEAU)
        )
        inside = components.component >= 0
        level = np.clip(value, 0.0, 1.0)
        if components.count:
            top = np.full(components.count, 0.0)
            np.maximum.at(top, components.component[inside], level[inside])
            level = np.where(inside, top[np.maximum(components.component, 0)], level)
        level = np.where(capped, 1.0, np.where(zero, 0.0, level))
        leaving = open_states[arrays.state_of_row] & ~components.internal
        reward, _ = _row_gain(arrays, level)
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
        gain, error = _row_gain(arrays, high)
        failing = np.zeros(n, dtype=bool)
        failing[arrays.state_of_row[leaving & (gain + error > 0.0)]] = True
        failing &= high < 1.0
        if not failing.any():
            break
        # raised to what its choices ask (an increasing sequence under T: it ends at a pre-fixed
        # point); internal choices of a component are raised with it, so none is skipped
        best_gain = np.full(n, -np.inf)
        best_gain[has_rows] = np.maximum.reduceat(gain + error, arrays.first_row[:-1][has_rows])
        high[failing] = np.minimum(1.0, high[failing] + best_gain[failing])
        leaving = open_states[arrays.state_of_row]  # once raised, u need not be constant
    else:
        high[open_states] = 1.0
    return np.clip(high + np.where(open_states, SLACK, 0.0), 0.0, 1.0)


def _nodes(open_states: np.ndarray, components: EndComponents) -> tuple[np.ndarray, int]:
    """The collapsed MDP's node of each open state (its group, or a node of its own; -1 for
    a state that is not open) and the number of nodes."""
    node = np.full(len(open_states), -1, dtype=np.int64)
    inside = components.component >= 0
    node[inside] = components.component[inside]
    alone = open_states & ~inside
    node[alone] = components.count + np.arange(int(alone.sum()))
    return node, components.count + int(alone.sum())


def _without_cycles(
    arrays: ChoiceArrays, open_states: np.ndarray, components: EndComponents
) -> EndComponents:
    """Groups merged until the collapsed MDP has no end component left.

    Plateau groups are not end components: from a group's state a choice may move wholly into
    a second group and back, a cycle of the collapsed MDP on which a bound constant per group
    would have to grow by ``MARGIN`` each time round (its policy iteration then meets a
    singular matrix). Such a cycle's groups get one common bound instead: the end components
    of the collapsed MDP (every leaving choice, the mass to capped and zero states going to a
    sink) are merged into one group each, and again until none is left."""
    while True:
        node, nodes = _nodes(open_states, components)
        leaving = open_states[arrays.state_of_row] & ~components.internal
        rows = np.flatnonzero(leaving)
        if len(rows) == 0:
            return components
        order = np.argsort(node[arrays.state_of_row[rows]], kind="stable")
        rows = rows[order]
        row_node = node[arrays.state_of_row[rows]]
        column = np.where(node >= 0, node, nodes)  # not open: the sink
        sub = arrays.rows[rows].tocoo()
        quotient = csr_matrix((sub.data, (sub.row, column[sub.col])), shape=(len(rows), nodes + 1))
        first_row = np.searchsorted(row_node, np.arange(nodes + 2))
        first_row[-1] = len(rows)
        found = maximal_end_components(
            ChoiceArrays(quotient, first_row), np.arange(nodes + 1) < nodes
        )
        inner = found.component[:nodes] >= 0
        if not inner.any():
            return components
        merged = np.arange(nodes)
        merged[inner] = nodes + found.component[:nodes][inner]
        _, merged = np.unique(merged, return_inverse=True)
        if merged.max(initial=-1) + 1 == nodes:
            return components  # only single nodes looping on themselves: nothing to merge
        group = np.where(node >= 0, merged[np.maximum(node, 0)], -1)
        away = np.zeros(arrays.rows.shape[0], dtype=bool)
        entry_row = np.repeat(np.arange(arrays.rows.shape[0]), np.diff(arrays.rows.indptr))
        source_group = group[arrays.state_of_row[entry_row]]
        moved = (group[arrays.rows.indices] != source_group) & (arrays.rows.data > 0)
        away[entry_row[moved]] = True
        internal = open_states[arrays.state_of_row] & ~away
        components = EndComponents(group, internal, int(merged.max(initial=-1) + 1))


def _row_gain(arrays: ChoiceArrays, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per choice row, (P u)(row) - u(state) summed as Σ p_j (u_j - u_s), and a bound on that
    sum's floating-point error.

    The difference form is what makes the check sound where a choice stays put with
    probability ~1: a successor with the state's own level contributes exactly 0, so the sum is
    as precise as the little mass that moves, where ``P u - u`` would lose it to cancellation.
    The error bound is (terms + 2)·ε·Σ|terms| (each product and difference rounds once, the sum
    once per term), doubled."""
    rows = arrays.rows
    per_row = np.diff(rows.indptr)
    source = np.repeat(arrays.state_of_row, per_row)
    terms = rows.data * (level[rows.indices] - level[source])
    starts = rows.indptr[:-1]
    filled = per_row > 0
    gain = np.zeros(rows.shape[0])
    size = np.zeros(rows.shape[0])
    if len(terms):
        gain[filled] = np.add.reduceat(terms, starts[filled])
        size[filled] = np.add.reduceat(np.abs(terms), starts[filled])
    error = 2.0 * (per_row + 2) * np.finfo(float).eps * size
    return gain, error


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
    node, nodes = _nodes(open_states, components)
    alone = open_states & (components.component < 0)
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
    # A choice that stays in its own node with probability q is, for a bound constant on the
    # node, the same as its conditional move out (P u <= u iff P' u <= u, P' = the rest scaled
    # by 1/(1-q)); so the node's own mass is dropped and the row scaled, and ``MARGIN`` is paid
    # per move out, not per step spent lingering (a slippery grid's walls: ~1e13 steps).
    entry_row = np.repeat(np.arange(len(rows)), np.diff(matrix.indptr))
    own = matrix.indices == row_node[entry_row]
    matrix.data[own] = 0.0
    matrix.eliminate_zeros()
    moves = np.asarray(matrix.sum(axis=1)).ravel()
    moves += arrays.rows[rows] @ (~open_states).astype(float)  # mass to capped or zero states
    if np.any(moves <= 0.0):
        return None  # a leaving choice that cannot leave: not an end component by construction
    matrix = (csr_matrix((1.0 / moves, (np.arange(len(rows)),) * 2)) @ matrix).tocsr()
    # start from the certified policy's choice where it leaves, else a node's first way out
    choice = starts.copy()
    chosen_row = arrays.first_row[:-1] + np.minimum(policy, _last_choice(arrays))
    position = np.minimum(np.searchsorted(ascending, chosen_row[alone]), len(rows) - 1)
    found = ascending[position] == chosen_row[alone]
    sorted_at = np.empty(len(rows), dtype=np.int64)
    sorted_at[order] = np.arange(len(rows))
    choice[node[alone][found]] = sorted_at[position[found]]
    gain = reward[rows] / moves + MARGIN
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
    storm: tuple[SoundBounds | None, SoundBounds | None] = (None, None),
) -> Bounds:
    """The bounded certificate of the verified method's V (and D when given); ``storm`` are
    Storm's sound bounds of V and of D (Pmin [F unsafe]) where it gave them.

    Where both need their own bounds (Storm stopped short on both), D's are computed on a helper
    thread while V's are (SciPy's graph searches and SuperLU let go of the interpreter): on the
    10^5-state slippery grid the certificate takes 2.1-2.3 s instead of 3.8-4.4 s, at the cost of
    both computations' arrays at once (peak 640-680 MB instead of 500-550 MB)."""
    storm_value, storm_danger = storm
    with ThreadPoolExecutor(1) as helper:
        escape = None  # D's own escape bounds, when needed; started now beside V's where both are
        if danger is not None and unsafe is not None and danger_policy is not None:
            escape = _escape_source(helper, arrays, unsafe, danger_policy, danger, storm)
        value_low, value_high, own = _interval(
            arrays, storm_value, value, lambda: reach_bounds(arrays, goal, policy, value)
        )
        if storm_value is not None and storm_value.converged:
            # graph facts need no round-off allowance: V = 1 on the goal, 0 where no path leads
            _pin(value_low, value_high, goal, 1.0, value)
            _pin(value_low, value_high, ~reaching(arrays.state_graph, goal), 0.0, value)
        widths = [value_high - value_low]
        danger_low = danger_high = None
        if danger is not None and unsafe is not None:

            def own_danger() -> tuple[np.ndarray, np.ndarray]:
                # asked for only where Storm's bounds of D stopped short, where D came from
                # policy iteration (``sound_values.values_from``), which gives its policy
                assert escape is not None
                escape_low, escape_high = escape()
                return 1.0 - escape_high, 1.0 - escape_low

            danger_low, danger_high, own_d = _interval(arrays, storm_danger, danger, own_danger)
            if storm_danger is not None and storm_danger.converged:
                _pin(danger_low, danger_high, unsafe, 1.0, danger)  # D = 1 on unsafe states
            own = own or own_d
            widths.append(danger_high - danger_low)
    max_width = float(max(w.max(initial=0.0) for w in widths))
    return Bounds(
        Certificate("bounded", _method(storm_value, storm_danger, own), max_width),
        value_low,
        value_high,
        danger_low,
        danger_high,
    )


def _needs_own(storm: SoundBounds | None) -> bool:
    """Whether an interval needs the own bounds: Storm gave none, or stopped short."""
    return storm is None or not storm.converged


def _escape_source(
    helper: ThreadPoolExecutor,
    arrays: ChoiceArrays,
    unsafe: np.ndarray,
    policy: np.ndarray,
    danger: np.ndarray,
    storm: tuple[SoundBounds | None, SoundBounds | None],
) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """How to get D's own escape bounds: already being computed by ``helper`` where V's own
    bounds are needed too (and two cores are there), else computed when asked."""
    if all(_needs_own(bounds) for bounds in storm) and available_cores() > 1:
        return helper.submit(_escape_bounds, arrays, unsafe, policy, danger).result
    return lambda: _escape_bounds(arrays, unsafe, policy, danger)


def _escape_bounds(
    arrays: ChoiceArrays, unsafe: np.ndarray, policy: np.ndarray, danger: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi] of Pmax [F Z] (D = 1 - it, Z: the states that can avoid unsafe forever) from
    the policy of D's iteration."""
    safe = can_avoid_forever_arrays(arrays, unsafe)
    return reach_bounds(arrays, safe, policy, 1.0 - danger)


def _pin(
    low: np.ndarray, high: np.ndarray, where: np.ndarray, exact: float, value: np.ndarray
) -> None:
    """[exact, exact] at ``where``, a value graph analysis gives exactly, where the interval
    holds it and it is the reported value (Storm's bounds there are that number, widened by
    their round-off only)."""
    holds = where & (low <= exact) & (exact <= high) & (value == exact)
    low[holds] = exact
    high[holds] = exact


def _interval(
    arrays: ChoiceArrays,
    storm: SoundBounds | None,
    value: np.ndarray,
    own: Callable[[], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, bool]:
    """[lo, hi] holding ``value`` and the true value: Storm's converged bounds alone, else the
    own bounds intersected with Storm's unconverged ones; and whether the own were computed."""
    if storm is not None:
        widen = storm_round_off(arrays, storm.iterations)
        storm_low = np.clip(storm.lower - widen, 0.0, 1.0)
        storm_high = np.clip(storm.upper + widen, 0.0, 1.0)
    if not _needs_own(storm):
        low, high, computed = storm_low, storm_high, False
    else:
        low, high = own()
        computed = True
        if storm is not None:
            low, high = np.maximum(low, storm_low), np.minimum(high, storm_high)
    return np.minimum(low, value), np.maximum(high, value), computed


def storm_round_off(arrays: ChoiceArrays, iterations: int) -> float:
    """How far Storm's float interval iteration may have rounded its bounds: each iteration
    sums at most (entries of the longest row) products, each rounding once, plus the sum and
    the step's own rounding; errors of a monotone iteration add up at worst, so the bound is
    iterations × (entries + 2) × ε, doubled (3·10^-12 at 10^4 states, 2·10^-10 at most)."""
    longest = int(np.diff(arrays.rows.indptr).max(initial=0))
    return 2.0 * iterations * (longest + 2) * float(np.finfo(float).eps)


def _method(value: SoundBounds | None, danger: SoundBounds | None, own: bool) -> str:
    """The certificate's words: which sources its bounds came from."""
    sources = [b for b in (value, danger) if b is not None]
    if not own:
        return STORM_METHOD
    if not sources:
        return OWN_METHOD
    return (
        f"{OWN_METHOD}; intersected with Storm's interval iteration where it stopped short of"
        f" {SOUND_PRECISION:g}"
        " (widened by its float round-off), Storm's bounds alone where it reached it"
    )
