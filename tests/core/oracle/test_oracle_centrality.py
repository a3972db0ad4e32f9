"""Betweenness centrality (rustworkx) equals networkx's exact normalised betweenness."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from oracle_helpers import model

from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle.centrality import betweenness
from explaincheck.core.oracle.storm.structure import Choice, ModelStructure
from explaincheck.core.oracle.types import OracleRequest, OracleResult


def random_structure(n: int, seed: int) -> ModelStructure:
    """A random MDP-shaped graph: 1-3 choices per state, 1-3 successors per choice."""
    rng = random.Random(seed)
    choices = []
    for _ in range(n):
        state_choices = []
        for _ in range(rng.randint(1, 3)):
            targets = rng.sample(range(n), rng.randint(1, min(3, n)))
            state_choices.append(Choice("a", {t: 1 / len(targets) for t in targets}))
        choices.append(state_choices)
    return ModelStructure(0, [{} for _ in range(n)], [()] * n, choices, (), ())


def networkx_graph(structure: ModelStructure) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(structure.size))
    graph.add_edges_from(
        (s, t)
        for s, state_choices in enumerate(structure.choices)
        for c in state_choices
        for t, p in c.probabilities.items()
        if p > 0 and t != s
    )
    return graph


@pytest.mark.parametrize(("n", "seed"), [(1, 0), (2, 0), (3, 1), (8, 2), (20, 3), (60, 4)])
def test_random_graphs(n, seed):
    structure = random_structure(n, seed)
    expected = nx.betweenness_centrality(networkx_graph(structure), normalized=True)
    scores = betweenness(structure)
    assert scores == pytest.approx([expected[i] for i in range(n)], abs=1e-12)
    assert all(0.0 <= s <= 1.0 for s in scores)


def test_path_graph_by_hand():
    # 0 -> 1 -> 2 -> 3: state 1 lies on 0->2, 0->3 (2 of (n-1)(n-2) = 6 ordered pairs)
    choices = [[Choice("a", {min(i + 1, 3): 1.0})] for i in range(4)]
    structure = ModelStructure(0, [{}] * 4, [()] * 4, choices, (), ())
    assert betweenness(structure) == pytest.approx([0, 2 / 6, 2 / 6, 0])


def oracle_graph(result: OracleResult) -> nx.DiGraph:
    """The underlying graph as the oracle reports it (successors of every action)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(s.id for s in result.states)
    graph.add_edges_from(
        (s.id, t)
        for s in result.states
        for successors in s.successors.values()
        for t, p in successors.items()
        if p > 0 and t != s.id
    )
    return graph


@pytest.mark.parametrize(
    "request_of",
    [
        lambda: OracleRequest(model("chain")),
        lambda: OracleRequest(model("gambler"), constants="N=5"),
        lambda: load_builtin("frozen_lake").request(),
        lambda: load_builtin("wolf_goat_cabbage").request(),
        lambda: load_builtin("water_jug").request(),
        lambda: load_builtin("dam").request(),
    ],
    ids=["chain", "gambler", "frozen_lake", "wolf_goat_cabbage", "water_jug", "dam"],
)
def test_oracle_centrality_matches_networkx(oracle, request_of):
    result = oracle(request_of())
    expected = nx.betweenness_centrality(oracle_graph(result), normalized=True)
    assert [s.centrality for s in result.states] == pytest.approx(
        [expected[s.id] for s in result.states], abs=1e-12
    )


def test_distinct_edges_are_sorted_and_without_self_loops():
    import numpy as np

    from explaincheck.core.oracle.arrays import distinct_edges

    sources = np.array([2, 0, 0, 1, 2, 0, 3])
    targets = np.array([0, 1, 1, 1, 0, 3, 0])
    src, dst = distinct_edges(sources, targets)
    assert list(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 1), (0, 3), (2, 0), (3, 0)]
    # an edge repeated 256 times (a byte-sized count would wrap to 0) is still one edge
    src, dst = distinct_edges(np.array([4] * 256 + [0]), np.array([2] * 256 + [4]))
    assert list(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 4), (4, 2)]


def test_networkit_loads_without_its_plotting_and_hides_nothing_afterwards():
    """In a fresh interpreter: the sampler works, networkit did not pull in matplotlib.pyplot,
    and both hidden modules import normally afterwards."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import sys
        from explaincheck.core.oracle.centrality import load_sampler
        nk = load_sampler()
        assert "matplotlib.pyplot" not in sys.modules
        assert nk.centrality.ApproxBetweenness is not None
        import matplotlib.pyplot, networkx
        assert sys.modules["networkx"] is networkx
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "ok", done.stderr
