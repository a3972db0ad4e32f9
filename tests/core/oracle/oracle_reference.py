"""An independent reference for the oracle tests: its own Storm build and its own value iteration.

Nothing here uses ``explaincheck.core.oracle``: the model is built again with stormpy, read into
numpy arrays, and solved by plain value iteration, so agreement with the oracle is evidence and
not a tautology. Soundness:

* V = Pmax [F goal]: value iteration from 0 gives a lower bound ``l <= Pmax`` that converges to
  Pmax. The oracle's V is checked to be a Bellman fixed point (``fixed_point_residual``); every
  fixed point lies above the least one, Pmax, so ``l <= Pmax <= V`` and ``|V - l| <= 1e-9``
  pins V within 1e-9 of Pmax.
* D = Pmin [F unsafe]: once the states that can avoid ``unsafe`` forever are fixed to 0, the
  min-Bellman equations have a unique solution, so iterating from 0 and from 1 brackets it;
  both bounds are returned.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

Key = tuple[tuple[str, object], ...]


@dataclass
class Reference:
    """The model as arrays (choices are the rows of ``matrix``) plus reference values."""

    keys: list[Key]  # state valuation as a sorted tuple: the join key with the oracle
    actions: list[str | None]  # per row: the action label (None when unlabelled)
    matrix: csr_matrix  # rows = choices, columns = states
    first_row: np.ndarray  # first row of each state, plus the total at the end
    goal: np.ndarray
    unsafe: np.ndarray | None
    value: np.ndarray  # Pmax [F goal], lower bound from value iteration
    danger_low: np.ndarray | None  # Pmin [F unsafe] from below
    danger_high: np.ndarray | None  # Pmin [F unsafe] from above

    @property
    def size(self) -> int:
        return len(self.keys)

    def q(self, state: int) -> dict[str, float]:
        """Q(s, a) = sum P(s, a, s') V(s') for every labelled action of ``state``."""
        rows = range(self.first_row[state], self.first_row[state + 1])
        values = self.matrix @ self.value
        return {self.actions[r]: float(values[r]) for r in rows if self.actions[r]}

    def fixed_point_residual(self, value: np.ndarray) -> float:
        """max |max_a sum P V - V| over non-goal states: 0 for a Bellman fixed point."""
        best = np.maximum.reduceat(self.matrix @ value, self.first_row[:-1])
        return float(np.max(np.abs(best - value)[~self.goal], initial=0.0))


def build_reference(
    path: str, constants: str = "", goal_label: str = "goal", unsafe_label: str = "unsafe"
) -> Reference:
    """Build ``path`` with stormpy (float engine) and solve V and D by value iteration."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    if constants:
        program, _ = stormpy.instantiate_constants(program, constants, [])
    names = {label.name for label in program.labels}
    text = f'Pmax=? [F "{goal_label}"]'
    properties = stormpy.parse_properties(text, program)
    model = stormpy.build_model(
        program, options=stormpy.BuilderOptions(properties, build_full=True)
    )
    n = model.nr_states
    matrix = model.transition_matrix
    keys = [
        tuple(sorted(json.loads(str(model.state_valuations.to_json(s))).items())) for s in range(n)
    ]
    first_row = np.array([matrix.get_row_group_start(s) for s in range(n)] + [matrix.nr_rows])
    data, cols, indptr, actions = [], [], [0], []
    for row in range(matrix.nr_rows):
        for entry in matrix.get_row(row):
            cols.append(entry.column)
            data.append(float(entry.value))
        indptr.append(len(cols))
        labels = sorted(model.choice_labeling.get_labels_of_choice(row))
        actions.append("+".join(labels) or None)
    rows = csr_matrix((data, cols, indptr), shape=(matrix.nr_rows, n))
    goal = np.array([model.labeling.get_state_has_label(goal_label, s) for s in range(n)])
    value = _iterate(rows, first_row, np.where(goal, 1.0, 0.0), goal, maximise=True)
    unsafe = danger_low = danger_high = None
    if unsafe_label in names:
        unsafe = np.array([model.labeling.get_state_has_label(unsafe_label, s) for s in range(n)])
        avoid = _can_avoid_forever(rows, first_row, unsafe)
        start_low = np.where(unsafe, 1.0, 0.0)
        start_high = np.where(avoid, 0.0, 1.0)
        danger_low = _iterate(rows, first_row, start_low, unsafe | avoid, maximise=False)
        danger_high = _iterate(rows, first_row, start_high, unsafe | avoid, maximise=False)
    return Reference(keys, actions, rows, first_row, goal, unsafe, value, danger_low, danger_high)


def _iterate(
    rows: csr_matrix,
    first_row: np.ndarray,
    start: np.ndarray,
    fixed: np.ndarray,
    *,
    maximise: bool,
    tolerance: float = 1e-15,
    limit: int = 2_000_000,
) -> np.ndarray:
    """Value iteration x <- max/min_a P_a x on the states not in ``fixed``, to convergence."""
    reduce = np.maximum.reduceat if maximise else np.minimum.reduceat
    x = start.copy()
    for _ in range(limit):
        new = np.where(fixed, x, reduce(rows @ x, first_row[:-1]))
        if np.max(np.abs(new - x), initial=0.0) <= tolerance:
            return new
        x = new
    raise AssertionError("reference value iteration did not converge")


def _can_avoid_forever(rows: csr_matrix, first_row: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """States from which some scheduler never reaches ``bad`` (greatest fixed point)."""
    n = len(bad)
    inside = ~bad
    predecessors: list[set[int]] = [set() for _ in range(n)]
    row_state = np.repeat(np.arange(n), np.diff(first_row))
    coo = rows.tocoo()
    for row, column in zip(coo.row, coo.col, strict=True):
        predecessors[column].add(int(row_state[row]))
    queue = deque(np.flatnonzero(bad).tolist())
    while queue:
        removed = queue.popleft()
        for state in predecessors[removed]:
            if inside[state] and not any(
                inside[rows.indices[rows.indptr[r] : rows.indptr[r + 1]]].all()
                for r in range(first_row[state], first_row[state + 1])
            ):
                inside[state] = False
                queue.append(state)
    return inside
