"""Bottleneck states: those every path from the initial state to the goal must pass.

docs/method.md §1: s (not initial, not goal) is a bottleneck iff making s absorbing makes the goal
unreachable from s0. As Pmax(s0) > 0 iff a path exists, these are exactly the dominators of a
virtual sink placed behind all goal states: found from one dominator tree on a
``ModelStructure`` (``by_dominators``, the flawed pictures'), and on the oracle's columns as the
single-vertex cuts between s0 and the sink (``bottleneck_column``: one path, one breadth-first
search and one strongly-connected-components pass of scipy's, no Python object per edge).
``storm.checking.by_rechecking`` is the paper's definition run literally, one Storm model check
per state with that state made absorbing; it is kept as the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.storm.structure import ModelStructure

if TYPE_CHECKING:
    from explaincheck.core.oracle.arrays import ChoiceArrays


def _edges(structure: ModelStructure) -> Iterator[tuple[int, int]]:
    for state, state_choices in enumerate(structure.choices):
        for choice in state_choices:
            for successor, probability in choice.probabilities.items():
                if probability > 0 and successor != state:
                    yield state, successor


def by_dominators(structure: ModelStructure, goal: list[bool]) -> set[int]:
    """Dominators of the goal set from the initial state, excluding s0 and goal states."""
    if not any(goal):
        return set()
    import rustworkx as rx  # here: only the flawed pictures ask, never the oracle's child

    graph = rx.PyDiGraph(multigraph=False)
    graph.add_nodes_from(range(structure.size + 1))
    sink = structure.size
    # a run ends at the first goal state it enters, so goal states only lead to the sink
    graph.extend_from_edge_list([(s, t) for s, t in _edges(structure) if not goal[s]])
    graph.extend_from_edge_list([(s, sink) for s in range(structure.size) if goal[s]])
    idom = rx.immediate_dominators(graph, structure.initial)
    if sink not in idom:
        return set()  # the goal is unreachable: V(s0) = 0, nothing can reduce it further
    result = set()
    node = idom[sink]
    while node != structure.initial:
        if not goal[node]:
            result.add(node)
        node = idom[node]
    return result


def bottleneck_column(arrays: ChoiceArrays, goal: np.ndarray, initial: int) -> np.ndarray:
    """Per state, whether it is a bottleneck: the dominators of a sink behind the goal states
    (``by_dominators``), found as the cut vertices of one unit of flow.

    Every state v is split into v_in -> v_out (capacity 1), every edge s -> t of the graph
    (goal states lead only to the sink) is s_out -> t_in. One shortest path P from s0 to the
    sink carries one unit of flow. If the residual graph still has a path from s0 to the sink,
    two state-disjoint paths exist and no state is a bottleneck. Otherwise the flow is maximal,
    and v on P is a bottleneck iff its edge v_in -> v_out lies in a minimum cut, i.e. iff v_in
    and v_out lie in different strongly connected components of the residual graph (a
    saturated edge is in some minimum cut iff its head is not reachable from its tail there)."""
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    n = arrays.size
    column = np.zeros(n, dtype=bool)
    if not goal.any() or goal[initial]:
        return column
    sink = n
    nodes = n + 1
    kind = np.int32 if 2 * nodes < np.iinfo(np.int32).max else np.int64  # half the memory at 10^7
    src, dst = arrays.edges
    keep = ~goal[src]
    goals = np.flatnonzero(goal).astype(kind)
    src = np.concatenate([src[keep].astype(kind), goals])
    dst = np.concatenate([dst[keep].astype(kind), np.full(len(goals), sink, dtype=kind)])
    graph = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(nodes, nodes))
    _, parent = breadth_first_order(graph, initial, directed=True, return_predecessors=True)
    del graph
    if parent[sink] < 0:
        return column  # the goal is unreachable: V(s0) = 0, nothing can reduce it further
    walked = [sink]
    while walked[-1] != initial:
        walked.append(int(parent[walked[-1]]))
    path = np.array(walked[::-1], dtype=kind)  # s0, ..., sink
    inner = path[1:-1]
    # the residual graph: v_in = v, v_out = v + nodes
    out: Any = kind(nodes)
    on_path = np.zeros(nodes, dtype=bool)
    on_path[inner] = True
    split = np.flatnonzero(~on_path).astype(kind)  # v_in -> v_out, full on P: reversed there
    arcs = (
        (src + out, dst),  # s_out -> t_in (infinite capacity: the flow leaves it usable)
        (path[1:], path[:-1] + out),  # the flow's edges reversed: t_in -> s_out
        (split, split + out),
        (inner + out, inner),  # P's split edges reversed: v_out -> v_in
    )
    tails = np.concatenate([a for a, _ in arcs])
    heads = np.concatenate([b for _, b in arcs])
    del src, dst, split, arcs
    residual = csr_matrix(
        (np.ones(len(tails), dtype=np.int8), (tails, heads)), shape=(2 * nodes, 2 * nodes)
    )
    del tails, heads
    reached = breadth_first_order(residual, initial + out, directed=True, return_predecessors=False)
    if np.isin(sink, reached):
        return column  # a second, state-disjoint path: no single state cuts the goal off
    _, component = connected_components(residual, directed=True, connection="strong")
    cut = inner[component[inner] != component[inner + out]]
    column[cut[~goal[cut]]] = True
    return column
