"""Policy iteration's block-by-block solves (``block_solve``): the same solution as one solve of
the whole system, blocks taken after the blocks they lead to, factors kept exactly while a
block's rows are the same, and a large block's nested-dissection order kept while its states
barely change."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import spsolve

from explaincheck.core.oracle import block_solve
from explaincheck.core.oracle.block_solve import BlockSolver, _blocks, _Order, _solve_order
from explaincheck.core.oracle.cores import available_cores

LEAK = 0.05  # each state's probability of leaving the system (to a solved state)


def _chain(sizes: list[int], seed: int, choice: np.ndarray | None = None) -> csr_matrix:
    """A substochastic chain whose strongly connected components have ``sizes`` (in this
    order, each a ring with random chords), each leading to earlier ones; ``choice`` (0 or 1
    per state) picks one of two random rows for a state, as a policy would."""
    total = sum(sizes)
    choice = np.zeros(total, dtype=int) if choice is None else choice
    rows, columns, weights = [], [], []
    start = 0
    for size in sizes:
        members = np.arange(start, start + size)
        for k, state in enumerate(members):
            local = np.random.default_rng(seed * 7919 + state * 2 + int(choice[state]))
            targets = {int(members[(k + 1) % size])} if size > 1 else set()
            targets |= set(local.choice(members, size=min(2, size)).tolist())
            if start:  # a way down to an earlier component
                targets.add(int(local.integers(0, start)))
            targets = sorted(targets)
            share = local.uniform(0.2, 1.0, size=len(targets))
            share *= (1 - LEAK) / share.sum()
            rows += [state] * len(targets)
            columns += targets
            weights += share.tolist()
        start += size
    return csr_matrix((weights, (rows, columns)), shape=(total, total))


def _system(chain: csr_matrix) -> csr_matrix:
    return (identity(chain.shape[0], format="csr") - chain).tocsr()


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(block_solve, "SMALL", 40)  # components of 40 states or more are large


SIZES = [1, 3, 60, 1, 2, 1, 50, 1, 45, 2, 1]


@pytest.mark.parametrize("ordered", [False, True])
def test_the_blocks_give_the_whole_systems_solution(ordered):
    system = _system(_chain(SIZES, seed=3))
    rhs = np.random.default_rng(0).uniform(0.0, 1.0, system.shape[0])
    states = np.arange(system.shape[0])
    solver = BlockSolver(ordered)
    found = solver.solve(system, rhs, states, rows=states * 2)
    solver.close()  # its factors freed and its helper stopped: it still solves, alone
    assert np.array_equal(solver.solve(system, rhs, states, rows=states * 2), found)
    expected = spsolve(system.tocsc(), rhs)
    assert np.abs(found - expected).max() <= 1e-13 * np.abs(expected).max()
    assert np.abs(system @ found - rhs).max() <= 1e-14


def test_each_block_comes_after_the_blocks_it_leads_to():
    system = _system(_chain(SIZES, seed=3))
    blocks = _blocks(system)
    # the three large components alone, the small ones in runs between them
    sizes = [len(block) for block in blocks]
    assert sorted(size for size in sizes if size >= 40) == [45, 50, 60]
    assert len(blocks) <= 7 and sum(sizes) == sum(SIZES)
    solved = np.zeros(system.shape[0], dtype=bool)
    for block in blocks:
        inside = np.zeros_like(solved)
        inside[block] = True
        leads_to = np.unique(system[block].indices)
        assert np.all(solved[leads_to] | inside[leads_to])
        solved |= inside
    assert solved.all()


def test_the_order_is_found_however_the_components_are_numbered():
    """SciPy numbers components sinks first, which is used when it holds; for any other
    numbering the topological sort is the fallback."""
    system = _system(_chain(SIZES, seed=5))
    from scipy.sparse.csgraph import connected_components

    count, label = connected_components(system, directed=True, connection="strong")
    shuffled = np.random.default_rng(1).permutation(count)[label]
    for numbering in (label, shuffled):
        rank = _solve_order(system, count, numbering)
        assert sorted(rank.tolist()) == list(range(count))
        source = np.repeat(numbering, np.diff(system.indptr))
        target = numbering[system.indices]
        across = source != target
        assert np.all(rank[target[across]] < rank[source[across]])
    assert _solve_order(system, count, label).tolist() == list(range(count))


def test_a_block_keeps_its_factors_while_its_rows_are_the_same(monkeypatch):
    total = sum(SIZES)
    states = np.arange(total)
    rhs = np.ones(total)
    solver = BlockSolver(ordered=True)
    orders = []
    monkeypatch.setattr(
        block_solve,
        "nested_dissection",
        lambda graph: orders.append(graph.shape[0]) or np.arange(graph.shape[0])[::-1].copy(),
    )
    solver.solve(_system(_chain(SIZES, seed=3)), rhs, states, rows=states * 2)
    assert (solver.factorised, solver.reused) == (7, 0)
    assert sorted(orders) == [45, 50, 60]  # each large block ordered once
    solver.solve(_system(_chain(SIZES, seed=3)), rhs, states, rows=states * 2)
    assert (solver.factorised, solver.reused) == (7, 7)  # nothing changed: nothing factorised
    # one state of the 50-state component takes its other row: that block alone is factorised
    choice = np.zeros(total, dtype=int)
    choice[70] = 1
    system = _system(_chain(SIZES, seed=3, choice=choice))
    found = solver.solve(system, rhs, states, rows=states * 2 + choice)
    assert (solver.factorised, solver.reused) == (8, 13)
    assert sorted(orders) == [45, 50, 60]  # the changed block kept its order: same states
    solver.close()
    expected = spsolve(system.tocsc(), rhs)
    assert np.abs(found - expected).max() <= 1e-13 * np.abs(expected).max()


def test_a_large_blocks_order_is_kept_only_while_its_states_are_nearly_the_same(monkeypatch):
    monkeypatch.setattr(block_solve, "SMALL", 100)
    states = np.arange(200)
    known = BlockSolver(ordered=True, helper=False)
    # state k was eliminated (k + 50) % 200 -th: positions 150..199 first, then 0..149
    order = np.concatenate([np.arange(150, 200), np.arange(150)])
    known._orders = [_Order(states, order)]
    assert known._known_order(states.copy()) is order  # the same states: the same order
    # one state in 200 new, one gone: the old order restricted, the new state last
    nearly = np.concatenate([states[1:199], [500]])
    found = known._known_order(nearly)
    assert found is not None
    assert nearly[found].tolist() == [*range(150, 199), *range(1, 150), 500]
    assert known._known_order(np.arange(100, 300)) is None  # half of them new: ordered afresh


HELPED = """
import json, sys
import numpy as np
from scipy.sparse import block_diag, diags, identity
from explaincheck.core.oracle import block_solve
from explaincheck.core.oracle.cores import available_cores
from explaincheck.core.oracle.block_solve import BlockSolver

def resident():
    with open("/proc/self/statm") as stream:
        return int(stream.read().split()[1]) * 4096

def grid(side, keep):  # I - a lazy walk on a side x side grid that keeps ``keep`` of its mass
    n = side * side
    walk = diags([1.0] * 4, [1, -1, side, -side], shape=(n, n), format="csr") * (keep / 4)
    return identity(n, format="csr") - walk

side = 110  # two blocks of 12,100 states, each refactorised every round
seen, solver = [], BlockSolver(ordered=True)
for round in range(40):
    keep = 0.9 + 0.001 * (round % 7)  # new numbers each round: no factors kept
    system = block_diag([grid(side, keep), grid(side, keep)], format="csr")
    states = np.arange(system.shape[0])
    x = solver.solve(system, np.ones(len(states)), states, states * 1000 + round)
    assert np.abs(system @ x - 1.0).max() < 1e-12
    seen.append(resident())
solver.close()
print(json.dumps([solver.helped, solver.factorised, seen[9], seen[-1]]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/statm")
@pytest.mark.skipif(available_cores() < 2, reason="the helper thread needs two cores")
def test_the_helpers_factors_are_freed_by_the_helper():
    """SciPy's SuperLU frees a factor's memory only in the thread that made it (SciPy issue
    15921): freed from the main thread, 40 rounds of a helper-made block would keep ~200 MB."""
    command = [sys.executable, "-c", HELPED]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    helped, factorised, after_ten, after_forty = json.loads(run.stdout.strip().splitlines()[-1])
    assert factorised == 80 and helped == 40  # one block of each round's two by the helper
    assert after_forty - after_ten < 40 * 2**20
