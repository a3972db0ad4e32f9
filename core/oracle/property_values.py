"""Q, A* and A° of a user's property (``core/oracle/property.py``), in one vectorised pass.

Why its own module: ``values.py`` computes the values of Pmax [F goal], whose "best" is the
largest; a property can minimise (the lowest expected time for ``Rmin``), collect rewards on
the way (Q = r(s, a) + Σ p·V(s′), infinite where a successor is), avoid states on the way
(``[φ U ψ]``), or count steps (``[F<=k φ]``, over the product with a step counter). These
functions take the model's choices (``arrays.ChoiceArrays``) and the property's values from
Storm (``storm/properties.py``) and give, per choice row, what every later phase needs:

* ``q_values`` / ``q_values_exact``: Q for every row (floats with ``inf``; fractions with
  ``math.inf``). Under a reward property and under ``[φ U ψ]`` a target state, and a state
  outside the stay set φ, is where the run ends: its rows get Q = V(s) (the rewards and
  successors after the end are not part of the property).
* ``optimal_rows`` / ``optimal_exact``: A* and A° per state in the property's direction, with
  the float tie tolerance, or exactly.
* ``ordering_keys``: the keys by which ``columnar.group_actions`` (which sorts decreasing) puts
  the best group first: Q for a maximising property, −Q for a minimising one.
* ``bounded_product``, ``bounded_values``, ``bounded_values_exact``: a step-bounded property
  over the product of the model with a counter of the steps left (below, why a product).
* ``failing_value``, ``finite_range``: what a dead end is under the property, and the range
  that normalises its gaps (δ, satisfy's tolerance; docs/method.md §14).

**The steps left of a deadline** (``[F<=k φ]``): the best action depends on how many steps are
left, so a question must name them, and the oracle's states are the pairs (s, k) reachable from
(s0, K): the product of the model with a counter that every step decrements. It is built here,
over the arrays, not by Storm: Storm's ``F<=k`` check returns the values of the full budget and
a scheduler with memory, neither of which names a pair, and a counter module cannot be added to
a PRISM program in general (it would have to synchronise with every command, unlabelled ones
included). The product has at most (K + 1)·|S| states, is acyclic apart from its terminal
self-loops, and is solved exactly by backward induction, K layers of one sparse product each;
V(s, K) equals Storm's ``Pmax=? [F<=K φ]`` at s (tested for every layer k against Storm's check
with bound k).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.property import BOUNDED, MAX, MIN, REACH, REWARD, UNTIL, Property

Exact = Fraction | float  # a Fraction, or math.inf

# ---------------------------------------------------------------------------------------------
# Q and the optimal sets


def terminal_states(prop: Property, target: np.ndarray, stay: np.ndarray | None) -> np.ndarray:
    """States where the property's run has ended: the target and (``[φ U ψ]``) the states
    outside φ; none for ``[F φ]`` (whose oracle has always read Q = P·V at goal states too) and
    for the step-bounded product (its end states are unlabelled self-loops already)."""
    if prop.kind in (REACH, BOUNDED):
        return np.zeros(len(target), dtype=bool)
    ended = target.copy()
    if prop.kind == UNTIL and stay is not None:
        ended |= ~stay
    return ended


def q_values(
    arrays: ChoiceArrays,
    values: np.ndarray,
    rewards: np.ndarray | None = None,
    terminal: np.ndarray | None = None,
) -> np.ndarray:
    """Q per choice row: r(row) + Σ p·V(s′) (``rewards`` per row, or none), ``inf`` where a
    successor of positive probability has an infinite value; rows of ``terminal`` states get
    their state's V."""
    values = np.asarray(values, dtype=float)
    infinite = np.isinf(values)
    q = arrays.rows @ np.where(infinite, 0.0, values)
    if rewards is not None:
        q = q + np.asarray(rewards, dtype=float)
    if infinite.any():
        pattern = arrays.rows.copy()
        pattern.data = (pattern.data > 0).astype(float)
        q[(pattern @ infinite.astype(float)) > 0] = np.inf
    if terminal is not None and terminal.any():
        ended = np.asarray(terminal, dtype=bool)[arrays.state_of_row]
        q[ended] = values[arrays.state_of_row][ended]
    return np.asarray(q, dtype=float)


def q_values_exact(
    choices: Sequence[Sequence[dict[int, Fraction]]],
    values: Sequence[Exact],
    rewards: Sequence[Fraction] | None = None,
    terminal: Sequence[bool] | None = None,
) -> list[list[Exact]]:
    """``q_values`` in fractions: ``choices[s][i]`` the successor probabilities of the i-th
    choice of s, ``rewards`` per row in the same order (state by state)."""
    found: list[list[Exact]] = []
    row = 0
    for state, state_choices in enumerate(choices):
        per_state: list[Exact] = []
        for choice in state_choices:
            if terminal is not None and terminal[state]:
                per_state.append(values[state])
            elif any(p and math.isinf(values[t]) for t, p in choice.items()):
                per_state.append(math.inf)
            else:
                total = sum((p * values[t] for t, p in choice.items()), Fraction(0))
                if rewards is not None:
                    total += rewards[row]
                per_state.append(total)
            row += 1
        found.append(per_state)
    return found


def ordering_keys(q: Sequence[Exact] | np.ndarray, direction: str) -> list[Exact]:
    """Keys that sort best first under a decreasing sort: Q (maximising) or −Q (minimising)."""
    return [(-x if direction == MIN else x) for x in q]


def optimal_rows(
    arrays: ChoiceArrays,
    q: np.ndarray,
    direction: str,
    tolerance: float,
    labelled: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(A* mask, A° mask) per choice row in ``direction``, ties within ``tolerance``, over the
    ``labelled`` rows (unlabelled choices take no part in Q, A* and A°; default: all)."""
    rows = np.asarray(q, dtype=float)
    use = np.ones(len(rows), dtype=bool) if labelled is None else np.asarray(labelled, bool)
    state = arrays.state_of_row
    size = arrays.size
    high = np.full(size, -np.inf)
    low = np.full(size, np.inf)
    np.maximum.at(high, state[use], rows[use])
    np.minimum.at(low, state[use], rows[use])
    at_high = use & (rows >= _lowered(high[state], tolerance))
    at_low = use & (rows <= _raised(low[state], tolerance))
    return (at_high, at_low) if direction == MAX else (at_low, at_high)


def _lowered(bound: np.ndarray, tolerance: float) -> np.ndarray:
    return np.where(np.isinf(bound), bound, bound - tolerance)


def _raised(bound: np.ndarray, tolerance: float) -> np.ndarray:
    return np.where(np.isinf(bound), bound, bound + tolerance)


def optimal_exact(q: Sequence[Exact], direction: str) -> tuple[set[int], set[int]]:
    """(A*, A°) of one state as indices into ``q`` (exact values: equality is a tie)."""
    if not q:
        return set(), set()
    high, low = max(q), min(q)
    at_high = {i for i, x in enumerate(q) if x == high}
    at_low = {i for i, x in enumerate(q) if x == low}
    return (at_high, at_low) if direction == MAX else (at_low, at_high)


# ---------------------------------------------------------------------------------------------
# what a value means under the property


def failing_value(prop: Property) -> float | None:
    """The value of a dead end: a state from which the property's aim is lost whatever the
    agent does (Pmax: 0, no chance left; Pmin: 1, the target is certain; Rmin: ∞, the target
    is not reached almost surely). None for Rmax, where no value is a failure (∞ is the best)."""
    if prop.kind == REWARD:
        return math.inf if prop.direction == MIN else None
    return 0.0 if prop.direction == MAX else 1.0


def finite_range(values: np.ndarray | Sequence[float]) -> tuple[float, float] | None:
    """(lowest, highest) finite value, or None when no value is finite."""
    array = np.asarray(values, dtype=float)
    finite = array[np.isfinite(array)]
    if not len(finite):
        return None
    return float(finite.min()), float(finite.max())


# ---------------------------------------------------------------------------------------------
# step-bounded properties: the product with the steps left


@dataclass(frozen=True)
class BoundedProduct:
    """The pairs (s, k) reachable from (s0, K), k the steps left, as a model of their own.

    Product state i is model state ``base_state[i]`` with ``steps_left[i]`` steps left; state 0
    is (s0, K); states come layer by layer (K first), in model order within a layer. A state in
    the target, or with no step left, or without a choice, ends the run: one unlabelled
    self-loop (``base_row`` −1); every other state has the model's choices of its base state
    (``base_row``: the model's row), each leading to the successors with one step fewer."""

    arrays: ChoiceArrays
    base_state: np.ndarray
    steps_left: np.ndarray
    base_row: np.ndarray  # per product row: the model's row, -1 for an end state's self-loop
    target: np.ndarray  # per product state
    bound: int

    @property
    def size(self) -> int:
        return self.arrays.size

    @property
    def ended(self) -> np.ndarray:
        """Product states whose run has ended (their one row is the self-loop)."""
        first = self.arrays.first_row[:-1]
        return self.base_row[first] < 0


def bounded_product(
    arrays: ChoiceArrays, target: np.ndarray, bound: int, initial: int
) -> BoundedProduct:
    """The product of ``arrays`` with a counter of ``bound`` steps, from ``initial``."""
    target = np.asarray(target, dtype=bool)
    rows_of = np.diff(arrays.first_row)
    layers: list[np.ndarray] = [np.array([initial], dtype=np.int64)]
    for _ in range(bound):
        current = layers[-1]
        moving = current[~target[current] & (rows_of[current] > 0)]
        if not len(moving):
            break
        rows = _rows_of_states(arrays, moving)
        sub = arrays.rows[rows]
        successors = sub.indices[sub.data > 0]
        layers.append(np.unique(successors))
    offsets = np.concatenate([[0], np.cumsum([len(layer) for layer in layers])])
    base_state = np.concatenate(layers)
    steps = np.concatenate([np.full(len(layer), bound - i) for i, layer in enumerate(layers)])
    data: list[np.ndarray] = []
    columns: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    base_rows: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for index, layer in enumerate(layers):
        k = bound - index
        moves = ~target[layer] & (rows_of[layer] > 0) & (k > 0) & (index + 1 < len(layers))
        per_state = np.where(moves, rows_of[layer], 1)
        counts.append(per_state)
        # rows in state order: an ended state's self-loop, or the model's rows of its state
        model_rows = _rows_of_states(arrays, layer[moves])
        state_first = np.concatenate([[0], np.cumsum(per_state)])
        row_is_model = np.zeros(int(state_first[-1]), dtype=bool)
        for position in np.flatnonzero(moves):
            row_is_model[state_first[position] : state_first[position + 1]] = True
        layer_rows = np.full(int(state_first[-1]), -1, dtype=np.int64)
        layer_rows[row_is_model] = model_rows
        base_rows.append(layer_rows)
        row_lengths = np.ones(len(layer_rows), dtype=np.int64)
        sub = arrays.rows[model_rows]
        row_lengths[row_is_model] = np.diff(sub.indptr)
        lengths.append(row_lengths)
        row_data = np.ones(int(row_lengths.sum()))
        row_columns = np.zeros(int(row_lengths.sum()), dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(row_lengths)])
        self_rows = np.flatnonzero(~row_is_model)
        owner = np.repeat(np.arange(len(layer)), per_state)
        row_columns[starts[self_rows]] = offsets[index] + owner[self_rows]
        if len(model_rows):
            entries = np.concatenate(
                [np.arange(starts[r], starts[r + 1]) for r in np.flatnonzero(row_is_model)]
            )
            next_layer = layers[index + 1]
            row_data[entries] = sub.data
            row_columns[entries] = offsets[index + 1] + np.searchsorted(next_layer, sub.indices)
        data.append(row_data)
        columns.append(row_columns)
    per_state = np.concatenate(counts)
    first_row = np.concatenate([[0], np.cumsum(per_state)]).astype(np.int64)
    row_lengths = np.concatenate(lengths)
    indptr = np.concatenate([[0], np.cumsum(row_lengths)]).astype(np.int64)
    size = len(base_state)
    matrix = csr_matrix(
        (np.concatenate(data), np.concatenate(columns), indptr), shape=(int(first_row[-1]), size)
    )
    return BoundedProduct(
        arrays=ChoiceArrays(matrix, first_row),
        base_state=base_state,
        steps_left=steps.astype(np.int64),
        base_row=np.concatenate(base_rows),
        target=target[base_state],
        bound=bound,
    )


def _rows_of_states(arrays: ChoiceArrays, states: np.ndarray) -> np.ndarray:
    """The choice rows of ``states``, state by state, each state's rows in order."""
    if not len(states):
        return np.zeros(0, dtype=np.int64)
    starts = arrays.first_row[states]
    ends = arrays.first_row[states + 1]
    return np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])


def bounded_values(product: BoundedProduct, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """(V per product state, Q per product row) by backward induction, layer by layer: an ended
    state has V = 1 in the target and 0 elsewhere; every other state the best of its rows."""
    arrays = product.arrays
    values = product.target.astype(float)
    ended = product.ended
    values[ended & ~product.target] = 0.0
    steps = product.steps_left
    pick = np.maximum if direction == MAX else np.minimum
    for k in range(1, product.bound + 1):
        layer = np.flatnonzero((steps == k) & ~ended)
        if not len(layer):
            continue
        rows = _rows_of_states(arrays, layer)
        q = arrays.rows[rows] @ values
        starts = np.concatenate([[0], np.cumsum(np.diff(arrays.first_row)[layer])[:-1]])
        values[layer] = pick.reduceat(q, starts)
    return values, arrays.rows @ values


def bounded_values_exact(
    product: BoundedProduct,
    choices: Sequence[Sequence[dict[int, Fraction]]],
    direction: str,
) -> tuple[list[Fraction], list[list[Fraction]]]:
    """``bounded_values`` in fractions, from the model's exact choices (``choices[s][i]``: the
    successor probabilities of the model's i-th choice of s): (V per product state, Q per
    product state and row)."""
    arrays = product.arrays
    first_row = arrays.first_row
    flat = [choice for state_choices in choices for choice in state_choices]  # model rows
    values: list[Fraction] = [Fraction(int(t)) for t in product.target]
    q_all: list[list[Fraction]] = [[] for _ in range(product.size)]
    ended = product.ended
    order = np.argsort(product.steps_left, kind="stable")  # fewest steps left first
    for state in order.tolist():
        rows = range(int(first_row[state]), int(first_row[state + 1]))
        if ended[state]:
            values[state] = Fraction(int(product.target[state]))
            q_all[state] = [values[state]]
            continue
        q_state = []
        for row in rows:
            model_row = int(product.base_row[row])
            successors = arrays.rows.indices[arrays.rows.indptr[row] : arrays.rows.indptr[row + 1]]
            probabilities = flat[model_row]
            base_successors = product.base_state[successors]
            total = Fraction(0)
            for column, base in zip(successors.tolist(), base_successors.tolist(), strict=True):
                total += probabilities[base] * values[column]
            q_state.append(total)
        values[state] = max(q_state) if direction == MAX else min(q_state)
        q_all[state] = q_state
    return values, q_all


def without_exits(arrays: ChoiceArrays, blocked: np.ndarray) -> ChoiceArrays:
    """``arrays`` with every transition out of a ``blocked`` state removed: the graph the
    bottlenecks of ``[φ U ψ]`` are found on (a run that leaves φ has failed, so it passes
    nothing on to ψ)."""
    keep = ~np.asarray(blocked, dtype=bool)[arrays.state_of_row]
    scale = csr_matrix(
        (keep.astype(float), (np.arange(len(keep)), np.arange(len(keep)))),
        shape=(len(keep), len(keep)),
    )
    rows = (scale @ arrays.rows).tocsr()
    rows.eliminate_zeros()
    return ChoiceArrays(rows, arrays.first_row)
