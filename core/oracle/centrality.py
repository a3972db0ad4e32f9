"""Betweenness centrality C_B(s) on the MDP's underlying directed graph.

Edge s -> s' iff some action reaches s' with positive probability (self-loops ignored). Exact
Brandes betweenness from rustworkx (Rust, parallel), normalised by (n-1)(n-2) like networkx, so
values lie in [0, 1] as δ requires; networkx's pure-Python version is only the test reference.
"""

from __future__ import annotations

import rustworkx as rx
from explaincheck.core.oracle.structure import ModelStructure


def betweenness(structure: ModelStructure) -> list[float]:
    graph = rx.PyDiGraph(multigraph=False)
    graph.add_nodes_from(range(structure.size))
    graph.extend_from_edge_list(
        [
            (state, successor)
            for state, state_choices in enumerate(structure.choices)
            for choice in state_choices
            for successor, probability in choice.probabilities.items()
            if probability > 0 and successor != state
        ]
    )
    if structure.size < 3:
        return [0.0] * structure.size
    scores = rx.digraph_betweenness_centrality(graph, normalized=True)
    return [float(scores[i]) for i in range(structure.size)]
