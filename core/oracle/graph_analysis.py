"""Graph-based (qualitative) facts that need no numbers: exactly who has value 0, and how deep
a model without cycles is.

Used by the verified float method to pin V=0 and D=0 states exactly, as Storm's own prob0
precomputations do, so dead ends never depend on floating-point round-off; the depth sizes the
round-off allowance of Storm's topological engine (``sound_values``).
"""

from __future__ import annotations

from collections import deque

import numpy as np
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.arrays import ChoiceArrays, distinct, gathered
from explaincheck.core.oracle.storm.structure import ModelStructure


def predecessors(structure: ModelStructure) -> list[set[int]]:
    preds: list[set[int]] = [set() for _ in range(structure.size)]
    for state, state_choices in enumerate(structure.choices):
        for choice in state_choices:
            for successor, probability in choice.probabilities.items():
                if probability > 0:
                    preds[successor].add(state)
    return preds


def can_avoid_forever(structure: ModelStructure, bad: list[bool]) -> list[bool]:
    """States from which some policy never reaches ``bad``: exactly those with Pmin = 0.

    Greatest fixed point: start from all good states and drop a state once none of its choices
    keeps every successor inside the set.
    """
    inside = [not b for b in bad]
    preds = predecessors(structure)
    queue = deque(i for i, ok in enumerate(inside) if not ok)
    while queue:
        removed = queue.popleft()
        for pred in preds[removed]:
            if not inside[pred]:
                continue
            if not any(
                all(inside[s] for s, p in choice.probabilities.items() if p > 0)
                for choice in structure.choices[pred]
            ):
                inside[pred] = False
                queue.append(pred)
    return inside


def can_avoid_forever_arrays(arrays: ChoiceArrays, bad: np.ndarray) -> np.ndarray:
    """``can_avoid_forever`` on ``ChoiceArrays``, vectorised by removal layers: a choice is
    spoilt once one successor has left the set; a state leaves when all its choices are."""
    inside = ~bad
    pattern = arrays.rows.copy()
    pattern.data = (pattern.data > 0).astype(np.int8)
    pattern.eliminate_zeros()
    by_successor = pattern.T.tocsr()  # successor -> rows reaching it with positive probability
    spoilt = np.zeros(arrays.rows.shape[0], dtype=bool)
    spoilt_count = np.zeros(arrays.size, dtype=np.int64)
    counts = np.diff(arrays.first_row)
    removed = np.flatnonzero(bad)
    row_slot = np.empty(len(spoilt), dtype=np.int64)
    state_slot = np.empty(arrays.size, dtype=np.int64)
    while len(removed):
        rows = distinct(gathered(by_successor, removed), row_slot)
        rows = rows[~spoilt[rows]]
        spoilt[rows] = True
        np.add.at(spoilt_count, arrays.state_of_row[rows], 1)
        states = distinct(arrays.state_of_row[rows], state_slot)
        removed = states[inside[states] & (spoilt_count[states] == counts[states])]
        inside[removed] = False
    return inside


def acyclic_depth(arrays: ChoiceArrays, limit: int) -> int | None:
    """The most transitions a path can take in the model's graph without self-loops (every
    path ends at a state with no other successor), or None when the graph has a cycle other
    than a self-loop or the depth passes ``limit``.

    Storm's topological engine solves such a model one state at a time, each from its
    successors' values, so a value's float error is at most the depth times one step's
    (``certificate.storm_round_off``). Peeled layer by layer from the states without
    successors, vectorised per layer (one layer per unit of depth)."""
    n = arrays.size
    sources, targets = arrays.edges  # distinct, without self-loops
    remaining = np.bincount(sources, minlength=n)
    reverse = csr_matrix(
        (np.ones(len(sources), dtype=np.int8), (targets, sources)), shape=(n, n)
    )  # target -> its predecessors
    frontier = np.flatnonzero(remaining == 0)
    slot = np.empty(n, dtype=np.int64)  # ``distinct``'s scratch
    peeled = 0
    depth = -1
    while len(frontier):
        depth += 1
        if depth > limit:
            return None
        peeled += len(frontier)
        predecessors = gathered(reverse, frontier)
        if not len(predecessors):
            break
        np.subtract.at(remaining, predecessors, 1)  # no sort: one layer's predecessors
        frontier = distinct(predecessors[remaining[predecessors] == 0], slot)
    return max(depth, 0) if peeled == n else None
