"""The model's choices as flat numpy/scipy arrays, built once and shared by every later phase.

Values, graph analysis, bottlenecks and centrality all work on these arrays in C (numpy, scipy,
rustworkx, networkit), so no phase loops over states in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from explaincheck.core.oracle.storm.structure import ModelStructure


@dataclass
class ChoiceArrays:
    """All choices as rows of one sparse matrix (choice -> successor probabilities)."""

    rows: csr_matrix  # one row per choice, one column per state
    first_row: np.ndarray  # first row of each state's choices; len = states + 1

    @property
    def size(self) -> int:
        return self.rows.shape[1]

    @cached_property
    def state_of_row(self) -> np.ndarray:
        kind = np.int32 if self.size < np.iinfo(np.int32).max else np.int64
        return np.repeat(np.arange(self.size, dtype=kind), np.diff(self.first_row))

    def entry_states(self) -> np.ndarray:
        """The state of every entry of ``rows`` (parallel to ``rows.indices``). Not cached: at
        10^7 states it is 160 MB that only a few phases need, once each."""
        return np.repeat(self.state_of_row, np.diff(self.rows.indptr))

    @cached_property
    def edge_sources(self) -> np.ndarray:
        """Source state of every positive transition (parallel to ``edge_targets``)."""
        return self.entry_states()[self.rows.data > 0]

    @cached_property
    def edge_targets(self) -> np.ndarray:
        return self.rows.indices[self.rows.data > 0]

    @cached_property
    def state_graph(self) -> csr_matrix:
        """Adjacency s -> s' (some choice of s reaches s' with positive probability)."""
        ones = np.ones(len(self.edge_sources), dtype=np.int8)
        graph = csr_matrix((ones, (self.edge_sources, self.edge_targets)), (self.size,) * 2)
        graph.data[:] = 1
        return graph

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct edges s -> s' of ``state_graph`` without self-loops, as (sources, targets)
        sorted by source, then target: what bottlenecks and centrality work on."""
        return _edges_without_loops(self.state_graph)


def choice_arrays(structure: ModelStructure) -> ChoiceArrays:
    counts = np.fromiter((len(cs) for cs in structure.choices), np.int64, structure.size)
    first_row = np.concatenate([[0], np.cumsum(counts)])
    lengths = np.fromiter(
        (len(c.probabilities) for cs in structure.choices for c in cs), np.int64, first_row[-1]
    )
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    cols = np.fromiter(
        (t for cs in structure.choices for c in cs for t in c.probabilities), np.int64, indptr[-1]
    )
    data = np.fromiter(
        (float(p) for cs in structure.choices for c in cs for p in c.probabilities.values()),
        np.float64,
        indptr[-1],
    )
    rows = csr_matrix((data, cols, indptr), shape=(int(first_row[-1]), structure.size))
    return ChoiceArrays(rows, first_row)


def gathered(matrix: csr_matrix, rows: np.ndarray) -> np.ndarray:
    """The column indices of ``rows`` of a CSR ``matrix``, concatenated: ``matrix[rows].indices``
    without building the sub-matrix (scipy's fancy indexing costs ~0.2 ms a call, which a
    search that takes one layer at a time pays thousands of times)."""
    return matrix.indices[entries_of(matrix, rows)]


def entries_of(matrix: csr_matrix, rows: np.ndarray) -> np.ndarray:
    """The positions in ``matrix.indices`` and ``matrix.data`` of the entries of ``rows``, row
    after row."""
    starts = matrix.indptr[rows]
    lengths = matrix.indptr[rows + 1] - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total)


def distinct(indices: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``indices`` (each below ``len(scratch)``) with every index kept once, in no particular
    order, in linear time: a search that dedupes one layer at a time with ``np.unique`` sorts
    thousands of times (0.6 s of the 10^6-state grid's oracle, 1 s of the slippery 10^5 grid's
    certificate). ``scratch``: an int64 array the caller keeps from layer to layer; it is
    overwritten."""
    entries = np.arange(len(indices))
    scratch[indices] = entries  # a repeated index keeps one of its entries
    return indices[scratch[indices] == entries]


def distinct_edges(sources: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct directed edges without self-loops, as two arrays (sorted by source, then
    target). A sparse matrix sums the duplicates while it is built, in linear time: 0.03 s for
    the 4·10^6 transitions of the 10^6-state counters, where sorting one int64 key per edge
    (``np.unique``) took 2.7 s."""
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    size = int(max(sources.max(initial=-1), targets.max(initial=-1))) + 1
    marks = np.ones(len(sources), dtype=bool)
    return _edges_without_loops(csr_matrix((marks, (sources, targets)), shape=(size, size)))


def _edges_without_loops(graph: csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    graph.sum_duplicates()  # also sorts each row's targets; a no-op on a canonical matrix
    kind = graph.indices.dtype  # int32 where the states fit (half the memory at 10^7 states)
    src = np.repeat(np.arange(graph.shape[0], dtype=kind), np.diff(graph.indptr))
    dst = graph.indices
    keep = src != dst
    return src[keep], dst[keep]


def reaching(graph: csr_matrix, targets: np.ndarray) -> np.ndarray:
    """States with a path to a target in ``graph`` (one BFS in C from a virtual super-target)."""
    n = graph.shape[0]
    if not targets.any():
        return np.zeros(n, dtype=bool)
    # reverse graph plus a node n with an edge to every target
    reverse = graph.T.tocsr()
    extra_rows = np.concatenate([reverse.indptr, [reverse.indptr[-1] + int(targets.sum())]])
    extra_cols = np.concatenate([reverse.indices, np.flatnonzero(targets)])
    data = np.ones(len(extra_cols), dtype=np.int8)
    augmented = csr_matrix((data, extra_cols, extra_rows), shape=(n + 1, n + 1))
    order = breadth_first_order(augmented, n, directed=True, return_predecessors=False)
    found = np.zeros(n + 1, dtype=bool)
    found[order] = True
    return found[:n]
