"""The nested-dissection order of the policy-iteration solves' large blocks: a true permutation,
the same values as SuperLU's own order, and less fill than SuperLU's own order of a block."""

from __future__ import annotations

import numpy as np
import pytest
from oracle_helpers import gridworld_arrays
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import splu

from explaincheck.core.oracle import block_solve
from explaincheck.core.oracle.arrays import reaching
from explaincheck.core.oracle.block_solve import BlockSolver
from explaincheck.core.oracle.ordering import nested_dissection
from explaincheck.core.oracle.values import _attractor_policy, _evaluate


@pytest.fixture(scope="module")
def grid40(tmp_path_factory):
    return gridworld_arrays(tmp_path_factory.mktemp("grid"), 40)


def test_the_order_is_a_permutation_of_every_state():
    # a 4-cycle with a chord and one isolated state (METIS must still place it)
    graph = csr_matrix(
        (np.ones(5), ([0, 1, 2, 3, 0], [1, 2, 3, 0, 2])), shape=(5, 5), dtype=np.int8
    )
    order = nested_dissection(graph)
    assert sorted(order.tolist()) == [0, 1, 2, 3, 4]


def test_a_graph_without_edges_keeps_its_order():
    assert nested_dissection(csr_matrix((3, 3), dtype=np.int8)).tolist() == [0, 1, 2]


def test_ordered_solves_give_the_same_values(grid40, monkeypatch):
    arrays, goal = grid40
    zero = ~reaching(arrays.state_graph, goal)
    policy = _attractor_policy(arrays, goal)
    plain = _evaluate(arrays, policy, goal, zero)
    monkeypatch.setattr(block_solve, "SMALL", 100)  # the grid's components are large blocks
    ordering = BlockSolver(ordered=True, helper=False)
    ordered = _evaluate(arrays, policy, goal, zero, blocks=ordering)
    assert ordering.factorised >= 1
    assert 0.01 < plain[0] < 1.0  # a real, non-trivial value at the initial state
    assert np.abs(plain - ordered).max() <= 1e-12


def test_a_blocks_own_order_has_less_fill_than_superlus(grid40):
    """SuperLU's COLAMD orders each matrix afresh; a block's own nested-dissection order (what
    ``BlockSolver`` factorises a large block in) must not fill more (the states' own,
    row-by-row order has 1.8x COLAMD's fill here)."""
    arrays, goal = grid40
    chain = arrays.rows[arrays.first_row[:-1] + _attractor_policy(arrays, goal)]
    solved = reaching(chain, goal) & ~goal  # the states a solve covers
    free = np.flatnonzero(solved)
    square = (identity(len(free)) - chain[free][:, free]).tocsr()
    own = nested_dissection(square)

    def fill(matrix, spec):
        factor = splu(matrix.tocsc(), permc_spec=spec, diag_pivot_thresh=0.0)
        return factor.L.nnz + factor.U.nnz

    assert fill(square[own][:, own], "NATURAL") <= fill(square, "COLAMD")
    assert fill(square, "NATURAL") > 1.5 * fill(square, "COLAMD")  # the states' own order is poor
