"""Policy iteration's linear systems on one fixed pattern, for MKL's PARDISO (``pardiso.py``).

Round after round, policy iteration solves ``(I - P_π) x = P_π 1_fixed`` on the states that
reach the fixed ones under the policy π (``values._evaluate``). Here every round's matrix is
written into one pattern, laid out once: the candidates (neither fixed nor pinned to zero), each
with the diagonal and every candidate successor of any of its choices. A candidate that does not
reach the fixed states under π gets the row of the identity and a zero right-hand side, so its
value is exactly 0, as when it is left out. PARDISO then analyses once and each round only
refactorises numbers, where SuperLU analyses and factorises each round's matrix afresh.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix, identity

from explaincheck.core.oracle.arrays import ChoiceArrays, entries_of
from explaincheck.core.oracle.pardiso import PatternFactor


class PolicySystems:
    """``I - P_π`` for any policy π of ``arrays``, on the states that are neither ``fixed``
    (value 1) nor ``zero``, factorised and solved by PARDISO."""

    def __init__(self, arrays: ChoiceArrays, fixed: np.ndarray, zero: np.ndarray) -> None:
        self._arrays = arrays
        self._fixed = fixed
        self.states = np.flatnonzero(~fixed & ~zero)
        size = len(self.states)
        self._position = np.full(arrays.size, -1, dtype=np.int64)
        self._position[self.states] = np.arange(size)
        rows = arrays.rows
        row_at = self._position[arrays.entry_states()]
        column_at = self._position[rows.indices]
        inside = (row_at >= 0) & (column_at >= 0)
        ones = np.ones(int(inside.sum()), dtype=np.int8)
        links = csr_matrix((ones, (row_at[inside], column_at[inside])), shape=(size, size))
        pattern = (links + identity(size, dtype=np.int8, format="csr")).tocsr()
        pattern.sum_duplicates()  # also sorts each row's columns, as PARDISO wants
        self._pattern = pattern
        key = np.repeat(np.arange(size, dtype=np.int64), np.diff(pattern.indptr)) * size
        key += pattern.indices
        # per entry of ``arrays.rows``: its place in the pattern (-1: a column outside it)
        self._slot = np.full(len(rows.indices), -1, dtype=np.int64)
        self._slot[inside] = np.searchsorted(key, row_at[inside] * size + column_at[inside])
        self._diagonal = np.searchsorted(key, np.arange(size, dtype=np.int64) * (size + 1))
        self._factor = PatternFactor(pattern)

    def values(self, policy: np.ndarray, free: np.ndarray) -> np.ndarray:
        """V under ``policy`` on ``self.states`` (in that order): solved where ``free`` (the
        states reaching the fixed ones under it), 0 elsewhere. Raises ``PardisoError`` where
        PARDISO failed (``PivotPerturbed``: it would have perturbed a pivot)."""
        rows = self._arrays.rows
        chosen = (self._arrays.first_row[:-1] + policy)[self.states[free[self.states]]]
        entries = entries_of(rows, chosen)
        data = np.zeros(self._pattern.nnz)
        data[self._diagonal] = 1.0
        slot = self._slot[entries]
        inside = slot >= 0
        np.subtract.at(data, slot[inside], rows.data[entries[inside]])
        entry_row = np.repeat(
            self._position[self._arrays.state_of_row[chosen]], np.diff(rows.indptr)[chosen]
        )
        to_fixed = self._fixed[rows.indices[entries]]
        rhs = np.bincount(
            entry_row[to_fixed],
            weights=rows.data[entries[to_fixed]],
            minlength=len(self.states),
        )
        self._factor.factor(data)
        matrix = csr_matrix((data, self._pattern.indices, self._pattern.indptr))
        x = self._factor.solve(rhs)
        x = x + self._factor.solve(rhs - matrix @ x)  # one step of refinement, as SuperLU's
        x[~free[self.states]] = 0.0
        return x

    def close(self) -> None:
        self._factor.close()
