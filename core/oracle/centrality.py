"""Betweenness centrality C_B(s) on the MDP's underlying directed graph.

Edge s -> s' iff some action reaches s' with positive probability (self-loops ignored). Up to
``EXACT_UP_TO`` states: exact Brandes betweenness from rustworkx (Rust, parallel), normalised by
(n-1)(n-2) like networkx, so values lie in [0, 1] as δ requires. Above it, exact costs O(V·E)
(minutes at 10^4 states, days at 10^6), so the Riondato–Kornaropoulos sampling estimator of
networkit (C++) is used instead: every state's score is within ±ε of the exact one, all at once,
with probability at least 1-δ; ε grows with the edge count beyond 400,000 edges so that the time
stays bounded (``epsilon_for``). Only the ranking of bottleneck candidates matters to δ, and the
tests check that it survives the approximation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explaincheck.core.oracle.arrays import distinct_edges

if TYPE_CHECKING:
    from explaincheck.core.oracle.storm.structure import ModelStructure
from types import ModuleType

EXACT_UP_TO = 5_000  # states; above this the sampling estimator is used
DELTA = 0.1  # failure probability of the approximation guarantee


@dataclass(frozen=True)
class Centrality:
    """Scores per state and how they were obtained (shown in the JSON and the GUI)."""

    scores: np.ndarray
    method: str  # "exact" or "approximate"
    epsilon: float = 0.0  # additive error bound on every score (approximate only)
    delta: float = 0.0  # probability that the bound fails (approximate only)

    def describe(self) -> str:
        if self.method == "exact":
            return "exact (Brandes)"
        return (
            f"approximate (Riondato–Kornaropoulos sampling): ±{self.epsilon:.3g} "
            f"with probability {1 - self.delta:.3g}"
        )


EDGES_AT_BASE_EPSILON = 400_000  # up to this many edges ε = 0.1; beyond, ε grows as √edges


def epsilon_for(states: int, edges: int = 0) -> float:
    """Additive error that keeps the time bounded: the sample count grows as 1/ε² and each
    sample is a BFS over all edges, so ε = 0.1·√(edges / 400,000) (at least 0.1) keeps the cost
    near that of 400,000 edges at ε = 0.1 (about 1,100 samples, a minute on one loaded core).
    On grid-like models ε = 0.05 costs 15 s of CPU at 10^4 states, ε = 0.1 a quarter of that."""
    return max(0.1, math.ceil(100 * 0.1 * math.sqrt(edges / EDGES_AT_BASE_EPSILON)) / 100)


def betweenness(structure: ModelStructure) -> list[float]:
    """Exact C_B of a ``ModelStructure`` (the small-model path and the tests' entry point)."""
    from explaincheck.core.oracle.arrays import choice_arrays

    arrays = choice_arrays(structure)
    result = estimate(structure.size, arrays.edge_sources, arrays.edge_targets, exact_up_to=10**12)
    return result.scores.tolist()


def estimate(
    size: int,
    sources: np.ndarray,
    targets: np.ndarray,
    *,
    exact_up_to: int = EXACT_UP_TO,
    seed: int = 1,
) -> Centrality:
    """C_B of every state of the graph with edges ``sources[i] -> targets[i]``."""
    src, dst = distinct_edges(sources, targets)
    if size < 3:
        return Centrality(np.zeros(size), "exact")
    if size <= exact_up_to:
        import rustworkx as rx  # here: a large model's oracle without centrality never needs it

        graph = rx.PyDiGraph(multigraph=False)
        graph.add_nodes_from(range(size))
        graph.extend_from_edge_list(list(zip(src.tolist(), dst.tolist(), strict=True)))
        scores = rx.digraph_betweenness_centrality(graph, normalized=True)
        return Centrality(np.array([float(scores[i]) for i in range(size)]), "exact")
    return _approximate(size, src, dst, epsilon_for(size, len(src)), DELTA, seed)


# networkit's package import pulls in matplotlib.pyplot, its profiling module (pandas, IPython)
# and networkx when they are installed: 2.8 s, where the sampling itself takes 0.6 s at 10^4
# states. Its __init__ skips them when their import fails, so they are hidden while it loads.
_NETWORKIT_EXTRAS = ("matplotlib.pyplot", "networkx")


def load_sampler() -> ModuleType:
    """networkit without its plotting, profiling and networkx adapters (0.3 s instead of 2.8 s);
    the hidden modules are restored at once, so later imports of them work as usual. Call it
    before starting other threads: while it runs, importing the hidden modules fails."""
    import sys

    if "networkit" in sys.modules:
        return sys.modules["networkit"]
    hidden = {name: sys.modules.get(name) for name in _NETWORKIT_EXTRAS}
    try:
        for name in _NETWORKIT_EXTRAS:
            sys.modules[name] = None  # type: ignore[assignment]  # makes ``import name`` fail
        import networkit
    finally:
        for name, module in hidden.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module
    return networkit


def _approximate(
    size: int, src: np.ndarray, dst: np.ndarray, epsilon: float, delta: float, seed: int
) -> Centrality:
    nk = load_sampler()

    nk.engineering.setSeed(seed, True)
    graph = nk.Graph(size, directed=True)
    graph.addEdges((src.astype(np.uint64), dst.astype(np.uint64)))
    estimator = nk.centrality.ApproxBetweenness(graph, epsilon=epsilon, delta=delta)
    estimator.run()
    # networkit divides by n(n-1) ordered pairs, rustworkx/networkx by (n-1)(n-2): rescale,
    # which scales the error bound by the same factor.
    factor = size / (size - 2)
    scores = np.clip(np.array(estimator.scores()) * factor, 0.0, 1.0)
    return Centrality(scores, "approximate", epsilon * factor, delta)
