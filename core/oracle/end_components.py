"""Who reaches a target almost surely, and the maximal end components of the rest (no numbers).

The certificate's upper bound (``certificate.py``) needs both: a state whose Pmax is exactly 1 is
fixed at 1 by graph analysis, not by a float that creeps towards it, and inside an end component
(a set of states some policy can stay in forever) Pmax is constant while the Bellman operator has
many fixed points, so an upper bound there must be constant on the component and checked on the
choices that leave it (Haddad & Monmege; Baier et al., "Ensuring the reliability of your model
checker: interval iteration for Markov decision processes", CAV 2017). Both are vectorised by
layers, like ``graph_analysis.can_avoid_forever_arrays``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from explaincheck.core.oracle.arrays import ChoiceArrays, entries_of, reaching


def _pattern(arrays: ChoiceArrays) -> csr_matrix:
    """Rows -> successors with positive probability, as 0/1 entries."""
    pattern = arrays.rows.copy()
    pattern.data = (pattern.data > 0).astype(np.int8)
    pattern.eliminate_zeros()
    return pattern


def almost_sure(arrays: ChoiceArrays, target: np.ndarray, can_reach: np.ndarray) -> np.ndarray:
    """States with Pmax [F target] = 1 exactly (Storm's prob1E: a greatest fixed point of
    attractors). ``can_reach``: the states with a path to ``target`` (the others have 0).

    Each turn keeps the choices that cannot leave the current set and takes the states with a
    path to the target through them: one breadth-first search in C (``reaching``), where a
    search a layer at a time in Python took 0.7 s on the slippery 10^5 grid."""
    n = arrays.size
    pattern = _pattern(arrays)
    entry_row = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    entry_state = arrays.state_of_row[entry_row]
    inside = can_reach | target
    while True:
        leaves = (pattern @ (~inside).astype(np.int64)) > 0  # a row with a successor outside
        usable = ~leaves & inside[arrays.state_of_row]
        keep = usable[entry_row]
        ones = np.ones(int(keep.sum()), dtype=np.int8)
        graph = csr_matrix((ones, (entry_state[keep], pattern.indices[keep])), shape=(n, n))
        winning = (reaching(graph, target) | target) & inside
        if np.array_equal(winning, inside):
            return winning
        inside = winning


@dataclass
class EndComponents:
    """``component[s]``: the maximal end component of state s (0..count-1), or -1; ``internal``
    per choice row: a choice of a component's state whose successors all stay in it."""

    component: np.ndarray
    internal: np.ndarray
    count: int


def maximal_end_components(arrays: ChoiceArrays, candidates: np.ndarray) -> EndComponents:
    """The maximal end components inside ``candidates``: strongly connected components of the
    choices that stay inside, choices leaving their component dropped until none does.

    Each turn works on the entries of the choices still alive only: a slippery grid sheds its
    components a ring per turn (42 turns at 10^5 states), and the whole matrix each turn was
    most of the certificate's time."""
    n = arrays.size
    pattern = _pattern(arrays)
    state_of_row = arrays.state_of_row
    states = candidates.copy()
    alive = states[state_of_row]
    states &= np.bincount(state_of_row[alive], minlength=n) > 0
    live_rows = np.flatnonzero(alive & states[state_of_row])
    entries = entries_of(pattern, live_rows)  # row after row, so their sources ascend
    entry_row = np.repeat(live_rows, np.diff(pattern.indptr)[live_rows])
    entry_col = pattern.indices[entries]
    while True:
        entry_source = state_of_row[entry_row]
        keep = states[entry_col]
        # the state graph's CSR arrays are the kept entries as they stand, with no sort
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(entry_source[keep], minlength=n), out=offsets[1:])
        kept = entry_col[keep]
        graph = csr_matrix((np.ones(len(kept), dtype=np.int8), kept, offsets), shape=(n, n))
        _, label = connected_components(graph, directed=True, connection="strong")
        leaving = ~keep | (label[entry_col] != label[entry_source])
        if not leaving.any():
            break
        alive[entry_row[leaving]] = False
        states &= np.bincount(state_of_row[live_rows[alive[live_rows]]], minlength=n) > 0
        alive[live_rows] &= states[state_of_row[live_rows]]
        live_rows = live_rows[alive[live_rows]]
        survive = alive[entry_row]
        entry_row, entry_col = entry_row[survive], entry_col[survive]
    component = np.full(n, -1, dtype=np.int64)
    found, compact = np.unique(label[states], return_inverse=True)
    component[states] = compact
    return EndComponents(component, alive, len(found))


def plateaus(
    arrays: ChoiceArrays, candidates: np.ndarray, value: np.ndarray, tolerance: float
) -> EndComponents:
    """Groups of ``candidates`` joined by transitions between values within ``tolerance``,
    each maximal end component inside one group; ``internal``: a choice whose successors all
    stay in its state's group.

    A float cannot tell such values apart (on the 1,600-state slippery grid exact values
    differ by 1e-46 next to a wall), so a policy may linger among them for ~1e13 steps at no
    visible loss; one constant bound per group makes lingering free instead of costly."""
    n = arrays.size
    ends = maximal_end_components(arrays, candidates)
    source, target = arrays.edge_sources, arrays.edge_targets
    near = (
        candidates[source]
        & candidates[target]
        & (np.abs(value[source] - value[target]) <= tolerance)
    )
    in_end = ends.component >= 0
    first = np.full(max(ends.count, 1), -1, dtype=np.int64)
    members = np.flatnonzero(in_end)
    first[ends.component[members[::-1]]] = members[::-1]  # one member per end component
    links = (
        np.concatenate([source[near], members]),
        np.concatenate([target[near], first[ends.component[members]]]),
    )
    graph = csr_matrix((np.ones(len(links[0]), dtype=np.int8), links), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    group = np.full(n, -1, dtype=np.int64)
    found, compact = np.unique(label[candidates], return_inverse=True)
    group[candidates] = compact
    pattern = _pattern(arrays)
    entry_row = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    entry_group = group[pattern.indices]
    away = entry_group != group[arrays.state_of_row[entry_row]]
    internal = candidates[arrays.state_of_row].copy()
    internal[entry_row[away]] = False
    return EndComponents(group, internal, len(found))
