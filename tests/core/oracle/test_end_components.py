"""Maximal end components and the almost-sure states against the textbook algorithms, written
out state by state with networkx on 300 random MDPs: the same components, the same choices that
stay inside, the same states with Pmax [F target] = 1."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.end_components import almost_sure, maximal_end_components


def _random_mdp(seed: int) -> tuple[list[list[set[int]]], np.ndarray]:
    """Each state's choices as successor sets, and random candidates."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 25))
    choices = [
        [
            {int(t) for t in rng.choice(size, int(rng.integers(1, 4)), replace=True)}
            for _ in range(int(rng.integers(1, 4)))
        ]
        for _ in range(size)
    ]
    candidates = rng.random(size) < 0.85
    return choices, candidates


def _arrays(choices: list[list[set[int]]]) -> ChoiceArrays:
    rows = [sorted(successors) for state in choices for successors in state]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    columns = np.array([t for r in rows for t in r], dtype=np.int64)
    data = np.concatenate([np.full(len(r), 1.0 / len(r)) for r in rows])
    first_row = np.concatenate([[0], np.cumsum([len(state) for state in choices])])
    return ChoiceArrays(csr_matrix((data, columns, indptr), (len(rows), len(choices))), first_row)


def _textbook(choices: list[list[set[int]]], candidates: np.ndarray) -> tuple[list, set]:
    """Drop choices that leave the set or their SCC, and states without a choice, until none
    changes: the components as a set of frozensets, and the (state, choice) pairs kept."""
    states = {s for s in range(len(choices)) if candidates[s]}
    kept = {(s, i) for s in states for i in range(len(choices[s]))}
    while True:
        kept = {(s, i) for s, i in kept if s in states and choices[s][i] <= states}
        states = {s for s, _ in kept}
        graph = nx.DiGraph()
        graph.add_nodes_from(states)
        graph.add_edges_from((s, t) for s, i in kept for t in choices[s][i])
        component = {}
        for number, members in enumerate(nx.strongly_connected_components(graph)):
            for s in members:
                component[s] = number
        staying = {
            (s, i) for s, i in kept if all(component[t] == component[s] for t in choices[s][i])
        }
        if staying == kept:
            groups: dict[int, set[int]] = {}
            for s in states:
                groups.setdefault(component[s], set()).add(s)
            return {frozenset(g) for g in groups.values()}, kept
        kept = staying


@pytest.mark.parametrize("seed", range(300))
def test_the_components_are_the_textbooks(seed):
    choices, candidates = _random_mdp(seed)
    found = maximal_end_components(_arrays(choices), candidates)
    expected, kept = _textbook(choices, candidates)
    groups: dict[int, set[int]] = {}
    for s, c in enumerate(found.component.tolist()):
        if c >= 0:
            groups.setdefault(c, set()).add(s)
    assert {frozenset(g) for g in groups.values()} == expected
    assert found.count == len(expected)
    pairs = [(s, i) for s in range(len(choices)) for i in range(len(choices[s]))]
    assert {
        pair for pair, inside in zip(pairs, found.internal.tolist(), strict=True) if inside
    } == kept


def test_random_models_have_components_and_leave_some_out():
    # the property above is only worth something if the random models have both
    counts = [maximal_end_components(_arrays(c), k).count for c, k in map(_random_mdp, range(300))]
    assert sum(c > 0 for c in counts) > 100
    assert sum(c == 0 for c in counts) > 10
    assert max(counts) >= 3


def _textbook_almost_sure(choices: list[list[set[int]]], target: set[int]) -> set[int]:
    """prob1E: keep the states with a path to the target through choices that stay in the set,
    until the set stays the same."""

    def ancestors(edges: list[tuple[int, int]]) -> set[int]:
        graph = nx.DiGraph(edges)
        graph.add_nodes_from(target)
        return set(target).union(*(nx.ancestors(graph, t) for t in target))

    everything = [(s, t) for s, state in enumerate(choices) for succ in state for t in succ]
    inside = ancestors(everything)
    while True:
        edges = [
            (s, t)
            for s in inside
            for successors in choices[s]
            if successors <= inside
            for t in successors
        ]
        winning = ancestors(edges) & inside
        if winning == inside:
            return winning
        inside = winning


@pytest.mark.parametrize("seed", range(300))
def test_the_almost_sure_states_are_the_textbooks(seed):
    choices, _ = _random_mdp(seed)
    target = np.random.default_rng(seed + 1000).random(len(choices)) < 0.2
    arrays = _arrays(choices)
    expected = _textbook_almost_sure(choices, set(np.flatnonzero(target).tolist()))
    graph = nx.DiGraph([(s, t) for s, state in enumerate(choices) for su in state for t in su])
    graph.add_nodes_from(range(len(choices)))
    can_reach = np.zeros(len(choices), dtype=bool)  # a path to the target, the target included
    for t in np.flatnonzero(target).tolist():
        can_reach[[t, *nx.ancestors(graph, t)]] = True
    found = almost_sure(arrays, target, can_reach)
    assert set(np.flatnonzero(found).tolist()) == expected


def test_random_targets_are_reached_almost_surely_by_some_not_all():
    sizes = []
    for seed in range(300):
        choices, _ = _random_mdp(seed)
        target = np.random.default_rng(seed + 1000).random(len(choices)) < 0.2
        sure = _textbook_almost_sure(choices, set(np.flatnonzero(target).tolist()))
        sizes.append((len(sure) - int(target.sum()), len(choices) - len(sure)))
    assert sum(more > 0 for more, _ in sizes) > 50  # states beyond the target itself
    assert sum(fewer > 0 for _, fewer in sizes) > 50  # and states left out
