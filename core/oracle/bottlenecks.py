"""Bottleneck states: those every path from the initial state to the goal must pass.

docs/method.md §1: s (not initial, not goal) is a bottleneck iff making s absorbing makes the goal
unreachable from s0. As Pmax(s0) > 0 iff a path exists, these are exactly the dominators of a
virtual sink placed behind all goal states, found in near-linear time from one dominator tree
(``by_dominators``). ``storm.checking.by_rechecking`` is the paper's definition run literally,
one Storm model check per state with that state made absorbing; it is kept as the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import rustworkx as rx

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


def by_dominators_arrays(arrays: ChoiceArrays, goal: np.ndarray, initial: int) -> set[int]:
    """``by_dominators`` on ``ChoiceArrays``: the edge list is built by numpy, not Python."""
    if not goal.any():
        return set()
    sink = arrays.size
    src, dst = arrays.edges
    keep = ~goal[src]
    goals = np.flatnonzero(goal)
    src = np.concatenate([src[keep], goals])
    dst = np.concatenate([dst[keep], np.full(len(goals), sink)])
    graph = rx.PyDiGraph(multigraph=False)
    graph.add_nodes_from(range(sink + 1))
    graph.extend_from_edge_list(list(zip(src.tolist(), dst.tolist(), strict=True)))
    idom = rx.immediate_dominators(graph, initial)
    if sink not in idom:
        return set()
    result = set()
    node = idom[sink]
    while node != initial:
        if not goal[node]:
            result.add(node)
        node = idom[node]
    return result
