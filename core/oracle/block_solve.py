"""Policy iteration's linear solves block by block, in the chain's topological order, each
block's LU factors kept for the next round while its rows stay the same.

A policy's chain ``I - P_π`` is block triangular once its states are ordered by strongly
connected component: each component's values follow from its own rows and the values of the
components it leads to. So the system is solved component by component, and a component whose
rows did not change since the last round keeps its factors. On the slippery gridworld of 10^5
states the chain has two components of about 44,000 states and some 2,000 small ones; in the
last 60 of its 105 rounds the policy changes in one of the two halves only, and the other keeps
its factors.

Each large component is factorised in a nested-dissection order of its own graph
(``ordering``): a 44,000-state half factorises in 0.05 s so, against 0.08 s in the order of the
whole model's graph restricted to it (1.4 million entries in its factors against 0.9). The order
is kept while the component's states stay nearly the same (``SAME_STATES``), since METIS takes
0.18 s; states that joined it since are eliminated last. Components of fewer than ``SMALL``
states are solved together in runs (components consecutive in the order), each run by one
factorisation, which costs far less than a call per component (a run of ``SMALL`` states or
more is ordered as a large block is, a shorter one by SuperLU, COLAMD).

Where two large blocks are factorised in one round, a helper thread factorises one of them
meanwhile (SuperLU lets go of the interpreter): in the first 45 rounds on the slippery grid both
halves change, and two take 0.06 s on two cores instead of 0.11 s. The helper also frees what it
made (``_Permuted.release``).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import SuperLU, splu

from explaincheck.core.oracle.cores import available_cores
from explaincheck.core.oracle.ordering import nested_dissection

SMALL = 2_000  # components below this many states are solved together in runs
SAME_STATES = 0.99  # a large block keeps its order while this share of its states had it


class _Solves(Protocol):
    def solve(self, rhs: np.ndarray) -> np.ndarray: ...


class _Permuted:
    """LU factors of a block with its rows and columns in ``order``: solves in the block's
    own positions. ``owner``: the helper thread that made them, which must also free them
    (``release``): SciPy's SuperLU tracks its memory per thread, and factors made in one thread
    and freed in another are never freed (SciPy issue 15921; 1.1 GB after 60 factorisations of a
    44,000-state block here)."""

    def __init__(self, square: csr_matrix, order: np.ndarray):
        self.order = order
        permuted = square[order][:, order].tocsc()
        self.factors: SuperLU | None = splu(permuted, permc_spec="NATURAL", diag_pivot_thresh=0.0)
        self.owner: ThreadPoolExecutor | None = None

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        assert self.factors is not None, "solved after release"
        x = np.empty_like(rhs)
        x[self.order] = self.factors.solve(rhs[self.order])
        return x

    def release(self) -> None:
        """Free the factors in the thread that made them."""
        if self.owner is None:
            self.factors = None
        else:
            self.owner.submit(setattr, self, "factors", None)


@dataclass(frozen=True)
class _Order:
    """A large block's states (ascending ids) and the order they were factorised in."""

    states: np.ndarray
    order: np.ndarray  # positions in ``states``, in the order eliminated

    def rank(self) -> np.ndarray:
        """When each state was eliminated."""
        return np.argsort(self.order)


class BlockSolver:
    """Solves one policy's system after another, keeping each block's factors of the last
    round by the model's choice rows its states take (a block whose states take the same rows
    has the same matrix) and the orders of the large blocks by their states.

    ``ordered``: large blocks are factorised in nested-dissection orders (worth it once several
    rounds are to come: ``values.ORDER_FROM_ROUND``); otherwise every block in SuperLU's own."""

    def __init__(self, ordered: bool = False, helper: bool = True):
        self.ordered = ordered
        self.reused = 0  # blocks whose factors were reused, over all rounds
        self.factorised = 0  # blocks factorised, over all rounds
        self.helped = 0  # of those, factorised by the helper thread
        self._factors: dict[bytes, _Solves] = {}
        self._orders: list[_Order] = []  # the large blocks' orders of the last round
        # a second thread factorises one large block while this one does another (SuperLU
        # lets go of the interpreter): on two cores two halves take 0.10 s instead of 0.18 s
        self._helper = ThreadPoolExecutor(1) if helper and available_cores() > 1 else None

    def solve(
        self,
        matrix: csr_matrix,
        rhs: np.ndarray,
        states: np.ndarray,
        rows: np.ndarray,
        steps: int = 1,
    ) -> np.ndarray:
        """x with ``matrix @ x = rhs``: ``matrix`` is I - the chain on ``states`` (ascending
        ids), which take the model's choice rows ``rows``; then ``steps`` of iterative
        refinement with the same factors (``values._refined_solve`` says why one)."""
        blocks = _blocks(matrix)
        keys = [rows[block].tobytes() for block in blocks]
        # factors no block takes again are freed before any new one is made (peak memory)
        reusable = {key: self._factors.pop(key) for key in keys if key in self._factors}
        self._release(self._factors.values())
        orders: list[_Order] = []
        solvers: list[_Solves | None] = []
        large: list[tuple[int, csr_matrix, np.ndarray]] = []  # (index, matrix, order) to factorise
        for index, (block, key) in enumerate(zip(blocks, keys, strict=True)):
            solver = reusable.get(key)
            if solver is not None:
                self.reused += 1
                if isinstance(solver, _Permuted):
                    orders.append(_Order(states[block], solver.order))
            else:
                self.factorised += 1
                square = matrix[block][:, block]
                order = self._order(square, states[block], orders)
                if order is None:
                    solver = splu(square.tocsc(), permc_spec="COLAMD", diag_pivot_thresh=0.0)
                else:
                    large.append((index, square, order))
            solvers.append(solver)
        for index, made in self._permuted(large):
            solvers[index] = made
        done = [solver for solver in solvers if solver is not None]
        self._factors = dict(zip(keys, done, strict=True))
        self._orders = orders
        parts = [matrix[block] for block in blocks]
        x = _substitute(parts, blocks, done, rhs)
        for _ in range(steps):
            residual = rhs - matrix @ x
            if not np.any(residual):
                break
            x = x + _substitute(parts, blocks, done, residual)
        return x

    def close(self) -> None:
        """Free every block's factors (in the thread that made them) and stop the helper; it
        may still solve afterwards, without the helper."""
        self._release(self._factors.values())
        self._factors = {}
        if self._helper is not None:
            self._helper.shutdown(wait=True)
            self._helper = None

    def _release(self, solvers: Iterable[_Solves]) -> None:
        for solver in solvers:
            if isinstance(solver, _Permuted):
                solver.release()

    def _order(
        self, square: csr_matrix, states: np.ndarray, orders: list[_Order]
    ) -> np.ndarray | None:
        """A large block's nested-dissection order (the last round's where its states are
        nearly the same, ``orders`` told); None for a block SuperLU orders itself."""
        if not self.ordered or len(states) < SMALL:
            return None
        order = self._known_order(states)
        if order is None:
            order = nested_dissection(square)
        orders.append(_Order(states, order))
        return order

    def _permuted(
        self, large: list[tuple[int, csr_matrix, np.ndarray]]
    ) -> list[tuple[int, _Permuted]]:
        """The large blocks' factors, one of every two made by the helper meanwhile."""
        helped = []
        if self._helper is not None and len(large) > 1:
            for index, square, order in large[1::2]:
                helped.append((index, self._helper.submit(_Permuted, square, order)))
                self.helped += 1
            large = large[::2]
        made = [(index, _Permuted(square, order)) for index, square, order in large]
        for index, pending in helped:
            permuted = pending.result()
            permuted.owner = self._helper
            made.append((index, permuted))
        return made

    def _known_order(self, states: np.ndarray) -> np.ndarray | None:
        """An order of ``states`` from a large block of the last round that had nearly all of
        them: its order restricted to them, the states new to it last."""
        for known in self._orders:
            if len(known.states) == len(states) and np.array_equal(known.states, states):
                return known.order
            if abs(len(known.states) - len(states)) > (1 - SAME_STATES) * len(states):
                continue
            at = np.minimum(np.searchsorted(known.states, states), len(known.states) - 1)
            had = known.states[at] == states
            if had.mean() < SAME_STATES:
                continue
            position = np.where(had, known.rank()[at], len(known.states) + np.arange(len(states)))
            return np.argsort(position, kind="stable")
        return None


def _substitute(
    rows: list[csr_matrix], blocks: list[np.ndarray], solvers: list[_Solves], rhs: np.ndarray
) -> np.ndarray:
    """Block back substitution: each block solved once the blocks it leads to are."""
    x = np.zeros(len(rhs))
    for block_rows, block, solver in zip(rows, blocks, solvers, strict=True):
        # the block's own entries of x are still 0: the product sees only solved blocks
        x[block] = solver.solve(rhs[block] - block_rows @ x)
    return x


def _blocks(matrix: csr_matrix) -> list[np.ndarray]:
    """The rows (ascending positions) of each block, in an order in which every block comes after
    the blocks it leads to: strongly connected components of ``SMALL`` states or more on their
    own, the others in runs of components consecutive in that order (as few runs as there are
    gaps between large components)."""
    count, label = connected_components(matrix, directed=True, connection="strong")
    if count == 1:
        return [np.arange(matrix.shape[0])]
    rank = _solve_order(matrix, count, label)  # rank[c]: when component c is solved
    sizes = np.bincount(label, minlength=count)[np.argsort(rank)]  # by rank from here on
    large = sizes >= SMALL
    starts = large.copy()  # a block starts at each large component and right after one
    starts[1:] |= large[:-1]
    starts[0] = True
    block_of = np.cumsum(starts) - 1  # per rank
    position_block = block_of[rank[label]]
    order = np.argsort(position_block, kind="stable")  # positions stay ascending in a block
    bounds = np.searchsorted(position_block[order], np.arange(int(block_of[-1]) + 2))
    return [order[low:high] for low, high in pairwise(bounds.tolist())]


def _solve_order(matrix: csr_matrix, count: int, label: np.ndarray) -> np.ndarray:
    """A rank per component such that a component ranks after every one it leads to. SciPy
    numbers strongly connected components as its search completes them, sinks first, which is
    such a ranking: that is checked on every edge, and a topological sort (Kahn's) is the
    fallback should a SciPy release number them otherwise."""
    source = np.repeat(label, np.diff(matrix.indptr))
    target = label[matrix.indices]
    across = source != target
    if np.all(target[across] < source[across]):
        return np.arange(count)
    edges = np.unique(source[across] * count + target[across])
    leads_from, leads_to = np.divmod(edges, count)
    waiting = np.bincount(leads_from, minlength=count).tolist()  # components each waits for
    waited_by = csr_matrix(
        (np.ones(len(edges), dtype=np.int8), (leads_to, leads_from)), shape=(count, count)
    )
    indptr, indices = waited_by.indptr.tolist(), waited_by.indices.tolist()
    ready = [c for c in range(count) if waiting[c] == 0]
    rank = np.empty(count, dtype=np.int64)
    for position in range(count):
        component = ready.pop()
        rank[component] = position
        for other in indices[indptr[component] : indptr[component + 1]]:
            waiting[other] -= 1
            if waiting[other] == 0:
                ready.append(other)
    return rank
